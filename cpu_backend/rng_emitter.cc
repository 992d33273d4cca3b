// The stateful random ops: `rng` draws from the run's engine through the
// runtime library (runtime_lib.h, rng_distribution.cc), continuing one
// stream across the run as the evaluator's generator does;
// rng-get-and-update-state reads and advances a counter in the run
// context. The engine lives in the entry function's frame, seeded once per
// run with the run context's seed plus the device number.

#include "cpu_backend/rng_emitter.h"

#include <cstddef>

#include "absl/strings/str_cat.h"
#include "codegen/elemental.h"
#include "codegen/loops.h"
#include "codegen/scalar_ops.h"
#include "cpu_backend/library_calls.h"
#include "cpu_backend/module_emitter.h"
#include "cpu_backend/runtime_lib/runtime_lib.h"
#include "hlo/ir/opcode.h"

namespace xlite::cpu {

using codegen::Index;
using codegen::IrArray;

namespace {

// The address of a RunContext field in the current function.
llvm::Value* Field(llvm::IRBuilderBase& b, size_t offset) {
  llvm::Function* f = b.GetInsertBlock()->getParent();
  return b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), f->getArg(1), offset);
}

// Scalar operand `i` of `hlo`, converted to `type`.
absl::StatusOr<llvm::Value*> ScalarOperand(EmitterContext& ctx,
                                           llvm::IRBuilderBase& b,
                                           const HloInstruction* hlo, int i,
                                           PrimitiveType type) {
  const HloInstruction* operand = hlo->operand(i);
  absl::StatusOr<IrArray> array = ctx.ArrayFor(b, operand);
  if (!array.ok()) return array.status();
  const Index at(operand->shape().rank(), b.getInt64(0));
  return codegen::EmitConvert(b, operand->shape().element_type(), type,
                              array->EmitRead(b, at));
}

}  // namespace

bool NeedsRngEngine(const HloModule& module) {
  for (const HloComputation* c : module.computations()) {
    for (const HloInstruction* i : c->instructions()) {
      if (i->opcode() == HloOpcode::kRng) return true;
    }
  }
  return false;
}

void EmitRngEngineSetup(EmitterContext& ctx, llvm::IRBuilderBase& b) {
  llvm::Function* f = b.GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&f->getEntryBlock(),
                          f->getEntryBlock().getFirstInsertionPt());
  llvm::AllocaInst* engine =
      entry.CreateAlloca(llvm::ArrayType::get(b.getInt8Ty(), kRngEngineBytes));
  engine->setAlignment(llvm::Align(16));
  const int64_t partitions = ctx.module().config().num_partitions;
  llvm::Type* i64 = b.getInt64Ty();
  llvm::Value* device = b.CreateAdd(
      b.CreateMul(b.CreateLoad(i64, Field(b, offsetof(RunContext, replica_id))),
                  b.getInt64(partitions)),
      b.CreateLoad(i64, Field(b, offsetof(RunContext, partition_id))));
  llvm::Value* seed = b.CreateAdd(
      b.CreateLoad(i64, Field(b, offsetof(RunContext, rng_seed))), device);
  auto* type =
      llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy(), i64}, false);
  b.CreateCall(ctx.Runtime("xlite_cpu_rng_engine_init", type), {engine, seed});
  b.CreateStore(engine, Field(b, offsetof(RunContext, rng_engine)));
}

absl::Status EmitRng(EmitterContext& ctx, llvm::IRBuilderBase& b,
                     const HloInstruction* hlo) {
  const Shape& shape = hlo->shape();
  const PrimitiveType type = shape.element_type();
  if (!shape.IsArray() || hlo->operand_count() != 2 || IsComplex(type) ||
      type == PrimitiveType::kPred) {
    return codegen::Unsupported(
        hlo, "rng of a real or integer array from two scalars");
  }
  const bool normal = hlo->attrs().distribution == RandomDistribution::kNormal;
  // The evaluator draws doubles for normal and for real types, int64
  // otherwise, and rounds each to the element type.
  const bool real = normal || IsFloatingPoint(type);
  const PrimitiveType drawn = real ? PrimitiveType::kF64 : PrimitiveType::kS64;
  absl::StatusOr<llvm::Value*> a = ScalarOperand(ctx, b, hlo, 0, drawn);
  if (!a.ok()) return a.status();
  absl::StatusOr<llvm::Value*> c = ScalarOperand(ctx, b, hlo, 1, drawn);
  if (!c.ok()) return c.status();
  LibraryCallArrays arrays(ctx, b);
  absl::StatusOr<llvm::Value*> out = arrays.OutputAs(hlo, {}, drawn);
  if (!out.ok()) return out.status();
  llvm::Value* engine =
      b.CreateLoad(b.getPtrTy(), Field(b, offsetof(RunContext, rng_engine)));
  const char* name = normal ? "xlite_cpu_rng_normal_f64"
                     : real ? "xlite_cpu_rng_uniform_f64"
                            : "xlite_cpu_rng_uniform_s64";
  arrays.Call(name, {engine, *a, *c, *out, b.getInt64(shape.ElementCount())});
  return arrays.Finish();
}

absl::Status EmitRngGetAndUpdateState(EmitterContext& ctx,
                                      llvm::IRBuilderBase& b,
                                      const HloInstruction* hlo) {
  if (!hlo->shape().IsArray() || !IsInteger(hlo->shape().element_type())) {
    return codegen::Unsupported(hlo, "the rng state is an integer array");
  }
  absl::StatusOr<IrArray> out = ctx.ArrayFor(b, hlo);
  if (!out.ok()) return out.status();
  llvm::Value* field = Field(b, offsetof(RunContext, rng_state));
  llvm::Value* state = b.CreateLoad(b.getInt64Ty(), field);
  const PrimitiveType type = hlo->shape().element_type();
  absl::StatusOr<llvm::Value*> first =
      codegen::EmitConvert(b, PrimitiveType::kU64, type, state);
  if (!first.ok()) return first.status();
  llvm::Value* zero =
      llvm::Constant::getNullValue(codegen::ValueType(type, ctx.context()));
  // Element 0 is the state, the rest zeros (the evaluator's u64[2]).
  absl::Status s = codegen::EmitLoopNest(
      b, hlo->shape(), [&](const Index& index) -> absl::Status {
        llvm::Value* at_first = b.getTrue();
        for (llvm::Value* i : index) {
          at_first = b.CreateAnd(at_first, b.CreateICmpEQ(i, b.getInt64(0)));
        }
        out->EmitWrite(b, index, b.CreateSelect(at_first, *first, zero));
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  b.CreateStore(b.CreateAdd(state, b.getInt64(hlo->attrs().delta)), field);
  return absl::OkStatus();
}

}  // namespace xlite::cpu
