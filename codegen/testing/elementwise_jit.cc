#include "codegen/testing/elementwise_jit.h"

#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "codegen/denormals.h"
#include "codegen/scalar_ops.h"
#include "codegen/scalar_runtime.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

namespace xlite::codegen::testing {
namespace {

std::string ToString(llvm::Error error) {
  return llvm::toString(std::move(error));
}

void InitializeLlvmOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

// Element `index` (an i64) of the array at `base` of `type`.
llvm::Value* ElementAddress(llvm::IRBuilderBase& b, PrimitiveType type,
                            llvm::Value* base, llvm::Value* index) {
  return b.CreateGEP(b.getInt8Ty(), base,
                     b.CreateMul(index, b.getInt64(StorageBytes(type))));
}

}  // namespace

struct ElementwiseJit::State {
  absl::Status init_status;
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::unique_ptr<llvm::TargetMachine> target_machine;
  llvm::orc::ThreadSafeContext context{std::make_unique<llvm::LLVMContext>()};
  std::unique_ptr<llvm::Module> module;
  std::vector<std::string> pending;  // kernel names in `module`
  int module_count = 0;
};

ElementwiseJit::ElementwiseJit(Options options)
    : options_(options), state_(std::make_unique<State>()) {
  InitializeLlvmOnce();
  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb) {
    state_->init_status = absl::InternalError(ToString(jtmb.takeError()));
    return;
  }
  auto tm = jtmb->createTargetMachine();
  if (!tm) {
    state_->init_status = absl::InternalError(ToString(tm.takeError()));
    return;
  }
  state_->target_machine = std::move(*tm);
  auto jit =
      llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(*jtmb).create();
  if (!jit) {
    state_->init_status = absl::InternalError(ToString(jit.takeError()));
    return;
  }
  state_->jit = std::move(*jit);
  llvm::orc::JITDylib& dylib = state_->jit->getMainJITDylib();
  // libm (expf, log1p, ...) from the process.
  auto generator =
      llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
          state_->jit->getDataLayout().getGlobalPrefix());
  if (!generator) {
    state_->init_status = absl::InternalError(ToString(generator.takeError()));
    return;
  }
  dylib.addGenerator(std::move(*generator));
  // The complex helpers, by address.
  llvm::orc::SymbolMap symbols;
  for (const RuntimeSymbol& symbol : ScalarRuntimeSymbols()) {
    symbols[state_->jit->mangleAndIntern(symbol.name)] =
        llvm::orc::ExecutorSymbolDef(
            llvm::orc::ExecutorAddr::fromPtr(symbol.address),
            llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable);
  }
  if (llvm::Error error = dylib.define(llvm::orc::absoluteSymbols(symbols))) {
    state_->init_status = absl::InternalError(ToString(std::move(error)));
  }
}

ElementwiseJit::~ElementwiseJit() = default;

