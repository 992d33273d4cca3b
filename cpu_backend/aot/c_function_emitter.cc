#include "cpu_backend/aot/c_function_emitter.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <new>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "cpu_backend/module_emitter.h"
#include "hlo/ir/literal.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

namespace xlite::cpu {

namespace {

using runtime::Allocation;
using runtime::Slice;

// The arena and the blocks after it start at multiples of this, as the
// buffer assignment assumes of every allocation.
constexpr int64_t kAlignment = 64;

int64_t RoundUp(int64_t n) {
  return (n + kAlignment - 1) / kAlignment * kAlignment;
}

// Where NAME_with_temp finds the base address of one allocation.
struct Base {
  enum class From { kNowhere, kParam, kResult, kArena, kConstant };
  From from = From::kNowhere;
  int leaf = -1;       // kParam: position in params; kResult: in results
  int64_t offset = 0;  // kArena: offset in `temp`
  int copy_in = -1;    // a parameter leaf copied into the buffer first
};

struct Plan {
  std::vector<Base> bases;  // by allocation
  // Results that are not computed in place: copied from their slice after
  // the run.
  std::vector<std::pair<int, Slice>> copies_out;
  CFunctionsLayout layout;
};

int ParamLeaf(const CInterface& c, int64_t parameter, const ShapeIndex& index) {
  for (size_t p = 0; p < c.params.size(); ++p) {
    if (c.params[p].parameter == parameter && c.params[p].index == index) {
      return static_cast<int>(p);
    }
  }
  return -1;
}

absl::StatusOr<std::vector<Slice>> ResultSlices(
    const CInterface& c, const HloModule& module,
    const runtime::BufferAssignment& assignment) {
  const HloInstruction* root = module.entry_computation()->root_instruction();
  std::vector<Slice> slices;
  for (const CArray& r : c.results) {
    absl::StatusOr<Slice> slice = assignment.GetSlice(root, r.index);
    if (!slice.ok()) return slice.status();
    if (slice->size != r.bytes) {
      return absl::InternalError(absl::StrCat(
          "the ", r.description, " takes ", slice->size,
          " bytes in its allocation, ", r.bytes, " as a dense array"));
    }
    slices.push_back(*slice);
  }
  return slices;
}

absl::StatusOr<Plan> MakePlan(const CInterface& c, const HloModule& module,
                              const runtime::BufferAssignment& assignment) {
  absl::StatusOr<std::vector<Slice>> result_slices =
      ResultSlices(c, module, assignment);
  if (!result_slices.ok()) return result_slices.status();
  const auto& allocations = assignment.allocations();
  std::vector<bool> in_place(c.results.size(), false);
  // A result buffer that the allocation fills whole stands for it.
  auto result_for = [&](int allocation) {
    for (size_t r = 0; r < c.results.size(); ++r) {
      const Slice& s = (*result_slices)[r];
      if (!in_place[r] && s.allocation == allocation && s.offset == 0 &&
          s.size == allocations[allocation].size && s.size > 0) {
        in_place[r] = true;
        return static_cast<int>(r);
      }
    }
    return -1;
  };
  const int temp = assignment.temp_allocation();
  int64_t arena_end = temp >= 0 ? allocations[temp].size : 0;
  Plan plan;
  plan.bases.resize(allocations.size());
  plan.layout.donors.assign(c.results.size(), -1);
  for (size_t i = 0; i < allocations.size(); ++i) {
    const Allocation& a = allocations[i];
    Base& base = plan.bases[i];
    if (a.kind == Allocation::Kind::kConstant) {
      base.from = Base::From::kConstant;
      continue;
    }
    if (a.kind == Allocation::Kind::kTemp) {
      base.from = Base::From::kArena;
      continue;
    }
    if (a.kind == Allocation::Kind::kParameter) {
      const int leaf = ParamLeaf(c, a.parameter_number, a.parameter_index);
      if (leaf < 0) continue;  // no array (a token)
      if (a.size != c.params[leaf].bytes) {
        return absl::InternalError(
            absl::StrCat("parameter ", c.params[leaf].description, " takes ",
                         a.size, " bytes in its allocation, ",
                         c.params[leaf].bytes, " as a dense array"));
      }
      if (a.output_indices.empty()) {
        base.from = Base::From::kParam;
        base.leaf = leaf;
        continue;
      }
      // Also a result: the module may write it (donation). It runs on a
      // copy, in the result's buffer where it can.
      base.copy_in = leaf;
    }
    if (const int r = result_for(i); r >= 0) {
      base.from = Base::From::kResult;
      base.leaf = r;
      // The parameter's copy is skipped when it is the result's buffer.
      if (base.copy_in >= 0) plan.layout.donors[r] = base.copy_in;
    } else {
      base.from = Base::From::kArena;
      base.offset = RoundUp(arena_end);
      arena_end = base.offset + a.size;
    }
  }
  for (size_t r = 0; r < c.results.size(); ++r) {
    if (!in_place[r] && (*result_slices)[r].size > 0) {
      plan.copies_out.push_back({static_cast<int>(r), (*result_slices)[r]});
    }
  }
  plan.layout.temp_bytes = RoundUp(arena_end);
  return plan;
}

// The constant allocations' bytes as private read-only globals (null for
// other allocations).
absl::StatusOr<std::vector<llvm::Constant*>> EmitConstants(
    const runtime::BufferAssignment& assignment, llvm::Module& m) {
  std::vector<llvm::Constant*> out;
  for (const Allocation& a : assignment.allocations()) {
    if (a.kind != Allocation::Kind::kConstant) {
      out.push_back(nullptr);
      continue;
    }
    const Literal& literal = *a.constant->attrs().literal;
    if (literal.is_unknown()) {
      return LocatedError(
          a.constant,
          absl::StrCat("constant %", a.constant->name(),
                       " has an elided value ({...}); the library needs its "
                       "data"));
    }
    std::vector<uint8_t> bytes = literal.PhysicalData(a.constant->shape());
    bytes.resize(a.size, 0);
    auto* data = llvm::ConstantDataArray::get(m.getContext(),
                                              llvm::ArrayRef<uint8_t>(bytes));
    auto* global =
        new llvm::GlobalVariable(m, data->getType(), /*isConstant=*/true,
                                 llvm::GlobalValue::PrivateLinkage, data,
                                 absl::StrCat("constant.", a.constant->name()));
    global->setAlignment(llvm::Align(kAlignment));
    global->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
    out.push_back(global);
  }
  return out;
}

// The bytes of a default RunContext (replica 0, the default rng seed...),
// padding zeroed.
llvm::Constant* DefaultRunContext(llvm::Module& m) {
  alignas(RunContext) unsigned char raw[sizeof(RunContext)];
  std::memset(raw, 0, sizeof(raw));
  new (raw) RunContext();
  auto* data = llvm::ConstantDataArray::get(
      m.getContext(), llvm::ArrayRef<uint8_t>(raw, sizeof(raw)));
  auto* global = new llvm::GlobalVariable(m, data->getType(), true,
                                          llvm::GlobalValue::PrivateLinkage,
                                          data, "default_run_context");
  global->setAlignment(llvm::Align(alignof(RunContext)));
  return global;
}

// What every C function's body needs to hand.
struct Emission {
  const CInterface& c;
  const Plan& plan;
  const runtime::BufferAssignment& assignment;
  std::vector<llvm::Constant*> constants;
  llvm::Constant* nowhere;  // the address of arrays of no bytes
  llvm::Function* entry;
};

// The i-th pointer of the array `table`.
llvm::Value* PointerAt(llvm::IRBuilderBase& b, llvm::Value* table, int64_t i) {
  return b.CreateLoad(b.getPtrTy(),
                      b.CreateConstInBoundsGEP1_64(b.getPtrTy(), table, i));
}

// The base address of allocation `i` in NAME_with_temp.
llvm::Value* BaseOf(llvm::IRBuilderBase& b, const Emission& e, size_t i,
                    llvm::Value* params, llvm::Value* results,
                    llvm::Value* temp) {
  const Base& base = e.plan.bases[i];
  if (e.assignment.allocations()[i].size == 0) return e.nowhere;
  switch (base.from) {
    case Base::From::kParam:
      return PointerAt(b, params, base.leaf);
    case Base::From::kResult:
      return PointerAt(b, results, base.leaf);
    case Base::From::kArena:
      return b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), temp, base.offset);
    case Base::From::kConstant:
      return e.constants[i];
    case Base::From::kNowhere:
      break;
  }
  return e.nowhere;
}

