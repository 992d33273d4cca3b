#ifndef XLITE_HLO_IR_SHAPE_H_
#define XLITE_HLO_IR_SHAPE_H_

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "hlo/ir/primitive_type.h"

namespace xlite {

class Shape;

/// A path into a (nested) tuple shape: {} is the whole shape, {1, 0} the first
/// element of the second element.
using ShapeIndex = absl::InlinedVector<int64_t, 2>;
std::string ShapeIndexToString(const ShapeIndex& index);  // "{1,0}"

/// One tiling level of a layout, e.g. (8,128). A dimension may be
/// kCombineDimension, printed "*".
struct Tile {
  static constexpr int64_t kCombineDimension =
      std::numeric_limits<int64_t>::min();
  std::vector<int64_t> dimensions;
  bool operator==(const Tile&) const = default;
};

/// `SC(dim:i,j)`: how one dimension is split across memory.
struct SplitConfig {
  int64_t dimension = 0;
  std::vector<int64_t> split_indices;
  bool operator==(const SplitConfig&) const = default;
};

/// Physical layout of an array: minor-to-major dimension order plus the
/// attributes XLA prints after ':' — tiles `T(..)`, tail padding `L(n)`,
/// index/pointer types `#(t)` `*(t)`, element size `E(n)`, memory space
/// `S(n)`, split configs `SC(..)`, physical shape `P(..)`, dynamic-shape
/// metadata prefix `M(n)`. The order is stored inline; the rarer attributes
/// live in a separate allocation made only when one is set.
class Layout {
 public:
  Layout() = default;
  explicit Layout(absl::Span<const int64_t> minor_to_major)
      : minor_to_major_(minor_to_major.begin(), minor_to_major.end()) {}
  Layout(const Layout& other);
  Layout& operator=(const Layout& other);
  Layout(Layout&&) = default;
  Layout& operator=(Layout&&) = default;
  ~Layout();

  const absl::InlinedVector<int64_t, 6>& minor_to_major() const {
    return minor_to_major_;
  }
  absl::InlinedVector<int64_t, 6>& mutable_minor_to_major() {
    return minor_to_major_;
  }

  const std::vector<Tile>& tiles() const { return details().tiles; }
  std::vector<Tile>& mutable_tiles() { return mutable_details().tiles; }
  int64_t tail_padding_alignment_in_elements() const {
    return details().tail_padding_alignment_in_elements;
  }
  void set_tail_padding_alignment_in_elements(int64_t v) {
    mutable_details().tail_padding_alignment_in_elements = v;
  }
  PrimitiveType index_primitive_type() const {
    return details().index_primitive_type;
  }
  void set_index_primitive_type(PrimitiveType t) {
    mutable_details().index_primitive_type = t;
  }
  PrimitiveType pointer_primitive_type() const {
    return details().pointer_primitive_type;
  }
  void set_pointer_primitive_type(PrimitiveType t) {
    mutable_details().pointer_primitive_type = t;
  }
  int64_t element_size_in_bits() const {
    return details().element_size_in_bits;
  }
  void set_element_size_in_bits(int64_t v) {
    mutable_details().element_size_in_bits = v;
  }
  int64_t memory_space() const { return details().memory_space; }
  void set_memory_space(int64_t v) { mutable_details().memory_space = v; }
  const std::vector<SplitConfig>& split_configs() const {
    return details().split_configs;
  }
  std::vector<SplitConfig>& mutable_split_configs() {
    return mutable_details().split_configs;
  }
  int64_t dynamic_shape_metadata_prefix_bytes() const {
    return details().dynamic_shape_metadata_prefix_bytes;
  }
  void set_dynamic_shape_metadata_prefix_bytes(int64_t v) {
    mutable_details().dynamic_shape_metadata_prefix_bytes = v;
  }
  const Shape* physical_shape() const { return details().physical_shape.get(); }
  void set_physical_shape(const Shape& shape);

  /// True when only minor_to_major is set (no ':' section when printed).
  bool HasOnlyMinorToMajor() const;

  /// XLA's text form, e.g. "{1,0:T(8,128)(2,1)S(1)}".
  std::string ToString() const;
  void AppendTo(std::string* out) const;

  bool operator==(const Layout& other) const;

 private:
  struct Details {
    std::vector<Tile> tiles;
    int64_t tail_padding_alignment_in_elements = 1;
    PrimitiveType index_primitive_type = PrimitiveType::kInvalid;
    PrimitiveType pointer_primitive_type = PrimitiveType::kInvalid;
    int64_t element_size_in_bits = 0;
    int64_t memory_space = 0;
    std::vector<SplitConfig> split_configs;
    int64_t dynamic_shape_metadata_prefix_bytes = 0;
    std::unique_ptr<Shape> physical_shape;
  };
  const Details& details() const;
  Details& mutable_details();

  absl::InlinedVector<int64_t, 6> minor_to_major_;
  std::unique_ptr<Details> details_;
};

/// The shape of an HLO value: an array (element type, dimensions with
/// optional dynamic bounds, optional layout), a tuple of shapes, a token, an
/// opaque value, or a buffer (a mutable array, XLA's BUFFER, for pin/unpin
/// custom-calls) whose array shape is held as its one element.
class Shape {
 public:
  /// Size of an unbounded dynamic dimension, printed "?".
  static constexpr int64_t kUnboundedSize = std::numeric_limits<int64_t>::min();

