#include "hlo/ir/literal.h"

#include <cmath>
#include <cstring>
#include <functional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "hlo/ir/float_types.h"

namespace xlite {
namespace {

uint64_t WidthMask(PrimitiveType type) {
  int bits = BitWidth(type);
  return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}

// numeric_limits<T>::digits10 and max_digits10 of a float type: XLA prints
// with %.{digits10}g when that reads back exactly, else %.{max_digits10}g.
int Digits10(PrimitiveType type) {
  const FloatFormat* f = GetFloatFormat(type);
  if (f == nullptr) return 15;
  return static_cast<int>(std::floor(f->mantissa_bits * std::log10(2.0)));
}

int MaxDigits10(PrimitiveType type) {
  const FloatFormat* f = GetFloatFormat(type);
  if (f == nullptr) return 17;
  return static_cast<int>(
      std::ceil(1.0 + (f->mantissa_bits + 1) * std::log10(2.0)));
}

// Collapses runs of spaces and newlines into one space (XLA's one-line form).
std::string CompactOneLine(const std::string& text) {
  std::string out;
  for (absl::string_view piece : absl::StrSplit(text, absl::ByAnyChar("\n "))) {
    if (piece.empty()) continue;
    if (!out.empty()) out += ' ';
    out.append(piece.data(), piece.size());
  }
  return out;
}

}  // namespace

int64_t IntegerBitsToInt64(PrimitiveType type, uint64_t bits) {
  const int width = BitWidth(type);
  bits &= WidthMask(type);
  if (IsSignedInteger(type) && width < 64 && (bits >> (width - 1)) & 1) {
    bits |= ~WidthMask(type);
  }
  return static_cast<int64_t>(bits);
}

std::string FloatBitsToString(PrimitiveType type, uint64_t bits) {
  const FloatFormat* f = GetFloatFormat(type);
  const double value = DecodeToF64(type, bits);
  if (std::isnan(value)) {
    const bool negative = f->has_sign && ((bits >> (f->total_bits() - 1)) & 1);
    std::string out = negative ? "-nan" : "nan";
    if (f->nan == NanEncoding::kIeee) {
      const uint64_t payload = bits & ((uint64_t{1} << f->mantissa_bits) - 1);
      const uint64_t quiet = uint64_t{1} << (f->mantissa_bits - 1);
      if (payload != quiet)
        absl::StrAppend(&out, absl::StrFormat("(0x%x)", payload));
    }
    return out;
  }
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  // f32/f64 try the shorter digits10 first; narrower types print with
  // max_digits10 directly (as XLA does).
  const int first = BitWidth(type) >= 32 ? Digits10(type) : MaxDigits10(type);
  for (int digits : {first, MaxDigits10(type), 17}) {
    std::string text = absl::StrFormat("%.*g", digits, value);
    if (EncodeFromF64(type, std::strtod(text.c_str(), nullptr)) == bits) {
      return text;
    }
  }
  return absl::StrFormat("%.17g", value);
}

Literal::Literal(const Shape& shape) : shape_(shape) {
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) elements_.emplace_back(s);
  } else if (shape.IsArray()) {
    data_.assign(shape.ByteSizeOfElements(), 0);
  }
}

Literal Literal::Unknown(const Shape& shape) {
  Literal literal;
  literal.shape_ = shape;
  literal.unknown_ = true;
  return literal;
}

Literal Literal::Scalar(PrimitiveType type, double value) {
  Literal literal(Shape(type, {}));
  literal.SetFromDouble(0, value);
  return literal;
}

Literal Literal::ScalarInt(PrimitiveType type, int64_t value) {
  Literal literal(Shape(type, {}));
  literal.SetFromInt64(0, value);
  return literal;
}

Literal Literal::Tuple(std::vector<Literal> elements) {
  std::vector<Shape> shapes;
  for (const Literal& e : elements) shapes.push_back(e.shape());
  Literal literal;
  literal.shape_ = Shape::Tuple(std::move(shapes));
  literal.elements_ = std::move(elements);
  return literal;
}

