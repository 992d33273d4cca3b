// sort: the operands are copied into the results, then the runtime
// library's sort permutes them in place along the sort dimension, calling
// the comparator — compiled here as a function — on element pointers.
// Results laid out unlike the first go through a scratch block in its
// layout, so every operand is permuted over the same physical view.

#include "absl/strings/str_cat.h"
#include "codegen/elemental.h"
#include "codegen/scalar_ops.h"
#include "cpu_backend/emitter_context.h"
#include "hlo/ir/opcode.h"
#include "llvm/IR/Function.h"

namespace xlite::cpu {

using codegen::ElementalEmitter;
using codegen::IrArray;

namespace {

// i32 less(ptr elements): elements holds 2n pointers, lhs and rhs of each
// operand in turn, as the comparator's parameters are ordered.
absl::StatusOr<llvm::Function*> EmitComparator(EmitterContext& ctx,
                                               const HloInstruction* sort) {
  llvm::LLVMContext& context = ctx.context();
  llvm::Type* ptr = llvm::PointerType::get(context, 0);
  auto* type = llvm::FunctionType::get(llvm::Type::getInt32Ty(context), {ptr},
                                       false);
  auto* f = llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage,
                                   ctx.UniqueName(sort->name() + ".less"),
                                   ctx.llvm_module());
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", f));
  std::vector<llvm::Value*> args;
  for (int64_t i = 0; i < 2 * sort->operand_count(); ++i) {
    llvm::Value* p =
        b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_64(ptr, f->getArg(0), i));
    args.push_back(codegen::EmitLoadElement(
        b, sort->operand(i / 2)->shape().element_type(), p));
  }
  ElementalEmitter emitter(b, ctx.llvm_module());
  absl::StatusOr<std::vector<llvm::Value*>> less =
      emitter.EmitApplied(*sort->to_apply(), args);
  if (!less.ok()) return less.status();
  b.CreateRet(b.CreateZExt((*less)[0], b.getInt32Ty()));
  return f;
}

}  // namespace

absl::Status EmitSortKernel(EmitterContext& ctx, llvm::IRBuilderBase& b,
                            const HloInstruction* hlo) {
  const int64_t n = hlo->operand_count();
  const int64_t dim = hlo->dimensions(0);
  std::vector<IrArray> outs;
  // Results laid out unlike the first are sorted in a scratch block in the
  // first one's layout and copied out afterwards.
  std::vector<std::pair<IrArray, IrArray>> copy_out;
  std::vector<llvm::Value*> scratch;
  auto* alloc_type =
      llvm::FunctionType::get(b.getPtrTy(), {b.getInt64Ty()}, false);
  for (int64_t i = 0; i < n; ++i) {
    ShapeIndex leaf;
    if (hlo->shape().IsTuple()) leaf = {i};
    absl::StatusOr<IrArray> out = ctx.ArrayFor(b, hlo, leaf);
    if (!out.ok()) return out.status();
    absl::StatusOr<IrArray> in = ctx.ArrayFor(b, hlo->operand(i));
    if (!in.ok()) return in.status();
    if (!outs.empty() && codegen::MajorToMinor(out->shape()) !=
                             codegen::MajorToMinor(outs[0].shape())) {
      Shape like = out->shape();
      const auto major = codegen::MajorToMinor(outs[0].shape());
      like.set_layout(
          Layout(std::vector<int64_t>(major.rbegin(), major.rend())));
      llvm::Value* block =
          b.CreateCall(ctx.Runtime("xlite_cpu_alloc", alloc_type),
                       {b.getInt64(like.ElementCount() *
                                   StorageBytes(like.element_type()))});
      scratch.push_back(block);
      IrArray sorted(block, like);
      if (absl::Status s = EmitArrayCopy(b, *in, sorted); !s.ok()) return s;
      copy_out.push_back({sorted, *out});
      outs.push_back(sorted);
      continue;
    }
    absl::StatusOr<runtime::Slice> a = ctx.assignment().GetSlice(hlo, leaf);
    absl::StatusOr<runtime::Slice> o =
        ctx.assignment().GetSlice(hlo->operand(i), {});
    if (!a.ok() || !o.ok() || *a != *o) {
      if (absl::Status s = EmitArrayCopy(b, *in, *out); !s.ok()) return s;
    }
    outs.push_back(*out);
  }
  // The physical [outer, size, inner] view around the sort dimension.
  const Shape& shape = outs[0].shape();
  int64_t outer = 1, inner = 1;
  bool after = false;
  for (int64_t d : codegen::MajorToMinor(shape)) {
    if (d == dim) {
      after = true;
    } else {
      (after ? inner : outer) *= shape.dimensions(d);
    }
  }
  absl::StatusOr<llvm::Function*> less = EmitComparator(ctx, hlo);
  if (!less.ok()) return less.status();
  llvm::Type* ptr = b.getPtrTy();
  llvm::Type* i64 = b.getInt64Ty();
  llvm::Function* f = b.GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&f->getEntryBlock(),
                          f->getEntryBlock().getFirstInsertionPt());
  llvm::Value* buffers = entry.CreateAlloca(ptr, b.getInt64(n));
  llvm::Value* widths = entry.CreateAlloca(i64, b.getInt64(n));
  for (int64_t i = 0; i < n; ++i) {
    b.CreateStore(outs[i].base(), b.CreateConstInBoundsGEP1_64(ptr, buffers, i));
    b.CreateStore(
        b.getInt64(StorageBytes(outs[i].shape().element_type())),
        b.CreateConstInBoundsGEP1_64(i64, widths, i));
  }
  auto* type = llvm::FunctionType::get(
      b.getVoidTy(),
      {i64, ptr, ptr, i64, i64, i64, b.getInt32Ty(), ptr}, false);
  b.CreateCall(ctx.Runtime("xlite_cpu_sort", type),
               {b.getInt64(n), buffers, widths, b.getInt64(outer),
                b.getInt64(shape.dimensions(dim)), b.getInt64(inner),
                b.getInt32(hlo->attrs().is_stable ? 1 : 0), *less});
  for (const auto& [from, to] : copy_out) {
    if (absl::Status s = EmitArrayCopy(b, from, to); !s.ok()) return s;
  }
  auto* free_type = llvm::FunctionType::get(b.getVoidTy(), {ptr}, false);
  for (llvm::Value* block : scratch) {
    b.CreateCall(ctx.Runtime("xlite_cpu_free", free_type), {block});
  }
  return absl::OkStatus();
}

}  // namespace xlite::cpu
