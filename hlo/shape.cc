#include "hlo/shape.h"

#include <algorithm>

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
  tiles_ = other.tiles_;
  tail_padding_alignment_in_elements = other.tail_padding_alignment_in_elements;
  index_primitive_type = other.index_primitive_type;
  pointer_primitive_type = other.pointer_primitive_type;
  element_size_in_bits = other.element_size_in_bits;
  memory_space = other.memory_space;
  split_configs = other.split_configs;
  dynamic_shape_metadata_prefix_bytes =
      other.dynamic_shape_metadata_prefix_bytes;
  physical_shape_ = other.physical_shape_
                        ? std::make_unique<Shape>(*other.physical_shape_)
                        : nullptr;
  return *this;
}

Layout::~Layout() = default;

void Layout::set_physical_shape(const Shape& shape) {
  physical_shape_ = std::make_unique<Shape>(shape);
}

bool Layout::HasOnlyMinorToMajor() const {
  return tiles_.empty() && tail_padding_alignment_in_elements == 1 &&
         index_primitive_type == PrimitiveType::kInvalid &&
         pointer_primitive_type == PrimitiveType::kInvalid &&
         element_size_in_bits == 0 && memory_space == 0 &&
         split_configs.empty() && physical_shape_ == nullptr &&
         dynamic_shape_metadata_prefix_bytes == 0;
}

std::string Layout::ToString() const {
  std::string out = absl::StrCat("{", absl::StrJoin(minor_to_major_, ","));
  if (!HasOnlyMinorToMajor()) {
    out += ":";
    if (!tiles_.empty()) {
      out += "T";
      for (const Tile& tile : tiles_) {
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
    if (tail_padding_alignment_in_elements != 1) {
      absl::StrAppend(&out, "L(", tail_padding_alignment_in_elements, ")");
    }
    if (index_primitive_type != PrimitiveType::kInvalid) {
      absl::StrAppend(&out, "#(", PrimitiveTypeName(index_primitive_type), ")");
    }
    if (pointer_primitive_type != PrimitiveType::kInvalid) {
      absl::StrAppend(&out, "*(", PrimitiveTypeName(pointer_primitive_type),
                      ")");
    }
    if (element_size_in_bits != 0) {
      absl::StrAppend(&out, "E(", element_size_in_bits, ")");
    }
    if (memory_space != 0) absl::StrAppend(&out, "S(", memory_space, ")");
    for (const SplitConfig& split : split_configs) {
      absl::StrAppend(&out, "SC(", split.dimension, ":",
                      absl::StrJoin(split.split_indices, ","), ")");
    }
    if (physical_shape_ != nullptr) {
      absl::StrAppend(&out, "P(", physical_shape_->ToString(true), ")");
    }
    if (dynamic_shape_metadata_prefix_bytes != 0) {
      absl::StrAppend(&out, "M(", dynamic_shape_metadata_prefix_bytes, ")");
    }
  }
  out += "}";
  return out;
}

bool Layout::operator==(const Layout& other) const {
  if (!(minor_to_major_ == other.minor_to_major_ && tiles_ == other.tiles_ &&
        tail_padding_alignment_in_elements ==
            other.tail_padding_alignment_in_elements &&
        index_primitive_type == other.index_primitive_type &&
        pointer_primitive_type == other.pointer_primitive_type &&
        element_size_in_bits == other.element_size_in_bits &&
        memory_space == other.memory_space &&
        split_configs == other.split_configs &&
        dynamic_shape_metadata_prefix_bytes ==
            other.dynamic_shape_metadata_prefix_bytes)) {
    return false;
  }
  if ((physical_shape_ == nullptr) != (other.physical_shape_ == nullptr)) {
    return false;
  }
  return physical_shape_ == nullptr || *physical_shape_ == *other.physical_shape_;
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
  layout_ = other.layout_ ? std::make_unique<Layout>(*other.layout_) : nullptr;
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
  layout_.reset();
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

const Layout& Shape::layout() const {
  static const Layout* const kEmpty = new Layout();
  return layout_ ? *layout_ : *kEmpty;
}

Layout& Shape::mutable_layout() {
  if (!layout_) layout_ = std::make_unique<Layout>();
  return *layout_;
}

void Shape::set_layout(const Layout& layout) {
  layout_ = std::make_unique<Layout>(layout);
}

void Shape::FillMissingLayouts() {
  if (IsTuple()) {
    for (Shape& s : tuple_shapes_) s.FillMissingLayouts();
  } else if (IsArray() && !layout_) {
    layout_ = std::make_unique<Layout>(DefaultLayout(rank()));
  }
}

void Shape::ClearLayouts() {
  layout_.reset();
  for (Shape& s : tuple_shapes_) s.ClearLayouts();
}

int64_t Shape::ElementCount() const {
  if (!IsArray()) return 0;
  int64_t count = 1;
  for (int64_t d : dimensions_) {
    if (d < 0) return 0;
    count *= d;
  }
  return count;
}

int64_t Shape::ByteSizeOfElements() const {
  return ElementCount() * StorageBytes(element_type_);
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
  if (IsTuple()) {
    std::string out = "(";
    for (size_t i = 0; i < tuple_shapes_.size(); ++i) {
      if (i > 0) out += ", ";
      if (i > 0 && i % 5 == 0) absl::StrAppend(&out, "/*index=", i, "*/");
      out += tuple_shapes_[i].ToString(print_layout);
    }
    out += ")";
    return out;
  }
  std::string out = absl::StrCat(PrimitiveTypeName(element_type_), "[");
  for (size_t i = 0; i < dimensions_.size(); ++i) {
    if (i > 0) out += ",";
    if (dimensions_[i] == kUnboundedSize) {
      out += "?";
    } else {
      if (dynamic_[i]) out += "<=";
      absl::StrAppend(&out, dimensions_[i]);
    }
  }
  out += "]";
  if (print_layout && layout_ && IsArray()) {
    std::string layout = layout_->ToString();
    if (rank() > 0 || layout != "{}") out += layout;
  }
  return out;
}

bool Shape::operator==(const Shape& other) const {
  if (element_type_ != other.element_type_ ||
      dimensions_ != other.dimensions_ || dynamic_ != other.dynamic_ ||
      tuple_shapes_ != other.tuple_shapes_) {
    return false;
  }
  if ((layout_ == nullptr) != (other.layout_ == nullptr)) return false;
  return layout_ == nullptr || *layout_ == *other.layout_;
}

bool ShapesCompatible(const Shape& a, const Shape& b) {
  if (a.element_type() != b.element_type()) return false;
  if (a.IsTuple()) {
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
  if ((shape.IsToken() || shape.IsOpaque()) && shape.rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(PrimitiveTypeName(shape.element_type()),
                     " shape cannot have dimensions: ", shape.ToString()));
  }
  for (int64_t i = 0; i < shape.rank(); ++i) {
    int64_t d = shape.dimensions(i);
    if (d < 0 && !(d == Shape::kUnboundedSize && shape.is_dynamic_dimension(i))) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape has a negative dimension: ", shape.ToString()));
    }
  }
  if (shape.has_layout() && shape.IsArray()) {
    const auto& m2m = shape.layout().minor_to_major();
    if (static_cast<int64_t>(m2m.size()) != shape.rank()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "layout ", shape.layout().ToString(), " has ", m2m.size(),
          " dimensions but shape ", shape.ToString(false), " has rank ",
          shape.rank()));
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
  }
  return absl::OkStatus();
}

}  // namespace xlite
