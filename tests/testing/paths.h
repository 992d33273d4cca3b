#ifndef XLITE_TESTS_TESTING_PATHS_H_
#define XLITE_TESTS_TESTING_PATHS_H_

#include <optional>
#include <string>
#include <vector>

namespace xlite::testing {

/// The source checkout's root, found by resolving the symlink of the
/// WORKSPACE file Bazel places in the test's runfiles (the test target must
/// list //:WORKSPACE in `data`). nullopt if it cannot be resolved.
std::optional<std::string> SourceRoot();

/// The shared real-HLO corpus: $XLITE_HLO_CORPUS if set, else
/// <checkout>/../shared/hlo-corpus/real. nullopt if it does not exist.
std::optional<std::string> SharedCorpusDir();

/// Files in `dir` whose names end with `suffix`, sorted.
std::vector<std::string> ListFiles(const std::string& dir,
                                   const std::string& suffix);

/// The whole file, or nullopt.
std::optional<std::string> ReadFile(const std::string& path);

}  // namespace xlite::testing

#endif  // XLITE_TESTS_TESTING_PATHS_H_
