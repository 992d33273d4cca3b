#ifndef XLITE_PASSES_PIPELINE_H_
#define XLITE_PASSES_PIPELINE_H_

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "passes/pass.h"

namespace xlite {

/// How a pipeline runs its passes (hlo-opt's --verify-each, --time-passes,
/// --dump-to).
struct PipelineRunOptions {
  /// Run the verifier after every pass; a failure names the pass.
  bool verify_each = false;
  /// Per-pass wall time and change flag, one line each, written here.
  std::ostream* timing = nullptr;
  /// Directory for XLA-named dumps: module_NNNN.<name>.before_optimizations.txt,
  /// module_NNNN.<name>.SSSS.<pipeline>.after_<pass>.txt and
  /// module_NNNN.<name>.after_optimizations.txt.
  std::string dump_to;
  /// The NNNN of the dump names (the module's position in the input).
  int module_index = 0;
};

/// An ordered list of passes run one after the other, once or (with
/// `set_fixed_point`) until none changes the module.
class Pipeline {
 public:
  explicit Pipeline(std::string name = "hlo-opt") : name_(std::move(name)) {}

  void AddPass(std::unique_ptr<HloPass> pass) {
    passes_.push_back(std::move(pass));
  }
  const std::vector<std::unique_ptr<HloPass>>& passes() const {
    return passes_;
  }
  bool empty() const { return passes_.empty(); }
  const std::string& name() const { return name_; }

  /// Repeat the whole list until a round changes nothing, at most
  /// `max_iterations` rounds (0: run once).
  void set_fixed_point(int max_iterations) { max_iterations_ = max_iterations; }

  /// Runs the passes; true if any changed the module. Scheduled modules
  /// keep a valid sequence (new instructions go before their first user).
  absl::StatusOr<bool> Run(HloModule& module,
                           const PipelineRunOptions& options = {}) const;

 private:
  std::string name_;
  std::vector<std::unique_ptr<HloPass>> passes_;
  int max_iterations_ = 0;
};

}  // namespace xlite

#endif  // XLITE_PASSES_PIPELINE_H_
