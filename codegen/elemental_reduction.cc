// Elemental reduce, reduce-window and map: each output element runs the
// reducer (an applied computation, inlined) over its inputs in sequence.

#include <algorithm>

#include "codegen/elemental.h"
#include "codegen/loops.h"
#include "codegen/scalar_ops.h"
#include "llvm/IR/Function.h"

namespace xlite::codegen {

absl::StatusOr<Generator> ElementalEmitter::Reduce(const HloInstruction* hlo,
                                                   int64_t leaf) {
  const int64_t strip = StripWidth(hlo);
  return [this, hlo, leaf,
          strip](const Index& index) -> absl::StatusOr<llvm::Value*> {
    if (strip > 0) return ReduceInStrips(hlo, index, strip);
    const int64_t n = hlo->operand_count() / 2;
    const Shape& in = hlo->operand(0)->shape();
    std::vector<llvm::AllocaInst*> accs;
    for (int64_t i = 0; i < n; ++i) {
      const HloInstruction* init = hlo->operand(n + i);
      absl::StatusOr<llvm::Value*> v = ValueAt(init, -1, {});
      if (!v.ok()) return v.status();
      accs.push_back(EntryAlloca(
          b_, ValueType(init->shape().element_type(), b_.getContext())));
      b_.CreateStore(*v, accs.back());
    }
    std::vector<int64_t> reduced(hlo->dimensions().begin(),
                                 hlo->dimensions().end());
    std::sort(reduced.begin(), reduced.end());
    std::vector<int64_t> bounds;
    for (int64_t d : reduced) bounds.push_back(in.dimensions(d));
    absl::Status status;
    {
      Scope scope(*this);
      status = EmitLoopNestOverBounds(b_, bounds, [&](const Index& r) {
        Scope inner(*this);
        Index full(in.rank(), nullptr);
        size_t k = 0, o = 0;
        for (int64_t d = 0; d < in.rank(); ++d) {
          if (k < reduced.size() && reduced[k] == d) {
            full[d] = r[k++];
          } else {
            full[d] = index[o++];
          }
        }
        std::vector<llvm::Value*> args;
        for (int64_t i = 0; i < n; ++i) {
          args.push_back(b_.CreateLoad(accs[i]->getAllocatedType(), accs[i]));
        }
        for (int64_t i = 0; i < n; ++i) {
          absl::StatusOr<llvm::Value*> v = ValueAt(hlo->operand(i), -1, full);
          if (!v.ok()) return v.status();
          args.push_back(*v);
        }
        absl::StatusOr<std::vector<llvm::Value*>> next =
            EmitApplied(*hlo->to_apply(), args);
        if (!next.ok()) return next.status();
        for (int64_t i = 0; i < n; ++i) b_.CreateStore((*next)[i], accs[i]);
        return absl::OkStatus();
      });
    }
    if (!status.ok()) return status;
    std::vector<llvm::Value*> results;
    for (int64_t i = 0; i < n; ++i) {
      results.push_back(b_.CreateLoad(accs[i]->getAllocatedType(), accs[i]));
    }
    if (leaf < 0) return results[0];
    // Memoize the sibling results of a variadic reduce.
    for (int64_t i = 0; i < n; ++i) {
      scopes_.back()[CacheKey{hlo, i, {index.begin(), index.end()}}] =
          results[i];
    }
    return results[leaf];
  };
}

absl::StatusOr<Generator> ElementalEmitter::ReduceWindow(
    const HloInstruction* hlo, int64_t leaf) {
  return [this, hlo, leaf](const Index& index) -> absl::StatusOr<llvm::Value*> {
    const int64_t n = hlo->operand_count() / 2;
    const Shape& in = hlo->operand(0)->shape();
    const int64_t rank = in.rank();
    std::vector<WindowDimension> window(rank);
    if (hlo->attrs().window.has_value()) {
      window.assign(hlo->attrs().window->dimensions.begin(),
                    hlo->attrs().window->dimensions.end());
    }
    std::vector<llvm::AllocaInst*> accs;
    for (int64_t i = 0; i < n; ++i) {
      const HloInstruction* init = hlo->operand(n + i);
      absl::StatusOr<llvm::Value*> v = ValueAt(init, -1, {});
      if (!v.ok()) return v.status();
      accs.push_back(EntryAlloca(
          b_, ValueType(init->shape().element_type(), b_.getContext())));
      b_.CreateStore(*v, accs.back());
    }
    std::vector<int64_t> bounds;
    for (int64_t d = 0; d < rank; ++d) {
      bounds.push_back(window[d].size > 0 ? window[d].size : 1);
    }
    Scope scope(*this);
    absl::Status status =
        EmitLoopNestOverBounds(b_, bounds, [&](const Index& w) -> absl::Status {
          // Input position of this window element, in the dilated and
          // padded input; skipped when it falls on padding or a hole.
          llvm::Value* inside = b_.getTrue();
          Index at;
          for (int64_t d = 0; d < rank; ++d) {
            const WindowDimension& wd = window[d];
            const int64_t stride = std::max<int64_t>(wd.stride, 1);
            const int64_t wdil = std::max<int64_t>(wd.window_dilation, 1);
            const int64_t bdil = std::max<int64_t>(wd.base_dilation, 1);
            llvm::Value* pos = b_.CreateSub(
                b_.CreateAdd(b_.CreateMul(index[d], b_.getInt64(stride)),
                             b_.CreateMul(w[d], b_.getInt64(wdil))),
                b_.getInt64(wd.padding_low));
            llvm::Value* q = b_.CreateSDiv(pos, b_.getInt64(bdil));
            inside =
                b_.CreateAnd(inside, b_.CreateICmpSGE(pos, b_.getInt64(0)));
            inside = b_.CreateAnd(
                inside, b_.CreateICmpEQ(b_.CreateSRem(pos, b_.getInt64(bdil)),
                                        b_.getInt64(0)));
            inside = b_.CreateAnd(
                inside, b_.CreateICmpSLT(q, b_.getInt64(in.dimensions(d))));
            at.push_back(q);
          }
          llvm::Function* f = b_.GetInsertBlock()->getParent();
          auto* body = llvm::BasicBlock::Create(b_.getContext(), "rw.in", f);
          auto* skip = llvm::BasicBlock::Create(b_.getContext(), "rw.skip", f);
          b_.CreateCondBr(inside, body, skip);
          b_.SetInsertPoint(body);
          {
            Scope inner(*this);
            std::vector<llvm::Value*> args;
            for (int64_t i = 0; i < n; ++i) {
              args.push_back(
                  b_.CreateLoad(accs[i]->getAllocatedType(), accs[i]));
            }
            for (int64_t i = 0; i < n; ++i) {
              absl::StatusOr<llvm::Value*> v = ValueAt(hlo->operand(i), -1, at);
              if (!v.ok()) return v.status();
              args.push_back(*v);
            }
            absl::StatusOr<std::vector<llvm::Value*>> next =
                EmitApplied(*hlo->to_apply(), args);
            if (!next.ok()) return next.status();
            for (int64_t i = 0; i < n; ++i) {
              b_.CreateStore((*next)[i], accs[i]);
            }
          }
          b_.CreateBr(skip);
          b_.SetInsertPoint(skip);
          return absl::OkStatus();
        });
    if (!status.ok()) return status;
    std::vector<llvm::Value*> results;
    for (int64_t i = 0; i < n; ++i) {
      results.push_back(b_.CreateLoad(accs[i]->getAllocatedType(), accs[i]));
    }
    if (leaf < 0) return results[0];
    return results[leaf];
  };
}

absl::StatusOr<Generator> ElementalEmitter::Map(const HloInstruction* hlo) {
  return [this, hlo](const Index& index) -> absl::StatusOr<llvm::Value*> {
    std::vector<llvm::Value*> args;
    for (const HloInstruction* operand : hlo->operands()) {
      absl::StatusOr<llvm::Value*> v = ValueAt(operand, -1, index);
      if (!v.ok()) return v.status();
      args.push_back(*v);
    }
    absl::StatusOr<std::vector<llvm::Value*>> out =
        EmitApplied(*hlo->to_apply(), args);
    if (!out.ok()) return out.status();
    return (*out)[0];
  };
}

}  // namespace xlite::codegen
