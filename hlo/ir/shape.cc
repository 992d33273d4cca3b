#include "hlo/ir/shape.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xlite {

std::string ShapeIndexToString(const ShapeIndex& index) {
  return absl::StrCat("{", absl::StrJoin(index, ","), "}");
}

// ---------------------------------------------------------------- Layout

Layout::Layout(const Layout& other) { *this = other; }

Layout& Layout::operator=(const Layout& other) {
  if (this == &other) return *this;
  minor_to_major_ = other.minor_to_major_;
  if (other.details_ == nullptr) {
    details_.reset();
  } else {
    details_ = std::make_unique<Details>();
    Details& d = *details_;
    const Details& o = *other.details_;
    d.tiles = o.tiles;
    d.tail_padding_alignment_in_elements = o.tail_padding_alignment_in_elements;
    d.index_primitive_type = o.index_primitive_type;
    d.pointer_primitive_type = o.pointer_primitive_type;
    d.element_size_in_bits = o.element_size_in_bits;
    d.memory_space = o.memory_space;
    d.split_configs = o.split_configs;
    d.dynamic_shape_metadata_prefix_bytes =
        o.dynamic_shape_metadata_prefix_bytes;
    if (o.physical_shape)
      d.physical_shape = std::make_unique<Shape>(*o.physical_shape);
  }
  return *this;
}

Layout::~Layout() = default;

const Layout::Details& Layout::details() const {
  static const Details* const kDefault = new Details();
  return details_ ? *details_ : *kDefault;
}

Layout::Details& Layout::mutable_details() {
  if (!details_) details_ = std::make_unique<Details>();
  return *details_;
}

void Layout::set_physical_shape(const Shape& shape) {
  mutable_details().physical_shape = std::make_unique<Shape>(shape);
}

bool Layout::HasOnlyMinorToMajor() const {
  if (details_ == nullptr) return true;
  const Details& d = *details_;
  return d.tiles.empty() && d.tail_padding_alignment_in_elements == 1 &&
         d.index_primitive_type == PrimitiveType::kInvalid &&
         d.pointer_primitive_type == PrimitiveType::kInvalid &&
         d.element_size_in_bits == 0 && d.memory_space == 0 &&
         d.split_configs.empty() && d.physical_shape == nullptr &&
         d.dynamic_shape_metadata_prefix_bytes == 0;
}

std::string Layout::ToString() const {
  std::string out;
  AppendTo(&out);
  return out;
}

void Layout::AppendTo(std::string* out_ptr) const {
  std::string& out = *out_ptr;
  out += '{';
  for (size_t i = 0; i < minor_to_major_.size(); ++i) {
    if (i > 0) out += ',';
    absl::StrAppend(&out, minor_to_major_[i]);
  }
  if (!HasOnlyMinorToMajor()) {
    const Details& d = details();
    out += ":";
    if (!d.tiles.empty()) {
      out += "T";
      for (const Tile& tile : d.tiles) {
        out += "(";
        for (size_t i = 0; i < tile.dimensions.size(); ++i) {
          if (i > 0) out += ",";
          if (tile.dimensions[i] == Tile::kCombineDimension) {
            out += "*";
          } else {
            absl::StrAppend(&out, tile.dimensions[i]);
          }
        }
        out += ")";
      }
    }
    if (d.tail_padding_alignment_in_elements != 1) {
      absl::StrAppend(&out, "L(", d.tail_padding_alignment_in_elements, ")");
    }
    if (d.index_primitive_type != PrimitiveType::kInvalid) {
      absl::StrAppend(&out, "#(", PrimitiveTypeName(d.index_primitive_type),
                      ")");
    }
    if (d.pointer_primitive_type != PrimitiveType::kInvalid) {
      absl::StrAppend(&out, "*(", PrimitiveTypeName(d.pointer_primitive_type),
                      ")");
    }
    if (d.element_size_in_bits != 0) {
      absl::StrAppend(&out, "E(", d.element_size_in_bits, ")");
    }
    if (d.memory_space != 0) absl::StrAppend(&out, "S(", d.memory_space, ")");
    for (const SplitConfig& split : d.split_configs) {
      absl::StrAppend(&out, "SC(", split.dimension, ":",
                      absl::StrJoin(split.split_indices, ","), ")");
    }
    if (d.physical_shape != nullptr) {
      absl::StrAppend(&out, "P(", d.physical_shape->ToString(true), ")");
    }
    if (d.dynamic_shape_metadata_prefix_bytes != 0) {
      absl::StrAppend(&out, "M(", d.dynamic_shape_metadata_prefix_bytes, ")");
    }
  }
  out += "}";
}