// Copies `bytes` from `from` to `to` unless they are the same address.
void CopyUnlessSame(llvm::IRBuilderBase& b, llvm::Value* to, llvm::Value* from,
                    int64_t bytes) {
  llvm::Function* f = b.GetInsertBlock()->getParent();
  auto* copy = llvm::BasicBlock::Create(b.getContext(), "copy", f);
  auto* next = llvm::BasicBlock::Create(b.getContext(), "copied", f);
  b.CreateCondBr(b.CreateICmpEQ(to, from), next, copy);
  b.SetInsertPoint(copy);
  b.CreateMemMove(to, llvm::MaybeAlign(1), from, llvm::MaybeAlign(1),
                  b.getInt64(bytes));
  b.CreateBr(next);
  b.SetInsertPoint(next);
}

llvm::Function* EmitWithTemp(const Emission& e, llvm::Module& m) {
  llvm::LLVMContext& context = m.getContext();
  llvm::IRBuilder<> b(context);
  llvm::Type* ptr = b.getPtrTy();
  auto* type = llvm::FunctionType::get(b.getInt32Ty(), {ptr, ptr, ptr}, false);
  auto* f = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage,
                                   e.c.entry_name + "_with_temp", m);
  f->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::Value* params = f->getArg(0);
  llvm::Value* results = f->getArg(1);
  llvm::Value* temp = f->getArg(2);
  b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", f));
  const auto& allocations = e.assignment.allocations();
  auto* table = b.CreateAlloca(
      llvm::ArrayType::get(ptr, std::max<size_t>(allocations.size(), 1)));
  auto* run_context =
      b.CreateAlloca(llvm::ArrayType::get(b.getInt8Ty(), sizeof(RunContext)));
  run_context->setAlignment(llvm::Align(alignof(RunContext)));
  if (e.plan.layout.temp_bytes > 0) {
    auto* fail = llvm::BasicBlock::Create(context, "no_arena", f);
    auto* run = llvm::BasicBlock::Create(context, "run", f);
    b.CreateCondBr(b.CreateIsNull(temp), fail, run);
    b.SetInsertPoint(fail);
    b.CreateRet(b.getInt32(kAotStatusNoArena));
    b.SetInsertPoint(run);
  }
  b.CreateMemCpy(run_context, llvm::MaybeAlign(alignof(RunContext)),
                 DefaultRunContext(m), llvm::MaybeAlign(alignof(RunContext)),
                 sizeof(RunContext));
  for (size_t i = 0; i < allocations.size(); ++i) {
    llvm::Value* base = BaseOf(b, e, i, params, results, temp);
    b.CreateStore(base, b.CreateConstInBoundsGEP1_64(ptr, table, i));
    const Base& plan = e.plan.bases[i];
    if (plan.copy_in >= 0 && e.c.params[plan.copy_in].bytes > 0) {
      CopyUnlessSame(b, base, PointerAt(b, params, plan.copy_in),
                     e.c.params[plan.copy_in].bytes);
    }
  }
  b.CreateCall(e.entry, {table, run_context});
  for (const auto& [r, slice] : e.plan.copies_out) {
    llvm::Value* from = b.CreateConstInBoundsGEP1_64(
        b.getInt8Ty(), PointerAt(b, table, slice.allocation), slice.offset);
    CopyUnlessSame(b, PointerAt(b, results, r), from, slice.size);
  }
  b.CreateRet(b.CreateLoad(b.getInt32Ty(), b.CreateConstInBoundsGEP1_64(
                                               b.getInt8Ty(), run_context,
                                               offsetof(RunContext, status))));
  return f;
}

