#ifndef XLITE_HLO_IR_LITERAL_H_
#define XLITE_HLO_IR_LITERAL_H_

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/ir/shape.h"

namespace xlite {

/// A value of an HLO shape: a dense array of any element type, or a tuple of
/// literals. Array elements are stored unpacked in row-major (logical) order,
/// StorageBytes(type) each, little-endian; signed sub-byte integers are stored
/// sign-extended in their byte. A literal may also be "unknown": the value of
/// a constant whose text was elided as `{...}` — it has a shape but no data.
class Literal {
 public:
  Literal() = default;
  /// A zero-filled literal of `shape` (tuples recursively).
  explicit Literal(const Shape& shape);
  /// A literal of `shape` whose value is not known (elided constant).
  static Literal Unknown(const Shape& shape);

  static Literal Scalar(PrimitiveType type, double value);
  static Literal ScalarInt(PrimitiveType type, int64_t value);
  static Literal Tuple(std::vector<Literal> elements);
  /// An array of `shape` with elements converted from `values`.
  static Literal FromDoubles(const Shape& shape,
                             absl::Span<const double> values);
  static Literal FromInts(const Shape& shape, absl::Span<const int64_t> values);

  const Shape& shape() const { return shape_; }
  /// Changes the layout recorded in the shape (the data stays logical).
  Shape& mutable_shape_for_layout() { return shape_; }
  bool is_unknown() const { return unknown_; }

  int64_t element_count() const { return shape_.ElementCount(); }
  const std::vector<Literal>& tuple_elements() const { return elements_; }
  std::vector<Literal>& mutable_tuple_elements() { return elements_; }

  /// Raw bits of element `i` (row-major index), zero-extended to 64 bits and
  /// masked to the type's width (f32: the IEEE bits; s4 -1: 0xF).
  uint64_t GetBits(int64_t i) const;
  void SetBits(int64_t i, uint64_t bits);

  /// Element `i` converted: floats (incl. narrow types) and integers to
  /// double / int64 / uint64; pred as 0/1; complex gives the real part.
  double GetAsDouble(int64_t i) const;
  int64_t GetAsInt64(int64_t i) const;
  uint64_t GetAsUint64(int64_t i) const;
  std::complex<double> GetAsComplex(int64_t i) const;

  /// Stores `value` converted to the element type (round-to-nearest-even for
  /// floats, wrap-around for integers, != 0 for pred).
  void SetFromDouble(int64_t i, double value);
  void SetFromInt64(int64_t i, int64_t value);
  void SetFromUint64(int64_t i, uint64_t value);
  void SetFromComplex(int64_t i, std::complex<double> value);

  /// Raw element storage (arrays only).
  const std::vector<uint8_t>& data() const { return data_; }
  std::vector<uint8_t>& mutable_data() { return data_; }
  /// The array's elements in the physical order of `layout_shape`'s layout
  /// (same dimensions as this literal; no layout: row-major), as a buffer
  /// in memory holds them.
  std::vector<uint8_t> PhysicalData(const Shape& layout_shape) const;
  /// Sets the elements from `bytes` in the physical order of
  /// `layout_shape`'s layout (the inverse of PhysicalData).
  void SetFromPhysicalData(const Shape& layout_shape,
                           absl::Span<const uint8_t> bytes);

  /// One element as XLA prints it: "1", "-0.5", "nan", "inf", "(1, 2)",
  /// "true". `pred_as_digit` prints pred as 1/0 (inside arrays).
  std::string ElementToString(int64_t i, bool pred_as_digit = false) const;

  /// XLA's one-line value form without shape: "1", "{1, 2}",
  /// "{ { 1, 2 }, { 3, 4 } }", "(f32[] 1, s32[2] {1, 2})", "{...}" if unknown.
  std::string ValueToString() const;
  /// Shape followed by value: "f32[2] {1, 2}", as hlo-run prints results.
  std::string ToString() const;
  /// XLA's one-line form with shapes and layouts, as a custom call's
  /// `literal=` prints: "s32[2]{0} {1, 2}", "( f32[] 1, s32[2]{0} {1, 2} )".
  std::string ToStringWithLayout() const;
  /// XLA's one-line value without shapes, as a constant's operand prints
  /// (and XLA reads back): "{1, 2}", "( 1, {1, 2} )" for a tuple.
  std::string ValueToStringWithoutShapes() const;

  /// Bitwise equality of shapes (ignoring layout) and values.
  bool operator==(const Literal& other) const;
  bool operator!=(const Literal& other) const { return !(*this == other); }

 private:
  Shape shape_;
  std::vector<uint8_t> data_;
  std::vector<Literal> elements_;
  bool unknown_ = false;
};

/// Shortest text of a floating point value of `type` that reads back to the
/// same bits (XLA's %.{max_digits10}g form): "0.100000001", "inf", "-nan",
/// "nan(0x7)" for a NaN with a non-default payload.
std::string FloatBitsToString(PrimitiveType type, uint64_t bits);

/// Whether an array of `shape` keeps its elements in row-major (logical)
/// order in memory: its layout orders the dimensions longer than 1 as
/// their numbers do (or it has none). Then PhysicalData is the data itself.
bool PhysicalOrderIsLogical(const Shape& shape);

/// Sign-extends (signed types) or zero-extends `bits` of an integer type.
int64_t IntegerBitsToInt64(PrimitiveType type, uint64_t bits);

}  // namespace xlite

#endif  // XLITE_HLO_IR_LITERAL_H_
