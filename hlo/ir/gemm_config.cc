#include "hlo/ir/gemm_config.h"

#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"

namespace xlite {
namespace {

using google::protobuf::Struct;
using google::protobuf::Value;

constexpr struct {
  GemmEpilogue epilogue;
  const char* name;
  bool bias;
  bool aux;
  GemmActivation activation;
} kEpilogues[] = {
    {GemmEpilogue::kDefault, "DEFAULT", false, false, GemmActivation::kNone},
    {GemmEpilogue::kBias, "BIAS", true, false, GemmActivation::kNone},
    {GemmEpilogue::kRelu, "RELU", false, false, GemmActivation::kRelu},
    {GemmEpilogue::kBiasRelu, "BIAS_RELU", true, false, GemmActivation::kRelu},
    {GemmEpilogue::kGelu, "GELU", false, false, GemmActivation::kGelu},
    {GemmEpilogue::kGeluAux, "GELU_AUX", false, true, GemmActivation::kGelu},
    {GemmEpilogue::kBiasGelu, "BIAS_GELU", true, false, GemmActivation::kGelu},
    {GemmEpilogue::kBiasGeluAux, "BIAS_GELU_AUX", true, true,
     GemmActivation::kGelu},
    {GemmEpilogue::kSilu, "SILU", false, false, GemmActivation::kSilu},
    {GemmEpilogue::kBiasSilu, "BIAS_SILU", true, false, GemmActivation::kSilu},
};

const auto& EpilogueRow(GemmEpilogue e) {
  for (const auto& row : kEpilogues) {
    if (row.epilogue == e) return row;
  }
  return kEpilogues[0];
}

absl::Status FieldError(absl::string_view path, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", what));
}

// A proto-JSON int64: a whole number or a decimal string.
absl::StatusOr<int64_t> ReadInt(const Value& v, absl::string_view path) {
  if (v.has_number_value()) {
    const double d = v.number_value();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9e15) {
      return static_cast<int64_t>(d);
    }
  } else if (v.kind_case() == Value::kStringValue) {
    int64_t out;
    if (absl::SimpleAtoi(v.string_value(), &out)) return out;
  }
  return FieldError(path, "expected an integer");
}

absl::StatusOr<double> ReadDouble(const Value& v, absl::string_view path) {
  if (v.has_number_value()) return v.number_value();
  if (v.kind_case() == Value::kStringValue) {
    double out;
    if (absl::SimpleAtod(v.string_value(), &out)) return out;
  }
  return FieldError(path, "expected a number");
}

absl::StatusOr<bool> ReadBool(const Value& v, absl::string_view path) {
  if (v.kind_case() == Value::kBoolValue) return v.bool_value();
  return FieldError(path, "expected true or false");
}

absl::StatusOr<std::vector<int64_t>> ReadInts(const Value& v,
                                              absl::string_view path) {
  if (v.kind_case() != Value::kListValue) {
    return FieldError(path, "expected a list of integers");
  }
  std::vector<int64_t> out;
  for (int i = 0; i < v.list_value().values_size(); ++i) {
    absl::StatusOr<int64_t> n =
        ReadInt(v.list_value().values(i), absl::StrCat(path, "[", i, "]"));
    if (!n.ok()) return n.status();
    if (*n < 0) return FieldError(absl::StrCat(path, "[", i, "]"), "negative");
    out.push_back(*n);
  }
  return out;
}

absl::Status ReadDnums(const Value& v, absl::string_view path,
                       DotDimensionNumbers& d) {
  if (!v.has_struct_value()) return FieldError(path, "expected an object");
  const std::pair<const char*, std::vector<int64_t>*> lists[] = {
      {"lhs_contracting_dimensions", &d.lhs_contracting_dimensions},
      {"rhs_contracting_dimensions", &d.rhs_contracting_dimensions},
      {"lhs_batch_dimensions", &d.lhs_batch_dimensions},
      {"rhs_batch_dimensions", &d.rhs_batch_dimensions}};
  for (const auto& [key, out] : lists) {
    auto it = v.struct_value().fields().find(key);
    if (it == v.struct_value().fields().end()) continue;
    absl::StatusOr<std::vector<int64_t>> ints =
        ReadInts(it->second, absl::StrCat(path, ".", key));
    if (!ints.ok()) return ints.status();
    *out = *std::move(ints);
  }
  return absl::OkStatus();
}

absl::Status ReadPrecision(const Value& v, absl::string_view path,
                           GemmBackendConfig& c) {
  if (!v.has_struct_value()) return FieldError(path, "expected an object");
  const auto& f = v.struct_value().fields();
  if (auto it = f.find("operand_precision"); it != f.end()) {
    if (it->second.kind_case() != Value::kListValue) {
      return FieldError(absl::StrCat(path, ".operand_precision"),
                        "expected a list");
    }
    for (const Value& p : it->second.list_value().values()) {
      if (p.kind_case() == Value::kStringValue) {
        c.operand_precision.push_back(p.string_value());
      } else if (p.has_number_value()) {
        static const char* kNames[] = {"DEFAULT", "HIGH", "HIGHEST",
                                       "PACKED_NIBBLE"};
        const int n = static_cast<int>(p.number_value());
        if (n < 0 || n > 3) {
          return FieldError(absl::StrCat(path, ".operand_precision"),
                            "unknown precision");
        }
        c.operand_precision.push_back(kNames[n]);
      } else {
        return FieldError(absl::StrCat(path, ".operand_precision"),
                          "expected precision names");
      }
    }
  }
  if (auto it = f.find("algorithm"); it != f.end()) {
    if (it->second.kind_case() != Value::kStringValue) {
      return FieldError(absl::StrCat(path, ".algorithm"), "expected a name");
    }
    c.algorithm = it->second.string_value();
  }
  return absl::OkStatus();
}

absl::Status ReadEpilogue(const Value& v, absl::string_view path,
                          GemmEpilogue& out) {
  if (v.kind_case() == Value::kStringValue) {
    if (std::optional<GemmEpilogue> e = GemmEpilogueFromName(v.string_value())) {
      out = *e;
      return absl::OkStatus();
    }
  } else if (v.has_number_value()) {
    for (const auto& row : kEpilogues) {
      if (static_cast<double>(row.epilogue) == v.number_value()) {
        out = row.epilogue;
        return absl::OkStatus();
      }
    }
  }
  return FieldError(path, "unknown epilogue (expected DEFAULT, BIAS, RELU, "
                          "BIAS_RELU, GELU, GELU_AUX, BIAS_GELU, "
                          "BIAS_GELU_AUX, SILU or BIAS_SILU)");
}

// The scalar fields of gemm_backend_config, by key.
absl::Status ReadGemmField(const std::string& key, const Value& v,
                           const std::string& path, GemmBackendConfig& c) {
  auto set_int = [&](std::optional<int64_t>& out) -> absl::Status {
    absl::StatusOr<int64_t> n = ReadInt(v, path);
    if (!n.ok()) return n.status();
    out = *n;
    return absl::OkStatus();
  };
  auto set_double = [&](double& out) -> absl::Status {
    absl::StatusOr<double> d = ReadDouble(v, path);
    if (!d.ok()) return d.status();
    out = *d;
    return absl::OkStatus();
  };
  auto set_bool = [&](bool& out) -> absl::Status {
    absl::StatusOr<bool> b = ReadBool(v, path);
    if (!b.ok()) return b.status();
    out = *b;
    return absl::OkStatus();
  };
  auto set_opt_bool = [&](std::optional<bool>& out) -> absl::Status {
    bool b = false;
    if (absl::Status s = set_bool(b); !s.ok()) return s;
    out = b;
    return absl::OkStatus();
  };
  if (key == "selected_algorithm") return set_int(c.selected_algorithm);
  if (key == "alpha_real") return set_double(c.alpha_real);
  if (key == "alpha_imag") return set_double(c.alpha_imag);
  if (key == "beta") return set_double(c.beta);
  if (key == "dot_dimension_numbers") return ReadDnums(v, path, c.dnums);
  if (key == "precision_config") return ReadPrecision(v, path, c);
  if (key == "epilogue") return ReadEpilogue(v, path, c.epilogue);
  if (key == "lhs_stride") return set_int(c.lhs_stride);
  if (key == "rhs_stride") return set_int(c.rhs_stride);
  if (key == "grad_x") return set_opt_bool(c.grad_x);
  if (key == "grad_y") return set_opt_bool(c.grad_y);
  if (key == "damax_output") return set_bool(c.damax_output);
  if (key == "is_fp8") return set_bool(c.is_fp8);
  return absl::OkStatus();  // a field of a newer XLA: ignored
}

std::string IntList(const std::vector<int64_t>& v) {
  std::vector<std::string> quoted;
  for (int64_t x : v) quoted.push_back(absl::StrCat("\"", x, "\""));
  return absl::StrCat("[", absl::StrJoin(quoted, ","), "]");
}

// A double as proto JSON prints it (integers without a fraction).
std::string Number(double d) {
  if (d == std::floor(d) && std::fabs(d) < 1e15) {
    return absl::StrCat(static_cast<int64_t>(d));
  }
  return absl::StrCat(d);
}

}  // namespace

