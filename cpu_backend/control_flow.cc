// while, conditional and call as native control flow inside the function
// being emitted. Buffer assignment put a loop's state, a conditional's
// branch results and a callee's result in the caller's buffers, so no data
// moves here: the condition's predicate is read from its slice.

#include <functional>

#include "absl/strings/str_cat.h"
#include "codegen/elemental.h"
#include "cpu_backend/emitter_context.h"
#include "hlo/ir/opcode.h"
#include "llvm/IR/Function.h"

namespace xlite::cpu {

namespace {

// Checks that the callee's root leaves share the caller's result buffers.
absl::Status CheckSameBuffers(EmitterContext& ctx, const HloInstruction* hlo,
                              const HloInstruction* root) {
  std::vector<ShapeIndex> leaves;
  std::function<void(const Shape&, ShapeIndex&)> walk = [&](const Shape& s,
                                                            ShapeIndex& at) {
    if (s.IsTuple()) {
      for (int64_t l = 0; l < s.tuple_shapes_size(); ++l) {
        at.push_back(l);
        walk(s.tuple_shapes(l), at);
        at.pop_back();
      }
    } else if (s.IsArray()) {
      leaves.push_back(at);
    }
  };
  ShapeIndex start;
  walk(hlo->shape(), start);
  for (const ShapeIndex& leaf : leaves) {
    absl::StatusOr<runtime::Slice> a = ctx.assignment().GetSlice(hlo, leaf);
    if (!a.ok()) return a.status();
    absl::StatusOr<runtime::Slice> r = ctx.assignment().GetSlice(root, leaf);
    if (!r.ok()) return r.status();
    if (*a != *r) {
      return absl::InternalError(absl::StrCat(
          "buffer assignment did not alias the result of %", hlo->name(),
          " with its computation's root %", root->name()));
    }
  }
  return absl::OkStatus();
}

absl::Status EmitWhile(EmitterContext& ctx, llvm::IRBuilderBase& b,
                       const HloInstruction* hlo) {
  const HloComputation* cond = hlo->while_condition();
  const HloComputation* body = hlo->while_body();
  if (absl::Status s = CheckSameBuffers(ctx, hlo, body->root_instruction());
      !s.ok()) {
    return s;
  }
  llvm::Function* f = b.GetInsertBlock()->getParent();
  llvm::LLVMContext& context = b.getContext();
  auto* header = llvm::BasicBlock::Create(context, hlo->name() + ".cond", f);
  auto* loop = llvm::BasicBlock::Create(context, hlo->name() + ".body", f);
  auto* exit = llvm::BasicBlock::Create(context, hlo->name() + ".exit", f);
  b.CreateBr(header);
  b.SetInsertPoint(header);
  if (absl::Status s = ctx.EmitComputation(b, *cond); !s.ok()) return s;
  absl::StatusOr<codegen::IrArray> pred =
      ctx.ArrayFor(b, cond->root_instruction());
  if (!pred.ok()) return pred.status();
  llvm::Value* go = b.CreateICmpNE(b.CreateLoad(b.getInt8Ty(), pred->base()),
                                   b.getInt8(0));
  b.CreateCondBr(go, loop, exit);
  b.SetInsertPoint(loop);
  if (absl::Status s = ctx.EmitComputation(b, *body); !s.ok()) return s;
  b.CreateBr(header);
  b.SetInsertPoint(exit);
  return absl::OkStatus();
}

absl::Status EmitConditional(EmitterContext& ctx, llvm::IRBuilderBase& b,
                             const HloInstruction* hlo) {
  const auto& branches = hlo->called_computations();
  for (const HloComputation* branch : branches) {
    if (absl::Status s = CheckSameBuffers(ctx, hlo, branch->root_instruction());
        !s.ok()) {
      return s;
    }
  }
  absl::StatusOr<codegen::IrArray> selector = ctx.ArrayFor(b, hlo->operand(0));
  if (!selector.ok()) return selector.status();
  llvm::Value* which;
  if (hlo->operand(0)->shape().element_type() == PrimitiveType::kPred) {
    // true runs branch 0 (true_computation), false branch 1.
    llvm::Value* p = b.CreateLoad(b.getInt8Ty(), selector->base());
    which = b.CreateSelect(b.CreateICmpNE(p, b.getInt8(0)), b.getInt32(0),
                           b.getInt32(1));
  } else {
    which = b.CreateLoad(b.getInt32Ty(), selector->base());
  }
  llvm::Function* f = b.GetInsertBlock()->getParent();
  llvm::LLVMContext& context = b.getContext();
  auto* done = llvm::BasicBlock::Create(context, hlo->name() + ".done", f);
  std::vector<llvm::BasicBlock*> blocks;
  for (size_t i = 0; i < branches.size(); ++i) {
    blocks.push_back(llvm::BasicBlock::Create(
        context, absl::StrCat(hlo->name(), ".branch", i), f));
  }
  // An index out of range runs the last branch.
  llvm::SwitchInst* sw = b.CreateSwitch(which, blocks.back(), branches.size());
  for (size_t i = 0; i + 1 < branches.size(); ++i) {
    sw->addCase(b.getInt32(i), blocks[i]);
  }
  for (size_t i = 0; i < branches.size(); ++i) {
    b.SetInsertPoint(blocks[i]);
    if (absl::Status s = ctx.EmitComputation(b, *branches[i]); !s.ok()) {
      return s;
    }
    b.CreateBr(done);
  }
  b.SetInsertPoint(done);
  return absl::OkStatus();
}

}  // namespace

absl::Status EmitControlFlow(EmitterContext& ctx, llvm::IRBuilderBase& b,
                             const HloInstruction* hlo) {
  switch (hlo->opcode()) {
    case HloOpcode::kWhile:
      return EmitWhile(ctx, b, hlo);
    case HloOpcode::kConditional:
      return EmitConditional(ctx, b, hlo);
    case HloOpcode::kCall: {
      const HloComputation* callee = hlo->to_apply();
      if (absl::Status s = CheckSameBuffers(ctx, hlo, callee->root_instruction());
          !s.ok()) {
        return s;
      }
      return ctx.EmitComputation(b, *callee);
    }
    default:
      return codegen::Unsupported(hlo, "not control flow");
  }
}

}  // namespace xlite::cpu
