// Elemental forms of the data-movement and generator opcodes: each maps an
// output index to the operand index it reads (or to a computed value).

#include <algorithm>
#include <optional>
#include <vector>

#include "codegen/elemental.h"
#include "codegen/scalar_ops.h"
#include "llvm/IR/GlobalVariable.h"

namespace xlite::codegen {
namespace {

// For a bitcast from `in` to `out` whose dimensions longer than 1 have the
// same sizes in the same physical order: the output dimension each operand
// dimension equals (-1: a dimension of 1). nullopt for other bitcasts.
std::optional<std::vector<int64_t>> BitcastSource(const Shape& in,
                                                  const Shape& out) {
  auto long_dims = [](const Shape& s) {
    std::vector<int64_t> dims;
    for (int64_t d : MajorToMinor(s)) {
      if (s.dimensions(d) > 1) dims.push_back(d);
    }
    return dims;
  };
  const std::vector<int64_t> a = long_dims(in);
  const std::vector<int64_t> b = long_dims(out);
  if (a.size() != b.size()) return std::nullopt;
  std::vector<int64_t> source(in.rank(), -1);
  for (size_t k = 0; k < a.size(); ++k) {
    if (in.dimensions(a[k]) != out.dimensions(b[k])) return std::nullopt;
    source[a[k]] = b[k];
  }
  return source;
}

// A bitcast's value: the operand's, reinterpreted when the element type
// differs (same width).
absl::StatusOr<llvm::Value*> Reinterpret(llvm::IRBuilderBase& b,
                                         PrimitiveType type,
                                         absl::StatusOr<llvm::Value*> v) {
  llvm::Type* want = ValueType(type, b.getContext());
  if (!v.ok() || (*v)->getType() == want) return v;
  return b.CreateBitCast(*v, want);
}

}  // namespace

absl::StatusOr<Index> ElementalEmitter::ClampedStarts(
    const HloInstruction* hlo, int64_t first_operand,
    absl::Span<const int64_t> dims, absl::Span<const int64_t> sizes,
    const Index& at) {
  Index starts;
  for (size_t d = 0; d < dims.size(); ++d) {
    const HloInstruction* operand = hlo->operand(first_operand + d);
    absl::StatusOr<llvm::Value*> v = ValueAt(operand, -1, at);
    if (!v.ok()) return v.status();
    starts.push_back(ClampIndex(b_, IndexToInt64(b_, operand->shape().element_type(), *v),
                           0, dims[d] - sizes[d]));
  }
  return starts;
}

absl::StatusOr<Generator> ElementalEmitter::Broadcast(
    const HloInstruction* hlo) {
  return [this, hlo](const Index& index) {
    Index in;
    for (int64_t d : hlo->dimensions()) in.push_back(index[d]);
    return ValueAt(hlo->operand(0), -1, in);
  };
}

absl::StatusOr<Generator> ElementalEmitter::Reshape(
    const HloInstruction* hlo) {
  const Shape& out = hlo->shape();
  const Shape& in = hlo->operand(0)->shape();
  if (hlo->opcode() == HloOpcode::kBitcast) {
    // Same bytes: the output's physical position is the operand's. When
    // the two have the same dimensions longer than 1, in the same physical
    // order (a transpose into another layout, dimensions of 1 added or
    // dropped), each operand index is an output index: no division, and
    // loops over it stay affine (vectorizable).
    const std::optional<std::vector<int64_t>> source = BitcastSource(in, out);
    return [this, hlo, out, in, source](
               const Index& index) -> absl::StatusOr<llvm::Value*> {
      if (source) {
        Index from(in.rank(), nullptr);
        for (int64_t d = 0; d < in.rank(); ++d) {
          from[d] = (*source)[d] < 0 ? b_.getInt64(0) : index[(*source)[d]];
        }
        return Reinterpret(b_, out.element_type(), ValueAt(hlo->operand(0), -1, from));
      }
      llvm::Value* linear = b_.getInt64(0);
      const auto strides = PhysicalStrides(out);
      for (int64_t d = 0; d < out.rank(); ++d) {
        linear = b_.CreateAdd(linear,
                              b_.CreateMul(index[d], b_.getInt64(strides[d])));
      }
      const auto in_strides = PhysicalStrides(in);
      Index from(in.rank(), nullptr);
      for (int64_t d = 0; d < in.rank(); ++d) {
        llvm::Value* q = b_.CreateUDiv(linear, b_.getInt64(in_strides[d]));
        from[d] = b_.CreateURem(q, b_.getInt64(std::max<int64_t>(
                                       in.dimensions(d), 1)));
      }
      return Reinterpret(b_, out.element_type(), ValueAt(hlo->operand(0), -1, from));
    };
  }
  return [this, hlo, out, in](const Index& index) {
    return ValueAt(hlo->operand(0), -1,
                   DelinearizeRowMajor(b_, LinearizeRowMajor(b_, index, out),
                                       in));
  };
}

absl::StatusOr<Generator> ElementalEmitter::Transpose(
    const HloInstruction* hlo) {
  return [this, hlo](const Index& index) {
    Index in(index.size(), nullptr);
    for (size_t i = 0; i < hlo->dimensions().size(); ++i) {
      in[hlo->dimensions(i)] = index[i];
    }
    return ValueAt(hlo->operand(0), -1, in);
  };
}

absl::StatusOr<Generator> ElementalEmitter::Slice(const HloInstruction* hlo) {
  return [this, hlo](const Index& index) {
    Index in;
    const auto& slice = hlo->attrs().slice;
    for (size_t d = 0; d < index.size(); ++d) {
      in.push_back(b_.CreateAdd(
          b_.getInt64(slice[d].start),
          b_.CreateMul(index[d], b_.getInt64(slice[d].stride))));
    }
    return ValueAt(hlo->operand(0), -1, in);
  };
}

absl::StatusOr<Generator> ElementalEmitter::Pad(const HloInstruction* hlo) {
  return [this, hlo](const Index& index) -> absl::StatusOr<llvm::Value*> {
    const Shape& in_shape = hlo->operand(0)->shape();
    const auto& pads = hlo->attrs().padding.dimensions;
    llvm::Value* inside = b_.getTrue();
    Index in;
    for (size_t d = 0; d < index.size(); ++d) {
      const int64_t step = pads[d].interior_padding + 1;
      llvm::Value* rel =
          b_.CreateSub(index[d], b_.getInt64(pads[d].edge_padding_low));
      llvm::Value* q = b_.CreateSDiv(rel, b_.getInt64(step));
      llvm::Value* r = b_.CreateSRem(rel, b_.getInt64(step));
      inside = b_.CreateAnd(inside, b_.CreateICmpSGE(rel, b_.getInt64(0)));
      inside = b_.CreateAnd(inside, b_.CreateICmpEQ(r, b_.getInt64(0)));
      inside = b_.CreateAnd(
          inside, b_.CreateICmpSLT(q, b_.getInt64(in_shape.dimensions(d))));
      in.push_back(ClampIndex(b_, q, 0, std::max<int64_t>(in_shape.dimensions(d) - 1, 0)));
    }
    absl::StatusOr<llvm::Value*> pad_value = ValueAt(hlo->operand(1), -1, {});
    if (!pad_value.ok()) return pad_value.status();
    if (in_shape.ElementCount() == 0) return *pad_value;
    absl::StatusOr<llvm::Value*> value = ValueAt(hlo->operand(0), -1, in);
    if (!value.ok()) return value.status();
    return b_.CreateSelect(inside, *value, *pad_value);
  };
}

absl::StatusOr<Generator> ElementalEmitter::Concatenate(
    const HloInstruction* hlo) {
  return [this, hlo](const Index& index) -> absl::StatusOr<llvm::Value*> {
    const int64_t dim = hlo->dimensions(0);
    llvm::Function* function = b_.GetInsertBlock()->getParent();
    auto* done = llvm::BasicBlock::Create(b_.getContext(), "concat.done",
                                          function);
    llvm::Type* type = ValueType(hlo->shape().element_type(), b_.getContext());
    std::vector<std::pair<llvm::Value*, llvm::BasicBlock*>> incoming;
    int64_t offset = 0;
    for (int64_t i = 0; i < hlo->operand_count(); ++i) {
      const HloInstruction* operand = hlo->operand(i);
      const int64_t size = operand->shape().dimensions(dim);
      if (size == 0) continue;
      const bool last = offset + size == hlo->shape().dimensions(dim);
      auto* take = llvm::BasicBlock::Create(b_.getContext(), "concat.take",
                                            function);
      llvm::BasicBlock* next = nullptr;
      if (last) {
        b_.CreateBr(take);
      } else {
        next = llvm::BasicBlock::Create(b_.getContext(), "concat.next",
                                        function);
        b_.CreateCondBr(
            b_.CreateICmpSLT(index[dim], b_.getInt64(offset + size)), take,
            next);
      }
      b_.SetInsertPoint(take);
      Index in = index;
      in[dim] = b_.CreateSub(index[dim], b_.getInt64(offset));
      {
        Scope scope(*this);
        absl::StatusOr<llvm::Value*> v = ValueAt(operand, -1, in);
        if (!v.ok()) return v.status();
        incoming.push_back({*v, b_.GetInsertBlock()});
      }
      b_.CreateBr(done);
      offset += size;
      if (last) break;
      b_.SetInsertPoint(next);
    }
    b_.SetInsertPoint(done);
    llvm::PHINode* phi = b_.CreatePHI(type, incoming.size());
    for (auto& [v, block] : incoming) phi->addIncoming(v, block);
    return phi;
  };
}

absl::StatusOr<Generator> ElementalEmitter::Reverse(
    const HloInstruction* hlo) {
  return [this, hlo](const Index& index) {
    Index in = index;
    for (int64_t d : hlo->dimensions()) {
      in[d] = b_.CreateSub(b_.getInt64(hlo->shape().dimensions(d) - 1),
                           index[d]);
    }
    return ValueAt(hlo->operand(0), -1, in);
  };
}

absl::StatusOr<Generator> ElementalEmitter::DynamicSlice(
    const HloInstruction* hlo) {
  return [this, hlo](const Index& index) -> absl::StatusOr<llvm::Value*> {
    const Shape& in_shape = hlo->operand(0)->shape();
    absl::StatusOr<Index> starts =
        ClampedStarts(hlo, 1, in_shape.dimensions(),
                      hlo->shape().dimensions(), {});
    if (!starts.ok()) return starts.status();
    Index in;
    for (size_t d = 0; d < index.size(); ++d) {
      in.push_back(b_.CreateAdd((*starts)[d], index[d]));
    }
    return ValueAt(hlo->operand(0), -1, in);
  };
}

absl::StatusOr<Generator> ElementalEmitter::DynamicUpdateSlice(
    const HloInstruction* hlo) {
  return [this, hlo](const Index& index) -> absl::StatusOr<llvm::Value*> {
    const Shape& update_shape = hlo->operand(1)->shape();
    absl::StatusOr<Index> starts =
        ClampedStarts(hlo, 2, hlo->shape().dimensions(),
                      update_shape.dimensions(), {});
    if (!starts.ok()) return starts.status();
    absl::StatusOr<llvm::Value*> old = ValueAt(hlo->operand(0), -1, index);
    if (!old.ok()) return old.status();
    if (update_shape.ElementCount() == 0) return *old;
    llvm::Value* inside = b_.getTrue();
    Index in;
    for (size_t d = 0; d < index.size(); ++d) {
      llvm::Value* rel = b_.CreateSub(index[d], (*starts)[d]);
      inside = b_.CreateAnd(inside, b_.CreateICmpSGE(rel, b_.getInt64(0)));
      inside = b_.CreateAnd(
          inside,
          b_.CreateICmpSLT(rel, b_.getInt64(update_shape.dimensions(d))));
      in.push_back(ClampIndex(b_, rel, 0, update_shape.dimensions(d) - 1));
    }
    absl::StatusOr<llvm::Value*> update = ValueAt(hlo->operand(1), -1, in);
    if (!update.ok()) return update.status();
    return b_.CreateSelect(inside, *update, *old);
  };
}

absl::StatusOr<Generator> ElementalEmitter::Iota(const HloInstruction* hlo) {
  return [this, hlo](const Index& index) {
    return EmitConvert(b_, PrimitiveType::kS64, hlo->shape().element_type(),
                       index[hlo->iota_dimension()]);
  };
}

absl::StatusOr<Generator> ElementalEmitter::Constant(
    const HloInstruction* hlo) {
  const Literal& literal = *hlo->attrs().literal;
  if (literal.is_unknown()) return Unsupported(hlo, "constant value elided");
  const PrimitiveType type = hlo->shape().element_type();
  const int bytes = StorageBytes(type);
  if (hlo->shape().ElementCount() == 1) {
    llvm::Constant* c = ScalarConstant(type, literal.data().data(),
                                       b_.getContext());
    return [c](const Index&) -> absl::StatusOr<llvm::Value*> { return c; };
  }
  // The elements in physical order, as a private global.
  std::vector<uint8_t> physical = literal.PhysicalData(hlo->shape());
  (void)bytes;
  auto* data = llvm::ConstantDataArray::get(
      b_.getContext(), llvm::ArrayRef<uint8_t>(physical));
  auto* global = new llvm::GlobalVariable(
      module_, data->getType(), /*isConstant=*/true,
      llvm::GlobalValue::PrivateLinkage, data, hlo->name());
  global->setAlignment(llvm::Align(64));
  IrArray array(global, hlo->shape());
  return [this, array](const Index& index) {
    return array.EmitRead(b_, index);
  };
}

absl::StatusOr<Generator> ElementalEmitter::Gather(const HloInstruction* hlo) {
  return [this, hlo](const Index& index) -> absl::StatusOr<llvm::Value*> {
    const GatherDimensionNumbers& g = hlo->attrs().gather_scatter->gather;
    const auto& sizes = hlo->attrs().gather_scatter->slice_sizes;
    const HloInstruction* indices = hlo->operand(1);
    const Shape& in = hlo->operand(0)->shape();
    const int64_t index_rank = indices->shape().rank();
    auto contains = [](const std::vector<int64_t>& v, int64_t x) {
      return std::find(v.begin(), v.end(), x) != v.end();
    };
    std::vector<int64_t> window_dims;
    for (int64_t d = 0; d < in.rank(); ++d) {
      if (!contains(g.collapsed_slice_dims, d) &&
          !contains(g.operand_batching_dims, d)) {
        window_dims.push_back(d);
      }
    }
    Index batch;
    Index offsets(in.rank(), b_.getInt64(0));
    int64_t o = 0;
    for (int64_t d = 0; d < hlo->shape().rank(); ++d) {
      if (contains(g.offset_dims, d)) {
        offsets[window_dims[o++]] = index[d];
      } else {
        batch.push_back(index[d]);
      }
    }
    // batch[k] is the index along the k-th non-index-vector dim of indices.
    std::vector<int64_t> batch_dims;
    for (int64_t d = 0; d < index_rank; ++d) {
      if (d != g.index_vector_dim) batch_dims.push_back(d);
    }
    Index start(in.rank(), b_.getInt64(0));
    for (size_t k = 0; k < g.start_index_map.size(); ++k) {
      Index at;
      int64_t bpos = 0;
      for (int64_t d = 0; d < index_rank; ++d) {
        at.push_back(d == g.index_vector_dim ? b_.getInt64(k)
                                             : batch[bpos++]);
      }
      absl::StatusOr<llvm::Value*> v = ValueAt(indices, -1, at);
      if (!v.ok()) return v.status();
      start[g.start_index_map[k]] =
          IndexToInt64(b_, indices->shape().element_type(), *v);
    }
    for (size_t k = 0; k < g.operand_batching_dims.size(); ++k) {
      const int64_t pos =
          std::find(batch_dims.begin(), batch_dims.end(),
                    g.start_indices_batching_dims[k]) -
          batch_dims.begin();
      start[g.operand_batching_dims[k]] = batch[pos];
    }
    Index from;
    for (int64_t d = 0; d < in.rank(); ++d) {
      from.push_back(b_.CreateAdd(
          ClampIndex(b_, start[d], 0, in.dimensions(d) - sizes[d]), offsets[d]));
    }
    return ValueAt(hlo->operand(0), -1, from);
  };
}

}  // namespace xlite::codegen
