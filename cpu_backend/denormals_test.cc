// Denormals as XLA:CPU treats them: its code runs with f32 and f64
// denormals flushed (a subnormal operand reads as a zero of its sign, a
// subnormal result is one), and so do the CPU backend and the interpreter.
// Every expectation below is the bit pattern jax 0.10's CPU device gives
// (jax.jit on CPU, probed once; no jax here). Each module runs on the CPU
// backend and on the evaluator (its default mode), and both must give those
// bits; where the IEEE answer differs, the evaluator in DenormalMode::kIeee
// (how passes fold constants, as XLA's constant folding does) is checked
// too.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cpu_backend/executable.h"
#include "hlo/analysis/verifier.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/ir/denormal_mode.h"
#include "hlo/text/parser.h"

namespace xlite::cpu {
namespace {

constexpr uint32_t kTiny = 0x000116c2;            // 1e-40f, subnormal
constexpr uint32_t kNegTiny = 0x800116c2;         // -1e-40f
constexpr uint32_t kSmall = 0x1e3ce508;           // 1e-20f (its square: 1e-40)
constexpr uint32_t kOne = 0x3f800000;             // 1.0f
constexpr uint32_t kNegZero = 0x80000000;         // -0.0f
constexpr uint32_t kInf = 0x7f800000;             // inf
constexpr uint32_t kNegInf = 0xff800000;          // -inf
constexpr uint64_t kTiny64 = 0x000012688b70e62b;  // 1e-310, subnormal
constexpr uint64_t kNegZero64 = 0x8000000000000000;
constexpr uint64_t kOne64 = 0x3ff0000000000000;  // 1.0

// A literal of `type` holding the given element bits.
Literal Bits(PrimitiveType type, std::initializer_list<uint64_t> bits) {
  Literal literal(Shape(type, {static_cast<int64_t>(bits.size())}));
  int64_t i = 0;
  for (uint64_t b : bits) literal.SetBits(i++, b);
  return literal;
}
Literal F32(std::initializer_list<uint64_t> bits) {
  return Bits(PrimitiveType::kF32, bits);
}
Literal F64(std::initializer_list<uint64_t> bits) {
  return Bits(PrimitiveType::kF64, bits);
}
Literal Pred(std::initializer_list<uint64_t> values) {
  return Bits(PrimitiveType::kPred, values);
}

bool IsNan(const Literal& l, int64_t i) { return std::isnan(l.GetAsDouble(i)); }

// Equal bits, any NaN matching any NaN.
::testing::AssertionResult SameBits(const Literal& want, const Literal& got) {
  if (want.shape().ToString(false) != got.shape().ToString(false)) {
    return ::testing::AssertionFailure()
           << "shape " << got.shape().ToString() << ", want "
           << want.shape().ToString();
  }
  for (int64_t i = 0; i < want.element_count(); ++i) {
    const bool nan = IsFloatingPoint(want.shape().element_type()) &&
                     IsNan(want, i) && IsNan(got, i);
    if (!nan && want.GetBits(i) != got.GetBits(i)) {
      return ::testing::AssertionFailure()
             << absl::StrFormat("element %d is %#x, want %#x", i,
                                got.GetBits(i), want.GetBits(i));
    }
  }
  return ::testing::AssertionSuccess();
}

// "ROOT r = <result> <op>(p0, ...)<attributes>" over parameters of the
// arguments' shapes.
std::string OneOp(const std::string& result, const std::string& op,
                  const std::vector<Literal>& args,
                  const std::string& attributes = "") {
  std::string text = "HloModule m\n\nENTRY e {\n";
  std::string operands;
  for (size_t k = 0; k < args.size(); ++k) {
    absl::StrAppend(&text, "  p", k, " = ", args[k].shape().ToString(false),
                    " parameter(", k, ")\n");
    absl::StrAppend(&operands, k ? ", " : "", "p", k);
  }
  absl::StrAppend(&text, "  ROOT r = ", result, " ", op, "(", operands, ")",
                  attributes, "\n}\n");
  return text;
}

std::unique_ptr<HloModule> Parse(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status().message();
  if (!module.ok()) return nullptr;
  EXPECT_TRUE(VerifyModule(**module).ok()) << text;
  return *std::move(module);
}

absl::StatusOr<Literal> RunOnCpu(const std::string& text,
                                 const std::vector<Literal>& args) {
  std::unique_ptr<HloModule> module = Parse(text);
  if (module == nullptr) return absl::InvalidArgumentError("bad module");
  absl::StatusOr<std::unique_ptr<CpuExecutable>> exe =
      CpuExecutable::Compile(std::move(module));
  if (!exe.ok()) return exe.status();
  return (*exe)->Run(args);
}

absl::StatusOr<Literal> Interpret(const std::string& text,
                                  const std::vector<Literal>& args,
                                  DenormalMode mode) {
  std::unique_ptr<HloModule> module = Parse(text);
  if (module == nullptr) return absl::InvalidArgumentError("bad module");
  return EvaluateModule(*module, args, {.denormals = mode});
}

// `text` on `args` gives `want` on the CPU backend and the interpreter.
void ExpectXlaCpu(const std::string& text, const std::vector<Literal>& args,
                  const Literal& want) {
  SCOPED_TRACE(text);
  absl::StatusOr<Literal> cpu = RunOnCpu(text, args);
  ASSERT_TRUE(cpu.ok()) << cpu.status().message();
  EXPECT_TRUE(SameBits(want, *cpu)) << "cpu backend";
  absl::StatusOr<Literal> interpreted =
      Interpret(text, args, DenormalMode::kFlushToZero);
  ASSERT_TRUE(interpreted.ok()) << interpreted.status().message();
  EXPECT_TRUE(SameBits(want, *interpreted)) << "interpreter";
}

// The op on `args` gives `want` (XLA:CPU) and, with gradual underflow,
// `ieee`.
void ExpectOp(const std::string& result, const std::string& op,
              std::vector<Literal> args, const Literal& want,
              const Literal* ieee = nullptr,
              const std::string& attributes = "") {
  const std::string text = OneOp(result, op, args, attributes);
  ExpectXlaCpu(text, args, want);
  if (ieee != nullptr) {
    absl::StatusOr<Literal> got = Interpret(text, args, DenormalMode::kIeee);
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_TRUE(SameBits(*ieee, *got)) << text << "with gradual underflow";
  }
}

TEST(DenormalsTest, ArithmeticFlushesOperandsAndResults) {
  const Literal ieee_product = F32({kTiny, kNegTiny, kTiny});
  ExpectOp("f32[3]", "multiply",
           {F32({kTiny, kNegTiny, kSmall}), F32({kOne, kOne, kSmall})},
           F32({0, kNegZero, 0}), &ieee_product);
  // 1e-40 / 1e-40 is 0 / 0.
  ExpectOp("f32[2]", "divide", {F32({kTiny, kOne}), F32({kTiny, kTiny})},
           F32({0x7fc00000, kInf}));
  // 2e-38 - 1.9e-38 = 1e-39, a subnormal result.
  ExpectOp("f32[2]", "add", {F32({kTiny, 0x00d9c7dd}), F32({0, 0x80cee445})},
           F32({0, 0}));
  ExpectOp("f64[2]", "multiply",
           {F64({kTiny64, kTiny64 | kNegZero64}), F64({kOne64, kOne64})},
           F64({0, kNegZero64}));
}

TEST(DenormalsTest, NarrowFloats) {
  using T = PrimitiveType;
  // bf16 computes in f32, where its subnormals are f32 subnormals ...
  ExpectOp("bf16[3]", "multiply",
           {Bits(T::kBF16, {0x0001, 0x8001, 0x0080}),
            Bits(T::kBF16, {0x3f80, 0x3f80, 0x3f80})},
           Bits(T::kBF16, {0, 0x8000, 0x0080}));
  ExpectOp("bf16[2]", "maximum",
           {Bits(T::kBF16, {0x0001, 0x8001}), Bits(T::kBF16, {0x8000, 0})},
           Bits(T::kBF16, {0, 0}));
  ExpectOp("bf16[2]", "sign", {Bits(T::kBF16, {0x0001, 0x8001})},
           Bits(T::kBF16, {0, 0x8000}));
  // ... f16's are normal there, and kept.
  ExpectOp("f16[2]", "multiply",
           {Bits(T::kF16, {0x0001, 0x00a8}), Bits(T::kF16, {0x3c00, 0x3c00})},
           Bits(T::kF16, {0x0001, 0x00a8}));
}

TEST(DenormalsTest, ComparisonsReadSubnormalsAsZero) {
  ExpectOp("pred[3]", "compare",
           {F32({kTiny, kNegTiny, 0x00d9c7dd}), F32({0, 0, 0})},
           Pred({1, 1, 0}), nullptr, ", direction=EQ");
  ExpectOp("pred[2]", "compare", {F32({kTiny, kNegTiny}), F32({0, 0})},
           Pred({0, 0}), nullptr, ", direction=GT");
  ExpectOp("pred[2]", "compare", {F32({kTiny, kNegTiny}), F32({0, 0})},
           Pred({0, 0}), nullptr, ", direction=LT");
  // Total order compares bits: nothing is flushed.
  ExpectOp("pred[2]", "compare", {F32({kTiny, kNegTiny}), F32({0, 0})},
           Pred({1, 0}), nullptr, ", direction=GT, type=TOTALORDER");
}

TEST(DenormalsTest, MaximumAndMinimumReadSubnormalsAsSignedZeros) {
  ExpectOp("f32[4]", "maximum",
           {F32({kTiny, kNegTiny, kTiny, kNegTiny}),
            F32({kNegZero, kNegZero, 0, 0})},
           F32({0, kNegZero, 0, 0}));
  ExpectOp("f32[3]", "minimum",
           {F32({kTiny, kNegTiny, kTiny}), F32({0, 0, kNegZero})},
           F32({0, kNegZero, kNegZero}));
  ExpectOp("f64[2]", "maximum",
           {F64({kTiny64, kTiny64}), F64({kNegZero64, kTiny64 | kNegZero64})},
           F64({0, 0}));
}

TEST(DenormalsTest, UnaryOps) {
  const Literal tiny = F32({kTiny, kNegTiny});
  ExpectOp("f32[3]", "sign", {F32({kTiny, kNegTiny, 0x00d9c7dd})},
           F32({0, kNegZero, kOne}));
  ExpectOp("f32[1]", "floor", {F32({kNegTiny})}, F32({kNegZero}));
  ExpectOp("f32[1]", "ceil", {F32({kTiny})}, F32({0}));
  ExpectOp("f32[2]", "sqrt", {F32({kTiny, kNegTiny})}, F32({0, kNegZero}));
  ExpectOp("f32[2]", "rsqrt", {F32({kTiny, kNegTiny})}, F32({kInf, kNegInf}));
  // Four elements: XLA:CPU's vector loop. (Its scalar remainder, which
  // three elements would reach, gives -150 ln 2 and NaN: README.)
  ExpectOp("f32[4]", "log", {F32({kTiny, kNegTiny, 0, kTiny})},
           F32({kNegInf, kNegInf, kNegInf, kNegInf}));
  ExpectOp("f32[2]", "log-plus-one", {F32({kTiny, kNegTiny})},
           F32({0, kNegZero}), &tiny);
  // These keep a subnormal operand as their value.
  ExpectOp("f32[2]", "exponential-minus-one", {F32({kTiny, kNegTiny})}, tiny);
  ExpectOp("f32[2]", "tanh", {F32({kTiny, kNegTiny})}, tiny);
  ExpectOp("f32[2]", "negate", {F32({kTiny, kNegTiny})},
           F32({kNegTiny, kTiny}));
  ExpectOp("f32[2]", "abs", {F32({kTiny, kNegTiny})}, F32({kTiny, kTiny}));
  // e^-100 and e^-88 are subnormal; e^(1e-40) is 1.
  ExpectOp("f32[3]", "exponential", {F32({0xc2c80000, 0xc2b00000, kTiny})},
           F32({0, 0, kOne}));
  ExpectOp("f32[1]", "logistic", {F32({kTiny})}, F32({0x3f000000}));
  ExpectOp("f64[3]", "log", {F64({kTiny64, kTiny64 | kNegZero64, 0})},
           F64({0xfff0000000000000, 0xfff0000000000000, 0xfff0000000000000}));
  ExpectOp("f64[1]", "exponential-minus-one", {F64({kTiny64})}, F64({kTiny64}));
  ExpectOp("f64[1]", "sign", {F64({kTiny64 | kNegZero64})}, F64({kNegZero64}));
  // f64 tanh, unlike f32's, reads the subnormal as zero.
  ExpectOp("f64[1]", "tanh", {F64({kTiny64})}, F64({0}));
  ExpectOp("f32[1]", "round-nearest-afz", {F32({kTiny})}, F32({0}));
  ExpectOp("f32[2]", "sine", {F32({kTiny, kNegTiny})}, tiny);
  // f32 cbrt of a subnormal is -5.6e-16 in XLA:CPU (its approximation of
  // a flushed operand), and in xlite; f64's is 0.
  ExpectOp("f32[1]", "cbrt", {F32({kTiny})}, F32({0xa6214518}));
  ExpectOp("f64[1]", "cbrt", {F64({kTiny64})}, F64({0}));
}

TEST(DenormalsTest, BinaryOps) {
  // fmod computes on the bits: 1e-40 rem 1 is 1e-40; 1 rem 1e-40 is 1 rem 0.
  ExpectOp("f32[2]", "remainder", {F32({kTiny, kOne}), F32({kOne, kTiny})},
           F32({kTiny, 0x7fc00000}));
  ExpectOp("f32[2]", "power", {F32({kTiny, kOne}), F32({kOne, kTiny})},
           F32({0, kOne}));
  // jnp.arctan: atan2(x, 1).
  ExpectOp("f32[1]", "atan2", {F32({kTiny}), F32({kOne})}, F32({kTiny}));
  // f64's reads it as zero when the 1 is a parameter (XLA:CPU keeps it
  // when the 1 is a constant and there are two elements or more: README).
  ExpectOp("f64[4]", "atan2",
           {F64({kTiny64, kTiny64, kTiny64, kTiny64}),
            F64({kOne64, kOne64, kOne64, kOne64})},
           F64({0, 0, 0, 0}));
  ExpectOp("f32[3]", "clamp",
           {F32({0, kNegZero, kNegTiny}), F32({kTiny, kTiny, kTiny}),
            F32({kOne, kOne, kOne})},
           F32({0, 0, 0}));
  // reduce-precision keeps them (on the bits), rounding to the new width.
  ExpectOp("f32[2]", "reduce-precision", {F32({kTiny, kNegTiny})},
           F32({kTiny, kNegTiny}), nullptr,
           ", exponent_bits=8, mantissa_bits=23");
  ExpectOp("f32[2]", "reduce-precision", {F32({kTiny, kNegTiny})},
           F32({0x00010000, 0x80010000}), nullptr,
           ", exponent_bits=8, mantissa_bits=7");
}

TEST(DenormalsTest, ConvertsFlushWhereTheHardwareConverts) {
  using T = PrimitiveType;
  // f32 <-> f64 and f64 -> bf16 (through f32) flush ...
  ExpectOp("f64[3]", "convert", {F32({kTiny, kNegTiny, 0x00d9c7dd})},
           F64({0, kNegZero64, 0x381b38fba0000000}));
  ExpectOp("f32[2]", "convert", {F64({0x37a16c262777579c, 0xb7a16c262777579c})},
           F32({0, kNegZero}));
  ExpectOp("bf16[2]", "convert",
           {F64({0x37a16c262777579c, 0x3810000000000000})},
           Bits(T::kBF16, {0, 0x0080}));
  ExpectOp("f64[3]", "convert", {Bits(T::kBF16, {0x0001, 0x8001, 0x0080})},
           F64({0, kNegZero64, 0x3810000000000000}));
  ExpectOp("pred[2]", "convert", {F32({kTiny, 0x00d9c7dd})}, Pred({0, 1}));
  // ... bf16, f16 and f32 <-> bf16 convert on the bits and keep them.
  ExpectOp("bf16[2]", "convert", {F32({kTiny, kNegTiny})},
           Bits(T::kBF16, {0x0001, 0x8001}));
  ExpectOp("f32[1]", "convert", {Bits(T::kBF16, {0x0001})}, F32({0x00010000}));
  ExpectOp("pred[2]", "convert", {Bits(T::kBF16, {0x0001, 0x8000})},
           Pred({1, 0}));
  ExpectOp("f16[1]", "convert", {F32({0x3727c5ac})}, Bits(T::kF16, {0x00a8}));
  ExpectOp("s32[2]", "bitcast-convert", {F32({kTiny, 1})},
           Bits(T::kS32, {kTiny, 1}));
  ExpectOp("pred[2]", "convert", {F64({kTiny64, 0x37a16c262777579c})},
           Pred({0, 1}));
  // Complex -> pred compares in hardware, complex -> bf16 keeps the bits.
  for (const char* to : {"pred", "bf16"}) {
    ExpectXlaCpu(absl::StrCat(R"(
HloModule m
ENTRY e { re = f32[2] parameter(0)  im = f32[2] parameter(1)
          c = c64[2] complex(re, im)
          ROOT r = )",
                              to, "[2] convert(c) }"),
                 {F32({kTiny, kOne}), F32({kTiny, kTiny})},
                 to == std::string("pred") ? Pred({0, 1})
                                           : Bits(T::kBF16, {0x0001, 0x3f80}));
  }
  // c128 -> c64 narrows each part in hardware: (1e-310, 1e-310) is 0,
  // (-1e-310, 1) is (-0, 1).
  ExpectXlaCpu(R"(
HloModule m
ENTRY e { re = f64[2] parameter(0)  im = f64[2] parameter(1)
          c = c128[2] complex(re, im)  n = c64[2] convert(c)
          r = f32[2] real(n)  i = f32[2] imag(n)
          ROOT t = f32[4] concatenate(r, i), dimensions={0} })",
               {F64({kTiny64, kTiny64 | kNegZero64}), F64({kTiny64, kOne64})},
               F32({0, kNegZero, 0, kOne}));
}

TEST(DenormalsTest, E8M0TwoToTheMinus127) {
  using T = PrimitiveType;
  // Its 2^-127 is an f32 subnormal: converts keep it, arithmetic reads it
  // as zero, which f8e8m0fnu has not (NaN).
  ExpectOp("f32[2]", "convert", {Bits(T::kF8E8M0FNU, {0x00, 0x01})},
           F32({0x00400000, 0x00800000}));
  ExpectOp("f64[1]", "convert", {Bits(T::kF8E8M0FNU, {0x00})},
           F64({0x3800000000000000}));
  ExpectOp("pred[1]", "convert", {Bits(T::kF8E8M0FNU, {0x00})}, Pred({1}));
  ExpectOp("bf16[2]", "convert", {Bits(T::kF8E8M0FNU, {0x00, 0x01})},
           Bits(T::kBF16, {0x0040, 0x0080}));
  ExpectOp("f8e8m0fnu[3]", "convert",
           {Bits(T::kBF16, {0x0040, 0x0001, 0x0060})},
           Bits(T::kF8E8M0FNU, {0x00, 0x00, 0x01}));
  ExpectOp("f8e8m0fnu[3]", "convert", {F32({0x00400000, kTiny, 0x00600000})},
           Bits(T::kF8E8M0FNU, {0x00, 0x00, 0x01}));
  ExpectOp("f8e8m0fnu[1]", "multiply",
           {Bits(T::kF8E8M0FNU, {0x00}), Bits(T::kF8E8M0FNU, {0x7f})},
           Bits(T::kF8E8M0FNU, {0xff}));
  ExpectOp("f8e8m0fnu[1]", "maximum",
           {Bits(T::kF8E8M0FNU, {0x00}), Bits(T::kF8E8M0FNU, {0x00})},
           Bits(T::kF8E8M0FNU, {0xff}));
  // From f64: 2^-127, 2^-128, 1.2 * 2^-127, 1e-310.
  ExpectOp("f8e8m0fnu[4]", "convert",
           {F64({0x3800000000000000, 0x37f0000000000000, 0x3803333333333333,
                 kTiny64})},
           Bits(T::kF8E8M0FNU, {0x00, 0xff, 0x01, 0xff}));
}

// An f32 literal of the given dimensions, every element `bits`.
Literal Filled(std::vector<int64_t> dimensions, uint32_t bits) {
  Literal literal(Shape(PrimitiveType::kF32, std::move(dimensions)));
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    literal.SetBits(i, bits);
  }
  return literal;
}