bool Layout::operator==(const Layout& other) const {
  if (minor_to_major_ != other.minor_to_major_) return false;
  const Details& a = details();
  const Details& b = other.details();
  if (!(a.tiles == b.tiles &&
        a.tail_padding_alignment_in_elements ==
            b.tail_padding_alignment_in_elements &&
        a.index_primitive_type == b.index_primitive_type &&
        a.pointer_primitive_type == b.pointer_primitive_type &&
        a.element_size_in_bits == b.element_size_in_bits &&
        a.memory_space == b.memory_space &&
        a.split_configs == b.split_configs &&
        a.dynamic_shape_metadata_prefix_bytes ==
            b.dynamic_shape_metadata_prefix_bytes)) {
    return false;
  }
  if ((a.physical_shape == nullptr) != (b.physical_shape == nullptr)) {
    return false;
  }
  return a.physical_shape == nullptr || *a.physical_shape == *b.physical_shape;
}

Layout DefaultLayout(int64_t rank) {
  Layout layout;
  for (int64_t i = rank - 1; i >= 0; --i) {
    layout.mutable_minor_to_major().push_back(i);
  }
  return layout;
}

// ---------------------------------------------------------------- Shape

Shape::Shape(PrimitiveType type, absl::Span<const int64_t> dimensions)
    : element_type_(type),
      dimensions_(dimensions.begin(), dimensions.end()),
      dynamic_(dimensions.size(), false) {}

Shape::Shape(const Shape& other) { *this = other; }

Shape& Shape::operator=(const Shape& other) {
  if (this == &other) return *this;
  element_type_ = other.element_type_;
  dimensions_ = other.dimensions_;
  dynamic_ = other.dynamic_;
  tuple_shapes_ = other.tuple_shapes_;
  has_layout_ = other.has_layout_;
  layout_ = other.layout_;
  return *this;
}

Shape Shape::Tuple(std::vector<Shape> elements) {
  Shape shape;
  shape.element_type_ = PrimitiveType::kTuple;
  shape.tuple_shapes_ = std::move(elements);
  return shape;
}

Shape Shape::WithDefaultLayout(PrimitiveType type,
                               absl::Span<const int64_t> dimensions) {
  Shape shape(type, dimensions);
  shape.FillMissingLayouts();
  return shape;
}

void Shape::set_dimensions(absl::Span<const int64_t> dims) {
  dimensions_.assign(dims.begin(), dims.end());
  dynamic_.assign(dims.size(), false);
  clear_layout();
}

Shape Shape::Buffer(Shape array) {
  Shape shape(PrimitiveType::kBuffer, {});
  shape.tuple_shapes_.push_back(std::move(array));
  return shape;
}

bool Shape::ContainsBuffer() const {
  if (IsBuffer()) return true;
  if (!IsTuple()) return false;
  return std::any_of(tuple_shapes_.begin(), tuple_shapes_.end(),
                     [](const Shape& s) { return s.ContainsBuffer(); });
}

void Shape::add_dimension(int64_t size, bool dynamic) {
  dimensions_.push_back(size);
  dynamic_.push_back(dynamic);
}

bool Shape::is_dynamic() const {
  if (IsTuple()) {
    return std::any_of(tuple_shapes_.begin(), tuple_shapes_.end(),
                       [](const Shape& s) { return s.is_dynamic(); });
  }
  return std::find(dynamic_.begin(), dynamic_.end(), true) != dynamic_.end();
}

const Layout& Shape::layout() const { return layout_; }

Layout& Shape::mutable_layout() {
  has_layout_ = true;
  return layout_;
}

void Shape::set_layout(const Layout& layout) {
  has_layout_ = true;
  layout_ = layout;
}