void EmitAllocating(const CInterface& c, int64_t temp_bytes,
                    llvm::Function* with_temp, llvm::Module& m) {
  llvm::LLVMContext& context = m.getContext();
  llvm::IRBuilder<> b(context);
  llvm::Type* ptr = b.getPtrTy();
  auto* type = llvm::FunctionType::get(b.getInt32Ty(), {ptr, ptr}, false);
  auto* f = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage,
                                   c.entry_name, m);
  f->addFnAttr(llvm::Attribute::NoUnwind);
  b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", f));
  if (temp_bytes == 0) {
    b.CreateRet(b.CreateCall(with_temp, {f->getArg(0), f->getArg(1),
                                         llvm::Constant::getNullValue(ptr)}));
    return;
  }
  llvm::FunctionCallee alloc = m.getOrInsertFunction(
      "xlite_cpu_alloc", llvm::FunctionType::get(ptr, {b.getInt64Ty()}, false));
  llvm::FunctionCallee release = m.getOrInsertFunction(
      "xlite_cpu_free", llvm::FunctionType::get(b.getVoidTy(), {ptr}, false));
  llvm::Value* temp = b.CreateCall(alloc, {b.getInt64(temp_bytes)});
  auto* fail = llvm::BasicBlock::Create(context, "no_memory", f);
  auto* run = llvm::BasicBlock::Create(context, "run", f);
  b.CreateCondBr(b.CreateIsNull(temp), fail, run);
  b.SetInsertPoint(fail);
  b.CreateRet(b.getInt32(kAotStatusNoArena));
  b.SetInsertPoint(run);
  llvm::Value* status =
      b.CreateCall(with_temp, {f->getArg(0), f->getArg(1), temp});
  b.CreateCall(release, {temp});
  b.CreateRet(status);
}

}  // namespace