TEST(DenormalsTest, ReductionsAndDots) {
  // 64 x 1e-40 is a normal 6.4e-39 ... when nothing flushes.
  ExpectXlaCpu(R"(
HloModule m
add { a = f32[] parameter(0)  b = f32[] parameter(1)
      ROOT s = f32[] add(a, b) }
ENTRY e { p = f32[1,64] parameter(0)  z = f32[] constant(0)
          ROOT r = f32[1] reduce(p, z), dimensions={1}, to_apply=add })",
               {Filled({1, 64}, kTiny)}, F32({0}));
  ExpectXlaCpu(R"(
HloModule m
max { a = f32[] parameter(0)  b = f32[] parameter(1)
      ROOT s = f32[] maximum(a, b) }
min { a = f32[] parameter(0)  b = f32[] parameter(1)
      ROOT s = f32[] minimum(a, b) }
ENTRY e { p = f32[4] parameter(0)  lo = f32[] constant(-inf)
          hi = f32[] constant(inf)
          mx = f32[] reduce(p, lo), dimensions={0}, to_apply=max
          mn = f32[] reduce(p, hi), dimensions={0}, to_apply=min
          ROOT r = f32[2] concatenate(f32[1] reshape(mx), f32[1] reshape(mn)),
                   dimensions={0} })",
               {F32({kTiny, kNegTiny, 0, kNegZero})}, F32({0, kNegZero}));
  // A row long enough to reduce in vector strips: its maximum is the
  // subnormal's +0, not -1.
  Literal row = Filled({1, 64}, 0xbf800000);
  row.SetBits(37, kTiny);
  ExpectXlaCpu(R"(
HloModule m
max { a = f32[] parameter(0)  b = f32[] parameter(1)
      ROOT s = f32[] maximum(a, b) }
ENTRY e { p = f32[1,64] parameter(0)  lo = f32[] constant(-inf)
          ROOT r = f32[1] reduce(p, lo), dimensions={1}, to_apply=max })",
               {row}, F32({0}));
  // Products of 1e-20s are subnormal: the sums are 0 where IEEE gives
  // 5.12e-38. The 512-long contraction runs through the runtime library's
  // GEMM, split over its thread pool, whose workers flush too.
  for (int64_t n : {2, 512}) {
    const std::string shape = absl::StrCat("f32[", n, ",", n, "]");
    absl::StatusOr<Literal> got = RunOnCpu(
        absl::StrCat("HloModule m\nENTRY e { a = ", shape, " parameter(0)\n",
                     "b = ", shape, " parameter(1)\n ROOT d = ", shape,
                     " dot(a, b), lhs_contracting_dims={1}, "
                     "rhs_contracting_dims={0} }"),
        {Filled({n, n}, kSmall), Filled({n, n}, kSmall)});
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_TRUE(SameBits(Filled({n, n}, 0), *got)) << n;
  }
}