void Shape::FillMissingLayouts() {
  if (IsTuple() || IsBuffer()) {
    for (Shape& s : tuple_shapes_) s.FillMissingLayouts();
  } else if (IsArray() && !has_layout_) {
    has_layout_ = true;
    layout_ = DefaultLayout(rank());
  }
}

void Shape::ClearLayouts() {
  clear_layout();
  for (Shape& s : tuple_shapes_) s.ClearLayouts();
}

int64_t Shape::ElementCount() const {
  if (!IsArray()) return 0;
  // Saturates instead of overflowing (shapes from untrusted input are
  // checked against real sizes before anything is allocated).
  for (int64_t d : dimensions_) {
    if (d <= 0) return 0;
  }
  int64_t count = 1;
  for (int64_t d : dimensions_) {
    if (count > std::numeric_limits<int64_t>::max() / d) {
      return std::numeric_limits<int64_t>::max();
    }
    count *= d;
  }
  return count;
}

int64_t Shape::ByteSizeOfElements() const {
  const int64_t count = ElementCount();
  const int64_t bytes = StorageBytes(element_type_);
  if (bytes != 0 && count > std::numeric_limits<int64_t>::max() / bytes) {
    return std::numeric_limits<int64_t>::max();
  }
  return count * bytes;
}

const Shape* Shape::Subshape(const ShapeIndex& index) const {
  const Shape* shape = this;
  for (int64_t i : index) {
    if (!shape->IsTuple() || i < 0 || i >= shape->tuple_shapes_size()) {
      return nullptr;
    }
    shape = &shape->tuple_shapes_[i];
  }
  return shape;
}

Shape* Shape::MutableSubshape(const ShapeIndex& index) {
  return const_cast<Shape*>(Subshape(index));
}

std::string Shape::ToString(bool print_layout) const {
  std::string out;
  AppendTo(&out, print_layout);
  return out;
}

void Shape::AppendTo(std::string* out_ptr, bool print_layout) const {
  std::string& out = *out_ptr;
  if (IsTuple()) {
    out += '(';
    for (size_t i = 0; i < tuple_shapes_.size(); ++i) {
      if (i > 0) out += ", ";
      if (i > 0 && i % 5 == 0) absl::StrAppend(&out, "/*index=", i, "*/");
      tuple_shapes_[i].AppendTo(&out, print_layout);
    }
    out += ')';
    return;
  }
  if (IsBuffer()) {
    out += "b(";
    if (!tuple_shapes_.empty()) tuple_shapes_[0].AppendTo(&out, print_layout);
    out += ')';
    return;
  }
  const absl::string_view type_name = PrimitiveTypeName(element_type_);
  out.append(type_name.data(), type_name.size());
  out += '[';
  for (size_t i = 0; i < dimensions_.size(); ++i) {
    if (i > 0) out += ',';
    if (dimensions_[i] == kUnboundedSize) {
      out += '?';
    } else {
      if (dynamic_[i]) out += "<=";
      absl::StrAppend(&out, dimensions_[i]);
    }
  }
  out += ']';
  if (print_layout && has_layout_ && IsArray()) {
    if (rank() > 0 || !layout_.HasOnlyMinorToMajor()) layout_.AppendTo(&out);
  }
}

bool Shape::operator==(const Shape& other) const {
  if (element_type_ != other.element_type_ ||
      dimensions_ != other.dimensions_ || dynamic_ != other.dynamic_ ||
      tuple_shapes_ != other.tuple_shapes_) {
    return false;
  }
  if (has_layout_ != other.has_layout_) return false;
  return !has_layout_ || layout_ == other.layout_;
}

bool ShapesCompatible(const Shape& a, const Shape& b) {
  if (a.element_type() != b.element_type()) return false;
  if (a.IsTuple() || a.IsBuffer()) {
    if (a.tuple_shapes_size() != b.tuple_shapes_size()) return false;
    for (int64_t i = 0; i < a.tuple_shapes_size(); ++i) {
      if (!ShapesCompatible(a.tuple_shapes(i), b.tuple_shapes(i))) {
        return false;
      }
    }
    return true;
  }
  return a.dimensions() == b.dimensions() &&
         a.dynamic_dimensions() == b.dynamic_dimensions();
}