std::optional<GemmTarget> GemmTargetFromName(absl::string_view target) {
  if (target == kCublasGemmTarget) return GemmTarget::kCublasGemm;
  if (target == kCublasLtMatmulTarget) return GemmTarget::kCublasLtMatmul;
  if (target == kCublasLtMatmulF8Target) return GemmTarget::kCublasLtMatmulF8;
  return std::nullopt;
}

absl::string_view GemmTargetName(GemmTarget target) {
  switch (target) {
    case GemmTarget::kCublasGemm:
      return kCublasGemmTarget;
    case GemmTarget::kCublasLtMatmul:
      return kCublasLtMatmulTarget;
    case GemmTarget::kCublasLtMatmulF8:
      return kCublasLtMatmulF8Target;
  }
  return kCublasGemmTarget;
}

absl::string_view GemmEpilogueName(GemmEpilogue epilogue) {
  return EpilogueRow(epilogue).name;
}

std::optional<GemmEpilogue> GemmEpilogueFromName(absl::string_view name) {
  for (const auto& row : kEpilogues) {
    if (name == row.name) return row.epilogue;
  }
  return std::nullopt;
}

bool EpilogueAddsBias(GemmEpilogue e) { return EpilogueRow(e).bias; }
bool EpilogueHasAux(GemmEpilogue e) { return EpilogueRow(e).aux; }
GemmActivation EpilogueActivation(GemmEpilogue e) {
  return EpilogueRow(e).activation;
}

