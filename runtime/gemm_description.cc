#include "runtime/gemm_description.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xlite::runtime {
namespace {

bool IsLaidOutArray(const Shape& s) {
  return s.IsArray() && s.has_layout() &&
         static_cast<int64_t>(s.layout().minor_to_major().size()) == s.rank();
}

int PrecisionRank(const std::string& p) {
  if (p == "HIGHEST") return 2;
  if (p == "HIGH") return 1;
  return 0;
}

}  // namespace

bool GemmAllowsTf32(const GemmBackendConfig& config) {
  if (config.algorithm == "ALG_DOT_TF32_TF32_F32") return true;
  if (!config.algorithm.empty() && config.algorithm != "ALG_UNSET") {
    return false;
  }
  int highest = 0;
  for (const std::string& p : config.operand_precision) {
    highest = std::max(highest, PrecisionRank(p));
  }
  return highest == 0;
}

std::vector<Shape> GemmDescription::ResultLeaves() const {
  if (!result.IsTuple()) return {result};
  return result.tuple_shapes();
}

int64_t GemmDescription::ArgumentCount() const {
  return static_cast<int64_t>(operands.size() + ResultLeaves().size());
}

absl::StatusOr<GemmDescription> DescribeGemm(absl::string_view target,
                                             absl::string_view backend_config,
                                             std::vector<Shape> operands,
                                             Shape result) {
  GemmDescription gemm;
  const std::optional<GemmTarget> parsed_target = GemmTargetFromName(target);
  if (!parsed_target) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", target, "' is not a GEMM custom call"));
  }
  gemm.target = *parsed_target;
  absl::StatusOr<GemmBackendConfig> config =
      ParseGemmBackendConfig(backend_config);
  if (!config.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("backend_config: ", config.status().message()));
  }
  gemm.config = *std::move(config);
  for (const Shape& s : operands) {
    if (!IsLaidOutArray(s)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "GEMM operand ", s.ToString(), " is not an array with a layout"));
    }
  }
  const std::vector<Shape> leaves =
      result.IsTuple() ? result.tuple_shapes() : std::vector<Shape>{result};
  if (leaves.empty()) return absl::InvalidArgumentError("empty GEMM result");
  for (const Shape& s : leaves) {
    if (!IsLaidOutArray(s)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "GEMM result ", s.ToString(), " is not an array with a layout"));
    }
  }
  gemm.operands = std::move(operands);
  gemm.result = std::move(result);
  std::vector<const Shape*> shapes;
  for (const Shape& s : gemm.operands) shapes.push_back(&s);
  absl::StatusOr<GemmCallLayout> layout =
      GemmCallLayoutFor(gemm.target, gemm.config, shapes, gemm.result);
  if (!layout.ok()) return layout.status();
  gemm.layout = *layout;
  return gemm;
}

std::string GemmDescriptionToString(const GemmDescription& gemm) {
  std::string name(GemmTargetName(gemm.target));
  if (absl::StartsWith(name, "__cublas$")) name = name.substr(9);
  std::vector<std::string> operands;
  for (const Shape& s : gemm.operands) operands.push_back(s.ToString());
  std::string out = absl::StrCat(name, " ", absl::StrJoin(operands, " x "),
                                 " -> ", gemm.result.ToString());
  absl::StrAppend(&out, " alpha=", gemm.config.alpha_real);
  if (gemm.config.alpha_imag != 0) {
    absl::StrAppend(&out, "+", gemm.config.alpha_imag, "i");
  }
  absl::StrAppend(&out, " beta=", gemm.config.beta,
                  " epilogue=", GemmEpilogueName(gemm.config.epilogue));
  if (gemm.config.damax_output) absl::StrAppend(&out, " amax");
  return out;
}

}  // namespace xlite::runtime
