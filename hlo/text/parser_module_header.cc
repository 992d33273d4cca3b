// The module header line (`HloModule name, is_scheduled=true,
// entry_computation_layout={...}, ...`) and the stack frame index that may
// follow it.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "hlo/text/parser_impl.h"

namespace xlite {
namespace parser_internal {

bool Parser::ParseModuleHeader(HloModule* module) {
  TextScanner& s = scanner_;
  const size_t name_pos = s.Position();
  std::string name = s.ReadName();
  if (name.empty() || name == "ENTRY") {
    return s.ErrorAt(name_pos, "expected a module name after HloModule");
  }
  // XLA's lexer reads "name:" as a name, so "HloModule m:" is accepted.
  if (s.RawPosition() < s.text().size() && s.text()[s.RawPosition()] == ':') {
    s.Reset(s.RawPosition() + 1);
  }
  module->set_name(name);
  HloModuleConfig& config = module->config();
  absl::flat_hash_set<std::string> seen;
  while (s.Consume(',')) {
    const size_t p = s.Position();
    std::string key = s.ReadIdentifier();
    if (key.empty()) return s.ErrorAt(p, "expected a module attribute name");
    if (!s.Expect('=', What("after module attribute ", key))) return false;
    if (!seen.insert(key).second) {
      return s.ErrorAt(p, absl::StrCat("module attribute '", key,
                                       "' appears more than once"));
    }
    if (key == "is_scheduled") {
      if (!s.ReadBool(&config.is_scheduled, "for is_scheduled")) return false;
    } else if (key == "alias_passthrough_params") {
      if (!s.ReadBool(&config.alias_passthrough_params,
                      "for alias_passthrough_params")) {
        return false;
      }
    } else if (key == "replica_count") {
      if (!s.ReadInt64(&config.replica_count, "for replica_count"))
        return false;
      if (config.replica_count < 1)
        return s.ErrorAt(p, "replica_count must be >= 1");
      if (config.replica_count > kMaxModuleDevices / config.num_partitions) {
        return s.ErrorAt(p, absl::StrCat("replica_count x num_partitions "
                                         "must be at most ",
                                         kMaxModuleDevices));
      }
    } else if (key == "num_partitions") {
      if (!s.ReadInt64(&config.num_partitions, "for num_partitions"))
        return false;
      if (config.num_partitions < 1) {
        return s.ErrorAt(p, "num_partitions must be >= 1");
      }
      if (config.num_partitions > kMaxModuleDevices / config.replica_count) {
        return s.ErrorAt(p, absl::StrCat("replica_count x num_partitions "
                                         "must be at most ",
                                         kMaxModuleDevices));
      }
    } else if (key == "entry_computation_layout") {
      std::vector<Shape> params;
      Shape result;
      if (!s.Expect('{', "to start entry_computation_layout") ||
          !s.Expect('(', "before the parameter layouts")) {
        return false;
      }
      if (!s.Consume(')')) {
        do {
          Shape shape;
          if (!ParseShape(&shape)) return false;
          params.push_back(std::move(shape));
        } while (s.Consume(','));
        if (!s.Expect(')', "after the parameter layouts")) return false;
      }
      if (!s.ConsumeString("->"))
        return s.Error("expected '->' in entry_computation_layout");
      if (!ParseShape(&result) ||
          !s.Expect('}', "to close entry_computation_layout")) {
        return false;
      }
      config.entry_parameter_layouts = std::move(params);
      config.entry_result_layout = std::move(result);
    } else if (key == "input_output_alias") {
      if (!s.Expect('{', "to start input_output_alias")) return false;
      if (!s.Consume('}')) {
        do {
          InputOutputAlias alias;
          if (!ParseShapeIndex(&alias.output_index) ||
              !s.Expect(':', "in input_output_alias") ||
              !s.Expect('(', "in input_output_alias") ||
              !s.ReadInt64(&alias.parameter_number,
                           "as the parameter number") ||
              !s.Expect(',', "in input_output_alias") ||
              !ParseShapeIndex(&alias.parameter_index)) {
            return false;
          }
          if (s.Consume(',')) {
            const size_t q = s.Position();
            std::string kind = s.ReadIdentifier();
            if (kind == "must-alias") {
              alias.must_alias = true;
            } else if (kind != "may-alias") {
              return s.ErrorAt(q, "expected may-alias or must-alias");
            }
          }
          if (!s.Expect(')', "in input_output_alias")) return false;
          config.input_output_alias.push_back(std::move(alias));
        } while (s.Consume(','));
        if (!s.Expect('}', "to close input_output_alias")) return false;
      }
    } else if (key == "buffer_donor") {
      if (!s.Expect('{', "to start buffer_donor")) return false;
      if (!s.Consume('}')) {
        do {
          BufferDonor donor;
          if (!s.Expect('(', "in buffer_donor") ||
              !s.ReadInt64(&donor.parameter_number,
                           "as the parameter number") ||
              !s.Expect(',', "in buffer_donor") ||
              !ParseShapeIndex(&donor.parameter_index) ||
              !s.Expect(')', "in buffer_donor")) {
            return false;
          }
          config.buffer_donor.push_back(std::move(donor));
        } while (s.Consume(','));
        if (!s.Expect('}', "to close buffer_donor")) return false;
      }
    } else if (key == "allow_spmd_sharding_propagation_to_parameters") {
      if (!ParseBoolList(&config.allow_spmd_sharding_propagation_to_parameters,
                         true)) {
        return false;
      }
    } else if (key == "allow_spmd_sharding_propagation_to_output") {
      if (!ParseBoolList(&config.allow_spmd_sharding_propagation_to_output,
                         true)) {
        return false;
      }
    } else if (key == "frontend_attributes") {
      if (!ParseFrontendAttributes(&config.frontend_attributes)) return false;
    } else if (key == "origin_recovery_table") {
      std::string raw;
      if (!ParseRawValue(&raw)) return false;
      config.kept_attributes.push_back({key, raw});
    } else {
      return s.ErrorAt(
          p, absl::StrCat("unknown module attribute '", key,
                          "'; expected is_scheduled, input_output_alias, "
                          "buffer_donor, alias_passthrough_params, "
                          "entry_computation_layout, "
                          "allow_spmd_sharding_propagation_to_parameters, "
                          "allow_spmd_sharding_propagation_to_output, "
                          "replica_count, num_partitions, "
                          "frontend_attributes"));
    }
  }
  return true;
}

bool Parser::ParseStackFrameIndex(HloModule* module) {
  TextScanner& s = scanner_;
  if (s.PeekIdentifier() != "FileNames") return true;
  s.ReadIdentifier();
  StackFrameIndex& index = module->config().stack_frame_index;
  // Entries "N value", numbered from 1 in order.
  auto entries = [&](absl::string_view section, auto read_value) {
    for (int64_t expected = 1;; ++expected) {
      const char c = s.Peek();
      if (!(c >= '0' && c <= '9')) return true;
      const size_t p = s.Position();
      int64_t number;
      if (!s.ReadInt64(&number, What("in ", section))) return false;
      if (number != expected) {
        return s.ErrorAt(p,
                         absl::StrCat(section, " entry ", number,
                                      " is out of order; expected ", expected));
      }
      if (!read_value()) return false;
    }
  };
  // "{key=value ...}" with integer values; `fields` names the keys.
  auto braced =
      [&](absl::string_view section,
          std::vector<std::pair<absl::string_view, int64_t*>> fields) {
        if (!s.Expect('{', What("to start an entry of ", section)))
          return false;
        while (!s.Consume('}')) {
          const size_t p = s.Position();
          const std::string key = s.ReadIdentifier();
          auto it = std::find_if(fields.begin(), fields.end(),
                                 [&](const auto& f) { return f.first == key; });
          if (it == fields.end()) {
            return s.ErrorAt(
                p, absl::StrCat("unknown ", section, " field '", key, "'"));
          }
          if (!s.Expect('=', What("after ", key)) ||
              !s.ReadInt64(it->second, What("for ", key))) {
            return false;
          }
          s.Consume(',');
        }
        return true;
      };
  auto name_list = [&](absl::string_view section,
                       std::vector<std::string>* names) {
    return entries(section, [&] {
      std::string name;
      if (!s.ReadQuotedString(&name, What("in ", section))) return false;
      names->push_back(std::move(name));
      return true;
    });
  };
  if (!name_list("FileNames", &index.file_names)) return false;
  auto section = [&](absl::string_view name) {
    if (s.ReadIdentifier() != name) {
      return s.Error(
          absl::StrCat("expected '", name, "' in the stack frame index"));
    }
    return true;
  };
  if (!section("FunctionNames") ||
      !name_list("FunctionNames", &index.function_names) ||
      !section("FileLocations")) {
    return false;
  }
  if (!entries("FileLocations", [&] {
        StackFrameIndex::FileLocation l;
        if (!braced("FileLocations", {{"file_name_id", &l.file_name_id},
                                      {"function_name_id", &l.function_name_id},
                                      {"line", &l.line},
                                      {"end_line", &l.end_line},
                                      {"column", &l.column},
                                      {"end_column", &l.end_column}})) {
          return false;
        }
        index.file_locations.push_back(l);
        return true;
      })) {
    return false;
  }
  if (!section("StackFrames")) return false;
  return entries("StackFrames", [&] {
    StackFrameIndex::StackFrame f;
    if (!braced("StackFrames", {{"file_location_id", &f.file_location_id},
                                {"parent_frame_id", &f.parent_frame_id}})) {
      return false;
    }
    index.stack_frames.push_back(f);
    return true;
  });
}

}  // namespace parser_internal
}  // namespace xlite
