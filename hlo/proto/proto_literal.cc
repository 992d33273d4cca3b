// Shape and literal conversion to and from XLA's protos.

#include <cstring>

#include "absl/strings/str_cat.h"
#include "hlo/ir/attributes.h"
#include "hlo/proto/proto_convert.h"

namespace xlite {
namespace {

// Row-major index -> index in the order of `layout` (minor_to_major).
std::vector<int64_t> PhysicalOrder(const Shape& shape) {
  const int64_t rank = shape.rank();
  const int64_t n = shape.ElementCount();
  std::vector<int64_t> out(n);
  const auto& m2m = shape.layout().minor_to_major();
  std::vector<int64_t> physical_stride(rank, 1);
  int64_t stride = 1;
  for (int64_t k = 0; k < rank; ++k) {
    physical_stride[m2m[k]] = stride;
    stride *= shape.dimensions(m2m[k]);
  }
  std::vector<int64_t> index(rank, 0);
  for (int64_t r = 0; r < n; ++r) {
    int64_t p = 0;
    for (int64_t d = 0; d < rank; ++d) p += index[d] * physical_stride[d];
    out[r] = p;
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < shape.dimensions(d)) break;
      index[d] = 0;
    }
  }
  return out;
}

bool HasNonDefaultLayout(const Shape& shape) {
  if (!shape.has_layout() || shape.rank() < 2) return false;
  const auto& m2m = shape.layout().minor_to_major();
  if (static_cast<int64_t>(m2m.size()) != shape.rank()) return false;
  for (int64_t k = 0; k < shape.rank(); ++k) {
    if (m2m[k] != shape.rank() - 1 - k) return true;
  }
  return false;
}

template <typename T, typename Repeated>
void AppendRepeated(const Literal& literal, const std::vector<int64_t>& order,
                    Repeated* field) {
  const int64_t n = literal.element_count();
  field->Resize(static_cast<int>(n), T());
  const auto* data = reinterpret_cast<const T*>(literal.data().data());
  for (int64_t r = 0; r < n; ++r)
    field->Set(static_cast<int>(order[r]), data[r]);
}

std::string* BytesField(PrimitiveType type, xla::LiteralProto* p) {
  switch (type) {
    case PrimitiveType::kS1:
      return p->mutable_s1s();
    case PrimitiveType::kS2:
      return p->mutable_s2s();
    case PrimitiveType::kS4:
      return p->mutable_s4s();
    case PrimitiveType::kS8:
      return p->mutable_s8s();
    case PrimitiveType::kU1:
      return p->mutable_u1s();
    case PrimitiveType::kU2:
      return p->mutable_u2s();
    case PrimitiveType::kU4:
      return p->mutable_u4s();
    case PrimitiveType::kU8:
      return p->mutable_u8s();
    case PrimitiveType::kF16:
      return p->mutable_f16s();
    case PrimitiveType::kBF16:
      return p->mutable_bf16s();
    case PrimitiveType::kU16:
      return p->mutable_u16s();
    case PrimitiveType::kS16:
      return p->mutable_s16s();
    case PrimitiveType::kF4E2M1FN:
      return p->mutable_f4e2m1fns();
    case PrimitiveType::kF8E3M4:
      return p->mutable_f8e3m4s();
    case PrimitiveType::kF8E4M3B11FNUZ:
      return p->mutable_f8e4m3b11fnuzs();
    case PrimitiveType::kF8E4M3FN:
      return p->mutable_f8e4m3fns();
    case PrimitiveType::kF8E4M3FNUZ:
      return p->mutable_f8e4m3fnuzs();
    case PrimitiveType::kF8E4M3:
      return p->mutable_f8e4m3s();
    case PrimitiveType::kF8E5M2FNUZ:
      return p->mutable_f8e5m2fnuzs();
    case PrimitiveType::kF8E5M2:
      return p->mutable_f8e5m2s();
    case PrimitiveType::kF8E8M0FNU:
      return p->mutable_f8e8m0fnus();
    default:
      return nullptr;
  }
}

