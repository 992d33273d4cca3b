// One element of a literal, by element type kind: pred, complex, integer
// and floating point. The array structure around the elements is read by
// parser_values.cc.

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

}  // namespace parser_internal
}  // namespace xlite
