#include "passes/pipeline.h"

#include "absl/strings/str_cat.h"

namespace xlite {

absl::StatusOr<bool> Pipeline::Run(HloModule& module) const {
  bool changed = false;
  for (const auto& pass : passes_) {
    absl::StatusOr<bool> result = pass->Run(module);
    if (!result.ok()) {
      return absl::Status(
          result.status().code(),
          absl::StrCat("pass ", pass->name(), ": ", result.status().message()));
    }
    changed |= *result;
  }
  return changed;
}

}  // namespace xlite
