// Opcodes that move elements without computing on them: broadcast,
// reshape, bitcast, copy, transpose, slice, dynamic-slice,
// dynamic-update-slice, concatenate, pad, reverse and the dimension size
// ops. They work on raw element bytes, so one implementation serves
// every element type.

#include <algorithm>
#include <cstring>
#include <limits>

#include "hlo/evaluator/internal.h"

namespace xlite::eval {

std::vector<int64_t> Strides(absl::Span<const int64_t> dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int64_t i = static_cast<int64_t>(dims.size()) - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * dims[i + 1];
  }
  return strides;
}

int64_t IndexAt(const Literal& literal, int64_t i) {
  if (literal.shape().element_type() == PrimitiveType::kU64) {
    const uint64_t u = literal.GetAsUint64(i);
    return u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
               ? std::numeric_limits<int64_t>::max()
               : static_cast<int64_t>(u);
  }
  return literal.GetAsInt64(i);
}

int64_t ScalarIndex(const Literal& literal) { return IndexAt(literal, 0); }

absl::Status CheckAllocatable(const Shape& shape) {
  constexpr int64_t kLimit = int64_t{8} << 30;
  if (shape.IsTuple()) {
    for (const Shape& e : shape.tuple_shapes()) {
      absl::Status status = CheckAllocatable(e);
      if (!status.ok()) return status;
    }
    return absl::OkStatus();
  }
  if (shape.IsArray() && shape.ByteSizeOfElements() > kLimit) {
    return absl::ResourceExhaustedError(absl::StrCat(
        shape.ToString(false), " needs ", shape.ByteSizeOfElements(),
        " bytes, more than the evaluator's 8 GiB limit"));
  }
  return absl::OkStatus();
}

Literal ScalarAt(const Literal& array, int64_t index) {
  Literal out(Shape(array.shape().element_type(), {}));
  const int64_t w = ElementBytes(array.shape());
  std::memcpy(out.mutable_data().data(), array.data().data() + index * w, w);
  return out;
}

void SetScalarAt(Literal& array, int64_t index, const Literal& scalar) {
  const int64_t w = ElementBytes(array.shape());
  std::memcpy(array.mutable_data().data() + index * w, scalar.data().data(), w);
}

