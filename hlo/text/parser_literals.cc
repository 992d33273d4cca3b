// Literal values: the array structure (nested braces, short literals,
// tuples) and each element by element type kind: pred, complex, integer and
// floating point.

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "hlo/ir/float_types.h"
#include "hlo/text/parser_impl.h"

namespace xlite {
namespace parser_internal {
namespace {

// `true`, `false`, 0 or 1.
bool ParsePredElement(TextScanner& s, size_t p, int64_t index,
                      Literal* literal) {
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

// `(re, im)`; each part a number, inf or nan that fits the part type.
bool ParseComplexElement(TextScanner& s, PrimitiveType type, int64_t index,
                         Literal* literal) {
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
    std::string_view body =
        negative || (!t.empty() && t[0] == '+') ? t.substr(1) : t;
    if (body == "inf") {
      parts[i] = negative ? -INFINITY : INFINITY;
    } else if (body.substr(0, 3) == "nan") {
      parts[i] = negative ? -NAN : NAN;
    } else if (token.empty() || !absl::SimpleAtod(token, &parts[i])) {
      return s.ErrorAt(q, "expected a number in a complex value");
    } else if (!std::isfinite(parts[i])) {
      return s.ErrorAt(
          q, absl::StrCat(i == 0 ? "real" : "imaginary", " part ", token,
                          " is out of range for ", PrimitiveTypeName(type)));
    }
    const PrimitiveType part = ComplexComponentType(type);
    if (std::isfinite(parts[i]) &&
        !std::isfinite(DecodeToF64(part, EncodeFromF64(part, parts[i])))) {
      return s.ErrorAt(
          q, absl::StrCat(i == 0 ? "real" : "imaginary", " part ", token,
                          " is out of range for ", PrimitiveTypeName(type)));
    }
  }
  if (!s.Expect(')', "to close a complex value")) return false;
  literal->SetFromComplex(index, {parts[0], parts[1]});
  return true;
}

// `token` (read at `p`) as a value of integer `type`, range-checked.
bool ParseIntegerElement(TextScanner& s, size_t p, PrimitiveType type,
                         const std::string& token, bool is_decimal,
                         int64_t index, Literal* literal) {
  if (is_decimal) {
    return s.ErrorAt(
        p, absl::StrCat("expected an integer for ", PrimitiveTypeName(type),
                        ", found ", token));
  }
  const int width = BitWidth(type);
  if (IsUnsignedInteger(type)) {
    uint64_t v;
    int64_t negative;
    if (width == 64 && token[0] == '-' && absl::SimpleAtoi(token, &negative)) {
      // XLA reads an int64 and converts it: for u64 a negative value
      // wraps around ("u64[] constant(-1)" is 2^64-1); narrower unsigned
      // types reject it.
      literal->SetBits(index, static_cast<uint64_t>(negative));
      return true;
    }
    if (token[0] == '-' || !absl::SimpleAtoi(token, &v) ||
        (width < 64 && v >= (uint64_t{1} << width))) {
      return s.ErrorAt(p, absl::StrCat("value ", token, " is out of range for ",
                                       PrimitiveTypeName(type)));
    }
    literal->SetBits(index, v);
    return true;
  }
  int64_t v;
  const int64_t max = width >= 64 ? std::numeric_limits<int64_t>::max()
                                  : (int64_t{1} << (width - 1)) - 1;
  const int64_t min = width >= 64 ? std::numeric_limits<int64_t>::min()
                                  : -(int64_t{1} << (width - 1));
  if (!absl::SimpleAtoi(token, &v) || v > max || v < min) {
    return s.ErrorAt(
        p, absl::StrCat("value ", token, " is out of range for ",
                        PrimitiveTypeName(type), " [", min, ", ", max, "]"));
  }
  literal->SetFromInt64(index, v);
  return true;
}

// `nan` or `nan(0x payload)` (sign already stripped from `t`) as the bits of
// floating `type`.
bool ParseNanElement(TextScanner& s, size_t p, PrimitiveType type,
                     const std::string& token, std::string_view t,
                     bool negative, int64_t index, Literal* literal) {
  const FloatFormat* format = GetFloatFormat(type);
  uint64_t bits = EncodeFromF64(type, negative ? -NAN : NAN);
  if (t.size() > 3) {
    uint64_t payload;
    std::string_view hex = t.substr(4, t.size() - 5);
    if (hex.substr(0, 2) == "0x") hex.remove_prefix(2);
    if (!absl::SimpleHexAtoi(absl::string_view(hex.data(), hex.size()),
                             &payload) ||
        payload == 0) {
      return s.ErrorAt(p, absl::StrCat("invalid NaN payload in ", token));
    }
    if (format->nan != NanEncoding::kIeee ||
        payload >= (uint64_t{1} << format->mantissa_bits)) {
      return s.ErrorAt(p, absl::StrCat("NaN payload ", token, " does not fit ",
                                       PrimitiveTypeName(type)));
    }
    const uint64_t sign =
        negative ? uint64_t{1} << (format->total_bits() - 1) : 0;
    bits = sign |
           (((uint64_t{1} << format->exponent_bits) - 1)
            << format->mantissa_bits) |
           payload;
  }
  literal->SetBits(index, bits);
  return true;
}

// Floating point: numbers, inf, nan, nan(0x payload).
bool ParseFloatElement(TextScanner& s, size_t p, PrimitiveType type,
                       const std::string& token, int64_t index,
                       Literal* literal) {
  std::string_view t = token;
  const bool negative = t[0] == '-';
  if (t[0] == '-' || t[0] == '+') t.remove_prefix(1);
  if (t.substr(0, 3) == "nan") {
    return ParseNanElement(s, p, type, token, t, negative, index, literal);
  }
  double value;
  if (t == "inf") {
    value = negative ? -INFINITY : INFINITY;
  } else if (!absl::SimpleAtod(token, &value)) {
    return s.ErrorAt(p, absl::StrCat("invalid number ", token));
  } else if (!std::isfinite(value)) {
    // A finite number past the double range (1.8e308): XLA rejects it for
    // every floating type rather than reading infinity.
    return s.ErrorAt(p, absl::StrCat("value ", token, " is out of range for ",
                                     PrimitiveTypeName(type)));
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

}  // namespace

bool Parser::ParseElement(const Shape& shape, int64_t index, Literal* literal) {
  TextScanner& s = scanner_;
  const PrimitiveType type = shape.element_type();
  const size_t p = s.Position();
  if (type == PrimitiveType::kPred) {
    return ParsePredElement(s, p, index, literal);
  }
  if (IsComplex(type)) return ParseComplexElement(s, type, index, literal);
  std::string token = s.ReadNumberToken();
  if (token.empty()) {
    return s.ErrorAt(p, absl::StrCat("expected a ", PrimitiveTypeName(type),
                                     " value in the literal"));
  }
  const bool is_decimal = token.find_first_of(".eEn") != std::string::npos ||
                          token.find("inf") != std::string::npos;
  if (IsInteger(type)) {
    return ParseIntegerElement(s, p, type, token, is_decimal, index, literal);
  }
  return ParseFloatElement(s, p, type, token, index, literal);
}

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
          ok = s.ErrorAt(
              p, absl::StrCat("tuple literal element ", i, " has shape ",
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

// Short array literals, as XLA reads them: a bare value for an array of
// rank >= 1 ("f32[10] constant(15)") sets element 0, and "..." at the
// outermost level after some elements ("{1, 2, ...}") ends the literal early;
// every other element is zero. XLA fills nothing else in.
constexpr int64_t kMaxShortLiteralElements = int64_t{1} << 24;

bool Parser::ParseDenseArray(const Shape& shape, Literal* literal) {
  TextScanner& s = scanner_;
  const int64_t rank = shape.rank();
  if (rank > 0) {
    // Elided ("{...}") before anything is allocated: its shape may be huge.
    const size_t saved = s.RawPosition();
    if (s.Consume('{') && s.ConsumeString("...")) {
      *literal = Literal::Unknown(shape);
      return s.Expect('}', "after '...' in an elided literal");
    }
    s.Reset(saved);
    // A full literal takes at least one character of text per element; a
    // short one is zero-filled, up to a bound that keeps memory in check.
    const int64_t count = CheckedProduct(shape.dimensions());
    if (count < 0 || (static_cast<uint64_t>(count) > s.Remaining() &&
                      count > kMaxShortLiteralElements)) {
      return s.Error(absl::StrCat(
          "a literal of shape ", shape.ToString(false), " needs ",
          count < 0 ? std::string("too many") : absl::StrCat(count),
          " elements; the text is shorter"));
    }
  }
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
  const int64_t count = shape.ElementCount();
  if (s.Peek() != '{') {
    const char c = s.Peek();
    if (c == '\0' || c == ')' || c == ',') {
      return s.Error(
          absl::StrCat("expected '{' to start an array literal of shape ",
                       shape.ToString(false)));
    }
    const size_t p = s.Position();
    if (count == 0) {
      // Fuzz finding: element 0 of an empty array was written out of bounds.
      return s.Error(absl::StrCat("a single value cannot set element 0 of ",
                                  shape.ToString(false),
                                  ", which has no elements"));
    }
    if (!ParseElement(shape, 0, literal)) return false;
    if (count != 1) {
      Warn(p, absl::StrCat("a single value for an array of shape ",
                           shape.ToString(false),
                           " sets element 0 only; the other ", count - 1,
                           " elements are zero (as XLA reads it)"));
    }
    return true;
  }
  std::vector<int64_t> seen(rank, 0);
  int64_t nest = 0;
  int64_t linear = 0;
  // The first value written above the innermost level: if the literal is
  // rejected, that is the error to report (XLA's first message).
  size_t shallow_pos = std::string::npos;
  int64_t shallow_nest = 0;
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
          return s.ErrorAt(
              p, absl::StrCat("expects ", shape.dimensions(nest - 2),
                              " elements in the ", index_string(nest - 2),
                              "th element, but sees more"));
        }
      }
    } else if (c == '}') {
      s.Consume('}');
      if (nest == 0) return s.ErrorAt(p, "unexpected '}' in a literal");
      --nest;
      if (seen[nest] != shape.dimensions(nest)) {
        if (shallow_pos != std::string::npos) {
          return s.ErrorAt(shallow_pos,
                           absl::StrCat("expects nested array in rank ", rank,
                                        ", but sees ", shallow_nest));
        }
        return s.ErrorAt(p,
                         absl::StrCat("expects ", shape.dimensions(nest),
                                      " elements in the ", index_string(nest),
                                      "th element, but sees ", seen[nest]));
      }
      seen[nest] = 0;
    } else if (c == ',') {
      s.Consume(',');
    } else if (c == '.' && s.ConsumeString("...")) {
      if (nest != 1) {
        return s.ErrorAt(p, absl::StrCat("expects '...' at nest level 1, but "
                                         "sees it at nest level ",
                                         nest));
      }
      Warn(p, absl::StrCat("'...' ends the literal of shape ",
                           shape.ToString(false), " after ", linear,
                           " elements; the others are zero"));
      seen[0] = shape.dimensions(0);
    } else if (c == '\0') {
      return s.ErrorAt(p, "unexpected end of input in a literal");
    } else {
      // XLA stores a value written above the innermost level at the next
      // row-major position (it counts it only at the innermost level).
      if (nest != rank && shallow_pos == std::string::npos) {
        shallow_pos = p;
        shallow_nest = nest;
      }
      if (nest == rank && ++seen[rank - 1] > shape.dimensions(rank - 1)) {
        return s.ErrorAt(p,
                         absl::StrCat("expects ", shape.dimensions(rank - 1),
                                      " elements on the minor-most dimension, "
                                      "but sees more"));
      }
      if (linear >= count) {
        return s.ErrorAt(
            p, absl::StrCat("a literal of shape ", shape.ToString(false),
                            " has only ", count, " elements"));
      }
      if (!ParseElement(shape, linear++, literal)) return false;
    }
  } while (nest > 0 && !s.has_error());
  return !s.has_error();
}

}  // namespace parser_internal
}  // namespace xlite
