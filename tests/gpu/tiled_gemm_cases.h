#ifndef XLITE_TESTS_GPU_TILED_GEMM_CASES_H_
#define XLITE_TESTS_GPU_TILED_GEMM_CASES_H_

// The dot modules the tiled GEMM tests run (tiled_gemm_test.cc): a case
// names an operand type, a layout of the operands, an epilogue, sizes and
// a forced tiling.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hlo/ir/tiled_gemm_config.h"

namespace xlite {

struct Case {
  std::string type = "f32";       // operand type; s8 gives s32, f8 f32
  std::string type_b;             // the rhs's type where it differs (f8)
  std::string form = "nn";        // nn, ta, tb, batch, batch_tb, colmajor
  std::string epilogue = "none";  // none, bias_relu, gelu, convert_bf16
  int64_t m = 67, n = 129, k = 257;
  std::string tiling;  // "" (the heuristic's) or a Tiling() name
};

/// The case's test name.
std::string Name(const Case& c);

/// The forced tilings: "simt" (CUDA cores, the default tiling), tensor
/// cores "mmaBMxBNxBK_WMxWN" and warpgroup tensor cores
/// "wgmmaBMxBNxBK_GMxGN", of 2, 3 or 4 stages with the suffix "_s2",
/// "_s3" or "_s4", and (warpgroups) "_tma" after it for TMA tiles ("_tma_ws"
/// with a producer warp), Blackwell's "tcgen05_BMxBNxBK"; nullopt for ""
/// (a bad name is a test failure).
std::optional<TiledGemmConfig> Tiling(const std::string& name);

/// A case of the default epilogue.
Case MakeCase(const std::string& type, const std::string& form, int64_t m,
              int64_t n, int64_t k, const std::string& tiling);

/// The warpgroup tensor-core (wgmma, h100) cases: every tensor-core type
/// and operand layout, tiles staged through registers or copied by
/// cp.async (one to four stages), and by TMA (with and without a
/// producer warp).
std::vector<Case> WarpgroupCases();

/// The Blackwell tensor-core (tcgen05, b200) cases: every tensor-core
/// type and operand layout, tiles staged through registers, copied by
/// cp.async and by TMA, K of one step to several rounds of the stages.
std::vector<Case> Tcgen05Cases();

/// The dot's result type for operands of `type`.
std::string ResultType(const std::string& type);

/// The module: d = a x b as the case's form lays them out, then the
/// epilogue.
std::string Module(const Case& c);

}  // namespace xlite

#endif  // XLITE_TESTS_GPU_TILED_GEMM_CASES_H_
