// all-reduce, collective-reduce, reduce-scatter, all-gather, all-to-all,
// ragged-all-to-all, collective-permute and collective-broadcast: calls into
// the runtime library's collective functions (runtime_lib/collectives.h), which
// meet the other devices in the exchange the run context points to. The
// instruction's shape, layouts and groups travel as a constant plan; a
// reduction's to_apply is compiled here into a combine function. A failed
// collective sets the run context's status and returns from the entry function
// at once, so no loop runs on with garbage.

#include <cstddef>
#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "codegen/elemental.h"
#include "codegen/loops.h"
#include "codegen/scalar_ops.h"
#include "cpu_backend/emitter_context.h"
#include "cpu_backend/module_emitter.h"
#include "cpu_backend/runtime_lib/collectives.h"
#include "hlo/ir/opcode.h"
#include "llvm/IR/Function.h"

namespace xlite::cpu {

using codegen::ElementalEmitter;
using codegen::IrArray;

namespace {

void AppendArray(const Shape& shape, std::vector<int64_t>& plan) {
  plan.push_back(StorageBytes(shape.element_type()));
  plan.push_back(shape.rank());
  for (int64_t d : shape.dimensions()) plan.push_back(d);
  llvm::SmallVector<int64_t, 6> major_to_minor = codegen::MajorToMinor(shape);
  for (auto it = major_to_minor.rbegin(); it != major_to_minor.rend(); ++it) {
    plan.push_back(*it);
  }
}

// The constant plan (collectives.h) of `hlo` over `results`.
std::vector<int64_t> BuildPlan(const HloInstruction* hlo,
                               const std::vector<IrArray>& results) {
  const CollectiveAttributes& c = *hlo->attrs().collective;
  std::vector<int64_t> plan = {
      hlo->operand_count(), static_cast<int64_t>(results.size()),
      hlo->dimensions().empty() ? -1 : hlo->dimensions()[0],
      !hlo->attrs().channel_id.has_value() ? kModeNoChannel
      : c.use_global_device_ids            ? kModeGlobalIds
                                           : kModeChannel};
  if (hlo->opcode() == HloOpcode::kCollectivePermute) {
    plan.push_back(c.source_target_pairs.size());
    plan.push_back(2);
    for (const auto& [source, target] : c.source_target_pairs) {
      plan.push_back(source);
      plan.push_back(target);
    }
  } else {
    const std::vector<std::vector<int64_t>> groups =
        c.replica_groups.Expanded();
    plan.push_back(groups.size());
    plan.push_back(groups.empty() ? 0 : groups[0].size());
    for (const auto& g : groups) plan.insert(plan.end(), g.begin(), g.end());
  }
  for (const HloInstruction* operand : hlo->operands()) {
    AppendArray(operand->shape(), plan);
  }
  for (const IrArray& r : results) AppendArray(r.shape(), plan);
  return plan;
}

// When `to_apply` is one binary op of its two parameters, the type XLA:CPU
// reduces it in (the evaluator's CollectiveReduceType): bf16 and
// f8e8m0fnu in f32, other 8-bit and narrower floats in f16; else nullopt
// (the computation runs as written, rounding every step).
std::optional<PrimitiveType> WideReduceType(const HloComputation& to_apply,
                                            PrimitiveType type) {
  const HloInstruction* root = to_apply.root_instruction();
  if (root->operand_count() != 2 || to_apply.num_parameters() != 2 ||
      root->shape().element_type() != type || !IsFloatingPoint(type)) {
    return std::nullopt;
  }
  const HloInstruction* p0 = to_apply.parameter_instruction(0);
  const HloInstruction* p1 = to_apply.parameter_instruction(1);
  const HloOpcode op = root->opcode();
  const bool commutative =
      op == HloOpcode::kAdd || op == HloOpcode::kMultiply ||
      op == HloOpcode::kMaximum || op == HloOpcode::kMinimum;
  const bool in_order = root->operand(0) == p0 && root->operand(1) == p1;
  const bool swapped = root->operand(0) == p1 && root->operand(1) == p0;
  if (!in_order && !(swapped && commutative)) return std::nullopt;
  if (type == PrimitiveType::kBF16 || type == PrimitiveType::kF8E8M0FNU) {
    return PrimitiveType::kF32;
  }
  if (BitWidth(type) <= 8) return PrimitiveType::kF16;
  return std::nullopt;
}

// void combine(ptr inputs, i64 n, ptr out, i64 count): out[i] = to_apply
// folded over inputs[0..n)[i] in order (XliteCpuCombine).
absl::StatusOr<llvm::Function*> EmitCombine(EmitterContext& ctx,
                                            const HloInstruction* hlo,
                                            PrimitiveType type) {
  const HloComputation& to_apply = *hlo->to_apply();
  if (to_apply.num_parameters() != 2 ||
      to_apply.parameter_instruction(0)->shape().element_type() != type) {
    return codegen::Unsupported(
        hlo,
        "a reduction computation not over two scalars of the operand "
        "type");
  }
  // The widened form: the same op on scalars of the wide type.
  const std::optional<PrimitiveType> wide = WideReduceType(to_apply, type);
  const PrimitiveType acc_type = wide.value_or(type);
  const Shape scalar(acc_type, {});
  std::unique_ptr<HloInstruction> a0 =
      HloInstruction::Create(HloOpcode::kParameter, scalar);
  std::unique_ptr<HloInstruction> a1 =
      HloInstruction::Create(HloOpcode::kParameter, scalar);
  std::unique_ptr<HloInstruction> wide_op = HloInstruction::Create(
      to_apply.root_instruction()->opcode(), scalar, {a0.get(), a1.get()});

  llvm::LLVMContext& context = ctx.context();
  llvm::IRBuilder<> b(context);
  llvm::Type* ptr = b.getPtrTy();
  llvm::Type* i64 = b.getInt64Ty();
  auto* fn_type =
      llvm::FunctionType::get(b.getVoidTy(), {ptr, i64, ptr, i64}, false);
  auto* f = llvm::Function::Create(fn_type, llvm::GlobalValue::InternalLinkage,
                                   ctx.UniqueName(hlo->name() + ".combine"),
                                   ctx.llvm_module());
  b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", f));
  llvm::Type* acc_llvm = codegen::ValueType(acc_type, context);
  llvm::Value* acc = b.CreateAlloca(acc_llvm);
  const int64_t width = StorageBytes(type);
  auto offset = [&](llvm::Value* i) {
    return b.CreateMul(i, b.getInt64(width));
  };
  // Element i of participant p, in the accumulator's type.
  auto load = [&](llvm::Value* p,
                  llvm::Value* i) -> absl::StatusOr<llvm::Value*> {
    llvm::Value* base =
        b.CreateLoad(ptr, b.CreateInBoundsGEP(ptr, f->getArg(0), p));
    llvm::Value* x = codegen::EmitLoadElement(
        b, type, b.CreateInBoundsGEP(b.getInt8Ty(), base, offset(i)));
    return wide ? codegen::EmitConvert(b, type, acc_type, x) : x;
  };
  ElementalEmitter emitter(b, ctx.llvm_module());
  absl::Status s = codegen::EmitForLoop(
      b, b.getInt64(0), f->getArg(3), "element",
      [&](llvm::Value* i) -> absl::Status {
        absl::StatusOr<llvm::Value*> first = load(b.getInt64(0), i);
        if (!first.ok()) return first.status();
        b.CreateStore(*first, acc);
        absl::Status inner = codegen::EmitForLoop(
            b, b.getInt64(1), f->getArg(1), "participant",
            [&](llvm::Value* p) -> absl::Status {
              absl::StatusOr<llvm::Value*> x = load(p, i);
              if (!x.ok()) return x.status();
              llvm::Value* a = b.CreateLoad(acc_llvm, acc);
              absl::StatusOr<llvm::Value*> r;
              if (wide) {
                r = codegen::EmitElementwise(b, *wide_op, {a, *x});
              } else {
                absl::StatusOr<std::vector<llvm::Value*>> applied =
                    emitter.EmitApplied(to_apply, {a, *x});
                if (!applied.ok()) return applied.status();
                r = (*applied)[0];
              }
              if (!r.ok()) return r.status();
              b.CreateStore(*r, acc);
              return absl::OkStatus();
            });
        if (!inner.ok()) return inner;
        absl::StatusOr<llvm::Value*> result = b.CreateLoad(acc_llvm, acc);
        if (wide) result = codegen::EmitConvert(b, acc_type, type, *result);
        if (!result.ok()) return result.status();
        codegen::EmitStoreElement(
            b, type, *result,
            b.CreateInBoundsGEP(b.getInt8Ty(), f->getArg(2), offset(i)));
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  b.CreateRetVoid();
  return f;
}

const char* RuntimeName(HloOpcode op) {
  switch (op) {
    case HloOpcode::kAllReduce:
    case HloOpcode::kCollectiveReduce:
      return "xlite_cpu_all_reduce";
    case HloOpcode::kCollectiveBroadcast:
      return "xlite_cpu_collective_broadcast";
    case HloOpcode::kRaggedAllToAll:
      return "xlite_cpu_ragged_all_to_all";
    case HloOpcode::kReduceScatter:
      return "xlite_cpu_reduce_scatter";
    case HloOpcode::kAllGather:
      return "xlite_cpu_all_gather";
    case HloOpcode::kAllToAll:
      return "xlite_cpu_all_to_all";
    default:
      return "xlite_cpu_collective_permute";
  }
}

// An array of pointers, on the current function's stack.
llvm::Value* PointerArray(llvm::IRBuilderBase& b,
                          const std::vector<llvm::Value*>& values) {
  llvm::Function* f = b.GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&f->getEntryBlock(),
                          f->getEntryBlock().getFirstInsertionPt());
  llvm::Value* array = entry.CreateAlloca(
      b.getPtrTy(), b.getInt64(std::max<size_t>(values.size(), 1)));
  for (size_t i = 0; i < values.size(); ++i) {
    b.CreateStore(values[i],
                  b.CreateConstInBoundsGEP1_64(b.getPtrTy(), array, i));
  }
  return array;
}

// The address of a RunContext field in the current function.
llvm::Value* ContextField(llvm::IRBuilderBase& b, size_t offset) {
  llvm::Function* f = b.GetInsertBlock()->getParent();
  return b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), f->getArg(1), offset);
}

}  // namespace