Literal Literal::FromDoubles(const Shape& shape,
                             absl::Span<const double> values) {
  Literal literal(shape);
  for (int64_t i = 0;
       i < literal.element_count() && i < static_cast<int64_t>(values.size());
       ++i) {
    literal.SetFromDouble(i, values[i]);
  }
  return literal;
}

Literal Literal::FromInts(const Shape& shape,
                          absl::Span<const int64_t> values) {
  Literal literal(shape);
  for (int64_t i = 0;
       i < literal.element_count() && i < static_cast<int64_t>(values.size());
       ++i) {
    literal.SetFromInt64(i, values[i]);
  }
  return literal;
}

uint64_t Literal::GetBits(int64_t i) const {
  const int bytes = StorageBytes(shape_.element_type());
  if (IsComplex(shape_.element_type())) return 0;
  uint64_t bits = 0;
  std::memcpy(&bits, data_.data() + i * bytes, bytes);
  return bits & WidthMask(shape_.element_type());
}

void Literal::SetBits(int64_t i, uint64_t bits) {
  const PrimitiveType type = shape_.element_type();
  const int bytes = StorageBytes(type);
  if (BitWidth(type) < 8) {
    // Sub-byte integers live sign-extended (signed) in their byte.
    bits = IsSignedInteger(type)
               ? static_cast<uint64_t>(IntegerBitsToInt64(type, bits))
               : bits & WidthMask(type);
  }
  std::memcpy(data_.data() + i * bytes, &bits, bytes);
}

double Literal::GetAsDouble(int64_t i) const {
  const PrimitiveType type = shape_.element_type();
  if (IsFloatingPoint(type)) return DecodeToF64(type, GetBits(i));
  if (IsComplex(type)) return GetAsComplex(i).real();
  if (IsUnsignedInteger(type) || type == PrimitiveType::kPred) {
    return static_cast<double>(GetBits(i));
  }
  return static_cast<double>(IntegerBitsToInt64(type, GetBits(i)));
}

int64_t Literal::GetAsInt64(int64_t i) const {
  const PrimitiveType type = shape_.element_type();
  if (IsSignedInteger(type)) return IntegerBitsToInt64(type, GetBits(i));
  if (IsUnsignedInteger(type) || type == PrimitiveType::kPred) {
    return static_cast<int64_t>(GetBits(i));
  }
  return static_cast<int64_t>(GetAsDouble(i));
}

uint64_t Literal::GetAsUint64(int64_t i) const {
  return static_cast<uint64_t>(GetAsInt64(i));
}

std::complex<double> Literal::GetAsComplex(int64_t i) const {
  const PrimitiveType type = shape_.element_type();
  if (type == PrimitiveType::kC64) {
    float parts[2];
    std::memcpy(parts, data_.data() + i * 8, 8);
    return {parts[0], parts[1]};
  }
  if (type == PrimitiveType::kC128) {
    double parts[2];
    std::memcpy(parts, data_.data() + i * 16, 16);
    return {parts[0], parts[1]};
  }
  return {GetAsDouble(i), 0.0};
}

void Literal::SetFromDouble(int64_t i, double value) {
  const PrimitiveType type = shape_.element_type();
  if (IsFloatingPoint(type)) {
    SetBits(i, EncodeFromF64(type, value));
  } else if (IsComplex(type)) {
    SetFromComplex(i, {value, 0.0});
  } else if (type == PrimitiveType::kPred) {
    SetBits(i, value != 0 ? 1 : 0);
  } else if (IsSignedInteger(type)) {
    SetFromInt64(i, static_cast<int64_t>(value));
  } else {
    SetFromUint64(i, static_cast<uint64_t>(value));
  }
}

void Literal::SetFromInt64(int64_t i, int64_t value) {
  const PrimitiveType type = shape_.element_type();
  if (IsFloatingPoint(type) || IsComplex(type)) {
    SetFromDouble(i, static_cast<double>(value));
  } else if (type == PrimitiveType::kPred) {
    SetBits(i, value != 0 ? 1 : 0);
  } else {
    SetBits(i, static_cast<uint64_t>(value));
  }
}