const std::string* BytesField(PrimitiveType type, const xla::LiteralProto& p) {
  return BytesField(type, const_cast<xla::LiteralProto*>(&p));
}

}  // namespace

xla::ShapeProto ShapeToProto(const Shape& shape) {
  xla::ShapeProto proto;
  proto.set_element_type(static_cast<xla::PrimitiveType>(shape.element_type()));
  // A buffer carries its array as its one tuple_shapes entry, as in XLA.
  if (shape.IsTuple() || shape.IsBuffer()) {
    for (const Shape& element : shape.tuple_shapes()) {
      *proto.add_tuple_shapes() = ShapeToProto(element);
    }
    return proto;
  }
  bool any_dynamic = false;
  for (int64_t i = 0; i < shape.rank(); ++i) {
    proto.add_dimensions(shape.dimensions(i));
    any_dynamic |= shape.is_dynamic_dimension(i);
  }
  if (any_dynamic) {
    for (int64_t i = 0; i < shape.rank(); ++i) {
      proto.add_is_dynamic_dimension(shape.is_dynamic_dimension(i));
    }
  }
  if (shape.has_layout() && shape.IsArray()) {
    const Layout& layout = shape.layout();
    xla::LayoutProto* l = proto.mutable_layout();
    for (int64_t d : layout.minor_to_major()) l->add_minor_to_major(d);
    for (const Tile& tile : layout.tiles()) {
      xla::TileProto* t = l->add_tiles();
      for (int64_t d : tile.dimensions) t->add_dimensions(d);
    }
    if (layout.tail_padding_alignment_in_elements() != 1) {
      l->set_tail_padding_alignment_in_elements(
          layout.tail_padding_alignment_in_elements());
    }
    l->set_element_size_in_bits(layout.element_size_in_bits());
    l->set_memory_space(layout.memory_space());
    l->set_index_primitive_type(
        static_cast<xla::PrimitiveType>(layout.index_primitive_type()));
    l->set_pointer_primitive_type(
        static_cast<xla::PrimitiveType>(layout.pointer_primitive_type()));
    if (layout.physical_shape() != nullptr) {
      *l->mutable_physical_shape() = ShapeToProto(*layout.physical_shape());
    }
    l->set_dynamic_shape_metadata_prefix_bytes(
        layout.dynamic_shape_metadata_prefix_bytes());
    for (const SplitConfig& split : layout.split_configs()) {
      xla::SplitConfigProto* s = l->add_split_configs();
      s->set_dimension(split.dimension);
      for (int64_t i : split.split_indices) s->add_split_indices(i);
    }
  }
  return proto;
}

