#include "codegen/complex_ops.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "codegen/math_library.h"
#include "codegen/op_error.h"
#include "codegen/scalar_ops.h"
#include "llvm/IR/Intrinsics.h"

namespace xlite::codegen {
namespace {

// The runtime helper's name for `op` ("exp" -> xlite_c64_exp), or "".
std::string HelperName(HloOpcode op, PrimitiveType type) {
  const char* name = nullptr;
  switch (op) {
    case HloOpcode::kSign:
      name = "sign";
      break;
    case HloOpcode::kExp:
      name = "exp";
      break;
    case HloOpcode::kExpm1:
      name = "expm1";
      break;
    case HloOpcode::kLog:
      name = "log";
      break;
    case HloOpcode::kLog1p:
      name = "log1p";
      break;
    case HloOpcode::kSqrt:
      name = "sqrt";
      break;
    case HloOpcode::kRsqrt:
      name = "rsqrt";
      break;
    case HloOpcode::kSin:
      name = "sin";
      break;
    case HloOpcode::kCos:
      name = "cos";
      break;
    case HloOpcode::kTan:
      name = "tan";
      break;
    case HloOpcode::kTanh:
      name = "tanh";
      break;
    case HloOpcode::kLogistic:
      name = "logistic";
      break;
    case HloOpcode::kAbs:
      name = "abs";
      break;
    case HloOpcode::kMultiply:
      name = "multiply";
      break;
    case HloOpcode::kDivide:
      name = "divide";
      break;
    case HloOpcode::kPower:
      name = "power";
      break;
    default:
      return "";
  }
  return absl::StrCat(
      type == PrimitiveType::kC64 ? "xlite_c64_" : "xlite_c128_", name);
}

// Passes the operands through stack slots to the helper; returns its
// result as a complex value, or its first component (abs).
llvm::Value* EmitHelperCall(llvm::IRBuilderBase& b, const std::string& name,
                            PrimitiveType type,
                            absl::Span<llvm::Value* const> operands,
                            bool real_result) {
  llvm::Type* complex_type = ValueType(type, b.getContext());
  std::vector<llvm::Value*> pointers;
  for (llvm::Value* operand : operands) {
    llvm::AllocaInst* slot = EmitEntryAlloca(b, complex_type);
    b.CreateStore(operand, slot);
    pointers.push_back(slot);
  }
  llvm::AllocaInst* out = EmitEntryAlloca(b, complex_type);
  pointers.push_back(out);
  EmitRuntimeCall(b, name, pointers);
  if (real_result) {
    return b.CreateLoad(complex_type->getStructElementType(0), out);
  }
  return b.CreateLoad(complex_type, out);
}

llvm::Value* IsFinite(llvm::IRBuilderBase& b, llvm::Value* x) {
  return b.CreateFCmpONE(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x),
                         llvm::ConstantFP::getInfinity(x->getType()));
}

}  // namespace

llvm::Value* EmitMakeComplex(llvm::IRBuilderBase& b, PrimitiveType type,
                             llvm::Value* re, llvm::Value* im) {
  llvm::Value* value = llvm::PoisonValue::get(ValueType(type, b.getContext()));
  value = b.CreateInsertValue(value, re, {0});
  return b.CreateInsertValue(value, im, {1});
}

absl::StatusOr<llvm::Value*> EmitComplexUnary(llvm::IRBuilderBase& b,
                                              HloOpcode op, PrimitiveType type,
                                              llvm::Value* x) {
  llvm::Value* re = b.CreateExtractValue(x, {0});
  llvm::Value* im = b.CreateExtractValue(x, {1});
  switch (op) {
    case HloOpcode::kNegate:
      return EmitMakeComplex(b, type, b.CreateFNeg(re), b.CreateFNeg(im));
    case HloOpcode::kReal:
      return re;
    case HloOpcode::kImag:
      return im;
    case HloOpcode::kIsFinite:
      return b.CreateAnd(IsFinite(b, re), IsFinite(b, im));
    default:
      break;
  }
  const std::string helper = HelperName(op, type);
  if (helper.empty() || op == HloOpcode::kMultiply ||
      op == HloOpcode::kDivide || op == HloOpcode::kPower) {
    return NotDefinedError(op, type);
  }
  return EmitHelperCall(b, helper, type, {x},
                        /*real_result=*/op == HloOpcode::kAbs);
}

absl::StatusOr<llvm::Value*> EmitComplexBinary(llvm::IRBuilderBase& b,
                                               HloOpcode op, PrimitiveType type,
                                               llvm::Value* x, llvm::Value* y) {
  switch (op) {
    case HloOpcode::kAdd:
    case HloOpcode::kSubtract: {
      auto combine = [&](unsigned i) {
        llvm::Value* u = b.CreateExtractValue(x, {i});
        llvm::Value* v = b.CreateExtractValue(y, {i});
        return op == HloOpcode::kAdd ? b.CreateFAdd(u, v) : b.CreateFSub(u, v);
      };
      return EmitMakeComplex(b, type, combine(0), combine(1));
    }
    case HloOpcode::kMultiply:
    case HloOpcode::kDivide:
    case HloOpcode::kPower:
      return EmitHelperCall(b, HelperName(op, type), type, {x, y},
                            /*real_result=*/false);
    default:
      return NotDefinedError(op, type);
  }
}

}  // namespace xlite::codegen