void Literal::SetFromUint64(int64_t i, uint64_t value) {
  const PrimitiveType type = shape_.element_type();
  if (IsFloatingPoint(type) || IsComplex(type)) {
    SetFromDouble(i, static_cast<double>(value));
  } else {
    SetFromInt64(i, static_cast<int64_t>(value));
  }
}

void Literal::SetFromComplex(int64_t i, std::complex<double> value) {
  const PrimitiveType type = shape_.element_type();
  if (type == PrimitiveType::kC64) {
    float parts[2] = {static_cast<float>(value.real()),
                      static_cast<float>(value.imag())};
    std::memcpy(data_.data() + i * 8, parts, 8);
  } else if (type == PrimitiveType::kC128) {
    double parts[2] = {value.real(), value.imag()};
    std::memcpy(data_.data() + i * 16, parts, 16);
  } else {
    SetFromDouble(i, value.real());
  }
}

std::string Literal::ElementToString(int64_t i, bool pred_as_digit) const {
  const PrimitiveType type = shape_.element_type();
  if (type == PrimitiveType::kPred) {
    bool v = GetBits(i) != 0;
    if (pred_as_digit) return v ? "1" : "0";
    return v ? "true" : "false";
  }
  if (IsFloatingPoint(type)) return FloatBitsToString(type, GetBits(i));
  if (IsComplex(type)) {
    const PrimitiveType part = ComplexComponentType(type);
    std::complex<double> c = GetAsComplex(i);
    return absl::StrCat(
        "(", FloatBitsToString(part, EncodeFromF64(part, c.real())), ", ",
        FloatBitsToString(part, EncodeFromF64(part, c.imag())), ")");
  }
  if (IsUnsignedInteger(type)) return absl::StrCat(GetBits(i));
  return absl::StrCat(IntegerBitsToInt64(type, GetBits(i)));
}

std::string Literal::ValueToString() const {
  if (unknown_) return "{...}";
  if (shape_.IsTuple()) {
    std::string out = "(";
    for (size_t i = 0; i < elements_.size(); ++i) {
      if (i > 0) out += ", ";
      absl::StrAppend(&out, elements_[i].ToString());
    }
    return out + ")";
  }
  if (!shape_.IsArray()) return "";
  const int64_t rank = shape_.rank();
  if (rank == 0) return ElementToString(0);
  // Multi-line form, then collapsed to one line as XLA does.
  std::string text;
  std::vector<int64_t> index;
  int64_t linear = 0;
  const auto& dims = shape_.dimensions();
  auto brace = [&](bool open, int64_t remaining) -> std::string {
    if (rank == 1) return open ? "{" : "}";
    if (remaining == 1) {
      const bool wide = dims[rank - 1] > 1;
      return open ? (wide ? "  { " : "  {") : (wide ? " }" : "}");
    }
    if (open) {
      if (rank > 3 && !index.empty()) {
        return absl::StrCat("{ /*i", index.size() - 1, "=", index.back(),
                            "*/\n");
      }
      return "{\n";
    }
    return "\n}";
  };
  std::function<void(int64_t)> print = [&](int64_t depth) {
    if (depth == rank) {
      text += ElementToString(linear++, /*pred_as_digit=*/true);
      return;
    }
    const int64_t remaining = rank - depth;
    text += brace(true, remaining);
    for (int64_t i = 0; i < dims[depth]; ++i) {
      index.push_back(i);
      print(depth + 1);
      index.pop_back();
      if (i + 1 < dims[depth]) text += remaining > 1 ? ",\n" : ", ";
    }
    text += brace(false, remaining);
  };
  print(0);
  return CompactOneLine(text);
}

std::string Literal::ToString() const {
  if (shape_.IsTuple()) return ValueToString();
  return absl::StrCat(shape_.ToString(/*print_layout=*/false), " ",
                      ValueToString());
}

