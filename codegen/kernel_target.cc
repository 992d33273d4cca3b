#include "codegen/kernel_target.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "llvm/IR/InstrTypes.h"

namespace xlite::codegen {

namespace {

// Functions of the C math library that libdevice implements as __nv_<name>
// (float flavours take an "f" suffix): every one the elemental emitter
// calls, and their neighbours.
const absl::flat_hash_set<std::string>& GpuMathFunctions() {
  static const auto* names = [] {
    auto* set = new absl::flat_hash_set<std::string>;
    for (const char* base :
         {"exp", "expm1", "exp2", "log", "log1p", "log2", "log10", "cbrt",
          "sin", "cos", "tan", "tanh", "sinh", "cosh", "asin", "acos", "atan",
          "asinh", "acosh", "atanh", "erf", "erfc", "pow", "fmod", "atan2",
          "sqrt", "rsqrt", "fabs", "floor", "ceil", "round", "trunc",
          "nextafter", "hypot", "ldexp", "fmin", "fmax", "remainder"}) {
      set->insert(base);
      set->insert(absl::StrCat(base, "f"));
    }
    return set;
  }();
  return *names;
}

}  // namespace

bool IsGpuMathFunction(absl::string_view name) {
  return GpuMathFunctions().contains(std::string(name));
}

absl::StatusOr<llvm::Value*> KernelTarget::Shuffle(llvm::IRBuilderBase& b,
                                                   ShuffleKind kind,
                                                   llvm::Value* value,
                                                   llvm::Value* offset) {
  llvm::Type* type = value->getType();
  const unsigned bits = type->getPrimitiveSizeInBits().getFixedValue();
  if (!(type->isIntegerTy() || type->isFloatingPointTy()) || bits == 0 ||
      bits > 64) {
    return absl::UnimplementedError("warp shuffle of a value that is not an "
                                    "integer or float of at most 64 bits");
  }
  llvm::Type* as_int = b.getIntNTy(bits);
  llvm::Value* x = type->isIntegerTy() ? value : b.CreateBitCast(value, as_int);
  if (bits <= 32) {
    llvm::Value* wide = b.CreateZExt(x, b.getInt32Ty());
    llvm::Value* got = b.CreateTrunc(ShuffleI32(b, kind, wide, offset), as_int);
    return type->isIntegerTy() ? got : b.CreateBitCast(got, type);
  }
  llvm::Value* wide = b.CreateZExt(x, b.getInt64Ty());
  llvm::Value* lo = b.CreateTrunc(wide, b.getInt32Ty());
  llvm::Value* hi = b.CreateTrunc(b.CreateLShr(wide, 32), b.getInt32Ty());
  lo = b.CreateZExt(ShuffleI32(b, kind, lo, offset), b.getInt64Ty());
  hi = b.CreateZExt(ShuffleI32(b, kind, hi, offset), b.getInt64Ty());
  llvm::Value* got =
      b.CreateTrunc(b.CreateOr(lo, b.CreateShl(hi, 32)), as_int);
  return type->isIntegerTy() ? got : b.CreateBitCast(got, type);
}

namespace {

using BytesPerKernel = std::vector<std::pair<const llvm::Function*, int64_t>>;

int64_t& BytesOf(BytesPerKernel& table, const llvm::Function* function) {
  for (auto& [f, bytes] : table) {
    if (f == function) return bytes;
  }
  table.push_back({function, 0});
  return table.back().second;
}

int64_t BytesIn(const BytesPerKernel& table, const llvm::Function* function) {
  for (const auto& [f, bytes] : table) {
    if (f == function) return bytes;
  }
  return 0;
}

}  // namespace

int64_t& KernelTarget::SharedBytesOf(const llvm::Function* function) {
  return BytesOf(shared_bytes_, function);
}

int64_t& KernelTarget::DynamicSharedBytesOf(const llvm::Function* function) {
  return BytesOf(dynamic_shared_bytes_, function);
}

int64_t KernelTarget::SharedBytes(const llvm::Function* function) const {
  return BytesIn(shared_bytes_, function) +
         BytesIn(dynamic_shared_bytes_, function);
}

absl::StatusOr<llvm::Value*> KernelTarget::AtomicRmw(llvm::IRBuilderBase& b,
                                                     AtomicOp op,
                                                     bool is_signed,
                                                     llvm::Value* address,
                                                     llvm::Value* value) {
  using Bin = llvm::AtomicRMWInst::BinOp;
  llvm::Type* type = value->getType();
  const auto order = llvm::AtomicOrdering::Monotonic;
  if (type->isIntegerTy(32) || type->isIntegerTy(64)) {
    Bin bin = op == AtomicOp::kAdd ? Bin::Add
              : op == AtomicOp::kMax ? (is_signed ? Bin::Max : Bin::UMax)
                                     : (is_signed ? Bin::Min : Bin::UMin);
    return b.CreateAtomicRMW(bin, address, value, llvm::MaybeAlign(), order);
  }
  if (!type->isFloatTy() && !type->isDoubleTy()) {
    return absl::UnimplementedError(
        "atomics on values other than 32/64-bit integers and floats");
  }
  if (op == AtomicOp::kAdd) {
    return b.CreateAtomicRMW(Bin::FAdd, address, value, llvm::MaybeAlign(),
                             order);
  }
  // Float max/min: a compare-and-swap loop on the bits (NaN wins, as in
  // XLA's max/min).
  llvm::Function* function = b.GetInsertBlock()->getParent();
  llvm::LLVMContext& ctx = b.getContext();
  llvm::Type* bits = b.getIntNTy(type->getPrimitiveSizeInBits());
  llvm::BasicBlock* before = b.GetInsertBlock();
  auto* loop = llvm::BasicBlock::Create(ctx, "atomic.loop", function);
  auto* done = llvm::BasicBlock::Create(ctx, "atomic.done", function);
  llvm::Value* initial = b.CreateLoad(bits, address);
  b.CreateBr(loop);
  b.SetInsertPoint(loop);
  llvm::PHINode* old_bits = b.CreatePHI(bits, 2);
  old_bits->addIncoming(initial, before);
  llvm::Value* old = b.CreateBitCast(old_bits, type);
  llvm::Value* better = op == AtomicOp::kMax ? b.CreateFCmpUGT(value, old)
                                             : b.CreateFCmpULT(value, old);
  llvm::Value* keep_nan = b.CreateFCmpUNO(old, old);
  llvm::Value* chosen = b.CreateSelect(
      b.CreateAnd(better, b.CreateNot(keep_nan)), value, old);
  llvm::Value* pair = b.CreateAtomicCmpXchg(
      address, old_bits, b.CreateBitCast(chosen, bits), llvm::MaybeAlign(),
      order, order);
  llvm::Value* seen = b.CreateExtractValue(pair, 0);
  old_bits->addIncoming(seen, b.GetInsertBlock());
  b.CreateCondBr(b.CreateExtractValue(pair, 1), done, loop);
  b.SetInsertPoint(done);
  return b.CreateBitCast(seen, type);
}

llvm::Value* KernelTarget::AtomicCompareExchange(llvm::IRBuilderBase& b,
                                                 llvm::Value* address,
                                                 llvm::Value* expected,
                                                 llvm::Value* desired) {
  const auto order = llvm::AtomicOrdering::Monotonic;
  llvm::Value* pair = b.CreateAtomicCmpXchg(address, expected, desired,
                                            llvm::MaybeAlign(), order, order);
  return b.CreateExtractValue(pair, 0);
}

absl::Status KernelTarget::CheckExternalCalls(
    const llvm::Function& kernel) const {
  std::vector<const llvm::Function*> work = {&kernel};
  absl::flat_hash_set<const llvm::Function*> seen = {&kernel};
  while (!work.empty()) {
    const llvm::Function* f = work.back();
    work.pop_back();
    for (const llvm::BasicBlock& block : *f) {
      for (const llvm::Instruction& i : block) {
        const auto* call = llvm::dyn_cast<llvm::CallBase>(&i);
        const llvm::Function* callee =
            call == nullptr ? nullptr : call->getCalledFunction();
        if (callee == nullptr || callee->isIntrinsic() ||
            !seen.insert(callee).second) {
          continue;
        }
        if (!callee->isDeclaration()) {
          work.push_back(callee);
          continue;
        }
        const std::string name = callee->getName().str();
        if (name.rfind("xlite_emu_", 0) == 0) continue;  // emulator runtime
        if (absl::StatusOr<std::string> mapped = MathFunction(name);
            !mapped.ok()) {
          return absl::UnimplementedError(absl::StrCat(
              "it needs '", name, "', which has no GPU implementation (",
              mapped.status().message(), ")"));
        }
      }
    }
  }
  return absl::OkStatus();
}

absl::Status KernelTarget::MapMathFunctions(llvm::Module& module) const {
  std::vector<llvm::Function*> externals;
  for (llvm::Function& f : module) {
    if (f.isDeclaration() && !f.isIntrinsic() && !f.use_empty()) {
      externals.push_back(&f);
    }
  }
  for (llvm::Function* f : externals) {
    const std::string name = f->getName().str();
    if (name.rfind("xlite_emu_", 0) == 0) continue;  // the emulator runtime
    absl::StatusOr<std::string> mapped = MathFunction(name);
    if (!mapped.ok()) {
      return absl::UnimplementedError(absl::StrCat(
          "a GPU kernel calls '", name, "', which has no GPU implementation (",
          mapped.status().message(), ")"));
    }
    if (*mapped == name) continue;
    llvm::Function* target = module.getFunction(*mapped);
    if (target == nullptr) {
      f->setName(*mapped);
    } else {
      f->replaceAllUsesWith(target);
      f->eraseFromParent();
    }
  }
  return absl::OkStatus();
}

uint32_t Tcgen05InstructionDescriptor(const WgmmaShape& shape) {
  auto format = [](WgmmaKind kind) -> uint32_t {
    switch (kind) {
      case WgmmaKind::kBF16:
      case WgmmaKind::kE5M2:
      case WgmmaKind::kS8:  // signed
        return 1;
      case WgmmaKind::kTF32:
        return 2;
      default:  // f16, e4m3
        return 0;
    }
  };
  const uint32_t d_type = shape.kind == WgmmaKind::kS8 ? 2 : 1;
  return d_type << 4 | format(shape.kind) << 7 | format(shape.BKind()) << 10 |
         (shape.trans_a ? 1u : 0u) << 15 | (shape.trans_b ? 1u : 0u) << 16 |
         static_cast<uint32_t>(shape.n / 8) << 17 | uint32_t{128 / 16} << 24;
}

const char* Tcgen05KindName(WgmmaKind kind) {
  switch (kind) {
    case WgmmaKind::kF16:
    case WgmmaKind::kBF16:
      return "f16";
    case WgmmaKind::kTF32:
      return "tf32";
    case WgmmaKind::kE4M3:
    case WgmmaKind::kE5M2:
      return "f8f6f4";
    case WgmmaKind::kS8:
      return "i8";
  }
  return "f16";
}

}  // namespace xlite::codegen