bool ShapesSameDimensions(const Shape& a, const Shape& b) {
  return a.dimensions() == b.dimensions();
}

absl::Status ValidateDenseLayoutParts(const Shape& shape) {
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) {
      absl::Status status = ValidateDenseLayoutParts(s);
      if (!status.ok()) return status;
    }
    return absl::OkStatus();
  }
  if (!shape.IsArray() || !shape.has_layout()) return absl::OkStatus();
  const Layout& layout = shape.layout();
  auto invalid = [&](absl::string_view what) {
    return absl::InvalidArgumentError(
        absl::StrCat("layout ", layout.ToString(), " of ",
                     shape.ToString(false), " ", what));
  };
  if (layout.index_primitive_type() != PrimitiveType::kInvalid) {
    return invalid("has an index type #(...), which only sparse arrays have");
  }
  if (layout.pointer_primitive_type() != PrimitiveType::kInvalid) {
    return invalid("has a pointer type *(...), which only sparse arrays have");
  }
  if (layout.physical_shape() != nullptr) {
    return invalid(
        "has a physical shape P(...), which only sparse arrays have");
  }
  for (const Tile& tile : layout.tiles()) {
    if (tile.dimensions.empty() ||
        std::find(tile.dimensions.begin(), tile.dimensions.end(), 0) !=
            tile.dimensions.end()) {
      return invalid("has an empty tile or a tile dimension of 0");
    }
  }
  if (layout.tail_padding_alignment_in_elements() <= 0) {
    return invalid("has a tail padding alignment L(...) below 1");
  }
  if (layout.element_size_in_bits() < 0) {
    return invalid("has a negative element size E(...)");
  }
  return absl::OkStatus();
}

absl::Status ValidateShape(const Shape& shape) {
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) {
      absl::Status status = ValidateShape(s);
      if (!status.ok()) return status;
    }
    return absl::OkStatus();
  }
  if (shape.element_type() == PrimitiveType::kInvalid) {
    return absl::InvalidArgumentError("shape has an invalid element type");
  }
  if (shape.IsBuffer()) {
    if (shape.tuple_shapes_size() != 1 || !shape.buffer_shape().IsArray() ||
        shape.rank() != 0) {
      return absl::InvalidArgumentError(
          "a buffer shape holds exactly one array shape");
    }
    return ValidateShape(shape.buffer_shape());
  }
  if ((shape.IsToken() || shape.IsOpaque()) && shape.rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(PrimitiveTypeName(shape.element_type()),
                     " shape cannot have dimensions: ", shape.ToString()));
  }
  for (int64_t i = 0; i < shape.rank(); ++i) {
    int64_t d = shape.dimensions(i);
    if (d < 0 &&
        !(d == Shape::kUnboundedSize && shape.is_dynamic_dimension(i))) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape has a negative dimension: ", shape.ToString()));
    }
  }
  if (shape.has_layout() && shape.IsArray()) {
    const auto& m2m = shape.layout().minor_to_major();
    if (static_cast<int64_t>(m2m.size()) != shape.rank()) {
      return absl::InvalidArgumentError(
          absl::StrCat("layout ", shape.layout().ToString(), " has ",
                       m2m.size(), " dimensions but shape ",
                       shape.ToString(false), " has rank ", shape.rank()));
    }
    std::vector<bool> seen(m2m.size(), false);
    for (int64_t d : m2m) {
      if (d < 0 || d >= shape.rank() || seen[d]) {
        return absl::InvalidArgumentError(
            absl::StrCat("layout ", shape.layout().ToString(),
                         " is not a permutation of the dimensions of ",
                         shape.ToString(false)));
      }
      seen[d] = true;
    }
    // XLA's parser refuses a physical shape outside sparse arrays (which
    // xlite does not have); the other sparse-only parts are checked where
    // XLA checks them (ValidateDenseLayoutParts).
    if (shape.layout().physical_shape() != nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "layout ", shape.layout().ToString(), " of ", shape.ToString(false),
          " has a physical shape P(...), which only sparse arrays have"));
    }
  }
  return absl::OkStatus();
}

}  // namespace xlite