namespace {

// Strides of the physical (layout) order, indexed by logical dimension.
std::vector<int64_t> PhysicalStrides(const Shape& shape) {
  const int64_t rank = shape.rank();
  std::vector<int64_t> strides(rank, 1);
  if (!shape.has_layout() ||
      static_cast<int64_t>(shape.layout().minor_to_major().size()) != rank) {
    return Strides(shape.dimensions());
  }
  int64_t stride = 1;
  for (int64_t d : shape.layout().minor_to_major()) {
    strides[d] = stride;
    stride *= shape.dimensions(d);
  }
  return strides;
}

bool IsRowMajor(const Shape& shape) {
  if (!shape.has_layout()) return true;
  const auto& m2m = shape.layout().minor_to_major();
  for (size_t i = 0; i < m2m.size(); ++i) {
    if (m2m[i] != static_cast<int64_t>(m2m.size() - 1 - i)) return false;
  }
  return true;
}

// out[index] = in[sum(index[k] * in_strides[k]) + offset] for every index of
// `out_dims`: the common form of transpose, slice, broadcast and reverse.
void Gather(const uint8_t* in, uint8_t* out, int64_t w,
            absl::Span<const int64_t> out_dims,
            absl::Span<const int64_t> in_strides, int64_t offset) {
  const int64_t rank = out_dims.size();
  // No elements (and maybe no buffers: memcpy must not see null).
  for (int64_t d : out_dims) {
    if (d == 0) return;
  }
  int64_t linear = 0;
  if (rank == 0) {
    std::memcpy(out, in + offset * w, w);
    return;
  }
  // The innermost dimension as a strided row copy.
  const int64_t inner = out_dims[rank - 1];
  const int64_t inner_stride = in_strides[rank - 1];
  std::vector<int64_t> outer(out_dims.begin(), out_dims.end() - 1);
  ForEachIndex(outer, [&](absl::Span<const int64_t> index) {
    int64_t source = offset;
    for (int64_t k = 0; k + 1 < rank; ++k) source += index[k] * in_strides[k];
    uint8_t* dst = out + linear * w;
    const uint8_t* src = in + source * w;
    if (inner_stride == 1) {
      std::memcpy(dst, src, inner * w);
    } else if (w == 4) {
      for (int64_t i = 0; i < inner; ++i) {
        std::memcpy(dst + i * 4, src + i * inner_stride * 4, 4);
      }
    } else {
      for (int64_t i = 0; i < inner; ++i) {
        std::memcpy(dst + i * w, src + i * inner_stride * w, w);
      }
    }
    linear += inner;
  });
}

Literal Transpose(const Literal& in, const Shape& shape,
                  absl::Span<const int64_t> perm) {
  Literal out(shape);
  const std::vector<int64_t> in_strides = Strides(in.shape().dimensions());
  std::vector<int64_t> strides(perm.size());
  for (size_t j = 0; j < perm.size(); ++j) strides[j] = in_strides[perm[j]];
  Gather(in.data().data(), out.mutable_data().data(), ElementBytes(shape),
         shape.dimensions(), strides, 0);
  return out;
}

// Clamped start indices of a dynamic slice/update.
std::vector<int64_t> DynamicStarts(Operands operands, size_t first,
                                   const Shape& operand,
                                   absl::Span<const int64_t> sizes) {
  std::vector<int64_t> starts(operand.rank(), 0);
  for (int64_t d = 0; d < operand.rank(); ++d) {
    const int64_t start = ScalarIndex(*operands[first + d]);
    starts[d] = std::clamp<int64_t>(start, 0, operand.dimensions(d) - sizes[d]);
  }
  return starts;
}

}  // namespace

std::vector<uint8_t> ToPhysical(const Literal& literal) {
  return ToPhysicalAs(literal, literal.shape());
}

std::vector<uint8_t> ToPhysicalAs(const Literal& literal, const Shape& layout) {
  const Shape& shape =
      layout.IsArray() && layout.dimensions() == literal.shape().dimensions()
          ? layout
          : literal.shape();
  if (IsRowMajor(shape)) return literal.data();
  std::vector<uint8_t> out(literal.data().size());
  const int64_t w = ElementBytes(literal.shape());
  const std::vector<int64_t> physical = PhysicalStrides(shape);
  int64_t linear = 0;
  ForEachIndex(shape.dimensions(), [&](absl::Span<const int64_t> index) {
    int64_t p = 0;
    for (size_t k = 0; k < index.size(); ++k) p += index[k] * physical[k];
    std::memcpy(out.data() + p * w, literal.data().data() + linear * w, w);
    ++linear;
  });
  return out;
}

Literal FromPhysical(const Shape& shape, const std::vector<uint8_t>& bytes) {
  Literal out(shape);
  if (IsRowMajor(shape)) {
    out.mutable_data() = bytes;
    return out;
  }
  const int64_t w = ElementBytes(shape);
  const std::vector<int64_t> physical = PhysicalStrides(shape);
  Gather(bytes.data(), out.mutable_data().data(), w, shape.dimensions(),
         physical, 0);
  return out;
}

