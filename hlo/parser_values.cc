// Value grammars of the HLO text format: shapes, layouts, literals and the
// attribute values (windows, dim labels, padding, shardings, ...).

#include <cctype>
#include <cmath>
#include <limits>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "hlo/float_types.h"
#include "hlo/parser_impl.h"

namespace xlite {
namespace parser_internal {
namespace {

constexpr int kMaxNesting = 200;

bool IsDigitChar(char c) { return std::isdigit(static_cast<unsigned char>(c)); }

}  // namespace

bool Parser::AtShape() {
  TextScanner& s = scanner_;
  if (s.Peek() == '(') {
    // A tuple shape starts with '(' then a shape or ')'.
    const size_t saved = s.RawPosition();
    s.Consume('(');
    bool result = s.Peek() == ')' || AtShape();
    s.Reset(saved);
    return result;
  }
  const size_t saved = s.RawPosition();
  std::string id = s.ReadIdentifier();
  bool result = !id.empty() && ParsePrimitiveTypeName(id).has_value() &&
                s.RawPosition() < s.text().size() &&
                s.text()[s.RawPosition()] == '[';
  s.Reset(saved);
  return result;
}

bool Parser::ParseShape(Shape* shape) {
  TextScanner& s = scanner_;
  if (++recursion_depth_ > kMaxNesting) {
    --recursion_depth_;
    return s.Error("shape nested too deeply");
  }
  bool ok;
  if (s.Peek() == '(') {
    s.Consume('(');
    std::vector<Shape> elements;
    ok = true;
    if (!s.Consume(')')) {
      do {
        Shape element;
        if (!ParseShape(&element)) {
          ok = false;
          break;
        }
        elements.push_back(std::move(element));
      } while (s.Consume(','));
      ok = ok && s.Expect(')', "to close a tuple shape");
    }
    if (ok) *shape = Shape::Tuple(std::move(elements));
  } else {
    ok = ParseArrayShape(shape);
  }
  --recursion_depth_;
  return ok;
}

bool Parser::ParseArrayShape(Shape* shape) {
  TextScanner& s = scanner_;
  const size_t start = s.Position();
  std::string type_name = s.ReadIdentifier();
  std::optional<PrimitiveType> type = ParsePrimitiveTypeName(type_name);
  if (!type.has_value()) {
    if (type_name.empty()) return s.ErrorAt(start, "expected a shape");
    return s.ErrorAt(start, absl::StrCat("unknown element type '", type_name,
                                         "'"));
  }
  if (!s.Expect('[', "after the element type")) return false;
  *shape = Shape(*type, {});
  if (!s.Consume(']')) {
    do {
      const size_t dim_pos = s.Position();
      if (s.Consume('?')) {
        shape->add_dimension(Shape::kUnboundedSize, true);
        continue;
      }
      const bool bounded = s.ConsumeString("<=");
      int64_t size;
      if (!s.ReadInt64(&size, "as a dimension size")) return false;
      if (size < 0) {
        return s.ErrorAt(dim_pos, absl::StrCat("negative dimension size ", size));
      }
      shape->add_dimension(size, bounded);
    } while (s.Consume(','));
    if (!s.Expect(']', "to close the dimensions")) return false;
  }
  if ((shape->IsToken() || shape->IsOpaque()) && shape->rank() != 0) {
    return s.ErrorAt(start, absl::StrCat(type_name,
                                         " shapes cannot have dimensions"));
  }
  // A layout follows immediately: "f32[2]{0}". After whitespace, '{' starts
  // something else (a computation body, a literal).
  const size_t raw = s.RawPosition();
  if (raw < s.text().size() && s.text()[raw] == '{' && shape->IsArray()) {
    if (!ParseLayout(shape)) return false;
    absl::Status valid = ValidateShape(*shape);
    if (!valid.ok()) return s.ErrorAt(start, valid.message());
  } else if (options_.fill_missing_layouts) {
    shape->FillMissingLayouts();
  }
  return true;
}

bool Parser::ParseLayout(Shape* shape) {
  TextScanner& s = scanner_;
  if (!s.Expect('{', "to start a layout")) return false;
  Layout layout;
  if (s.Peek() != ':' && s.Peek() != '}') {
    do {
      int64_t d;
      if (!s.ReadInt64(&d, "in the layout's minor-to-major list")) return false;
      layout.mutable_minor_to_major().push_back(d);
    } while (s.Consume(','));
  }
  if (s.Consume(':')) {
    while (s.Peek() != '}' && !s.AtEnd() && !s.has_error()) {
      const size_t item_pos = s.Position();
      auto read_paren_int = [&](int64_t* value, absl::string_view what) {
        return s.Expect('(', what) && s.ReadInt64(value, what) &&
               s.Expect(')', what);
      };
      auto read_paren_type = [&](PrimitiveType* type, absl::string_view what) {
        if (!s.Expect('(', what)) return false;
        const size_t p = s.Position();
        std::string name = s.ReadIdentifier();
        auto t = ParsePrimitiveTypeName(name);
        if (!t.has_value()) {
          return s.ErrorAt(p, absl::StrCat("expected an element type ", what));
        }
        *type = *t;
        return s.Expect(')', what);
      };
      if (s.ConsumeString("SC")) {
        SplitConfig split;
        if (!s.Expect('(', "after SC") ||
            !s.ReadInt64(&split.dimension, "in SC(...)") ||
            !s.Expect(':', "in SC(dim:indices)")) {
          return false;
        }
        if (s.Peek() != ')') {
          do {
            int64_t v;
            if (!s.ReadInt64(&v, "in SC(...)")) return false;
            split.split_indices.push_back(v);
          } while (s.Consume(','));
        }
        if (!s.Expect(')', "to close SC(...)")) return false;
        layout.mutable_split_configs().push_back(std::move(split));
      } else if (s.Consume('T')) {
        if (s.Peek() != '(') return s.Error("expected '(' after T in a layout");
        while (s.Peek() == '(') {
          s.Consume('(');
          Tile tile;
          if (s.Peek() != ')') {
            do {
              if (s.Consume('*')) {
                tile.dimensions.push_back(Tile::kCombineDimension);
              } else {
                int64_t v;
                if (!s.ReadInt64(&v, "in a tile")) return false;
                tile.dimensions.push_back(v);
              }
            } while (s.Consume(','));
          }
          if (!s.Expect(')', "to close a tile")) return false;
          layout.mutable_tiles().push_back(std::move(tile));
        }
      } else if (s.Consume('L')) {
        int64_t v;
        if (!read_paren_int(&v, "in L(...)")) return false;
        layout.set_tail_padding_alignment_in_elements(v);
      } else if (s.Consume('#')) {
        PrimitiveType t;
        if (!read_paren_type(&t, "in #(...)")) return false;
        layout.set_index_primitive_type(t);
      } else if (s.Consume('*')) {
        PrimitiveType t;
        if (!read_paren_type(&t, "in *(...)")) return false;
        layout.set_pointer_primitive_type(t);
      } else if (s.Consume('E')) {
        int64_t v;
        if (!read_paren_int(&v, "in E(...)")) return false;
        layout.set_element_size_in_bits(v);
      } else if (s.Consume('S')) {
        int64_t v;
        if (!read_paren_int(&v, "in S(...)")) return false;
        layout.set_memory_space(v);
      } else if (s.Consume('M')) {
        int64_t v;
        if (!read_paren_int(&v, "in M(...)")) return false;
        layout.set_dynamic_shape_metadata_prefix_bytes(v);
      } else if (s.Consume('P')) {
        Shape physical;
        if (!s.Expect('(', "after P") || !ParseShape(&physical) ||
            !s.Expect(')', "to close P(...)")) {
          return false;
        }
        layout.set_physical_shape(physical);
      } else {
        return s.ErrorAt(item_pos,
                         "unknown layout attribute; expected T, L, #, *, E, S, "
                         "SC, P or M");
      }
    }
  }
  if (!s.Expect('}', "to close the layout")) return false;
  shape->set_layout(layout);
  return true;
}

// ------------------------------------------------------------------ literals

bool Parser::ParseLiteralValue(const Shape& shape, Literal* literal) {
  TextScanner& s = scanner_;
  if (++recursion_depth_ > kMaxNesting) {
    --recursion_depth_;
    return s.Error("literal nested too deeply");
  }
  bool ok = true;
  if (shape.IsTuple()) {
    std::vector<Literal> elements;
    ok = s.Expect('(', "to start a tuple literal");
    for (int64_t i = 0; ok && i < shape.tuple_shapes_size(); ++i) {
      if (i > 0 && !s.Expect(',', "between tuple literal elements")) {
        ok = false;
        break;
      }
      const Shape& element_shape = shape.tuple_shapes(i);
      // Elements may carry their shape ("(f32[] 1, s32[2] {1, 2})").
      if (AtShape() && !(element_shape.IsTuple() && s.Peek() == '(')) {
        const size_t p = s.Position();
        Shape written;
        if (!ParseShape(&written)) {
          ok = false;
          break;
        }
        if (!ShapesCompatible(written, element_shape)) {
          ok = s.ErrorAt(p, absl::StrCat("tuple literal element ", i, " has shape ",
                                         written.ToString(false), ", expected ",
                                         element_shape.ToString(false)));
          break;
        }
      }
      Literal element;
      ok = ParseLiteralValue(element_shape, &element);
      elements.push_back(std::move(element));
    }
    ok = ok && s.Expect(')', "to close a tuple literal");
    if (ok) *literal = Literal::Tuple(std::move(elements));
  } else if (shape.IsArray()) {
    ok = ParseDenseArray(shape, literal);
  } else {
    ok = s.Error(absl::StrCat("cannot write a literal of shape ",
                              shape.ToString(false)));
  }
  --recursion_depth_;
  return ok;
}

bool Parser::ParseDenseArray(const Shape& shape, Literal* literal) {
  TextScanner& s = scanner_;
  const int64_t rank = shape.rank();
  *literal = Literal(shape);
  if (rank == 0) {
    // XLA allows a scalar to be braced once: "{5}".
    if (s.Peek() == '{') {
      s.Consume('{');
      if (s.ConsumeString("...")) {
        *literal = Literal::Unknown(shape);
        return s.Expect('}', "after '...'");
      }
      return ParseElement(shape, 0, literal) && s.Expect('}', "after a scalar");
    }
    return ParseElement(shape, 0, literal);
  }
  if (s.Peek() != '{') {
    return s.Error(absl::StrCat("expected '{' to start an array literal of shape ",
                                shape.ToString(false)));
  }
  std::vector<int64_t> seen(rank, 0);
  int64_t nest = 0;
  int64_t linear = 0;
  auto index_string = [&](int64_t upto) {
    std::string out = "[";
    for (int64_t i = 0; i < upto; ++i) {
      if (i > 0) out += ",";
      absl::StrAppend(&out, seen[i] - 1);
    }
    return out + "]";
  };
  do {
    const size_t p = s.Position();
    const char c = s.Peek();
    if (c == '{') {
      s.Consume('{');
      ++nest;
      if (nest > rank) {
        return s.ErrorAt(p, absl::StrCat("expects nested array in rank ", rank,
                                         ", but sees larger"));
      }
      if (nest > 1) {
        if (++seen[nest - 2] > shape.dimensions(nest - 2)) {
          return s.ErrorAt(p, absl::StrCat("expects ", shape.dimensions(nest - 2),
                                           " elements in the ",
                                           index_string(nest - 2),
                                           "th element, but sees more"));
        }
      }
      if (nest == 1 && s.ConsumeString("...")) {
        if (!s.Expect('}', "after '...' in an elided literal")) return false;
        *literal = Literal::Unknown(shape);
        return true;
      }
    } else if (c == '}') {
      s.Consume('}');
      if (nest == 0) return s.ErrorAt(p, "unexpected '}' in a literal");
      --nest;
      if (seen[nest] != shape.dimensions(nest)) {
        return s.ErrorAt(p, absl::StrCat("expects ", shape.dimensions(nest),
                                         " elements in the ", index_string(nest),
                                         "th element, but sees ", seen[nest]));
      }
      seen[nest] = 0;
    } else if (c == ',') {
      s.Consume(',');
    } else if (c == '\0') {
      return s.ErrorAt(p, "unexpected end of input in a literal");
    } else {
      if (nest != rank) {
        return s.ErrorAt(p, absl::StrCat("expects nested array in rank ", rank,
                                         ", but sees ", nest));
      }
      if (++seen[rank - 1] > shape.dimensions(rank - 1)) {
        return s.ErrorAt(p, absl::StrCat("expects ", shape.dimensions(rank - 1),
                                         " elements on the minor-most dimension, "
                                         "but sees more"));
      }
      if (!ParseElement(shape, linear++, literal)) return false;
    }
  } while (nest > 0 && !s.has_error());
  return !s.has_error();
}

bool Parser::ParseElement(const Shape& shape, int64_t index, Literal* literal) {
  TextScanner& s = scanner_;
  const PrimitiveType type = shape.element_type();
  const size_t p = s.Position();
  if (type == PrimitiveType::kPred) {
    const std::string id = s.PeekIdentifier();
    if (id == "true" || id == "false") {
      s.ReadIdentifier();
      literal->SetBits(index, id == "true" ? 1 : 0);
      return true;
    }
    int64_t v;
    if (!s.ReadInt64(&v, "or true/false for a pred element")) return false;
    if (v != 0 && v != 1) {
      return s.ErrorAt(p, absl::StrCat("value ", v, " is out of range for pred"));
    }
    literal->SetBits(index, v);
    return true;
  }
  if (IsComplex(type)) {
    if (!s.Expect('(', "to start a complex value (re, im)")) return false;
    double parts[2];
    for (int i = 0; i < 2; ++i) {
      if (i == 1 && !s.Expect(',', "between the parts of a complex value")) {
        return false;
      }
      const size_t q = s.Position();
      std::string token = s.ReadNumberToken();
      std::string_view t = token;
      bool negative = !t.empty() && t[0] == '-';
      std::string_view body = negative || (!t.empty() && t[0] == '+') ? t.substr(1) : t;
      if (body == "inf") {
        parts[i] = negative ? -INFINITY : INFINITY;
      } else if (body.substr(0, 3) == "nan") {
        parts[i] = negative ? -NAN : NAN;
      } else if (token.empty() || !absl::SimpleAtod(token, &parts[i])) {
        return s.ErrorAt(q, "expected a number in a complex value");
      }
      const PrimitiveType part = ComplexComponentType(type);
      if (std::isfinite(parts[i]) &&
          !std::isfinite(DecodeToF64(part, EncodeFromF64(part, parts[i])))) {
        return s.ErrorAt(q, absl::StrCat(i == 0 ? "real" : "imaginary", " part ",
                                         token, " is out of range for ",
                                         PrimitiveTypeName(type)));
      }
    }
    if (!s.Expect(')', "to close a complex value")) return false;
    literal->SetFromComplex(index, {parts[0], parts[1]});
    return true;
  }
  std::string token = s.ReadNumberToken();
  if (token.empty()) {
    return s.ErrorAt(p, absl::StrCat("expected a ", PrimitiveTypeName(type),
                                     " value in the literal"));
  }
  const bool is_decimal = token.find_first_of(".eEn") != std::string::npos ||
                          token.find("inf") != std::string::npos;
  if (IsInteger(type)) {
    if (is_decimal) {
      return s.ErrorAt(p, absl::StrCat("expected an integer for ",
                                       PrimitiveTypeName(type), ", found ", token));
    }
    const int width = BitWidth(type);
    if (IsUnsignedInteger(type)) {
      uint64_t v;
      if (token[0] == '-' || !absl::SimpleAtoi(token, &v) ||
          (width < 64 && v >= (uint64_t{1} << width))) {
        return s.ErrorAt(p, absl::StrCat("value ", token,
                                         " is out of range for ",
                                         PrimitiveTypeName(type)));
      }
      literal->SetBits(index, v);
    } else {
      int64_t v;
      const int64_t max = width >= 64 ? std::numeric_limits<int64_t>::max()
                                      : (int64_t{1} << (width - 1)) - 1;
      const int64_t min = width >= 64 ? std::numeric_limits<int64_t>::min()
                                      : -(int64_t{1} << (width - 1));
      if (!absl::SimpleAtoi(token, &v) || v > max || v < min) {
        return s.ErrorAt(p, absl::StrCat("value ", token, " is out of range for ",
                                         PrimitiveTypeName(type), " [", min,
                                         ", ", max, "]"));
      }
      literal->SetFromInt64(index, v);
    }
    return true;
  }
  // Floating point: numbers, inf, nan, nan(0x payload).
  std::string_view t = token;
  const bool negative = t[0] == '-';
  if (t[0] == '-' || t[0] == '+') t.remove_prefix(1);
  const FloatFormat* format = GetFloatFormat(type);
  if (t.substr(0, 3) == "nan") {
    uint64_t bits = EncodeFromF64(type, negative ? -NAN : NAN);
    if (t.size() > 3) {
      uint64_t payload;
      std::string_view hex = t.substr(4, t.size() - 5);
      if (hex.substr(0, 2) == "0x") hex.remove_prefix(2);
      if (!absl::SimpleHexAtoi(absl::string_view(hex.data(), hex.size()), &payload) || payload == 0) {
        return s.ErrorAt(p, absl::StrCat("invalid NaN payload in ", token));
      }
      if (format->nan != NanEncoding::kIeee ||
          payload >= (uint64_t{1} << format->mantissa_bits)) {
        return s.ErrorAt(p, absl::StrCat("NaN payload ", token,
                                         " does not fit ",
                                         PrimitiveTypeName(type)));
      }
      const uint64_t sign = negative ? uint64_t{1} << (format->total_bits() - 1)
                                     : 0;
      bits = sign | (((uint64_t{1} << format->exponent_bits) - 1)
                     << format->mantissa_bits) |
             payload;
    }
    literal->SetBits(index, bits);
    return true;
  }
  double value;
  if (t == "inf") {
    value = negative ? -INFINITY : INFINITY;
  } else if (!absl::SimpleAtod(token, &value)) {
    return s.ErrorAt(p, absl::StrCat("invalid number ", token));
  }
  if (std::isfinite(value)) {
    const double stored = DecodeToF64(type, EncodeFromF64(type, value));
    if (!std::isfinite(stored)) {
      return s.ErrorAt(p, absl::StrCat("value ", token, " is out of range for ",
                                       PrimitiveTypeName(type)));
    }
  }
  literal->SetBits(index, EncodeFromF64(type, value));
  return true;
}

// ------------------------------------------------------------- simple lists

bool Parser::ParseBracedInts(std::vector<int64_t>* values,
                             absl::string_view what) {
  TextScanner& s = scanner_;
  if (!s.Expect('{', What("to start ", what))) return false;
  values->clear();
  if (s.Consume('}')) return true;
  do {
    int64_t v;
    if (!s.ReadInt64(&v, What("in ", what))) return false;
    values->push_back(v);
  } while (s.Consume(','));
  return s.Expect('}', What("to close ", what));
}

bool Parser::ParseBracedIntLists(std::vector<std::vector<int64_t>>* values,
                                 absl::string_view what) {
  TextScanner& s = scanner_;
  if (!s.Expect('{', What("to start ", what))) return false;
  values->clear();
  if (s.Consume('}')) return true;
  do {
    std::vector<int64_t> inner;
    if (!ParseBracedInts(&inner, what)) return false;
    values->push_back(std::move(inner));
  } while (s.Consume(','));
  return s.Expect('}', What("to close ", what));
}

bool Parser::ParseShapeIndex(ShapeIndex* index) {
  std::vector<int64_t> values;
  if (!ParseBracedInts(&values, "a shape index")) return false;
  index->assign(values.begin(), values.end());
  return true;
}

bool Parser::ParseBoolList(std::vector<bool>* values, bool allow_single) {
  TextScanner& s = scanner_;
  values->clear();
  if (allow_single && s.Peek() != '{') {
    bool b;
    if (!s.ReadBool(&b, "")) return false;
    values->push_back(b);
    return true;
  }
  if (!s.Expect('{', "to start a list of booleans")) return false;
  if (s.Consume('}')) return true;
  do {
    bool b;
    if (!s.ReadBool(&b, "in a list of booleans")) return false;
    values->push_back(b);
  } while (s.Consume(','));
  return s.Expect('}', "to close a list of booleans");
}

bool Parser::ParseShapeList(std::vector<Shape>* shapes) {
  TextScanner& s = scanner_;
  if (!s.Expect('{', "to start a list of shapes")) return false;
  if (s.Consume('}')) return true;
  do {
    Shape shape;
    if (!ParseShape(&shape)) return false;
    shapes->push_back(std::move(shape));
  } while (s.Consume(','));
  return s.Expect('}', "to close a list of shapes");
}

template <typename Enum>
bool Parser::ParseEnum(Enum* value,
                       std::optional<Enum> (*parse)(absl::string_view),
                       absl::string_view what) {
  TextScanner& s = scanner_;
  const size_t p = s.Position();
  std::string id = s.ReadIdentifier();
  std::optional<Enum> e = parse(id);
  if (!e.has_value()) {
    return s.ErrorAt(p, absl::StrCat("unknown ", what, " '", id, "'"));
  }
  *value = *e;
  return true;
}

// Instantiations used by parser.cc.
template bool Parser::ParseEnum(ComparisonDirection*,
                                std::optional<ComparisonDirection> (*)(absl::string_view),
                                absl::string_view);
template bool Parser::ParseEnum(ComparisonType*,
                                std::optional<ComparisonType> (*)(absl::string_view),
                                absl::string_view);
template bool Parser::ParseEnum(FusionKind*,
                                std::optional<FusionKind> (*)(absl::string_view),
                                absl::string_view);
template bool Parser::ParseEnum(FftType*, std::optional<FftType> (*)(absl::string_view),
                                absl::string_view);
template bool Parser::ParseEnum(RandomDistribution*,
                                std::optional<RandomDistribution> (*)(absl::string_view),
                                absl::string_view);
template bool Parser::ParseEnum(RandomAlgorithm*,
                                std::optional<RandomAlgorithm> (*)(absl::string_view),
                                absl::string_view);
template bool Parser::ParseEnum(CustomCallApiVersion*,
                                std::optional<CustomCallApiVersion> (*)(absl::string_view),
                                absl::string_view);
template bool Parser::ParseEnum(CustomCallSchedule*,
                                std::optional<CustomCallSchedule> (*)(absl::string_view),
                                absl::string_view);
template bool Parser::ParseEnum(PaddingType*,
                                std::optional<PaddingType> (*)(absl::string_view),
                                absl::string_view);
template bool Parser::ParseEnum(TriangularSolveTranspose*,
                                std::optional<TriangularSolveTranspose> (*)(absl::string_view),
                                absl::string_view);

bool Parser::ParsePrecisionList(std::vector<Precision>* precisions) {
  TextScanner& s = scanner_;
  if (!s.Expect('{', "to start operand_precision")) return false;
  precisions->clear();
  if (s.Consume('}')) return true;
  do {
    const size_t p = s.Position();
    std::string id = s.ReadIdentifier();
    std::string lower;
    for (char c : id) lower.push_back(std::tolower(static_cast<unsigned char>(c)));
    std::optional<Precision> precision = ParsePrecision(lower);
    if (!precision.has_value()) {
      return s.ErrorAt(p, absl::StrCat("unknown precision '", id,
                                       "'; expected default, high, highest or "
                                       "packed_nibble"));
    }
    precisions->push_back(*precision);
  } while (s.Consume(','));
  return s.Expect('}', "to close operand_precision");
}

// ------------------------------------------------------ structured attributes

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
      return s.ErrorAt(p, absl::StrCat("unknown window field '", key,
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
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ||
           c == '>' || c == '?';
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
      if (c == a && *pa < 0) {
        *pa = i;
      } else if (c == b && *pb < 0) {
        *pb = i;
      } else if (IsDigitChar(c) && static_cast<size_t>(c - '0') < labels.size() &&
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
    return s.ErrorAt(p, absl::StrCat("dim_labels '", text,
                                     "' has different spatial ranks"));
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
        (parts.size() == 3 && !absl::SimpleAtoi(parts[2], &d.interior_padding))) {
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
  if (s.Peek() == '{') {
    return ParseBracedIntLists(&groups->groups, "replica groups");
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
  if (!s.ConsumeString("<=")) return s.Error("expected '<=' in iota replica groups");
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
  int64_t total = 1;
  for (int64_t d : groups->reshape_dims) total *= d;
  if (total != dims[0] * dims[1] || dims[0] < 0 || dims[1] < 0) {
    return s.ErrorAt(p, absl::StrCat("iota replica groups [", dims[0], ",",
                                     dims[1], "] do not match ", total,
                                     " devices"));
  }
  if (!groups->transpose_perm.empty() &&
      groups->transpose_perm.size() != groups->reshape_dims.size()) {
    return s.ErrorAt(p, "iota transpose must have one entry per reshape dim");
  }
  return true;
}

bool Parser::ParseSharding(HloSharding* sharding) {
  TextScanner& s = scanner_;
  const size_t start = s.Position();
  if (!s.Expect('{', "to start a sharding")) return false;
  if (s.Peek() == '{' || s.Peek() == '}') {
    // Tuple sharding (possibly empty).
    sharding->type = HloSharding::Type::kTuple;
    if (!s.Consume('}')) {
      do {
        HloSharding element;
        if (!ParseSingleSharding(&element)) return false;
        sharding->tuple_elements.push_back(std::move(element));
      } while (s.Consume(','));
      if (!s.Expect('}', "to close a tuple sharding")) return false;
    }
    return true;
  }
  const std::string id = s.PeekIdentifier();
  if (id == "mesh" || id == "maximal_mesh") {
    // Named shardings: kept verbatim.
    s.Reset(start);
    sharding->type = HloSharding::Type::kRaw;
    return s.ReadBalancedBraces(&sharding->raw, "for a sharding");
  }
  s.Reset(start);
  return ParseSingleSharding(sharding);
}

bool Parser::ParseSingleSharding(HloSharding* sharding) {
  TextScanner& s = scanner_;
  const size_t start = s.Position();
  if (!s.Expect('{', "to start a sharding")) return false;
  bool replicated = false, maximal = false, manual = false, unknown = false,
       unreduced = false, tiled = false;
  bool have_device = false;
  while (s.Peek() != '}' && !s.AtEnd()) {
    const size_t p = s.Position();
    std::string word = s.ReadIdentifier();
    if (word == "replicated") {
      replicated = true;
    } else if (word == "maximal") {
      maximal = true;
    } else if (word == "manual") {
      manual = true;
    } else if (word == "unknown") {
      unknown = true;
    } else if (word == "unreduced") {
      unreduced = true;
    } else if (word == "last_tile_dim_replicate") {
      sharding->last_tile_dim_replicate = true;
    } else if (word == "shard_as" || word == "shard_like") {
      sharding->shard_group = word == "shard_as" ? HloSharding::ShardGroup::kAs
                                                 : HloSharding::ShardGroup::kLike;
      if (!s.ReadInt64(&sharding->shard_group_id, "after shard_as/shard_like")) {
        return false;
      }
    } else if (word == "device") {
      if (!s.Expect('=', "after device") ||
          !s.ReadInt64(&sharding->device, "after device=")) {
        return false;
      }
      have_device = true;
    } else if (word == "devices") {
      tiled = true;
      if (!s.Expect('=', "after devices") ||
          !s.Expect('[', "to start the tile assignment dimensions")) {
        return false;
      }
      do {
        int64_t v;
        if (!s.ReadInt64(&v, "in the tile assignment dimensions")) return false;
        sharding->tile_dimensions.push_back(v);
      } while (s.Consume(','));
      if (!s.Expect(']', "to close the tile assignment dimensions")) return false;
      if (s.ConsumeString("<=")) {
        sharding->iota = true;
        if (!s.Expect('[', "after '<='")) return false;
        do {
          int64_t v;
          if (!s.ReadInt64(&v, "in iota reshape dims")) return false;
          sharding->iota_reshape_dims.push_back(v);
        } while (s.Consume(','));
        if (!s.Expect(']', "to close iota reshape dims")) return false;
        if (s.Peek() == 'T' && s.PeekAt(1) == '(') {
          s.Consume('T');
          s.Consume('(');
          do {
            int64_t v;
            if (!s.ReadInt64(&v, "in iota transpose")) return false;
            sharding->iota_transpose_perm.push_back(v);
          } while (s.Consume(','));
          if (!s.Expect(')', "to close the iota transpose")) return false;
        }
      } else {
        do {
          int64_t v;
          if (!s.ReadInt64(&v, "in the device list")) return false;
          sharding->devices.push_back(v);
        } while (s.Consume(','));
      }
    } else if (word == "metadata") {
      if (!s.Expect('=', "after metadata")) return false;
      // One metadata or a list of them.
      if (s.Peek() == '{' && s.PeekAt(1) == '{') {
        s.Consume('{');
        do {
          OpMetadata m;
          if (!ParseMetadata(&m)) return false;
          sharding->metadata.push_back(std::move(m));
        } while (s.Consume(','));
        if (!s.Expect('}', "to close the metadata list")) return false;
      } else if (s.Peek() == '{' && s.PeekAt(1) == '}') {
        s.Consume('{');
        s.Consume('}');
      } else {
        OpMetadata m;
        if (!ParseMetadata(&m)) return false;
        sharding->metadata.push_back(std::move(m));
      }
    } else if (word == "last_tile_dims") {
      if (!s.Expect('=', "after last_tile_dims") ||
          !s.Expect('{', "to start last_tile_dims")) {
        return false;
      }
      if (!s.Consume('}')) {
        do {
          const size_t q = s.Position();
          std::string t = s.ReadIdentifier();
          using T = HloSharding::SubgroupType;
          T type;
          if (t == "replicated") type = T::kReplicated;
          else if (t == "manual") type = T::kManual;
          else if (t == "maximal") type = T::kMaximal;
          else if (t == "other") type = T::kOther;
          else if (t == "unknown") type = T::kUnknown;
          else if (t == "unreduced") type = T::kUnreduced;
          else return s.ErrorAt(q, absl::StrCat("unknown sharding type '", t, "'"));
          sharding->last_tile_dims.push_back(type);
        } while (s.Consume(','));
        if (!s.Expect('}', "to close last_tile_dims")) return false;
      }
    } else {
      return s.ErrorAt(p, word.empty()
                              ? std::string("unexpected character in a sharding")
                              : absl::StrCat("unknown sharding attribute '", word,
                                             "'"));
    }
  }
  if (!s.Expect('}', "to close the sharding")) return false;
  using Type = HloSharding::Type;
  if (replicated) {
    sharding->type = Type::kReplicated;
  } else if (maximal) {
    if (!have_device) return s.ErrorAt(start, "maximal sharding needs device=N");
    sharding->type = Type::kMaximal;
  } else if (manual) {
    sharding->type = Type::kManual;
  } else if (unknown) {
    sharding->type = Type::kUnknown;
  } else if (unreduced) {
    sharding->type = Type::kUnreduced;
  } else if (tiled) {
    sharding->type = Type::kTiled;
    const int64_t n = sharding->TileAssignmentSize();
    if (sharding->iota) {
      int64_t total = 1;
      for (int64_t d : sharding->iota_reshape_dims) total *= d;
      if (total != n) {
        return s.ErrorAt(start, absl::StrCat("sharding iota has ", total,
                                             " devices, tile assignment ", n));
      }
      if (!sharding->iota_transpose_perm.empty() &&
          sharding->iota_transpose_perm.size() !=
              sharding->iota_reshape_dims.size()) {
        return s.ErrorAt(start, "sharding iota transpose rank mismatch");
      }
    } else if (static_cast<int64_t>(sharding->devices.size()) != n) {
      return s.ErrorAt(start, absl::StrCat("sharding lists ",
                                           sharding->devices.size(),
                                           " devices, tile assignment needs ", n));
    }
  } else {
    return s.ErrorAt(start, "sharding needs replicated, maximal, manual, unknown "
                            "or devices=");
  }
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
      ok = s.ReadQuotedString(&metadata->scheduling_name, "for scheduling_name");
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
    std::string key = s.ReadName();
    if (key.empty()) return s.ErrorAt(p, "expected a frontend attribute name");
    if (!s.Expect('=', "after a frontend attribute name")) return false;
    std::string value;
    if (s.Peek() == '{') {
      if (!s.ReadBalancedBraces(&value, "for a frontend attribute")) return false;
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
        !s.Expect(':', "in output_to_operand_aliasing {out}: (operand, {in})") ||
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