std::optional<GemmEpilogue> MakeEpilogue(bool bias, GemmActivation activation,
                                         bool aux) {
  for (const auto& row : kEpilogues) {
    if (row.bias == bias && row.activation == activation && row.aux == aux) {
      return row.epilogue;
    }
  }
  return std::nullopt;
}

absl::StatusOr<GemmBackendConfig> ParseGemmBackendConfig(
    absl::string_view json) {
  Struct outer;
  if (auto s = google::protobuf::util::JsonStringToMessage(std::string(json),
                                                          &outer);
      !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "backend_config is not JSON (", std::string(s.message()), ")"));
  }
  GemmBackendConfig config;
  const auto& top = outer.fields();
  if (auto it = top.find("operation_queue_id"); it != top.end()) {
    absl::StatusOr<int64_t> q = ReadInt(it->second, "operation_queue_id");
    if (!q.ok()) return q.status();
    config.operation_queue_id = *q;
  }
  auto gemm = top.find("gemm_backend_config");
  if (gemm == top.end()) {
    return absl::InvalidArgumentError(
        "backend_config has no gemm_backend_config");
  }
  if (!gemm->second.has_struct_value()) {
    return FieldError("gemm_backend_config", "expected an object");
  }
  for (const auto& [key, value] : gemm->second.struct_value().fields()) {
    if (absl::Status s = ReadGemmField(
            key, value, absl::StrCat("gemm_backend_config.", key), config);
        !s.ok()) {
      return s;
    }
  }
  const DotDimensionNumbers& d = config.dnums;
  if (d.lhs_batch_dimensions.size() != d.rhs_batch_dimensions.size() ||
      d.lhs_contracting_dimensions.size() !=
          d.rhs_contracting_dimensions.size()) {
    return FieldError("gemm_backend_config.dot_dimension_numbers",
                      "lhs and rhs disagree on the number of batch or "
                      "contracting dimensions");
  }
  return config;
}