namespace {

// ---- reshaping: the logical element order is kept or permuted.

// Copy, reshape, dynamic-reshape and set-dimension-size: literals hold the
// logical row-major order, so the bytes stay as they are.
Literal Relabel(const Shape& shape, const Literal& in) {
  Literal out = in;
  out.mutable_shape_for_layout() = shape;
  return out;
}

// Element i of the operand's physical order becomes element i of the
// result's, as the instructions' declared layouts say (the operand value's
// own shape may carry another layout, e.g. a tuple element's). The element
// type may change when the byte sizes agree (XLA allows that); sub-byte
// types only keep their type.
absl::StatusOr<Literal> Bitcast(const HloInstruction& hlo, const Literal& in) {
  const Shape& shape = hlo.shape();
  const PrimitiveType from = in.shape().element_type();
  const PrimitiveType to = shape.element_type();
  const bool same_type = from == to;
  if ((same_type && in.element_count() != shape.ElementCount()) ||
      (!same_type &&
       (in.data().size() != static_cast<size_t>(shape.ByteSizeOfElements()) ||
        BitWidth(from) < 8 || BitWidth(to) < 8))) {
    return InstructionError(hlo, "bitcast changes the data size");
  }
  return FromPhysical(shape, ToPhysicalAs(in, hlo.operand(0)->shape()));
}

Literal Broadcast(const HloInstruction& hlo, const Literal& in) {
  const Shape& shape = hlo.shape();
  Literal out(shape);
  const std::vector<int64_t> in_strides = Strides(in.shape().dimensions());
  std::vector<int64_t> strides(shape.rank(), 0);
  const auto& dims = hlo.dimensions();
  for (size_t i = 0; i < dims.size(); ++i) strides[dims[i]] = in_strides[i];
  Gather(in.data().data(), out.mutable_data().data(), ElementBytes(shape),
         shape.dimensions(), strides, 0);
  return out;
}

// ---- slicing: a window of the operand is read or written.

Literal Slice(const HloInstruction& hlo, const Literal& in) {
  const Shape& shape = hlo.shape();
  Literal out(shape);
  const std::vector<int64_t> in_strides = Strides(in.shape().dimensions());
  const auto& slice = hlo.attrs().slice;
  std::vector<int64_t> strides(shape.rank());
  int64_t offset = 0;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    strides[d] = in_strides[d] * slice[d].stride;
    offset += slice[d].start * in_strides[d];
  }
  Gather(in.data().data(), out.mutable_data().data(), ElementBytes(shape),
         shape.dimensions(), strides, offset);
  return out;
}

Literal DynamicSlice(const HloInstruction& hlo, Operands operands) {
  const Shape& shape = hlo.shape();
  const Literal& in = *operands[0];
  Literal out(shape);
  const std::vector<int64_t> in_strides = Strides(in.shape().dimensions());
  const std::vector<int64_t> starts =
      DynamicStarts(operands, 1, in.shape(), shape.dimensions());
  int64_t offset = 0;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    offset += starts[d] * in_strides[d];
  }
  Gather(in.data().data(), out.mutable_data().data(), ElementBytes(shape),
         shape.dimensions(), in_strides, offset);
  return out;
}

Literal DynamicUpdateSlice(const HloInstruction& hlo, Operands operands) {
  const Shape& shape = hlo.shape();
  const int64_t w = ElementBytes(shape);
  Literal out = Relabel(shape, *operands[0]);
  const Literal& update = *operands[1];
  const std::vector<int64_t> starts =
      DynamicStarts(operands, 2, shape, update.shape().dimensions());
  const std::vector<int64_t> out_strides = Strides(shape.dimensions());
  int64_t linear = 0;
  ForEachIndex(update.shape().dimensions(),
               [&](absl::Span<const int64_t> index) {
                 int64_t target = 0;
                 for (size_t k = 0; k < index.size(); ++k) {
                   target += (starts[k] + index[k]) * out_strides[k];
                 }
                 std::memcpy(out.mutable_data().data() + target * w,
                             update.data().data() + linear * w, w);
                 ++linear;
               });
  return out;
}

// ---- assembling: concatenate, pad and reverse.