absl::StatusOr<Shape> ShapeFromProto(const xla::ShapeProto& proto) {
  const int type_number = static_cast<int>(proto.element_type());
  if (type_number <= 0 || type_number > kLastPrimitiveType) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape has invalid element type ", type_number));
  }
  const PrimitiveType type = static_cast<PrimitiveType>(type_number);
  if (type == PrimitiveType::kTuple) {
    std::vector<Shape> elements;
    for (const xla::ShapeProto& e : proto.tuple_shapes()) {
      absl::StatusOr<Shape> element = ShapeFromProto(e);
      if (!element.ok()) return element.status();
      elements.push_back(*std::move(element));
    }
    return Shape::Tuple(std::move(elements));
  }
  if (type == PrimitiveType::kBuffer) {
    if (proto.tuple_shapes_size() != 1) {
      return absl::InvalidArgumentError(
          "a buffer shape holds exactly one array shape");
    }
    absl::StatusOr<Shape> array = ShapeFromProto(proto.tuple_shapes(0));
    if (!array.ok()) return array.status();
    if (!array->IsArray()) {
      return absl::InvalidArgumentError(
          absl::StrCat("a buffer holds an array, not ", array->ToString()));
    }
    return Shape::Buffer(*std::move(array));
  }
  if (proto.is_dynamic_dimension_size() != 0 &&
      proto.is_dynamic_dimension_size() != proto.dimensions_size()) {
    return absl::InvalidArgumentError(
        "shape has is_dynamic_dimension of the wrong length");
  }
  Shape shape(type, {});
  for (int i = 0; i < proto.dimensions_size(); ++i) {
    const bool dynamic =
        proto.is_dynamic_dimension_size() > 0 && proto.is_dynamic_dimension(i);
    shape.add_dimension(proto.dimensions(i), dynamic);
  }
  if (proto.has_layout() && shape.IsArray()) {
    const xla::LayoutProto& l = proto.layout();
    Layout layout;
    for (int64_t d : l.minor_to_major())
      layout.mutable_minor_to_major().push_back(d);
    for (const xla::TileProto& t : l.tiles()) {
      Tile tile;
      tile.dimensions.assign(t.dimensions().begin(), t.dimensions().end());
      layout.mutable_tiles().push_back(std::move(tile));
    }
    if (l.tail_padding_alignment_in_elements() > 1) {
      layout.set_tail_padding_alignment_in_elements(
          l.tail_padding_alignment_in_elements());
    }
    if (l.element_size_in_bits() != 0) {
      layout.set_element_size_in_bits(l.element_size_in_bits());
    }
    if (l.memory_space() != 0) layout.set_memory_space(l.memory_space());
    // Index and pointer types of sparse layouts: integer types.
    for (auto [value, setter] :
         {std::pair<int, void (Layout::*)(PrimitiveType)>{
              l.index_primitive_type(), &Layout::set_index_primitive_type},
          {l.pointer_primitive_type(), &Layout::set_pointer_primitive_type}}) {
      if (value == 0) continue;
      if (value > kLastPrimitiveType ||
          !IsInteger(static_cast<PrimitiveType>(value))) {
        return absl::InvalidArgumentError(absl::StrCat(
            "layout names element type ", value, " for indices or pointers"));
      }
      (layout.*setter)(static_cast<PrimitiveType>(value));
    }
    if (l.has_physical_shape()) {
      absl::StatusOr<Shape> physical = ShapeFromProto(l.physical_shape());
      if (!physical.ok()) return physical.status();
      layout.set_physical_shape(*physical);
    }
    if (l.dynamic_shape_metadata_prefix_bytes() != 0) {
      layout.set_dynamic_shape_metadata_prefix_bytes(
          l.dynamic_shape_metadata_prefix_bytes());
    }
    for (const xla::SplitConfigProto& s : l.split_configs()) {
      SplitConfig split;
      split.dimension = s.dimension();
      split.split_indices.assign(s.split_indices().begin(),
                                 s.split_indices().end());
      layout.mutable_split_configs().push_back(std::move(split));
    }
    shape.set_layout(layout);
  }
  absl::Status valid = ValidateShape(shape);
  if (!valid.ok()) return valid;
  return shape;
}

