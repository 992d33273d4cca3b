#include "codegen/gpu/kernel_common.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "hlo/ir/computation.h"
#include "hlo/ir/opcode.h"

namespace xlite::codegen::gpu {

const HloInstruction* ComputedRoot(const HloInstruction* hlo) {
  return hlo->opcode() == HloOpcode::kFusion
             ? hlo->fused_computation()->root_instruction()
             : hlo;
}

std::vector<KernelArgument> KernelArguments(const HloInstruction* hlo) {
  std::vector<KernelArgument> out;
  auto add = [&](const HloInstruction* i, int64_t operand_number) {
    const bool is_output = operand_number < 0;
    const Shape& shape = i->shape();
    if (shape.IsArray()) {
      out.push_back({i, {}, shape, is_output, operand_number});
      return;
    }
    if (!shape.IsTuple()) return;
    for (int64_t l = 0; l < shape.tuple_shapes_size(); ++l) {
      if (shape.tuple_shapes(l).IsArray()) {
        out.push_back(
            {i, {l}, shape.tuple_shapes(l), is_output, operand_number});
      }
    }
  };
  for (int64_t i = 0; i < hlo->operand_count(); ++i) add(hlo->operand(i), i);
  add(hlo, -1);
  return out;
}

absl::Status BeginKernel(KernelScope& k, const HloInstruction* hlo,
                         const std::string& name,
                         const std::vector<KernelParam>& params,
                         int64_t block) {
  const std::vector<KernelArgument> args = KernelArguments(hlo);
  size_t pointers = params.size();
  while (pointers > 0 && params[pointers - 1].tensor_map) --pointers;
  if (args.size() != pointers) {
    return absl::InternalError(
        absl::StrCat("kernel for ", hlo->name(), " given ", params.size(),
                     " parameters, wants ", args.size()));
  }
  k.function = k.target.DeclareKernel(k.module, name, params, block);
  k.b.SetInsertPoint(&k.function->getEntryBlock());
  const bool fusion = hlo->opcode() == HloOpcode::kFusion;
  const int64_t bound =
      fusion ? static_cast<int64_t>(
                   hlo->fused_computation()->parameter_instructions().size())
             : hlo->operand_count();
  for (size_t a = 0; a < args.size(); ++a) {
    const KernelArgument& arg = args[a];
    IrArray array(k.function->getArg(a), arg.shape);
    if (arg.is_output) {
      k.outputs.push_back(array);
      continue;
    }
    // A fusion may have operands past its parameters: they are not read.
    if (arg.operand_number >= bound) continue;
    const HloInstruction* target =
        fusion ? hlo->fused_computation()
                     ->parameter_instructions()[arg.operand_number]
               : arg.instruction;
    const int64_t leaf = arg.index.empty() ? -1 : arg.index[0];
    k.emitter.BindArray(target, leaf, array);
    k.inputs.push_back({target, leaf, array, params[a].alignment});
  }
  return absl::OkStatus();
}

LaunchDims EndKernel(KernelScope& k, int64_t grid, int64_t block,
                     bool cooperative) {
  k.b.CreateRetVoid();
  LaunchDims dims;
  dims.grid = std::max<int64_t>(grid, 1);
  dims.block = block;
  dims.shared_bytes = k.target.SharedBytes(k.function);
  dims.cooperative = cooperative;
  return dims;
}

llvm::Value* BlockIndex64(KernelScope& k) {
  return k.b.CreateZExt(k.target.BlockId(k.b, GridDim::kX), k.b.getInt64Ty());
}

llvm::Value* ThreadIndex64(KernelScope& k) {
  return k.b.CreateZExt(k.target.ThreadId(k.b, GridDim::kX), k.b.getInt64Ty());
}

absl::Status EmitIf(KernelScope& k, llvm::Value* condition,
                    const std::function<absl::Status()>& then) {
  llvm::LLVMContext& ctx = k.b.getContext();
  auto* body = llvm::BasicBlock::Create(ctx, "if.then", k.function);
  auto* after = llvm::BasicBlock::Create(ctx, "if.end", k.function);
  k.b.CreateCondBr(condition, body, after);
  k.b.SetInsertPoint(body);
  {
    ElementalEmitter::Scope scope(k.emitter);
    if (absl::Status s = then(); !s.ok()) return s;
  }
  k.b.CreateBr(after);
  k.b.SetInsertPoint(after);
  return absl::OkStatus();
}

void DelinearizeInto(llvm::IRBuilderBase& b, llvm::Value* linear,
                     const Shape& shape, absl::Span<const int64_t> dims,
                     Index& index) {
  llvm::Value* rest = linear;
  for (int64_t i = static_cast<int64_t>(dims.size()) - 1; i >= 0; --i) {
    const int64_t size = shape.dimensions(dims[i]);
    if (i == 0) {
      index[dims[i]] = rest;
      break;
    }
    llvm::Value* n = b.getInt64(size);
    index[dims[i]] = b.CreateURem(rest, n);
    rest = b.CreateUDiv(rest, n);
  }
}

int64_t ProductOf(const Shape& shape, absl::Span<const int64_t> dims) {
  int64_t product = 1;
  for (int64_t d : dims) product *= shape.dimensions(d);
  return product;
}

std::optional<const HloInstruction*> FindElementwiseHero(
    const HloInstruction* root,
    const std::function<bool(const HloInstruction*)>& is_hero) {
  absl::flat_hash_set<const HloInstruction*> chain;
  std::vector<const HloInstruction*> heroes;
  std::vector<const HloInstruction*> stack = {root};
  while (!stack.empty()) {
    const HloInstruction* i = stack.back();
    stack.pop_back();
    if (is_hero(i)) {
      if (std::find(heroes.begin(), heroes.end(), i) == heroes.end()) {
        heroes.push_back(i);
      }
      continue;
    }
    if (i != root && !IsElementwiseOpcode(i->opcode())) continue;
    if (!chain.insert(i).second) continue;
    for (const HloInstruction* o : i->operands()) stack.push_back(o);
  }
  if (heroes.size() != 1) return std::nullopt;
  const HloInstruction* hero = heroes.front();
  if (hero != root && !IsElementwiseOpcode(root->opcode())) {
    return std::nullopt;
  }
  if (!(hero->shape().dimensions() == root->shape().dimensions())) {
    return std::nullopt;
  }
  for (const HloInstruction* i : chain) {
    if (i != root && !(i->shape().dimensions() == root->shape().dimensions())) {
      return std::nullopt;
    }
  }
  chain.insert(hero);
  for (const HloInstruction* i : chain) {
    if (i == root) continue;
    for (const HloInstruction* user : i->users()) {
      if (!chain.contains(user)) return std::nullopt;
    }
  }
  return hero;
}

namespace {

bool ReachesRootElementwise(const HloInstruction* value) {
  if (value->IsRoot()) return true;
  for (const HloInstruction* user : value->users()) {
    if (!IsElementwiseOpcode(user->opcode()) ||
        user->opcode() == HloOpcode::kCopy ||
        !(user->shape().dimensions() == value->shape().dimensions()) ||
        !ReachesRootElementwise(user)) {
      return false;
    }
  }
  return true;
}

}  // namespace

bool ReadOnlyAtRootIndex(const HloInstruction* hlo, int64_t operand_number) {
  if (hlo->opcode() != HloOpcode::kFusion || operand_number < 0 ||
      operand_number >= hlo->fused_computation()->num_parameters()) {
    return false;
  }
  const HloInstruction* param =
      hlo->fused_computation()->parameter_instruction(operand_number);
  return !param->users().empty() && ReachesRootElementwise(param);
}

int64_t PowerOfTwoAtLeast(int64_t n) {
  int64_t p = 1;
  while (p < n) p *= 2;
  return p;
}

std::optional<AtomicOp> AtomicCombinerOf(const HloComputation& combiner,
                                         const Shape& shape) {
  const HloInstruction* root = combiner.root_instruction();
  if (combiner.num_parameters() != 2 || root->operand_count() != 2 ||
      !shape.IsArray()) {
    return std::nullopt;
  }
  const HloInstruction* a = root->operand(0);
  const HloInstruction* b = root->operand(1);
  if (a->opcode() != HloOpcode::kParameter ||
      b->opcode() != HloOpcode::kParameter || a == b) {
    return std::nullopt;
  }
  switch (shape.element_type()) {
    case PrimitiveType::kF32:
    case PrimitiveType::kF64:
    case PrimitiveType::kS32:
    case PrimitiveType::kU32:
    case PrimitiveType::kS64:
    case PrimitiveType::kU64:
      break;
    default:
      return std::nullopt;
  }
  switch (root->opcode()) {
    case HloOpcode::kAdd:
      return AtomicOp::kAdd;
    case HloOpcode::kMaximum:
      return AtomicOp::kMax;
    case HloOpcode::kMinimum:
      return AtomicOp::kMin;
    default:
      return std::nullopt;
  }
}

int64_t KernelArgumentIndex(const std::vector<KernelArgument>& args,
                            bool output, int64_t operand_number, int64_t leaf) {
  for (size_t a = 0; a < args.size(); ++a) {
    if (args[a].is_output != output) continue;
    if (!output && args[a].operand_number == operand_number &&
        args[a].index.empty()) {
      return static_cast<int64_t>(a);
    }
    if (output && (leaf < 0 ? args[a].index.empty()
                            : args[a].index == ShapeIndex{leaf})) {
      return static_cast<int64_t>(a);
    }
  }
  return -1;
}

llvm::Value* GlobalThreadIndex64(KernelScope& k, int64_t block) {
  return k.b.CreateAdd(k.b.CreateMul(BlockIndex64(k), k.b.getInt64(block)),
                       ThreadIndex64(k));
}

}  // namespace xlite::codegen::gpu