// XLA writes tuples one-line as "( a, b )" (spaces inside the parentheses).
std::string Literal::ToStringWithLayout() const {
  if (shape_.IsTuple()) {
    std::string out = "( ";
    for (size_t i = 0; i < elements_.size(); ++i) {
      if (i > 0) out += ", ";
      absl::StrAppend(&out, elements_[i].ToStringWithLayout());
    }
    return out + " )";
  }
  return absl::StrCat(shape_.ToString(/*print_layout=*/true), " ",
                      ValueToString());
}

std::string Literal::ValueToStringWithoutShapes() const {
  if (!shape_.IsTuple() || unknown_) return ValueToString();
  std::string out = "( ";
  for (size_t i = 0; i < elements_.size(); ++i) {
    if (i > 0) out += ", ";
    absl::StrAppend(&out, elements_[i].ValueToStringWithoutShapes());
  }
  return out + " )";
}

bool Literal::operator==(const Literal& other) const {
  if (!ShapesCompatible(shape_, other.shape_)) return false;
  if (unknown_ != other.unknown_) return false;
  if (shape_.IsTuple()) return elements_ == other.elements_;
  return data_ == other.data_;
}

namespace {

// Physical element position of each logical (row-major) element.
std::vector<int64_t> PhysicalPositions(const Shape& shape) {
  const int64_t rank = shape.rank();
  std::vector<int64_t> strides(rank, 1);
  std::vector<int64_t> order;  // minor to major
  if (shape.has_layout() &&
      static_cast<int64_t>(shape.layout().minor_to_major().size()) == rank) {
    order.assign(shape.layout().minor_to_major().begin(),
                 shape.layout().minor_to_major().end());
  } else {
    for (int64_t d = rank - 1; d >= 0; --d) order.push_back(d);
  }
  int64_t stride = 1;
  for (int64_t d : order) {
    strides[d] = stride;
    stride *= shape.dimensions(d);
  }
  const int64_t n = shape.ElementCount();
  std::vector<int64_t> positions(n);
  std::vector<int64_t> index(rank, 0);
  int64_t position = 0;
  for (int64_t i = 0; i < n; ++i) {
    positions[i] = position;
    for (int64_t d = rank - 1; d >= 0; --d) {
      position += strides[d];
      if (++index[d] < shape.dimensions(d)) break;
      position -= strides[d] * index[d];
      index[d] = 0;
    }
  }
  return positions;
}

}  // namespace

bool PhysicalOrderIsLogical(const Shape& shape) {
  if (!shape.has_layout() ||
      static_cast<int64_t>(shape.layout().minor_to_major().size()) !=
          shape.rank()) {
    return true;
  }
  // Dimensions one long do not move anything.
  int64_t previous = shape.rank();
  for (int64_t d : shape.layout().minor_to_major()) {
    if (shape.dimensions(d) == 1) continue;
    if (d > previous) return false;
    previous = d;
  }
  return true;
}

std::vector<uint8_t> Literal::PhysicalData(const Shape& layout_shape) const {
  if (PhysicalOrderIsLogical(layout_shape)) return data_;
  const int64_t w = StorageBytes(shape_.element_type());
  std::vector<uint8_t> out(data_.size());
  const std::vector<int64_t> positions = PhysicalPositions(layout_shape);
  for (size_t i = 0; i < positions.size(); ++i) {
    std::memcpy(out.data() + positions[i] * w, data_.data() + i * w, w);
  }
  return out;
}

void Literal::SetFromPhysicalData(const Shape& layout_shape,
                                  absl::Span<const uint8_t> bytes) {
  if (PhysicalOrderIsLogical(layout_shape)) {
    if (!data_.empty() && !bytes.empty()) {
      std::memcpy(data_.data(), bytes.data(),
                  std::min(bytes.size(), data_.size()));
    }
    return;
  }
  const int64_t w = StorageBytes(shape_.element_type());
  const std::vector<int64_t> positions = PhysicalPositions(layout_shape);
  for (size_t i = 0; i < positions.size(); ++i) {
    std::memcpy(data_.data() + i * w, bytes.data() + positions[i] * w, w);
  }
}

}  // namespace xlite
