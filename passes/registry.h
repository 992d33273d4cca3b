#ifndef XLITE_PASSES_REGISTRY_H_
#define XLITE_PASSES_REGISTRY_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "passes/pass.h"
#include "passes/pass_options.h"
#include "passes/pipeline.h"

namespace xlite {

/// How to build one pass by name. Every pass has one entry in the table in
/// pass_table.cc; tools know nothing else.
struct PassInfo {
  std::string name;
  std::string description;
  std::vector<PassOptionSpec> options;
  std::function<std::unique_ptr<HloPass>(const PassOptions&)> factory;
};

class PassRegistry {
 public:
  /// The table of every pass xlite has.
  static const PassRegistry& Global();

  explicit PassRegistry(std::vector<PassInfo> passes);

  /// Registered names, sorted.
  std::vector<std::string> Names() const;
  const PassInfo* Find(absl::string_view name) const;

  /// Builds a pipeline from "a,b{key=value,key2=value2},c". An empty spec
  /// gives the platform's default pipeline ("transforms": none).
  /// `defaults` supplies values for options a pass declares but the spec
  /// does not set (hlo-opt fills cudnn_version and compute_capability from
  /// --gpu-spec / --cudnn-version).
  absl::StatusOr<Pipeline> BuildPipeline(
      absl::string_view spec, absl::string_view platform,
      const std::map<std::string, std::string>& defaults = {}) const;

 private:
  std::vector<PassInfo> passes_;
};

/// The passes run by `--platform=cpu|gpu` when no --passes are given.
std::vector<std::string> PlatformPipeline(absl::string_view platform);

}  // namespace xlite

#endif  // XLITE_PASSES_REGISTRY_H_