absl::StatusOr<int> ElementwiseJit::AddKernel(
    const HloInstruction& instruction) {
  if (!state_->init_status.ok()) return state_->init_status;
  llvm::LLVMContext& context = *state_->context.getContext();
  if (state_->module == nullptr) {
    state_->module = std::make_unique<llvm::Module>(
        absl::StrCat("kernels", state_->module_count++), context);
    state_->module->setDataLayout(state_->jit->getDataLayout());
    state_->module->setTargetTriple(
        state_->target_machine->getTargetTriple().str());
    if (options_.denormals == DenormalMode::kFlushToZero) {
      EnableFlushedDenormals(*state_->module);
    }
  }
  const int index = static_cast<int>(kernels_.size() + state_->pending.size());
  const std::string name = absl::StrCat("kernel", index);
  llvm::IRBuilder<> b(context);
  auto* type = llvm::FunctionType::get(
      b.getVoidTy(), {b.getPtrTy(), b.getPtrTy(), b.getInt64Ty()}, false);
  llvm::Function* function = llvm::Function::Create(
      type, llvm::Function::ExternalLinkage, name, state_->module.get());
  llvm::Value* ins = function->getArg(0);
  llvm::Value* out = function->getArg(1);
  llvm::Value* n = function->getArg(2);
  auto* entry = llvm::BasicBlock::Create(context, "entry", function);
  auto* header = llvm::BasicBlock::Create(context, "header", function);
  auto* body = llvm::BasicBlock::Create(context, "body", function);
  auto* exit = llvm::BasicBlock::Create(context, "exit", function);
  b.SetInsertPoint(entry);
  b.CreateBr(header);
  b.SetInsertPoint(header);
  llvm::PHINode* i = b.CreatePHI(b.getInt64Ty(), 2);
  i->addIncoming(b.getInt64(0), entry);
  b.CreateCondBr(b.CreateICmpSLT(i, n), body, exit);
  b.SetInsertPoint(body);

  const PrimitiveType out_type = instruction.shape().element_type();
  const int64_t out_count = instruction.shape().ElementCount();
  auto operand_base = [&](int64_t k) -> llvm::Value* {
    return b.CreateLoad(b.getPtrTy(),
                        b.CreateGEP(b.getPtrTy(), ins, b.getInt64(k)));
  };
  absl::Status status;
  const PrimitiveType in_type =
      instruction.operand_count() > 0
          ? instruction.operand(0)->shape().element_type()
          : out_type;
  if (instruction.opcode() == HloOpcode::kBitcastConvert &&
      BitWidth(in_type) > BitWidth(out_type)) {
    const int ratio = BitWidth(in_type) / BitWidth(out_type);
    llvm::Value* value = EmitLoadElement(
        b, in_type, ElementAddress(b, in_type, operand_base(0), i));
    for (int k = 0; k < ratio; ++k) {
      llvm::Value* piece =
          EmitBitcastConvertSplit(b, in_type, out_type, value, b.getInt32(k));
      llvm::Value* at =
          b.CreateAdd(b.CreateMul(i, b.getInt64(ratio)), b.getInt64(k));
      EmitStoreElement(b, out_type, piece,
                       ElementAddress(b, out_type, out, at));
    }
  } else if (instruction.opcode() == HloOpcode::kBitcastConvert &&
             BitWidth(in_type) < BitWidth(out_type)) {
    const int ratio = BitWidth(out_type) / BitWidth(in_type);
    llvm::Value* base = operand_base(0);
    std::vector<llvm::Value*> pieces;
    for (int k = 0; k < ratio; ++k) {
      llvm::Value* at =
          b.CreateAdd(b.CreateMul(i, b.getInt64(ratio)), b.getInt64(k));
      pieces.push_back(
          EmitLoadElement(b, in_type, ElementAddress(b, in_type, base, at)));
    }
    EmitStoreElement(b, out_type,
                     EmitBitcastConvertJoin(b, in_type, out_type, pieces),
                     ElementAddress(b, out_type, out, i));
  } else {
    std::vector<llvm::Value*> values;
    for (int64_t k = 0; k < instruction.operand_count(); ++k) {
      const Shape& shape = instruction.operand(k)->shape();
      const bool broadcast = shape.ElementCount() == 1 && out_count != 1;
      llvm::Value* at =
          broadcast ? b.getInt64(0) : static_cast<llvm::Value*>(i);
      values.push_back(EmitLoadElement(
          b, shape.element_type(),
          ElementAddress(b, shape.element_type(), operand_base(k), at)));
    }
    absl::StatusOr<llvm::Value*> result =
        EmitElementwise(b, instruction, values);
    if (result.ok()) {
      EmitStoreElement(b, out_type, *result,
                       ElementAddress(b, out_type, out, i));
    } else {
      status = result.status();
    }
  }
  if (!status.ok()) {
    function->eraseFromParent();
    return status;
  }
  llvm::Value* next = b.CreateAdd(i, b.getInt64(1));
  i->addIncoming(next, b.GetInsertBlock());
  b.CreateBr(header);
  b.SetInsertPoint(exit);
  b.CreateRetVoid();
  std::string message;
  llvm::raw_string_ostream os(message);
  if (llvm::verifyFunction(*function, &os)) {
    std::string ir;
    llvm::raw_string_ostream ir_os(ir);
    function->print(ir_os);
    function->eraseFromParent();
    return absl::InternalError(
        absl::StrCat(instruction.name(), ": invalid IR: ", message, "\n", ir));
  }
  state_->pending.push_back(name);
  return index;
}

absl::Status ElementwiseJit::Compile() {
  if (!state_->init_status.ok()) return state_->init_status;
  if (state_->module == nullptr) return absl::OkStatus();
  std::unique_ptr<llvm::Module> module = std::move(state_->module);
  if (options_.optimize) {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PassBuilder pb(state_->target_machine.get());
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2)
        .run(*module, mam);
  }
  llvm::Error error = state_->jit->addIRModule(
      llvm::orc::ThreadSafeModule(std::move(module), state_->context));
  if (error) return absl::InternalError(ToString(std::move(error)));
  for (const std::string& name : state_->pending) {
    auto address = state_->jit->lookup(name);
    if (!address) return absl::InternalError(ToString(address.takeError()));
    kernels_.push_back(address->toPtr<Kernel>());
  }
  state_->pending.clear();
  return absl::OkStatus();
}

absl::StatusOr<Literal> ElementwiseJit::Run(
    int index, const HloInstruction& instruction,
    absl::Span<const Literal* const> operands) const {
  if (index < 0 || index >= static_cast<int>(kernels_.size())) {
    return absl::InvalidArgumentError("kernel not compiled");
  }
  Literal result(instruction.shape());
  std::vector<const void*> pointers;
  for (const Literal* operand : operands) {
    pointers.push_back(operand->data().data());
  }
  int64_t n = result.element_count();
  if (instruction.opcode() == HloOpcode::kBitcastConvert &&
      BitWidth(operands[0]->shape().element_type()) >
          BitWidth(instruction.shape().element_type())) {
    n = operands[0]->element_count();
  }
  ScopedDenormalMode mode(options_.denormals);
  kernels_[index](pointers.data(), result.mutable_data().data(), n);
  return result;
}

std::string ElementwiseJit::PendingIr() const {
  if (state_->module == nullptr) return "";
  std::string ir;
  llvm::raw_string_ostream os(ir);
  state_->module->print(os, nullptr);
  return ir;
}

}  // namespace xlite::codegen::testing