absl::StatusOr<xla::LiteralProto> LiteralToProto(const Literal& literal) {
  xla::LiteralProto proto;
  if (literal.is_unknown()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the value of the constant of shape ", literal.shape().ToString(),
        " is unknown (elided as {...} in the text)"));
  }
  *proto.mutable_shape() = ShapeToProto(literal.shape());
  const Shape& shape = literal.shape();
  if (shape.IsTuple()) {
    for (const Literal& element : literal.tuple_elements()) {
      absl::StatusOr<xla::LiteralProto> e = LiteralToProto(element);
      if (!e.ok()) return e.status();
      *proto.add_tuple_literals() = *std::move(e);
    }
    return proto;
  }
  if (!shape.IsArray()) return proto;
  const int64_t n = literal.element_count();
  std::vector<int64_t> order(n);
  if (HasNonDefaultLayout(shape)) {
    order = PhysicalOrder(shape);
  } else {
    for (int64_t i = 0; i < n; ++i) order[i] = i;
  }
  const PrimitiveType type = shape.element_type();
  switch (type) {
    case PrimitiveType::kPred:
      proto.mutable_preds()->Resize(static_cast<int>(n), false);
      for (int64_t r = 0; r < n; ++r) {
        proto.mutable_preds()->Set(static_cast<int>(order[r]),
                                   literal.GetBits(r) != 0);
      }
      return proto;
    case PrimitiveType::kS32:
      AppendRepeated<int32_t>(literal, order, proto.mutable_s32s());
      return proto;
    case PrimitiveType::kS64:
      AppendRepeated<int64_t>(literal, order, proto.mutable_s64s());
      return proto;
    case PrimitiveType::kU32:
      AppendRepeated<uint32_t>(literal, order, proto.mutable_u32s());
      return proto;
    case PrimitiveType::kU64:
      AppendRepeated<uint64_t>(literal, order, proto.mutable_u64s());
      return proto;
    case PrimitiveType::kF32:
      AppendRepeated<float>(literal, order, proto.mutable_f32s());
      return proto;
    case PrimitiveType::kF64:
      AppendRepeated<double>(literal, order, proto.mutable_f64s());
      return proto;
    case PrimitiveType::kC64:
    case PrimitiveType::kC128: {
      const bool c64 = type == PrimitiveType::kC64;
      for (int64_t p = 0; p < n; ++p) {
        if (c64) {
          proto.add_c64s(0);
          proto.add_c64s(0);
        } else {
          proto.add_c128s(0);
          proto.add_c128s(0);
        }
      }
      for (int64_t r = 0; r < n; ++r) {
        const std::complex<double> v = literal.GetAsComplex(r);
        const int p = static_cast<int>(order[r]);
        if (c64) {
          proto.set_c64s(2 * p, static_cast<float>(v.real()));
          proto.set_c64s(2 * p + 1, static_cast<float>(v.imag()));
        } else {
          proto.set_c128s(2 * p, v.real());
          proto.set_c128s(2 * p + 1, v.imag());
        }
      }
      return proto;
    }
    default: {
      std::string* bytes = BytesField(type, &proto);
      if (bytes == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat(
            "no literal proto field for ", PrimitiveTypeName(type)));
      }
      const int width = StorageBytes(type);
      bytes->assign(n * width, '\0');
      for (int64_t r = 0; r < n; ++r) {
        std::memcpy(bytes->data() + order[r] * width,
                    literal.data().data() + r * width, width);
      }
      return proto;
    }
  }
}

