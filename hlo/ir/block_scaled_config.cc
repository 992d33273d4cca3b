#include "hlo/ir/block_scaled_config.h"

#include <cmath>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"

namespace xlite {

absl::StatusOr<std::optional<int64_t>> BlockSizeFromBackendConfig(
    absl::string_view backend_config) {
  if (backend_config.empty()) return std::nullopt;
  // protobuf's JSON reader is the one XLA's backend configs go through; it
  // also takes unquoted keys.
  google::protobuf::Struct config;
  if (!google::protobuf::util::JsonStringToMessage(std::string(backend_config),
                                                   &config)
           .ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("backend_config is not JSON: ", backend_config));
  }
  auto outer = config.fields().find("block_scaled_dot_backend_config");
  if (outer == config.fields().end()) return std::nullopt;
  if (!outer->second.has_struct_value()) {
    return absl::InvalidArgumentError(
        "block_scaled_dot_backend_config must be an object");
  }
  const auto& inner = outer->second.struct_value().fields();
  auto size = inner.find("block_size");
  if (size == inner.end()) return std::nullopt;
  int64_t block = 0;
  bool ok = false;
  if (size->second.has_number_value()) {
    const double v = size->second.number_value();
    ok = std::isfinite(v) && v == std::floor(v) && v >= 1 && v <= 1e15;
    if (ok) block = static_cast<int64_t>(v);
  } else if (size->second.kind_case() ==
             google::protobuf::Value::kStringValue) {
    ok = absl::SimpleAtoi(size->second.string_value(), &block) && block >= 1;
  }
  if (!ok) {
    return absl::InvalidArgumentError(
        "block_size in block_scaled_dot_backend_config must be a positive "
        "integer");
  }
  return block;
}

PrimitiveType ScaledDotDequantizeType(PrimitiveType data, PrimitiveType scale) {
  const int a = BitWidth(data), b = BitWidth(scale);
  if (a < 16 && b < 16) return PrimitiveType::kBF16;
  if (data == scale) return data;
  if (a == b) return PrimitiveType::kF32;
  return a > b ? data : scale;
}

}  // namespace xlite
