// select-and-scatter as an emitted kernel, as the evaluator defines it
// (hlo/evaluator/reduce.cc): the result starts as the init value; for each
// source element, in row-major order, the window it covers is walked in
// row-major window order, padding skipped, keeping the current selection
// unless `select(current, candidate)` is false (so the first element wins
// ties); the source is then combined into the selected result element by
// `scatter(result, source)`.

#include "codegen/elemental.h"
#include "codegen/loops.h"
#include "codegen/scalar_ops.h"
#include "codegen/window_position.h"
#include "cpu_backend/library_calls.h"
#include "llvm/IR/Function.h"

namespace xlite::cpu {

using codegen::ElementalEmitter;
using codegen::Index;
using codegen::IrArray;
using codegen::WindowPosition;

namespace {

// The selection so far for one source element, in stack slots.
struct Selection {
  llvm::Value* have;   // i1
  llvm::Value* value;  // the selected element
  std::vector<llvm::Value*> index;  // i64 per operand dimension
};

// Considers window element `w` of source element `s`.
absl::Status EmitCandidate(llvm::IRBuilderBase& b, ElementalEmitter& emitter,
                           const HloInstruction* hlo, const Window& window,
                           const IrArray& operand, const Selection& sel,
                           const Index& s, const Index& w) {
  const PrimitiveType type = operand.shape().element_type();
  llvm::Type* value_type = codegen::ValueType(type, b.getContext());
  auto [at, inside] = WindowPosition(b, window, operand.shape(), s, w);
  llvm::Function* f = b.GetInsertBlock()->getParent();
  auto* visit = llvm::BasicBlock::Create(b.getContext(), "sas.visit", f);
  auto* compare = llvm::BasicBlock::Create(b.getContext(), "sas.compare", f);
  auto* take = llvm::BasicBlock::Create(b.getContext(), "sas.take", f);
  auto* next = llvm::BasicBlock::Create(b.getContext(), "sas.next", f);
  b.CreateCondBr(inside, visit, next);
  b.SetInsertPoint(visit);
  llvm::Value* candidate = operand.EmitRead(b, at);
  b.CreateCondBr(b.CreateLoad(b.getInt1Ty(), sel.have), compare, take);
  b.SetInsertPoint(compare);
  {
    ElementalEmitter::Scope scope(emitter);
    llvm::Value* current = b.CreateLoad(value_type, sel.value);
    absl::StatusOr<std::vector<llvm::Value*>> keep =
        emitter.EmitApplied(*hlo->called_computations()[0], {current, candidate});
    if (!keep.ok()) return keep.status();
    b.CreateCondBr((*keep)[0], next, take);
  }
  b.SetInsertPoint(take);
  b.CreateStore(b.getTrue(), sel.have);
  b.CreateStore(candidate, sel.value);
  for (size_t d = 0; d < at.size(); ++d) b.CreateStore(at[d], sel.index[d]);
  b.CreateBr(next);
  b.SetInsertPoint(next);
  return absl::OkStatus();
}

}  // namespace

absl::Status EmitSelectAndScatterKernel(EmitterContext& ctx,
                                        llvm::IRBuilderBase& b,
                                        const HloInstruction* hlo) {
  if (hlo->operand_count() != 3 || hlo->called_computations().size() != 2 ||
      !hlo->shape().IsArray()) {
    return codegen::Unsupported(
        hlo, "select-and-scatter takes (operand, source, init) and two "
             "computations");
  }
  const int64_t rank = hlo->operand(0)->shape().rank();
  Window window;
  if (hlo->attrs().window.has_value()) window = *hlo->attrs().window;
  window.dimensions.resize(rank);
  llvm::BasicBlock* caller = b.GetInsertBlock();
  llvm::Function* kernel = ctx.NewKernel(b, hlo->name());
  ElementalEmitter emitter(b, ctx.llvm_module());
  std::vector<IrArray> held;  // operand, source, init, result
  for (int64_t i = 0; i < 4; ++i) {
    absl::StatusOr<IrArray> a =
        i < 3 ? ctx.ArrayFor(b, hlo->operand(i)) : ctx.ArrayFor(b, hlo);
    if (!a.ok()) return a.status();
    held.push_back(*a);
  }
  const IrArray &operand = held[0], &source = held[1];
  const IrArray &init = held[2], &out = held[3];
  llvm::Value* init_value = init.EmitRead(b, {});
  absl::Status s = codegen::EmitLoopNest(b, out.shape(), [&](const Index& i) {
    out.EmitWrite(b, i, init_value);
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  llvm::IRBuilder<> entry(&kernel->getEntryBlock(),
                          kernel->getEntryBlock().begin());
  const PrimitiveType type = operand.shape().element_type();
  Selection sel{entry.CreateAlloca(b.getInt1Ty()),
                entry.CreateAlloca(codegen::ValueType(type, b.getContext())),
                {}};
  for (int64_t d = 0; d < rank; ++d) {
    sel.index.push_back(entry.CreateAlloca(b.getInt64Ty()));
  }
  std::vector<int64_t> sizes;
  for (const WindowDimension& wd : window.dimensions) sizes.push_back(wd.size);
  const Shape row_major(source.shape().element_type(),
                        source.shape().dimensions());
  s = codegen::EmitLoopNest(
      b, source.shape(),
      [&](const Index& si) -> absl::Status {
        ElementalEmitter::Scope scope(emitter);
        b.CreateStore(b.getFalse(), sel.have);
        absl::Status w = codegen::EmitLoopNestOverBounds(
            b, sizes, [&](const Index& wi) {
              return EmitCandidate(b, emitter, hlo, window, operand, sel, si,
                                   wi);
            });
        if (!w.ok()) return w;
        llvm::Function* f = b.GetInsertBlock()->getParent();
        auto* apply = llvm::BasicBlock::Create(b.getContext(), "sas.apply", f);
        auto* done = llvm::BasicBlock::Create(b.getContext(), "sas.done", f);
        b.CreateCondBr(b.CreateLoad(b.getInt1Ty(), sel.have), apply, done);
        b.SetInsertPoint(apply);
        Index at;
        for (llvm::Value* slot : sel.index) {
          at.push_back(b.CreateLoad(b.getInt64Ty(), slot));
        }
        ElementalEmitter::Scope inner(emitter);
        absl::StatusOr<std::vector<llvm::Value*>> combined =
            emitter.EmitApplied(*hlo->called_computations()[1],
                                {out.EmitRead(b, at), source.EmitRead(b, si)});
        if (!combined.ok()) return combined.status();
        out.EmitWrite(b, at, (*combined)[0]);
        b.CreateBr(done);
        b.SetInsertPoint(done);
        return absl::OkStatus();
      },
      &row_major);
  if (!s.ok()) return s;
  b.CreateRetVoid();
  b.SetInsertPoint(caller);
  ctx.CallKernel(b, kernel);
  return absl::OkStatus();
}

}  // namespace xlite::cpu