TEST(DenormalsTest, ScansSortsAndConvolutions) {
  // A running sum of 1e-40s (jnp.cumsum) stays 0.
  ExpectXlaCpu(R"(
HloModule m
add { a = f32[] parameter(0)  b = f32[] parameter(1)
      ROOT s = f32[] add(a, b) }
ENTRY e { p = f32[16] parameter(0)  z = f32[] constant(0)
          ROOT r = f32[16] reduce-window(p, z), window={size=16 pad=15_0},
                   to_apply=add })",
               {Filled({16}, kTiny)}, Filled({16}, 0));
  // A stable sort by less-than (jnp.sort): 1e-40, 0, -1e-40 and -0 tie.
  ExpectXlaCpu(R"(
HloModule m
lt { a = f32[] parameter(0)  b = f32[] parameter(1)
     ROOT c = pred[] compare(a, b), direction=LT }
ENTRY e { p = f32[6] parameter(0)
          ROOT s = f32[6] sort(p), dimensions={0}, is_stable=true,
                   to_apply=lt })",
               {F32({kTiny, 0, kNegTiny, kNegZero, 0xbf800000, kTiny})},
               F32({0xbf800000, kTiny, 0, kNegTiny, kNegZero, kTiny}));
  ExpectXlaCpu(R"(
HloModule m
ENTRY e { x = f32[1,1,8] parameter(0)  w = f32[1,1,3] parameter(1)
          ROOT c = f32[1,1,6] convolution(x, w), window={size=3},
                   dim_labels=bf0_oi0->bf0 })",
               {Filled({1, 1, 8}, kSmall), Filled({1, 1, 3}, kSmall)},
               Filled({1, 1, 6}, 0));
}

