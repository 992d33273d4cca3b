// Structured attribute values: windows, dim labels, padding, slices,
// replica groups, metadata, frontend attributes, aliasing (shardings are
// in parser_sharding.cc).

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iterator>
#include <limits>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "hlo/ir/float_types.h"
#include "hlo/text/parser_impl.h"

namespace xlite {
namespace parser_internal {
namespace {

bool IsDigitChar(char c) { return std::isdigit(static_cast<unsigned char>(c)); }

}  // namespace

bool Parser::ParseWindow(Window* window) {
  TextScanner& s = scanner_;
  if (!s.Expect('{', "to start a window")) return false;
  window->dimensions.clear();
  std::vector<int64_t> size, stride, lhs_dilate, rhs_dilate, reversal;
  std::vector<std::pair<int64_t, int64_t>> pad;
  auto read_x_list = [&](std::vector<int64_t>* out, absl::string_view what) {
    do {
      int64_t v;
      if (!s.ReadInt64(&v, what)) return false;
      out->push_back(v);
    } while (s.PeekAt(0) == 'x' && s.Consume('x'));
    return true;
  };
  while (s.Peek() != '}' && !s.AtEnd()) {
    const size_t p = s.Position();
    std::string key = s.ReadIdentifier();
    if (!s.Expect('=', "after a window field name")) return false;
    if (key == "size") {
      if (!read_x_list(&size, "in window size")) return false;
    } else if (key == "stride") {
      if (!read_x_list(&stride, "in window stride")) return false;
    } else if (key == "lhs_dilate") {
      if (!read_x_list(&lhs_dilate, "in window lhs_dilate")) return false;
    } else if (key == "rhs_dilate") {
      if (!read_x_list(&rhs_dilate, "in window rhs_dilate")) return false;
    } else if (key == "rhs_reversal") {
      if (!read_x_list(&reversal, "in window rhs_reversal")) return false;
    } else if (key == "pad") {
      do {
        int64_t low, high;
        if (!s.ReadInt64(&low, "in window pad") ||
            !s.Expect('_', "between low and high padding") ||
            !s.ReadInt64(&high, "in window pad")) {
          return false;
        }
        pad.push_back({low, high});
      } while (s.PeekAt(0) == 'x' && s.Consume('x'));
    } else {
      return s.ErrorAt(p,
                       absl::StrCat("unknown window field '", key,
                                    "'; expected size, stride, pad, "
                                    "lhs_dilate, rhs_dilate or rhs_reversal"));
    }
    s.Consume(',');
  }
  const size_t end = s.Position();
  if (!s.Expect('}', "to close the window")) return false;
  if (size.empty() && !(stride.empty() && pad.empty() && lhs_dilate.empty() &&
                        rhs_dilate.empty() && reversal.empty())) {
    return s.ErrorAt(end, "window has no size=");
  }
  const size_t rank = size.size();
  auto check = [&](size_t n, absl::string_view field) {
    if (n != 0 && n != rank) {
      return s.ErrorAt(end, absl::StrCat("window ", field, " has ", n,
                                         " dimensions, size has ", rank));
    }
    return true;
  };
  if (!check(stride.size(), "stride") || !check(pad.size(), "pad") ||
      !check(lhs_dilate.size(), "lhs_dilate") ||
      !check(rhs_dilate.size(), "rhs_dilate") ||
      !check(reversal.size(), "rhs_reversal")) {
    return false;
  }
  for (size_t i = 0; i < rank; ++i) {
    WindowDimension d;
    d.size = size[i];
    if (!stride.empty()) d.stride = stride[i];
    if (!pad.empty()) {
      d.padding_low = pad[i].first;
      d.padding_high = pad[i].second;
    }
    if (!lhs_dilate.empty()) d.base_dilation = lhs_dilate[i];
    if (!rhs_dilate.empty()) d.window_dilation = rhs_dilate[i];
    if (!reversal.empty()) d.window_reversal = reversal[i] != 0;
    window->dimensions.push_back(d);
  }
  return true;
}

bool Parser::ParseDimLabels(ConvolutionDimensionNumbers* dnums) {
  TextScanner& s = scanner_;
  const size_t p = s.Position();
  std::string text = s.ReadWhile([](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
           c == '-' || c == '>' || c == '?';
  });
  std::vector<std::string> sides = absl::StrSplit(text, "->");
  std::vector<std::string> lhs_rhs;
  if (sides.size() == 2) lhs_rhs = absl::StrSplit(sides[0], '_');
  if (sides.size() != 2 || lhs_rhs.size() != 2) {
    return s.ErrorAt(p, absl::StrCat("invalid dim_labels '", text,
                                     "'; expected e.g. b01f_01io->b01f"));
  }
  // Reads one side: the positions of the two letters and of the digits.
  auto read_side = [&](const std::string& labels, char a, char b, int64_t* pa,
                       int64_t* pb, std::vector<int64_t>* spatial) {
    *pa = *pb = -1;
    std::vector<int64_t> by_digit(labels.size(), -1);
    size_t digits = 0;
    for (size_t i = 0; i < labels.size(); ++i) {
      const char c = labels[i];
      if (c == '?') continue;  // A position no dimension number names.
      if (c == a && *pa < 0) {
        *pa = i;
      } else if (c == b && *pb < 0) {
        *pb = i;
      } else if (IsDigitChar(c) &&
                 static_cast<size_t>(c - '0') < labels.size() &&
                 by_digit[c - '0'] < 0) {
        by_digit[c - '0'] = i;
        ++digits;
      } else {
        return false;
      }
    }
    if (*pa < 0 || *pb < 0) return false;
    spatial->clear();
    for (size_t d = 0; d < digits; ++d) {
      if (by_digit[d] < 0) return false;
      spatial->push_back(by_digit[d]);
    }
    return true;
  };
  if (!read_side(lhs_rhs[0], 'b', 'f', &dnums->input_batch_dimension,
                 &dnums->input_feature_dimension,
                 &dnums->input_spatial_dimensions) ||
      !read_side(lhs_rhs[1], 'i', 'o', &dnums->kernel_input_feature_dimension,
                 &dnums->kernel_output_feature_dimension,
                 &dnums->kernel_spatial_dimensions) ||
      !read_side(sides[1], 'b', 'f', &dnums->output_batch_dimension,
                 &dnums->output_feature_dimension,
                 &dnums->output_spatial_dimensions)) {
    return s.ErrorAt(p, absl::StrCat("invalid dim_labels '", text,
                                     "': each side needs its two letters "
                                     "(b/f, i/o, b/f) once and spatial digits "
                                     "0..n-1"));
  }
  if (dnums->input_spatial_dimensions.size() !=
          dnums->kernel_spatial_dimensions.size() ||
      dnums->input_spatial_dimensions.size() !=
          dnums->output_spatial_dimensions.size()) {
    return s.ErrorAt(
        p, absl::StrCat("dim_labels '", text, "' has different spatial ranks"));
  }
  return true;
}

bool Parser::ParsePadding(PaddingConfig* padding) {
  TextScanner& s = scanner_;
  const size_t p = s.Position();
  padding->dimensions.clear();
  std::string text = s.ReadWhile([](char c) {
    return IsDigitChar(c) || c == '_' || c == 'x' || c == '-';
  });
  if (text.empty()) return s.ErrorAt(p, "expected padding like 0_0x1_1");
  for (absl::string_view dim : absl::StrSplit(text, 'x')) {
    std::vector<absl::string_view> parts = absl::StrSplit(dim, '_');
    PaddingDimension d;
    if ((parts.size() != 2 && parts.size() != 3) ||
        !absl::SimpleAtoi(parts[0], &d.edge_padding_low) ||
        !absl::SimpleAtoi(parts[1], &d.edge_padding_high) ||
        (parts.size() == 3 &&
         !absl::SimpleAtoi(parts[2], &d.interior_padding))) {
      return s.ErrorAt(p, absl::StrCat("invalid padding '", text,
                                       "'; expected low_high[_interior] per "
                                       "dimension, joined by 'x'"));
    }
    padding->dimensions.push_back(d);
  }
  return true;
}

bool Parser::ParseSliceRanges(std::vector<SliceDimension>* slice) {
  TextScanner& s = scanner_;
  if (!s.Expect('{', "to start slice ranges")) return false;
  slice->clear();
  if (s.Consume('}')) return true;
  do {
    SliceDimension d;
    if (!s.Expect('[', "to start a slice range") ||
        !s.ReadInt64(&d.start, "as slice start") ||
        !s.Expect(':', "after slice start") ||
        !s.ReadInt64(&d.limit, "as slice limit")) {
      return false;
    }
    if (s.Consume(':') && !s.ReadInt64(&d.stride, "as slice stride")) {
      return false;
    }
    if (!s.Expect(']', "to close a slice range")) return false;
    slice->push_back(d);
  } while (s.Consume(','));
  return s.Expect('}', "to close slice ranges");
}

bool Parser::ParseReplicaGroups(ReplicaGroups* groups) {
  TextScanner& s = scanner_;
  *groups = ReplicaGroups();
  if (s.PeekIdentifier() == "mesh") return ParseMeshReplicaGroups(groups);
  if (s.Peek() == '{') {
    const size_t p = s.Position();
    if (!ParseBracedIntLists(&groups->groups, "replica groups")) return false;
    absl::Status valid = groups->Validate();
    if (!valid.ok()) return s.ErrorAt(p, valid.message());
    return true;
  }
  // Iota form: [num_groups,group_size]<=[reshape]T(perm)
  const size_t p = s.Position();
  std::vector<int64_t> dims;
  if (!s.Expect('[', "to start replica groups ({...} or [G,S]<=[N])")) {
    return false;
  }
  do {
    int64_t v;
    if (!s.ReadInt64(&v, "in iota replica groups")) return false;
    dims.push_back(v);
  } while (s.Consume(','));
  if (!s.Expect(']', "in iota replica groups")) return false;
  if (dims.size() != 2) {
    return s.ErrorAt(p, "iota replica groups need [num_groups,group_size]");
  }
  if (!s.ConsumeString("<="))
    return s.Error("expected '<=' in iota replica groups");
  if (!s.Expect('[', "after '<='")) return false;
  do {
    int64_t v;
    if (!s.ReadInt64(&v, "in iota reshape dims")) return false;
    groups->reshape_dims.push_back(v);
  } while (s.Consume(','));
  if (!s.Expect(']', "to close iota reshape dims")) return false;
  if (s.Peek() == 'T' && s.PeekAt(1) == '(') {
    s.Consume('T');
    s.Consume('(');
    do {
      int64_t v;
      if (!s.ReadInt64(&v, "in iota transpose")) return false;
      groups->transpose_perm.push_back(v);
    } while (s.Consume(','));
    if (!s.Expect(')', "to close the iota transpose")) return false;
  }
  groups->iota = true;
  groups->num_groups = dims[0];
  groups->group_size = dims[1];
  absl::Status valid = groups->Validate();
  if (!valid.ok()) return s.ErrorAt(p, valid.message());
  return true;
}

bool Parser::ParseMetadata(OpMetadata* metadata) {
  TextScanner& s = scanner_;
  if (!s.Expect('{', "to start metadata")) return false;
  while (s.Peek() != '}' && !s.AtEnd()) {
    const size_t p = s.Position();
    std::string key = s.ReadIdentifier();
    if (key.empty()) return s.ErrorAt(p, "expected a metadata field name");
    if (!s.Expect('=', What("after metadata field ", key))) return false;
    bool ok = true;
    if (key == "op_type") {
      ok = s.ReadQuotedString(&metadata->op_type, "for op_type");
    } else if (key == "op_name") {
      ok = s.ReadQuotedString(&metadata->op_name, "for op_name");
    } else if (key == "source_file") {
      ok = s.ReadQuotedString(&metadata->source_file, "for source_file");
    } else if (key == "source_line") {
      ok = s.ReadInt64(&metadata->source_line, "for source_line");
    } else if (key == "source_end_line") {
      ok = s.ReadInt64(&metadata->source_end_line, "for source_end_line");
    } else if (key == "source_column") {
      ok = s.ReadInt64(&metadata->source_column, "for source_column");
    } else if (key == "source_end_column") {
      ok = s.ReadInt64(&metadata->source_end_column, "for source_end_column");
    } else if (key == "deduplicated_name") {
      ok = s.ReadQuotedString(&metadata->deduplicated_name,
                              "for deduplicated_name");
    } else if (key == "scheduling_name") {
      ok =
          s.ReadQuotedString(&metadata->scheduling_name, "for scheduling_name");
    } else if (key == "stack_frame_id") {
      ok = s.ReadInt64(&metadata->stack_frame_id, "for stack_frame_id");
    } else if (key == "preserve_layout") {
      ok = s.ReadBool(&metadata->preserve_layout, "for preserve_layout");
    } else if (key == "profile_type") {
      ok = s.Expect('{', "to start profile_type");
      while (ok && s.Peek() != '}') {
        std::string t = s.ReadWhile([](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
        });
        if (t.empty()) {
          ok = s.Error("expected a profile type");
          break;
        }
        metadata->profile_type.push_back(t);
        s.Consume(',');
      }
      ok = ok && s.Expect('}', "to close profile_type");
    } else {
      return s.ErrorAt(p, absl::StrCat("unknown metadata field '", key, "'"));
    }
    if (!ok) return false;
    s.Consume(',');
  }
  return s.Expect('}', "to close metadata");
}

bool Parser::ParseFrontendAttributes(FrontendAttributes* attrs) {
  TextScanner& s = scanner_;
  if (!s.Expect('{', "to start frontend_attributes")) return false;
  if (s.Consume('}')) return true;
  do {
    const size_t p = s.Position();
    std::string key;
    if (s.Peek() == '"') {
      // A key that is not a plain name is written quoted.
      if (!s.ReadQuotedString(&key, "for a frontend attribute name")) {
        return false;
      }
    } else {
      key = s.ReadName();
    }
    if (key.empty()) return s.ErrorAt(p, "expected a frontend attribute name");
    if (!s.Expect('=', "after a frontend attribute name")) return false;
    std::string value;
    if (s.Peek() == '{') {
      if (!s.ReadBalancedBraces(&value, "for a frontend attribute"))
        return false;
    } else if (!s.ReadQuotedString(&value, "for a frontend attribute")) {
      return false;
    }
    (*attrs)[key] = std::move(value);
  } while (s.Consume(','));
  return s.Expect('}', "to close frontend_attributes");
}

bool Parser::ParseOutputOperandAliasing(
    std::vector<OutputOperandAlias>* aliasing) {
  TextScanner& s = scanner_;
  if (!s.Expect('{', "to start output_to_operand_aliasing")) return false;
  if (s.Consume('}')) return true;
  do {
    OutputOperandAlias alias;
    if (!ParseShapeIndex(&alias.output_index) ||
        !s.Expect(':',
                  "in output_to_operand_aliasing {out}: (operand, {in})") ||
        !s.Expect('(', "in output_to_operand_aliasing") ||
        !s.ReadInt64(&alias.operand_number, "as the aliased operand number") ||
        !s.Expect(',', "in output_to_operand_aliasing") ||
        !ParseShapeIndex(&alias.operand_index) ||
        !s.Expect(')', "in output_to_operand_aliasing")) {
      return false;
    }
    aliasing->push_back(std::move(alias));
  } while (s.Consume(','));
  return s.Expect('}', "to close output_to_operand_aliasing");
}

bool Parser::ParseStringOrJsonDict(std::string* value) {
  TextScanner& s = scanner_;
  if (s.Peek() == '{') return s.ReadBalancedBraces(value, "for backend_config");
  return s.ReadQuotedString(value, "for backend_config");
}

// XLA's grammar: {mode=default|highest|tolerance} or
// {tolerance={atol=x,rtol=y,ulps=z}} (any of the three, each once). Kept as
// written; only its form is checked here.
bool Parser::ParseResultAccuracy(std::string* raw) {
  TextScanner& s = scanner_;
  const size_t start = s.Position();
  if (!s.Expect('{', "to start result_accuracy")) return false;
  const size_t key_pos = s.Position();
  const std::string key = s.ReadIdentifier();
  if (key != "mode" && key != "tolerance") {
    return s.ErrorAt(key_pos, absl::StrCat("expected mode= or tolerance= in "
                                           "result_accuracy, found '",
                                           key, "'"));
  }
  if (!s.Expect('=', What("after ", key))) return false;
  if (key == "mode") {
    const size_t p = s.Position();
    std::string mode = s.ReadIdentifier();
    for (char& c : mode) c = std::tolower(static_cast<unsigned char>(c));
    if (mode != "default" && mode != "highest" && mode != "tolerance") {
      return s.ErrorAt(p, absl::StrCat("unknown result_accuracy mode '", mode,
                                       "'; expected default, highest or "
                                       "tolerance"));
    }
  } else {
    if (!s.Expect('{', "to start the result_accuracy tolerance")) return false;
    absl::flat_hash_set<std::string> seen;
    if (s.Peek() != '}') {
      do {
        const size_t p = s.Position();
        const std::string field = s.ReadIdentifier();
        if (field != "atol" && field != "rtol" && field != "ulps") {
          return s.ErrorAt(p, absl::StrCat("unknown tolerance field '", field,
                                           "'; expected atol, rtol or ulps"));
        }
        if (!seen.insert(field).second) {
          return s.ErrorAt(
              p, absl::StrCat("tolerance field '", field, "' appears twice"));
        }
        if (!s.Expect('=', What("after ", field))) return false;
        const size_t q = s.Position();
        const std::string number = s.ReadNumberToken();
        double value;
        if (number.empty() || !absl::SimpleAtod(number, &value)) {
          return s.ErrorAt(q, absl::StrCat("expected a number for ", field));
        }
      } while (s.Consume(','));
    }
    if (!s.Expect('}', "to close the result_accuracy tolerance")) return false;
  }
  if (!s.Expect('}', "to close result_accuracy")) return false;
  *raw = std::string(s.Slice(start, s.RawPosition()));
  return true;
}

bool Parser::ParseRawValue(std::string* raw) {
  TextScanner& s = scanner_;
  const char c = s.Peek();
  if (c == '{') return s.ReadBalancedBraces(raw, "for the attribute value");
  const size_t start = s.Position();
  if (c == '"') {
    std::string ignored;
    if (!s.ReadQuotedString(&ignored, "for the attribute value")) return false;
    *raw = std::string(s.Slice(start, s.RawPosition()));
    return true;
  }
  *raw = s.ReadWhile([](char ch) {
    return ch != ',' && ch != '\n' && ch != '}' && ch != ')' && ch != ' ';
  });
  if (raw->empty()) return s.ErrorAt(start, "expected an attribute value");
  return true;
}

}  // namespace parser_internal
}  // namespace xlite