absl::Status EmitCollective(EmitterContext& ctx, llvm::IRBuilderBase& b,
                            const HloInstruction* hlo) {
  if (hlo->opcode() == HloOpcode::kCollectivePermute &&
      !hlo->attrs().collective->permute_slice_sizes.empty()) {
    return codegen::Unsupported(hlo, "the in-place collective-permute");
  }
  std::vector<llvm::Value*> operands, results, combiners;
  for (const HloInstruction* operand : hlo->operands()) {
    if (!operand->shape().IsArray()) {
      return codegen::Unsupported(hlo, "a tuple-shaped operand");
    }
    absl::StatusOr<IrArray> in = ctx.ArrayFor(b, operand);
    if (!in.ok()) return in.status();
    operands.push_back(in->base());
  }
  std::vector<IrArray> result_arrays;
  const int64_t leaves =
      hlo->shape().IsTuple() ? hlo->shape().tuple_shapes_size() : 1;
  for (int64_t i = 0; i < leaves; ++i) {
    ShapeIndex leaf;
    if (hlo->shape().IsTuple()) leaf = {i};
    absl::StatusOr<IrArray> out = ctx.ArrayFor(b, hlo, leaf);
    if (!out.ok()) return out.status();
    result_arrays.push_back(*out);
    results.push_back(out->base());
  }
  const bool reduces = hlo->opcode() == HloOpcode::kAllReduce ||
                       hlo->opcode() == HloOpcode::kCollectiveReduce ||
                       hlo->opcode() == HloOpcode::kReduceScatter;
  if (reduces) {
    if (result_arrays.size() != operands.size()) {
      return codegen::Unsupported(hlo, "results unlike the operands");
    }
    for (const HloInstruction* operand : hlo->operands()) {
      absl::StatusOr<llvm::Function*> combine =
          EmitCombine(ctx, hlo, operand->shape().element_type());
      if (!combine.ok()) return combine.status();
      combiners.push_back(*combine);
    }
  }
  const std::vector<int64_t> plan = BuildPlan(hlo, result_arrays);
  auto* plan_type = llvm::ArrayType::get(b.getInt64Ty(), plan.size());
  auto* plan_global = new llvm::GlobalVariable(
      ctx.llvm_module(), plan_type, /*isConstant=*/true,
      llvm::GlobalValue::PrivateLinkage,
      llvm::ConstantDataArray::get(
          ctx.context(),
          llvm::ArrayRef<uint64_t>(
              reinterpret_cast<const uint64_t*>(plan.data()), plan.size())),
      ctx.UniqueName(hlo->name() + ".plan"));
  llvm::Value* name =
      b.CreateGlobalString(hlo->name(), "", 0, &ctx.llvm_module());
  llvm::Type* ptr = b.getPtrTy();
  llvm::Type* i64 = b.getInt64Ty();
  auto* type = llvm::FunctionType::get(
      b.getInt32Ty(), {ptr, i64, i64, ptr, ptr, ptr, ptr, ptr}, false);
  llvm::Value* status = b.CreateCall(
      ctx.Runtime(RuntimeName(hlo->opcode()), type),
      {b.CreateLoad(ptr, ContextField(b, offsetof(RunContext, collectives))),
       b.CreateLoad(i64, ContextField(b, offsetof(RunContext, replica_id))),
       b.CreateLoad(i64, ContextField(b, offsetof(RunContext, partition_id))),
       name, plan_global, PointerArray(b, operands), PointerArray(b, results),
       reduces ? PointerArray(b, combiners)
               : llvm::ConstantPointerNull::get(b.getPtrTy())});
  // On failure: record the status and leave the entry function.
  llvm::Function* f = b.GetInsertBlock()->getParent();
  auto* failed =
      llvm::BasicBlock::Create(ctx.context(), "collective.failed", f);
  auto* done = llvm::BasicBlock::Create(ctx.context(), "collective.done", f);
  b.CreateCondBr(b.CreateICmpNE(status, b.getInt32(0)), failed, done);
  b.SetInsertPoint(failed);
  b.CreateStore(status, ContextField(b, offsetof(RunContext, status)));
  b.CreateRetVoid();
  b.SetInsertPoint(done);
  return absl::OkStatus();
}

}  // namespace xlite::cpu