TEST(DenormalsTest, SplitKernelsFlushOnEveryThread) {
  // Large enough for the CPU backend to split it over the thread pool.
  const int64_t rows = 1024, columns = 4096;
  absl::StatusOr<Literal> got = RunOnCpu(
      "HloModule m\nENTRY e { a = f32[1024,4096] parameter(0)\n"
      " ROOT m = f32[1024,4096] multiply(a, a) }",
      {Filled({rows, columns}, kSmall)});
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_TRUE(SameBits(Filled({rows, columns}, 0), *got));
}

TEST(DenormalsTest, RunRestoresTheCallersMode) {
  if (!kDenormalModeSettable) GTEST_SKIP() << "no denormal mode here";
  std::vector<Literal> args;
  args.push_back(F32({kSmall}));
  args.push_back(F32({kSmall}));
  const std::string text = OneOp("f32[1]", "multiply", args);
  for (DenormalMode caller :
       {DenormalMode::kIeee, DenormalMode::kFlushToZero}) {
    ScopedDenormalMode mode(caller);
    absl::StatusOr<Literal> got = RunOnCpu(text, args);
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_TRUE(SameBits(F32({0}), *got));
    EXPECT_EQ(CurrentDenormalMode(), caller);
    absl::StatusOr<Literal> interpreted =
        Interpret(text, args, DenormalMode::kFlushToZero);
    ASSERT_TRUE(interpreted.ok());
    EXPECT_EQ(CurrentDenormalMode(), caller);
  }
}

TEST(DenormalsTest, ConstantsFoldWithGradualUnderflow) {
  // XLA folds constants at compile time, where nothing flushes: 1e-20 *
  // 1e-20 is the subnormal 1e-40, though its code would compute 0.
  absl::StatusOr<Literal> got = RunOnCpu(R"(
HloModule m
ENTRY e { a = f32[] constant(1e-20)
          ROOT m = f32[] multiply(a, a) })",
                                         {});
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(got->GetBits(0), kTiny);
}

}  // namespace
}  // namespace xlite::cpu
