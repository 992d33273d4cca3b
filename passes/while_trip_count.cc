#include "passes/while_trip_count.h"

#include <string>

#include "absl/strings/numbers.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "passes/loop_analysis.h"

namespace xlite {
namespace {

using google::protobuf::Struct;
using google::protobuf::Value;

constexpr char kField[] = "known_trip_count";

// The backend config as a JSON object; an empty config is an empty object.
std::optional<Struct> ConfigObject(const HloInstruction& loop) {
  Struct config;
  if (loop.backend_config().empty()) return config;
  if (!google::protobuf::util::JsonStringToMessage(loop.backend_config(),
                                                   &config)
           .ok()) {
    return std::nullopt;
  }
  return config;
}

// The induction variable runs from init by step and stops at the first
// value failing the condition, init + trips * step: every value it takes
// must fit its type, or the loop would wrap instead of ending.
bool CannotWrap(const CountedLoop& loop, PrimitiveType type) {
  if (!IsInteger(type) || BitWidth(type) > 64) return false;
  const int bits = BitWidth(type);
  __int128 lo = 0;
  __int128 hi = 0;
  if (IsSignedInteger(type)) {
    lo = -(static_cast<__int128>(1) << (bits - 1));
    hi = (static_cast<__int128>(1) << (bits - 1)) - 1;
  } else {
    hi = (static_cast<__int128>(1) << bits) - 1;
  }
  const __int128 last = static_cast<__int128>(loop.init) +
                        static_cast<__int128>(loop.trip_count) * loop.step;
  return loop.init >= lo && loop.init <= hi && last >= lo && last <= hi;
}

}  // namespace

std::optional<int64_t> KnownTripCount(const HloInstruction& loop) {
  if (loop.opcode() != HloOpcode::kWhile ||
      loop.backend_config().find(kField) == std::string::npos) {
    return std::nullopt;
  }
  std::optional<Struct> config = ConfigObject(loop);
  if (!config.has_value()) return std::nullopt;
  auto field = config->fields().find(kField);
  if (field == config->fields().end() ||
      !field->second.has_struct_value()) {
    return std::nullopt;
  }
  const auto& inner = field->second.struct_value().fields();
  auto n = inner.find("n");
  if (n == inner.end()) return std::nullopt;
  int64_t count = -1;
  if (n->second.has_string_value()) {
    if (!absl::SimpleAtoi(n->second.string_value(), &count)) {
      return std::nullopt;
    }
  } else if (n->second.has_number_value()) {
    const double d = n->second.number_value();
    if (!(d >= 0 && d < 9.0e15) || d != static_cast<double>(
                                            static_cast<int64_t>(d))) {
      return std::nullopt;
    }
    count = static_cast<int64_t>(d);
  }
  if (count < 0) return std::nullopt;
  return count;
}

absl::StatusOr<bool> AnnotateWhileTripCounts(HloModule& module) {
  bool changed = false;
  for (HloComputation* computation : module.computations()) {
    for (HloInstruction* loop : computation->instructions()) {
      if (loop->opcode() != HloOpcode::kWhile ||
          KnownTripCount(*loop).has_value()) {
        continue;
      }
      std::optional<CountedLoop> counted = AnalyzeCountedLoop(*loop);
      if (!counted.has_value() ||
          !CannotWrap(*counted, loop->shape()
                                    .tuple_shapes()[counted->index]
                                    .element_type())) {
        continue;
      }
      std::optional<Struct> config = ConfigObject(*loop);
      if (!config.has_value()) continue;
      Value n;
      n.set_string_value(std::to_string(counted->trip_count));
      Value count;
      (*count.mutable_struct_value()->mutable_fields())["n"] = n;
      (*config->mutable_fields())[kField] = count;
      std::string json;
      if (!google::protobuf::util::MessageToJsonString(*config, &json).ok()) {
        continue;
      }
      loop->set_backend_config(std::move(json));
      changed = true;
    }
  }
  return changed;
}

}  // namespace xlite