std::string GemmBackendConfigToJson(const GemmBackendConfig& c) {
  const DotDimensionNumbers& d = c.dnums;
  std::vector<std::string> precision;
  for (const std::string& p : c.operand_precision) {
    precision.push_back(absl::StrCat("\"", p, "\""));
  }
  std::string gemm = absl::StrCat(
      c.selected_algorithm
          ? absl::StrCat("\"selected_algorithm\":\"", *c.selected_algorithm,
                         "\",")
          : "",
      "\"alpha_real\":", Number(c.alpha_real),
      ",\"alpha_imag\":", Number(c.alpha_imag), ",\"beta\":", Number(c.beta),
      ",\"dot_dimension_numbers\":{\"lhs_contracting_dimensions\":",
      IntList(d.lhs_contracting_dimensions),
      ",\"rhs_contracting_dimensions\":", IntList(d.rhs_contracting_dimensions),
      ",\"lhs_batch_dimensions\":", IntList(d.lhs_batch_dimensions),
      ",\"rhs_batch_dimensions\":", IntList(d.rhs_batch_dimensions),
      "},\"precision_config\":{\"operand_precision\":[",
      absl::StrJoin(precision, ","), "],\"algorithm\":\"",
      c.algorithm.empty() ? "ALG_UNSET" : c.algorithm, "\"},\"epilogue\":\"",
      GemmEpilogueName(c.epilogue), "\"");
  if (c.lhs_stride) absl::StrAppend(&gemm, ",\"lhs_stride\":\"", *c.lhs_stride, "\"");
  if (c.rhs_stride) absl::StrAppend(&gemm, ",\"rhs_stride\":\"", *c.rhs_stride, "\"");
  if (c.grad_x) absl::StrAppend(&gemm, ",\"grad_x\":", *c.grad_x ? "true" : "false");
  if (c.grad_y) absl::StrAppend(&gemm, ",\"grad_y\":", *c.grad_y ? "true" : "false");
  absl::StrAppend(&gemm, ",\"damax_output\":", c.damax_output ? "true" : "false");
  if (c.is_fp8) absl::StrAppend(&gemm, ",\"is_fp8\":true");
  return absl::StrCat("{\"operation_queue_id\":\"", c.operation_queue_id,
                      "\",\"wait_on_operation_queues\":[],"
                      "\"gemm_backend_config\":{",
                      gemm, "},\"force_earliest_schedule\":false}");
}

const Shape& GemmOutputShape(const Shape& result) {
  return result.IsTuple() && result.tuple_shapes_size() > 0
             ? result.tuple_shapes(0)
             : result;
}

int64_t GemmWorkspaceBytes(GemmTarget target, int compute_capability_major,
                           int64_t operand_bytes) {
  const int64_t workspace =
      compute_capability_major >= 9 ? int64_t{32} << 20 : int64_t{4} << 20;
  if (target == GemmTarget::kCublasGemm) {
    return std::min(workspace, operand_bytes);
  }
  return workspace;
}

}  // namespace xlite
