#ifndef XLITE_PASSES_PIPELINE_H_
#define XLITE_PASSES_PIPELINE_H_

#include <memory>
#include <vector>

#include "passes/pass.h"

namespace xlite {

/// An ordered list of passes run one after the other.
class Pipeline {
 public:
  void AddPass(std::unique_ptr<HloPass> pass) {
    passes_.push_back(std::move(pass));
  }
  const std::vector<std::unique_ptr<HloPass>>& passes() const {
    return passes_;
  }
  bool empty() const { return passes_.empty(); }

  /// Runs every pass once, in order; true if any changed the module.
  absl::StatusOr<bool> Run(HloModule& module) const;

 private:
  std::vector<std::unique_ptr<HloPass>> passes_;
};

}  // namespace xlite

#endif  // XLITE_PASSES_PIPELINE_H_
