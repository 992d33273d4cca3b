#include "tests/fuzz/seed_runner.h"

#include <gtest/gtest.h>

#include <iostream>
#include <string>

#include "absl/strings/str_cat.h"

namespace xlite::fuzz {
namespace {

// The cpu_differential command line that draws and runs `seed` again.
std::string ReplayCommand(uint64_t seed, const DifferentialOptions& options) {
  std::string flags = absl::StrCat(
      " --platform=", BackendName(options.backend), " --first_seed=", seed,
      " --seeds=1 --run_passes=", options.run_passes ? "true" : "false",
      " --max_elements=", options.module.max_elements);
  if (options.module.tile_sized_transposes) {
    absl::StrAppend(&flags, " --tile_sized_transposes");
  }
  if (options.module.dot_fusions) absl::StrAppend(&flags, " --dot_fusions");
  if (options.gemm_backend != gpu::GemmBackend::kAuto) {
    absl::StrAppend(
        &flags, " --gemm-backend=", gpu::GemmBackendName(options.gemm_backend));
  }
  if (options.tiled_gemm_config.has_value()) {
    absl::StrAppend(&flags, " --tiled_gemm_config='",
                    options.tiled_gemm_config->ToString(), "'");
  }
  return absl::StrCat("bazel run //tests/fuzz:cpu_differential --", flags,
                      " --dump_dir=DIR, then --reduce=DIR/seed_", seed,
                      ".hlo with the same flags");
}

}  // namespace

SeedRunSummary RunSeedsExpectingNoFailure(uint64_t first, uint64_t count,
                                          const DifferentialOptions& options) {
  SeedRunSummary summary;
  for (uint64_t seed = first; seed < first + count; ++seed) {
    SeededChoices choices(seed);
    const DifferentialResult r = RunDifferential(choices, options);
    ++summary.outcomes[OutcomeName(r.outcome)];
    if (r.tiled_gemm_fusions > 0) ++summary.modules_with_tiled_gemm;
    summary.tiled_gemm_fusions += r.tiled_gemm_fusions;
    EXPECT_FALSE(IsFailure(r.outcome))
        << "seed " << seed << ": " << OutcomeName(r.outcome) << ": "
        << r.message << "\n"
        << r.text << "\n(again by hand: " << ReplayCommand(seed, options)
        << ")";
  }
  std::cout << "seeds " << first << ".." << first + count - 1 << " ("
            << BackendName(options.backend)
            << (options.run_passes ? ", its pipeline):" : ", no passes):");
  for (const auto& [outcome, n] : summary.outcomes) {
    std::cout << " " << outcome << " " << n << ";";
  }
  if (summary.tiled_gemm_fusions > 0) {
    std::cout << " tiled GEMM fusions " << summary.tiled_gemm_fusions << " in "
              << summary.modules_with_tiled_gemm << " modules;";
  }
  std::cout << "\n";
  return summary;
}

}  // namespace xlite::fuzz