absl::StatusOr<Literal> LiteralFromProto(const xla::LiteralProto& proto) {
  absl::StatusOr<Shape> shape_or = ShapeFromProto(proto.shape());
  if (!shape_or.ok()) return shape_or.status();
  const Shape& shape = *shape_or;
  if (shape.IsTuple()) {
    if (proto.tuple_literals_size() != shape.tuple_shapes_size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("tuple literal has ", proto.tuple_literals_size(),
                       " elements, its shape ", shape.tuple_shapes_size()));
    }
    std::vector<Literal> elements;
    for (const xla::LiteralProto& e : proto.tuple_literals()) {
      absl::StatusOr<Literal> element = LiteralFromProto(e);
      if (!element.ok()) return element.status();
      elements.push_back(*std::move(element));
    }
    Literal literal = Literal::Tuple(std::move(elements));
    literal.mutable_shape_for_layout() = shape;
    return literal;
  }
  if (shape.IsArray()) {
    // Every value takes at least a byte of the proto: check before
    // allocating what a hostile shape asks for.
    const int64_t count = CheckedProduct(shape.dimensions());
    if (count < 0 || static_cast<uint64_t>(count) > proto.ByteSizeLong()) {
      return absl::InvalidArgumentError(
          absl::StrCat("literal of shape ", shape.ToString(),
                       " holds fewer values than its shape needs"));
    }
  }
  Literal literal(shape);
  if (!shape.IsArray()) return literal;
  const int64_t n = literal.element_count();
  std::vector<int64_t> order(n);
  if (HasNonDefaultLayout(shape)) {
    order = PhysicalOrder(shape);
  } else {
    for (int64_t i = 0; i < n; ++i) order[i] = i;
  }
  auto count_error = [&](int64_t got) {
    return absl::InvalidArgumentError(
        absl::StrCat("literal of shape ", shape.ToString(), " has ", got,
                     " values, expected ", n));
  };
  const PrimitiveType type = shape.element_type();
  switch (type) {
    case PrimitiveType::kPred:
      if (proto.preds_size() != n) return count_error(proto.preds_size());
      for (int64_t r = 0; r < n; ++r) {
        literal.SetBits(r, proto.preds(static_cast<int>(order[r])) ? 1 : 0);
      }
      return literal;
    case PrimitiveType::kS32:
      if (proto.s32s_size() != n) return count_error(proto.s32s_size());
      for (int64_t r = 0; r < n; ++r) {
        literal.SetFromInt64(r, proto.s32s(static_cast<int>(order[r])));
      }
      return literal;
    case PrimitiveType::kS64:
      if (proto.s64s_size() != n) return count_error(proto.s64s_size());
      for (int64_t r = 0; r < n; ++r) {
        literal.SetFromInt64(r, proto.s64s(static_cast<int>(order[r])));
      }
      return literal;
    case PrimitiveType::kU32:
      if (proto.u32s_size() != n) return count_error(proto.u32s_size());
      for (int64_t r = 0; r < n; ++r) {
        literal.SetBits(r, proto.u32s(static_cast<int>(order[r])));
      }
      return literal;
    case PrimitiveType::kU64:
      if (proto.u64s_size() != n) return count_error(proto.u64s_size());
      for (int64_t r = 0; r < n; ++r) {
        literal.SetBits(r, proto.u64s(static_cast<int>(order[r])));
      }
      return literal;
    case PrimitiveType::kF32:
      if (proto.f32s_size() != n) return count_error(proto.f32s_size());
      for (int64_t r = 0; r < n; ++r) {
        const float v = proto.f32s(static_cast<int>(order[r]));
        uint32_t bits;
        std::memcpy(&bits, &v, 4);
        literal.SetBits(r, bits);
      }
      return literal;
    case PrimitiveType::kF64:
      if (proto.f64s_size() != n) return count_error(proto.f64s_size());
      for (int64_t r = 0; r < n; ++r) {
        const double v = proto.f64s(static_cast<int>(order[r]));
        uint64_t bits;
        std::memcpy(&bits, &v, 8);
        literal.SetBits(r, bits);
      }
      return literal;
    case PrimitiveType::kC64:
      if (proto.c64s_size() != 2 * n) return count_error(proto.c64s_size() / 2);
      for (int64_t r = 0; r < n; ++r) {
        const int p = static_cast<int>(order[r]);
        literal.SetFromComplex(r, {proto.c64s(2 * p), proto.c64s(2 * p + 1)});
      }
      return literal;
    case PrimitiveType::kC128:
      if (proto.c128s_size() != 2 * n)
        return count_error(proto.c128s_size() / 2);
      for (int64_t r = 0; r < n; ++r) {
        const int p = static_cast<int>(order[r]);
        literal.SetFromComplex(r, {proto.c128s(2 * p), proto.c128s(2 * p + 1)});
      }
      return literal;
    default: {
      const std::string* bytes = BytesField(type, proto);
      if (bytes == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat(
            "no literal proto field for ", PrimitiveTypeName(type)));
      }
      const int width = StorageBytes(type);
      if (static_cast<int64_t>(bytes->size()) != n * width) {
        return count_error(static_cast<int64_t>(bytes->size()) / width);
      }
      for (int64_t r = 0; r < n; ++r) {
        uint64_t bits = 0;
        std::memcpy(&bits, bytes->data() + order[r] * width, width);
        literal.SetBits(r, bits);
      }
      return literal;
    }
  }
}

}  // namespace xlite
