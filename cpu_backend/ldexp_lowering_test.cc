// The exp of compiled kernels, whose last step (p 2^n) is a call lowered
// after vectorization (vscalefps on an AVX-512 host, two multiplies
// elsewhere), equals the evaluator's bit for bit over the whole range,
// both with denormals flushed as the code runs: subnormal results (zeros
// there), the overflow edge, infinities and NaN included; and no call of
// the placeholder reaches the linker.

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "cpu_backend/executable.h"
#include "cpu_backend/jit.h"
#include "hlo/ir/denormal_mode.h"
#include "hlo/ir/float_approximations.h"
#include "hlo/text/parser.h"

namespace xlite::cpu {
namespace {

// Every 997th float bit pattern from -110 to 90 (the window where exp is
// neither 0 nor inf, with margins), and the special values.
std::vector<float> Inputs() {
  std::vector<float> values = {
      0.0f,     -0.0f,    INFINITY, -INFINITY, NAN,   -NAN,      -104.0f,
      -103.97f, -87.336f, 88.7228f, 88.72284f, 88.8f, 0x1p-149f, -0x1p-149f};
  auto add_range = [&](float from, float to) {
    uint32_t a = std::bit_cast<uint32_t>(from);
    uint32_t b = std::bit_cast<uint32_t>(to);
    for (uint32_t bits = std::min(a, b); bits < std::max(a, b); bits += 997) {
      values.push_back(std::bit_cast<float>(bits));
    }
  };
  add_range(0.0f, 90.0f);
  add_range(-0.0f, -110.0f);
  return values;
}

void ExpectBitIdentical(const std::string& op, float (*reference)(float)) {
  const std::vector<float> inputs = Inputs();
  const int64_t n = inputs.size();
  const std::string text = "HloModule m\nENTRY e {\n  x = f32[" +
                           std::to_string(n) +
                           "] parameter(0)\n  ROOT y = f32[" +
                           std::to_string(n) + "] " + op + "(x)\n}\n";
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  CompileOptions options;
  options.keep_llvm_ir = true;
  absl::StatusOr<std::unique_ptr<CpuExecutable>> exe =
      CpuExecutable::Compile(*std::move(module), options);
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_EQ((*exe)->llvm_ir().find("xlite_ldexp"), std::string::npos);
  if (HostCpuFeatures().find("+avx512f") != std::string::npos) {
    EXPECT_NE((*exe)->llvm_ir().find("scalef"), std::string::npos);
  }
  Literal x(Shape::WithDefaultLayout(PrimitiveType::kF32, {n}));
  for (int64_t i = 0; i < n; ++i) {
    x.SetBits(i, std::bit_cast<uint32_t>(inputs[i]));
  }
  absl::StatusOr<Literal> got = (*exe)->Run({x});
  ASSERT_TRUE(got.ok()) << got.status();
  int mismatches = 0;
  ScopedDenormalMode flush(DenormalMode::kFlushToZero);
  for (int64_t i = 0; i < n && mismatches < 5; ++i) {
    const float want = reference(inputs[i]);
    const float have =
        std::bit_cast<float>(static_cast<uint32_t>(got->GetBits(i)));
    if (std::isnan(want)
            ? std::isnan(have)
            : std::bit_cast<uint32_t>(want) == std::bit_cast<uint32_t>(have)) {
      continue;
    }
    ++mismatches;
    ADD_FAILURE() << op << "(" << inputs[i] << "): want " << want << ", got "
                  << have;
  }
}

TEST(LdexpLowering, ExpBitIdenticalToTheEvaluator) {
  ExpectBitIdentical("exponential", &approx::ExpF32);
}

TEST(LdexpLowering, TanhBitIdenticalToTheEvaluator) {
  ExpectBitIdentical("tanh", &approx::TanhF32);
}

}  // namespace
}  // namespace xlite::cpu