  Shape() = default;
  /// An array (or token/opaque with no dimensions), without layout.
  Shape(PrimitiveType type, absl::Span<const int64_t> dimensions);
  static Shape Tuple(std::vector<Shape> elements);
  static Shape Token() { return Shape(PrimitiveType::kToken, {}); }
  /// A buffer of `array` (callers pass an array shape), printed b(array).
  static Shape Buffer(Shape array);
  /// An array with the default (major-to-minor) layout.
  static Shape WithDefaultLayout(PrimitiveType type,
                                 absl::Span<const int64_t> dimensions);

  PrimitiveType element_type() const { return element_type_; }
  void set_element_type(PrimitiveType t) { element_type_ = t; }

  bool IsTuple() const { return element_type_ == PrimitiveType::kTuple; }
  bool IsToken() const { return element_type_ == PrimitiveType::kToken; }
  bool IsOpaque() const { return element_type_ == PrimitiveType::kOpaque; }
  bool IsArray() const { return IsArrayType(element_type_); }
  bool IsBuffer() const { return element_type_ == PrimitiveType::kBuffer; }
  /// The array a buffer holds (only for IsBuffer()).
  const Shape& buffer_shape() const { return tuple_shapes_[0]; }
  /// True if this shape or any tuple element, at any depth, is a buffer.
  bool ContainsBuffer() const;

  int64_t rank() const { return static_cast<int64_t>(dimensions_.size()); }
  const absl::InlinedVector<int64_t, 6>& dimensions() const {
    return dimensions_;
  }
  int64_t dimensions(int64_t i) const { return dimensions_[i]; }
  void set_dimension(int64_t i, int64_t size) { dimensions_[i] = size; }
  /// Replaces all dimensions; clears dynamic flags and any layout.
  void set_dimensions(absl::Span<const int64_t> dims);
  void add_dimension(int64_t size, bool dynamic = false);

  bool is_dynamic_dimension(int64_t i) const { return dynamic_[i]; }
  void set_dynamic_dimension(int64_t i, bool dynamic) { dynamic_[i] = dynamic; }
  bool is_unbounded_dimension(int64_t i) const {
    return dimensions_[i] == kUnboundedSize;
  }
  /// True if any dimension (of any tuple element) is dynamic.
  bool is_dynamic() const;
  const absl::InlinedVector<bool, 6>& dynamic_dimensions() const {
    return dynamic_;
  }

  const std::vector<Shape>& tuple_shapes() const { return tuple_shapes_; }
  std::vector<Shape>& mutable_tuple_shapes() { return tuple_shapes_; }
  const Shape& tuple_shapes(int64_t i) const { return tuple_shapes_[i]; }
  int64_t tuple_shapes_size() const {
    return static_cast<int64_t>(tuple_shapes_.size());
  }

  bool has_layout() const { return has_layout_; }
  const Layout& layout() const;
  Layout& mutable_layout();
  void set_layout(const Layout& layout);
  void clear_layout() {
    has_layout_ = false;
    layout_ = Layout();
  }
  /// Gives this array (and every array in a tuple) the default layout where
  /// it has none.
  void FillMissingLayouts();
  /// Removes layouts recursively.
  void ClearLayouts();

  /// Product of the dimensions (1 for scalars); 0 for non-arrays.
  int64_t ElementCount() const;
  /// Bytes of the array's unpacked element storage (sub-byte types take one
  /// byte each, as in literals).
  int64_t ByteSizeOfElements() const;

  /// The subshape at `index`, or nullptr if the index does not exist.
  const Shape* Subshape(const ShapeIndex& index) const;
  Shape* MutableSubshape(const ShapeIndex& index);

  /// Text as XLA prints it: "f32[8,128]{1,0}", "(f32[], s32[2]{0})".
  std::string ToString(bool print_layout = true) const;
  void AppendTo(std::string* out, bool print_layout = true) const;

  /// Equal in every respect, layouts included.
  bool operator==(const Shape& other) const;
  bool operator!=(const Shape& other) const { return !(*this == other); }

 private:
  PrimitiveType element_type_ = PrimitiveType::kInvalid;
  absl::InlinedVector<int64_t, 6> dimensions_;
  absl::InlinedVector<bool, 6> dynamic_;
  bool has_layout_ = false;
  std::vector<Shape> tuple_shapes_;
  Layout layout_;

 public:
  Shape(const Shape& other);
  Shape& operator=(const Shape& other);
  Shape(Shape&&) = default;
  Shape& operator=(Shape&&) = default;
  ~Shape() = default;
};

/// Shapes equal ignoring layouts (and, with `ignore_element_type`, the
/// element types of arrays).
bool ShapesCompatible(const Shape& a, const Shape& b);
bool ShapesSameDimensions(const Shape& a, const Shape& b);

/// The layout {rank-1, ..., 1, 0}.
Layout DefaultLayout(int64_t rank);

/// Checks that a shape is well formed: valid element type, non-negative
/// dimensions (or dynamic), a layout that is a permutation of the
/// dimensions and has no physical shape (sparse arrays only), tuple elements
/// recursively.
absl::Status ValidateShape(const Shape& shape);

/// The layout rules XLA applies to entry computation layouts (and shapes
/// read from protos), for xlite's dense arrays: no index/pointer types or
/// physical shape, tiles non-empty without a 0, alignment L(...) >= 1,
/// element size E(...) >= 0. Recursive over tuples.
absl::Status ValidateDenseLayoutParts(const Shape& shape);

}  // namespace xlite

#endif  // XLITE_HLO_IR_SHAPE_H_
