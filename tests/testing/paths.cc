#include "tests/testing/paths.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace xlite::testing {

namespace fs = std::filesystem;

std::optional<std::string> SourceRoot() {
  std::error_code error;
  for (const char* candidate : {"WORKSPACE", "xlite/WORKSPACE"}) {
    fs::path path(candidate);
    if (fs::exists(path, error)) {
      fs::path real = fs::canonical(path, error);
      if (!error) return real.parent_path().string();
    }
  }
  if (const char* srcdir = std::getenv("TEST_SRCDIR")) {
    fs::path path = fs::path(srcdir) / "xlite" / "WORKSPACE";
    fs::path real = fs::canonical(path, error);
    if (!error) return real.parent_path().string();
  }
  return std::nullopt;
}

std::optional<std::string> SharedCorpusDir() {
  std::error_code error;
  if (const char* env = std::getenv("XLITE_HLO_CORPUS")) {
    if (fs::is_directory(env, error)) return std::string(env);
    return std::nullopt;
  }
  std::optional<std::string> root = SourceRoot();
  if (!root.has_value()) return std::nullopt;
  fs::path dir =
      fs::path(*root).parent_path() / "shared" / "hlo-corpus" / "real";
  if (fs::is_directory(dir, error)) return dir.string();
  return std::nullopt;
}

std::vector<std::string> ListFiles(const std::string& dir,
                                   const std::string& suffix) {
  std::vector<std::string> out;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    const std::string name = entry.path().string();
    if (name.size() >= suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      out.push_back(name);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace xlite::testing