absl::StatusOr<CFunctionsLayout> EmitCFunctions(
    const CInterface& c, const HloModule& module,
    const runtime::BufferAssignment& assignment, llvm::Module& llvm_module) {
  for (const std::string& name : {c.entry_name, c.entry_name + "_with_temp"}) {
    if (absl::StartsWith(name, "xlite_") ||
        llvm_module.getNamedValue(name) != nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the function name ", name,
          " is taken by the runtime library (xlite_*) or a function the "
          "module calls; choose another with --entry"));
    }
  }
  llvm::Function* entry = llvm_module.getFunction(kEntryName);
  if (entry == nullptr) {
    return absl::InternalError("the module has no entry function");
  }
  entry->setLinkage(llvm::GlobalValue::InternalLinkage);
  absl::StatusOr<Plan> plan = MakePlan(c, module, assignment);
  if (!plan.ok()) return plan.status();
  absl::StatusOr<std::vector<llvm::Constant*>> constants =
      EmitConstants(assignment, llvm_module);
  if (!constants.ok()) return constants.status();
  auto* nothing = llvm::ConstantAggregateZero::get(llvm::ArrayType::get(
      llvm::Type::getInt8Ty(llvm_module.getContext()), kAlignment));
  auto* nowhere = new llvm::GlobalVariable(
      llvm_module, nothing->getType(), /*isConstant=*/true,
      llvm::GlobalValue::PrivateLinkage, nothing, "no_bytes");
  nowhere->setAlignment(llvm::Align(kAlignment));
  const Emission e{c, *plan, assignment, *std::move(constants), nowhere, entry};
  llvm::Function* with_temp = EmitWithTemp(e, llvm_module);
  EmitAllocating(c, plan->layout.temp_bytes, with_temp, llvm_module);
  std::string errors;
  llvm::raw_string_ostream os(errors);
  if (llvm::verifyModule(llvm_module, &os)) {
    return absl::InternalError(
        absl::StrCat("the library's C functions are invalid IR: ", os.str()));
  }
  return plan->layout;
}

}  // namespace xlite::cpu