Literal Concatenate(const HloInstruction& hlo, Operands operands) {
  const Shape& shape = hlo.shape();
  const int64_t w = ElementBytes(shape);
  Literal out(shape);
  const int64_t dim = hlo.dimensions()[0];
  // Rows: the elements before `dim` times the block each operand adds.
  int64_t outer = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= shape.dimensions(d);
  int64_t out_block = 1;
  for (int64_t d = dim; d < shape.rank(); ++d) {
    out_block *= shape.dimensions(d);
  }
  int64_t at = 0;
  for (const Literal* in : operands) {
    int64_t block = 1;
    for (int64_t d = dim; d < shape.rank(); ++d) {
      block *= in->shape().dimensions(d);
    }
    for (int64_t o = 0; o < outer && block > 0; ++o) {
      std::memcpy(out.mutable_data().data() + (o * out_block + at) * w,
                  in->data().data() + o * block * w, block * w);
    }
    at += block;
  }
  return out;
}

Literal Pad(const HloInstruction& hlo, const Literal& in,
            const Literal& value) {
  const Shape& shape = hlo.shape();
  const int64_t w = ElementBytes(shape);
  Literal out(shape);
  const int64_t n = out.element_count();
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(out.mutable_data().data() + i * w, value.data().data(), w);
  }
  const auto& pad = hlo.attrs().padding.dimensions;
  const std::vector<int64_t> out_strides = Strides(shape.dimensions());
  int64_t linear = 0;
  ForEachIndex(in.shape().dimensions(), [&](absl::Span<const int64_t> index) {
    int64_t target = 0;
    bool inside = true;
    for (size_t k = 0; k < index.size(); ++k) {
      const int64_t p =
          pad[k].edge_padding_low + index[k] * (pad[k].interior_padding + 1);
      if (p < 0 || p >= shape.dimensions(k)) {
        inside = false;
        break;
      }
      target += p * out_strides[k];
    }
    if (inside) {
      std::memcpy(out.mutable_data().data() + target * w,
                  in.data().data() + linear * w, w);
    }
    ++linear;
  });
  return out;
}

Literal Reverse(const HloInstruction& hlo, const Literal& in) {
  const Shape& shape = hlo.shape();
  Literal out(shape);
  std::vector<int64_t> strides = Strides(shape.dimensions());
  int64_t offset = 0;
  for (int64_t d : hlo.dimensions()) {
    offset += (shape.dimensions(d) - 1) * strides[d];
    strides[d] = -strides[d];
  }
  Gather(in.data().data(), out.mutable_data().data(), ElementBytes(shape),
         shape.dimensions(), strides, offset);
  return out;
}

}  // namespace

absl::StatusOr<Literal> EvalDataMovement(const HloInstruction& hlo,
                                         Operands operands) {
  const Shape& shape = hlo.shape();
  switch (hlo.opcode()) {
    case HloOpcode::kCopy:
    case HloOpcode::kReshape:
    case HloOpcode::kDynamicReshape:
    case HloOpcode::kSetDimensionSize:
      return Relabel(shape, *operands[0]);
    case HloOpcode::kBitcast:
      return Bitcast(hlo, *operands[0]);
    case HloOpcode::kBroadcast:
      return Broadcast(hlo, *operands[0]);
    case HloOpcode::kTranspose:
      return Transpose(*operands[0], shape, hlo.dimensions());
    case HloOpcode::kSlice:
      return Slice(hlo, *operands[0]);
    case HloOpcode::kDynamicSlice:
      return DynamicSlice(hlo, operands);
    case HloOpcode::kDynamicUpdateSlice:
      return DynamicUpdateSlice(hlo, operands);
    case HloOpcode::kConcatenate:
      return Concatenate(hlo, operands);
    case HloOpcode::kPad:
      return Pad(hlo, *operands[0], *operands[1]);
    case HloOpcode::kReverse:
      return Reverse(hlo, *operands[0]);
    case HloOpcode::kGetDimensionSize: {
      Literal out(shape);
      out.SetFromInt64(0, operands[0]->shape().dimensions(hlo.dimensions()[0]));
      return out;
    }
    default:
      return NotImplemented(hlo);
  }
}

}  // namespace xlite::eval
