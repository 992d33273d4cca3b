#include "runtime/gemm_autotune_key.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace xlite::runtime {
namespace {

std::string Dims(const std::vector<int64_t>& dims) {
  return absl::StrCat("{", absl::StrJoin(dims, ","), "}");
}

// Exact: "%.17g" round-trips every double, and StrCat's six digits would
// let two different scalars share a key.
std::string Exact(double v) { return absl::StrFormat("%.17g", v); }

}  // namespace

std::string CanonicalGemm(const GemmDescription& gemm) {
  const GemmBackendConfig& c = gemm.config;
  std::vector<std::string> operands;
  for (const Shape& s : gemm.operands) operands.push_back(s.ToString(true));
  std::string out = absl::StrCat(
      GemmTargetName(gemm.target), " ", absl::StrJoin(operands, " x "), " -> ",
      gemm.result.ToString(true),
      " contracting=", Dims(c.dnums.lhs_contracting_dimensions), "x",
      Dims(c.dnums.rhs_contracting_dimensions),
      " batch=", Dims(c.dnums.lhs_batch_dimensions), "x",
      Dims(c.dnums.rhs_batch_dimensions), " alpha=", Exact(c.alpha_real));
  if (c.alpha_imag != 0) absl::StrAppend(&out, "+", Exact(c.alpha_imag), "i");
  // The precision and the algorithm pick the compute type (TF32 or not).
  absl::StrAppend(
      &out, " beta=", Exact(c.beta), " epilogue=", GemmEpilogueName(c.epilogue),
      " precision={", absl::StrJoin(c.operand_precision, ","),
      "} algorithm=", c.algorithm.empty() ? "ALG_UNSET" : c.algorithm);
  if (c.damax_output) absl::StrAppend(&out, " amax");
  return out;
}

}  // namespace xlite::runtime
