// The table of passes: one entry per pass, the only place a pass is named.
// `hlo-opt --passes=<name>` and `--list-passes` read it.

#include "passes/registry.h"

namespace xlite {

const PassRegistry& PassRegistry::Global() {
  static const PassRegistry* const kRegistry = new PassRegistry({
      // (No passes yet: the simplification passes arrive with issue 5.)
  });
  return *kRegistry;
}

std::vector<std::string> PlatformPipeline(absl::string_view platform) {
  (void)platform;
  return {};
}

}  // namespace xlite
