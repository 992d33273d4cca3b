#ifndef XLITE_PASSES_PASS_H_
#define XLITE_PASSES_PASS_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/ir/module.h"

namespace xlite {

/// A module-to-module rewrite. `Run` returns whether it changed the module;
/// an error leaves the module in an unspecified (but destructible) state.
class HloPass {
 public:
  virtual ~HloPass() = default;
  /// The registry name (XLA's name where XLA has the pass), e.g. "dce".
  virtual absl::string_view name() const = 0;
  virtual absl::StatusOr<bool> Run(HloModule& module) = 0;
};

}  // namespace xlite

#endif  // XLITE_PASSES_PASS_H_
