// scatter (plain, or as the root of a fusion): the result starts as the
// operand (copied unless buffer assignment let it share the operand's
// buffer), then each update element is combined into it in order; an
// update window that does not fit in the operand is skipped, as XLA:CPU
// does.

#include <algorithm>

#include "codegen/elemental.h"
#include "codegen/loops.h"
#include "cpu_backend/emitter_context.h"
#include "hlo/ir/opcode.h"
#include "llvm/IR/Function.h"

namespace xlite::cpu {

using codegen::ElementalEmitter;
using codegen::Index;
using codegen::IrArray;

namespace {

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}


// Writes the updates into `outs` (which already hold the operands).
absl::Status EmitUpdates(llvm::IRBuilderBase& b, ElementalEmitter& emitter,
                         const HloInstruction* scatter,
                         const std::vector<IrArray>& outs) {
  const int64_t n = outs.size();
  const ScatterDimensionNumbers& s = scatter->attrs().gather_scatter->scatter;
  const HloInstruction* indices = scatter->operand(n);
  const Shape& operand = scatter->operand(0)->shape();
  const Shape& updates = scatter->operand(n + 1)->shape();
  const int64_t index_rank = indices->shape().rank();
  std::vector<int64_t> operand_window_dims;
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (!Contains(s.inserted_window_dims, d) &&
        !Contains(s.input_batching_dims, d)) {
      operand_window_dims.push_back(d);
    }
  }
  std::vector<int64_t> index_batch_dims;
  for (int64_t d = 0; d < index_rank; ++d) {
    if (d != s.index_vector_dim) index_batch_dims.push_back(d);
  }
  return codegen::EmitLoopNest(b, updates, [&](const Index& u) -> absl::Status {
    ElementalEmitter::Scope scope(emitter);
    Index batch, window;
    for (int64_t d = 0; d < updates.rank(); ++d) {
      (Contains(s.update_window_dims, d) ? window : batch).push_back(u[d]);
    }
    Index start(operand.rank(), b.getInt64(0));
    for (size_t k = 0; k < s.scatter_dims_to_operand_dims.size(); ++k) {
      Index at;
      int64_t bpos = 0;
      for (int64_t d = 0; d < index_rank; ++d) {
        at.push_back(d == s.index_vector_dim ? b.getInt64(k) : batch[bpos++]);
      }
      absl::StatusOr<llvm::Value*> v = emitter.ValueAt(indices, -1, at);
      if (!v.ok()) return v.status();
      start[s.scatter_dims_to_operand_dims[k]] =
          codegen::IndexToInt64(b, indices->shape().element_type(), *v);
    }
    for (size_t k = 0; k < s.input_batching_dims.size(); ++k) {
      const int64_t pos = std::find(index_batch_dims.begin(),
                                    index_batch_dims.end(),
                                    s.scatter_indices_batching_dims[k]) -
                          index_batch_dims.begin();
      start[s.input_batching_dims[k]] = batch[pos];
    }
    llvm::Value* fits = b.getTrue();
    Index full(operand.rank(), nullptr);
    size_t w = 0;
    for (int64_t d = 0; d < operand.rank(); ++d) {
      int64_t extent = 1;
      llvm::Value* offset = b.getInt64(0);
      if (w < operand_window_dims.size() && operand_window_dims[w] == d) {
        extent = updates.dimensions(s.update_window_dims[w]);
        offset = window[w++];
      }
      fits = b.CreateAnd(fits, b.CreateICmpSGE(start[d], b.getInt64(0)));
      fits = b.CreateAnd(
          fits, b.CreateICmpSLE(start[d],
                                b.getInt64(operand.dimensions(d) - extent)));
      full[d] = b.CreateAdd(start[d], offset);
    }
    llvm::Function* f = b.GetInsertBlock()->getParent();
    auto* apply = llvm::BasicBlock::Create(b.getContext(), "scatter.apply", f);
    auto* next = llvm::BasicBlock::Create(b.getContext(), "scatter.next", f);
    b.CreateCondBr(fits, apply, next);
    b.SetInsertPoint(apply);
    {
      ElementalEmitter::Scope inner(emitter);
      std::vector<llvm::Value*> args;
      for (int64_t i = 0; i < n; ++i) args.push_back(outs[i].EmitRead(b, full));
      for (int64_t i = 0; i < n; ++i) {
        absl::StatusOr<llvm::Value*> v =
            emitter.ValueAt(scatter->operand(n + 1 + i), -1, u);
        if (!v.ok()) return v.status();
        args.push_back(*v);
      }
      absl::StatusOr<std::vector<llvm::Value*>> combined =
          emitter.EmitApplied(*scatter->to_apply(), args);
      if (!combined.ok()) return combined.status();
      for (int64_t i = 0; i < n; ++i) outs[i].EmitWrite(b, full, (*combined)[i]);
    }
    b.CreateBr(next);
    b.SetInsertPoint(next);
    return absl::OkStatus();
  });
}

}  // namespace

absl::Status EmitScatterKernel(EmitterContext& ctx, llvm::IRBuilderBase& b,
                               const HloInstruction* hlo) {
  const bool fusion = hlo->opcode() == HloOpcode::kFusion;
  const HloInstruction* scatter =
      fusion ? hlo->fused_computation()->root_instruction() : hlo;
  const int64_t n = (scatter->operand_count() - 1) / 2;
  llvm::BasicBlock* caller = b.GetInsertBlock();
  llvm::Function* kernel = ctx.NewKernel(b, hlo->name());
  ElementalEmitter emitter(b, ctx.llvm_module());
  if (absl::Status s = BindOperands(ctx, b, emitter, hlo); !s.ok()) return s;
  std::vector<IrArray> outs;
  for (int64_t i = 0; i < n; ++i) {
    ShapeIndex leaf;
    if (hlo->shape().IsTuple()) leaf = {i};
    absl::StatusOr<IrArray> out = ctx.ArrayFor(b, hlo, leaf);
    if (!out.ok()) return out.status();
    outs.push_back(*out);
    // The operand's buffer, if the result shares it.
    const HloInstruction* source = scatter->operand(i);
    if (fusion && source->opcode() == HloOpcode::kParameter) {
      source = hlo->operand(source->parameter_number());
    }
    bool shared = false;
    if (!fusion || scatter->operand(i)->opcode() == HloOpcode::kParameter) {
      absl::StatusOr<runtime::Slice> a = ctx.assignment().GetSlice(hlo, leaf);
      absl::StatusOr<runtime::Slice> o = ctx.assignment().GetSlice(source, {});
      shared = a.ok() && o.ok() && *a == *o;
    }
    if (shared) continue;
    absl::Status s = codegen::EmitLoopNest(
        b, out->shape(), [&](const Index& index) -> absl::Status {
          ElementalEmitter::Scope scope(emitter);
          absl::StatusOr<llvm::Value*> v =
              emitter.ValueAt(scatter->operand(i), -1, index);
          if (!v.ok()) return v.status();
          outs.back().EmitWrite(b, index, *v);
          return absl::OkStatus();
        });
    if (!s.ok()) return s;
  }
  if (absl::Status s = EmitUpdates(b, emitter, scatter, outs); !s.ok()) {
    return s;
  }
  b.CreateRetVoid();
  b.SetInsertPoint(caller);
  ctx.CallKernel(b, kernel);
  return absl::OkStatus();
}

}  // namespace xlite::cpu
