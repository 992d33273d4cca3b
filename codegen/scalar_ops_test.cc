// Differential tests of EmitElementwise against the evaluator: every
// opcode of the element-wise family on every element type the verifier
// accepts for it, bit-exact (differential.h says what "exact" allows for
// NaN). Types of at most 16 bits get every bit pattern for unary opcodes,
// types of at most 8 bits every pair of bit patterns for binary ones; wider
// types their edge values (all pairs, subnormals among them) and seeded
// random values. Each runs in both denormal modes: IEEE gradual underflow
// (the GPU's) and flushed (the CPU backend's, codegen/denormals.h).

#include "codegen/scalar_ops.h"

#include <gtest/gtest.h>

#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/testing/differential.h"
#include "codegen/testing/test_values.h"
#include "hlo/ir/opcode.h"
#include "hlo/ir/primitive_type.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/LLVMContext.h"

namespace xlite::codegen {
namespace {

using testing::DifferentialRunner;
using testing::EdgeAndRandom;
using testing::OneInstructionModule;
using testing::OperandPairs;
using testing::UnaryInputs;

std::vector<PrimitiveType> ArrayTypes() {
  std::vector<PrimitiveType> types;
  for (int t = 0; t <= kLastPrimitiveType; ++t) {
    const auto type = static_cast<PrimitiveType>(t);
    if (IsArrayType(type)) types.push_back(type);
  }
  return types;
}

// Element-wise opcodes of `arity` operands, but those with an own test.
std::vector<HloOpcode> ElementwiseOpcodes(int arity) {
  std::vector<HloOpcode> ops;
#define XLITE_COLLECT(enum_name, text, count, family)                         \
  if (OpcodeFamily::family == OpcodeFamily::kElementwise && count == arity && \
      HloOpcode::enum_name != HloOpcode::kCompare &&                          \
      HloOpcode::enum_name != HloOpcode::kComplex) {                          \
    ops.push_back(HloOpcode::enum_name);                                      \
  }
  XLITE_HLO_OPCODE_LIST(XLITE_COLLECT)
#undef XLITE_COLLECT
  return ops;
}

PrimitiveType UnaryResultType(HloOpcode op, PrimitiveType type) {
  if (op == HloOpcode::kIsFinite) return PrimitiveType::kPred;
  if (op == HloOpcode::kAbs || op == HloOpcode::kReal ||
      op == HloOpcode::kImag) {
    return ComplexComponentType(type);
  }
  return type;
}

Shape Vector(PrimitiveType type, int64_t n) { return Shape(type, {n}); }

class ScalarOpsTest : public ::testing::TestWithParam<DenormalMode> {
 protected:
  testing::ElementwiseJit::Options Jit(bool optimize = true) const {
    return {.optimize = optimize, .denormals = GetParam()};
  }
};

INSTANTIATE_TEST_SUITE_P(
    DenormalModes, ScalarOpsTest,
    ::testing::Values(DenormalMode::kIeee, DenormalMode::kFlushToZero),
    [](const ::testing::TestParamInfo<DenormalMode>& info) {
      return info.param == DenormalMode::kIeee ? "Ieee" : "FlushToZero";
    });

void ExpectAgreement(DifferentialRunner& runner, const std::string& what) {
  std::vector<std::string> failures = runner.Check();
  if (failures.size() > 12) failures.resize(12);
  EXPECT_TRUE(failures.empty()) << absl::StrJoin(failures, "\n");
  const DifferentialRunner::Counts& c = runner.counts();
  std::cout << what << ": " << c.cases << " cases (" << c.both_rejected
            << " rejected by both), " << c.skipped
            << " skipped by the verifier, " << c.elements
            << " elements compared\n";
  EXPECT_GT(c.cases, 0);
}

TEST_P(ScalarOpsTest, UnaryOpcodesOnEveryType) {
  DifferentialRunner runner(Jit());
  for (HloOpcode op : ElementwiseOpcodes(1)) {
    for (PrimitiveType type : ArrayTypes()) {
      Literal input = UnaryInputs(type, 3000, 1);
      const int64_t n = input.element_count();
      std::vector<Literal> args;
      args.push_back(std::move(input));
      ASSERT_TRUE(
          runner
              .Add(OneInstructionModule(std::string(HloOpcodeString(op)),
                                        Vector(UnaryResultType(op, type), n),
                                        {Vector(type, n)}),
                   std::move(args))
              .ok());
    }
  }
  ExpectAgreement(runner, "unary");
}

TEST_P(ScalarOpsTest, BinaryOpcodesOnEveryType) {
  DifferentialRunner runner(Jit());
  for (HloOpcode op : ElementwiseOpcodes(2)) {
    for (PrimitiveType type : ArrayTypes()) {
      auto [lhs, rhs] = OperandPairs(type, 3000, 2);
      const int64_t n = lhs.element_count();
      std::vector<Literal> args;
      args.push_back(std::move(lhs));
      args.push_back(std::move(rhs));
      ASSERT_TRUE(
          runner
              .Add(OneInstructionModule(std::string(HloOpcodeString(op)),
                                        Vector(type, n),
                                        {Vector(type, n), Vector(type, n)}),
                   std::move(args))
              .ok());
    }
  }
  ExpectAgreement(runner, "binary");
}

TEST_P(ScalarOpsTest, CompareEveryDirectionAndComparisonType) {
  DifferentialRunner runner(Jit());
  for (const char* direction : {"EQ", "NE", "LT", "LE", "GT", "GE"}) {
    for (const char* type_attr :
         {"", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"}) {
      for (PrimitiveType type : ArrayTypes()) {
        auto [lhs, rhs] = OperandPairs(type, 2000, 3);
        const int64_t n = lhs.element_count();
        std::vector<Literal> args;
        args.push_back(std::move(lhs));
        args.push_back(std::move(rhs));
        std::string attributes = absl::StrCat(", direction=", direction);
        if (*type_attr) absl::StrAppend(&attributes, ", type=", type_attr);
        ASSERT_TRUE(
            runner
                .Add(OneInstructionModule(
                         "compare", Vector(PrimitiveType::kPred, n),
                         {Vector(type, n), Vector(type, n)}, attributes),
                     std::move(args))
                .ok());
      }
    }
  }
  ExpectAgreement(runner, "compare");
}

TEST_P(ScalarOpsTest, SelectAndClampWithArrayAndScalarOperands) {
  DifferentialRunner runner(Jit());
  const int64_t n = 3000;
  for (PrimitiveType type : ArrayTypes()) {
    for (bool scalar : {false, true}) {
      // select(pred, on_true, on_false)
      std::vector<Literal> args;
      args.push_back(EdgeAndRandom(PrimitiveType::kPred, scalar ? 1 : n, 4));
      args.push_back(EdgeAndRandom(type, n, 5));
      args.push_back(EdgeAndRandom(type, n, 6));
      const Shape pred = scalar ? Shape(PrimitiveType::kPred, {})
                                : Vector(PrimitiveType::kPred, n);
      if (scalar) args[0] = Literal(pred);
      ASSERT_TRUE(runner
                      .Add(OneInstructionModule(
                               "select", Vector(type, n),
                               {pred, Vector(type, n), Vector(type, n)}),
                           std::move(args))
                      .ok());
      // clamp(lo, x, hi)
      const Shape bound = scalar ? Shape(type, {}) : Vector(type, n);
      std::vector<Literal> clamp_args;
      for (uint64_t seed : {7, 8, 9}) {
        clamp_args.push_back(EdgeAndRandom(type, n, seed));
      }
      if (scalar) {
        // A scalar bound of each edge value would need a case each; one
        // random low and one high bound keep the test small.
        Literal lo(bound), hi(bound);
        lo.SetFromDouble(0, -2.5);
        hi.SetFromDouble(0, 3.25);
        clamp_args[0] = std::move(lo);
        clamp_args[2] = std::move(hi);
      }
      ASSERT_TRUE(
          runner
              .Add(OneInstructionModule("clamp", Vector(type, n),
                                        {bound, Vector(type, n), bound}),
                   std::move(clamp_args))
              .ok());
    }
  }
  ExpectAgreement(runner, "select/clamp");
}

TEST_P(ScalarOpsTest, ComplexFromParts) {
  DifferentialRunner runner(Jit());
  for (PrimitiveType type : {PrimitiveType::kF32, PrimitiveType::kF64}) {
    auto [re, im] = OperandPairs(type, 1000, 10);
    const int64_t n = re.element_count();
    std::vector<Literal> args;
    args.push_back(std::move(re));
    args.push_back(std::move(im));
    const PrimitiveType complex = type == PrimitiveType::kF32
                                      ? PrimitiveType::kC64
                                      : PrimitiveType::kC128;
    ASSERT_TRUE(
        runner
            .Add(OneInstructionModule("complex", Vector(complex, n),
                                      {Vector(type, n), Vector(type, n)}),
                 std::move(args))
            .ok());
  }
  ExpectAgreement(runner, "complex");
}

// The same kernels without LLVM's optimizer: what is emitted is right by
// itself, not only after instcombine.
TEST_P(ScalarOpsTest, UnoptimizedKernelsAgree) {
  DifferentialRunner runner(Jit(/*optimize=*/false));
  for (const char* opcode : {"add", "divide", "remainder", "power", "maximum",
                             "shift-right-arithmetic", "atan2", "multiply"}) {
    for (PrimitiveType type : ArrayTypes()) {
      auto [lhs, rhs] = OperandPairs(type, 500, 19);
      const int64_t n = lhs.element_count();
      std::vector<Literal> args;
      args.push_back(std::move(lhs));
      args.push_back(std::move(rhs));
      ASSERT_TRUE(
          runner
              .Add(OneInstructionModule(opcode, Vector(type, n),
                                        {Vector(type, n), Vector(type, n)}),
                   std::move(args))
              .ok());
    }
  }
  for (const char* opcode : {"exponential", "sign", "round-nearest-even",
                             "count-leading-zeros", "is-finite"}) {
    for (PrimitiveType type : ArrayTypes()) {
      Literal input = UnaryInputs(type, 1000, 20);
      const int64_t n = input.element_count();
      std::vector<Literal> args;
      args.push_back(std::move(input));
      const PrimitiveType result =
          std::string(opcode) == "is-finite" ? PrimitiveType::kPred : type;
      ASSERT_TRUE(runner
                      .Add(OneInstructionModule(opcode, Vector(result, n),
                                                {Vector(type, n)}),
                           std::move(args))
                      .ok());
    }
  }
  ExpectAgreement(runner, "unoptimized");
}

// ScalarConstant reads the Literal's storage: the constant's bits are the
// element's bits, for every type.
TEST(ScalarConstantTest, HoldsTheElementBits) {
  llvm::LLVMContext context;
  int64_t checked = 0;
  for (PrimitiveType type : ArrayTypes()) {
    Literal values = EdgeAndRandom(type, 200, 21);
    const int bytes = StorageBytes(type);
    for (int64_t i = 0; i < values.element_count(); ++i) {
      const uint8_t* storage = values.data().data() + i * bytes;
      llvm::Constant* c = ScalarConstant(type, storage, context);
      ASSERT_EQ(c->getType(), ValueType(type, context));
      std::vector<uint64_t> expected, actual;
      if (IsComplex(type)) {
        const int half = bytes / 2;
        for (int part = 0; part < 2; ++part) {
          uint64_t bits = 0;
          std::memcpy(&bits, storage + part * half, half);
          expected.push_back(bits);
          actual.push_back(
              llvm::cast<llvm::ConstantFP>(c->getAggregateElement(part))
                  ->getValueAPF()
                  .bitcastToAPInt()
                  .getZExtValue());
        }
      } else if (type == PrimitiveType::kF32 || type == PrimitiveType::kF64) {
        expected.push_back(values.GetBits(i));
        actual.push_back(llvm::cast<llvm::ConstantFP>(c)
                             ->getValueAPF()
                             .bitcastToAPInt()
                             .getZExtValue());
      } else {
        expected.push_back(values.GetBits(i));
        actual.push_back(llvm::cast<llvm::ConstantInt>(c)->getZExtValue());
      }
      EXPECT_EQ(expected, actual)
          << PrimitiveTypeName(type) << " element " << i;
      ++checked;
    }
  }
  EXPECT_GT(checked, 5000);
}

}  // namespace
}  // namespace xlite::codegen
