#ifndef XLITE_TESTS_GPU_TILED_GEMM_HARNESS_H_
#define XLITE_TESTS_GPU_TILED_GEMM_HARNESS_H_

// What the tiled GEMM tests share: compiling a case's module with a
// forced tiling for a GPU spec, and running it on the emulator against
// the interpreter.

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "gpu_backend/executable.h"
#include "hlo/ir/literal.h"
#include "tests/gpu/tiled_gemm_cases.h"

namespace xlite {

/// `text` compiled for `target` and the spec `spec_name` with
/// --gemm-backend=tiled and the tiling `tiling` names (Tiling(); "" the
/// heuristic's), assembled by ptxas for NVPTX.
absl::StatusOr<std::unique_ptr<gpu::GpuExecutable>> Compile(
    const std::string& text, gpu::GpuCodeTarget target,
    const char* spec_name = "h100", const std::string& tiling = "");

/// Equal for integers; for floats within `tolerance` times the larger of
/// 1 and |want|.
void ExpectClose(const Literal& got, const Literal& want, double tolerance);

/// Whether the entry computation holds a tiled GEMM fusion.
bool HasTiledGemmFusion(const HloModule& module);

/// Runs `c` on the emulator for `spec_name` (one kernel, two with
/// split-K) and compares it with the interpreter on inputs exact in
/// every type, within what the result type's rounding allows.
void ExpectEmulatorMatchesInterpreter(const Case& c, const char* spec_name);

}  // namespace xlite

#endif  // XLITE_TESTS_GPU_TILED_GEMM_HARNESS_H_
