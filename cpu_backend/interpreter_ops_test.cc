// Ops the interpreter runs that the CPU backend compiles natively beyond
// the everyday ones (rng and its state, scan, batch-norm, dynamic-reshape,
// ragged-dot, scaled-dot, the block-scaled custom calls): each module runs
// on the CPU backend and on the evaluator with the same random arguments.
// Where the evaluator's arithmetic is exact the results must agree bit for
// bit; the dots agree within the corpus tolerances (the evaluator sums
// with Eigen's blocked GEMM, the CPU backend in index order).

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cpu_backend/executable.h"
#include "cpu_backend/multi_device.h"
#include "cpu_backend/runtime_lib/test_support.h"
#include "hlo/analysis/verifier.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"

namespace xlite::cpu {
namespace {

enum class Compare { kBits, kNear };

void Leaves(const Literal& l, std::vector<const Literal*>* out) {
  if (l.shape().IsTuple()) {
    for (const Literal& e : l.tuple_elements()) Leaves(e, out);
  } else {
    out->push_back(&l);
  }
}

::testing::AssertionResult SameBits(const Literal& want, const Literal& got) {
  if (want.shape().ToString(false) != got.shape().ToString(false)) {
    return ::testing::AssertionFailure()
           << "shape " << got.shape().ToString(false) << ", want "
           << want.shape().ToString(false);
  }
  const bool complex = IsComplex(want.shape().element_type());
  for (int64_t i = 0; i < want.element_count(); ++i) {
    const bool same = complex ? want.GetAsComplex(i) == got.GetAsComplex(i)
                              : want.GetBits(i) == got.GetBits(i);
    if (!same) {
      return ::testing::AssertionFailure()
             << "element " << i << " is " << got.ElementToString(i) << ", want "
             << want.ElementToString(i);
    }
  }
  return ::testing::AssertionSuccess();
}

// Runs `text` on `devices` replicas with random arguments (uniform in
// [lo, hi]) on both platforms and compares every result leaf.
void ExpectMatchesEvaluator(const std::string& text, Compare compare,
                            int64_t devices = 1, double lo = -4,
                            double hi = 4) {
  SCOPED_TRACE(text);
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status().message();
  ASSERT_TRUE(VerifyModule(**module).ok()) << VerifyModule(**module).message();
  std::mt19937_64 rng(11);
  std::vector<std::vector<Literal>> args(devices);
  for (auto& device : args) {
    for (const HloInstruction* p :
         (*module)->entry_computation()->parameter_instructions()) {
      device.push_back(rtlib_test::RandomLiteral(p->shape(), rng, lo, hi));
    }
  }
  auto want = EvaluateOnDevices(**module, devices, 1, args);
  ASSERT_TRUE(want.ok()) << want.status().message();
  auto exe = CpuExecutable::Compile((*module)->Clone());
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  auto got = RunOnDevices(**exe, devices, 1, args);
  ASSERT_TRUE(got.ok()) << got.status().message();
  for (int64_t d = 0; d < devices; ++d) {
    std::vector<const Literal*> w, g;
    Leaves((*want)[d], &w);
    Leaves((*got)[d], &g);
    ASSERT_EQ(w.size(), g.size());
    for (size_t k = 0; k < w.size(); ++k) {
      EXPECT_TRUE(compare == Compare::kBits ? SameBits(*w[k], *g[k])
                                            : rtlib_test::Near(*w[k], *g[k]))
          << "device " << d << ", result " << k;
    }
  }
}

// --- rng and rng-get-and-update-state ---

TEST(InterpreterOps, RngDrawsTheEvaluatorsStream) {
  // Several rng instructions continue one stream in the evaluator's order;
  // every distribution and a narrow type; each device has its own seed.
  ExpectMatchesEvaluator(R"(HloModule m, replica_count=2
ENTRY e {
  a = f32[] constant(-2)
  b = f32[] constant(3)
  u = f32[3,4]{0,1} rng(a, b), distribution=rng_uniform
  n = f32[5] rng(a, b), distribution=rng_normal
  h = bf16[] constant(1)
  z = bf16[] constant(2)
  w = bf16[7] rng(h, z), distribution=rng_uniform
  lo = s32[] constant(-5)
  hi = s32[] constant(100)
  i = s32[2,3] rng(lo, hi), distribution=rng_uniform
  d = f64[] constant(0.5)
  x = f64[4] rng(d, d), distribution=rng_normal
  ROOT t = (f32[3,4]{0,1}, f32[5], bf16[7], s32[2,3], f64[4]) tuple(u, n, w, i, x)
})",
                         Compare::kBits, 2);
}

TEST(InterpreterOps, RngInsideALoopContinuesTheStream) {
  ExpectMatchesEvaluator(R"(HloModule m
cond {
  s = (s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  j = s32[] add(i, one)
  v = f32[3] get-tuple-element(s), index=1
  a = f32[] constant(0)
  b = f32[] constant(1)
  r = f32[3] rng(a, b), distribution=rng_uniform
  w = f32[3] add(v, r)
  ROOT t = (s32[], f32[3]) tuple(j, w)
}
ENTRY e {
  p = f32[3] parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[3]) tuple(z, p)
  ROOT w = (s32[], f32[3]) while(t), condition=cond, body=body
})",
                         Compare::kBits);
}

TEST(InterpreterOps, RngGetAndUpdateState) {
  ExpectMatchesEvaluator(R"(HloModule m
ENTRY e {
  a = u64[2] rng-get-and-update-state(), delta=5
  b = u64[2] rng-get-and-update-state(), delta=7
  c = u64[] rng-get-and-update-state(), delta=1
  ROOT t = (u64[2], u64[2], u64[]) tuple(a, b, c)
})",
                         Compare::kBits);
}

TEST(InterpreterOps, RngWithEmptyIntegerRangeFailsTheRun) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(R"(
HloModule m
ENTRY e {
  a = s32[] constant(3)
  ROOT r = s32[4] rng(a, a), distribution=rng_uniform
})");
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto exe = CpuExecutable::Compile(*std::move(module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  EXPECT_FALSE((*exe)->Run({}).ok());
}

// --- scan (a while loop on the cpu) ---

TEST(InterpreterOps, ScanForwardAndReverse) {
  for (const char* reverse : {"false", "true"}) {
    ExpectMatchesEvaluator(absl::StrCat(R"(HloModule m
step {
  x = f32[2] parameter(0)
  y = s32[2] parameter(1)
  c = f32[2] parameter(2)
  k = s32[] parameter(3)
  s = f32[2] add(x, c)
  m = f32[2] multiply(s, x)
  yc = s32[2] broadcast(k), dimensions={}
  z = s32[2] add(y, yc)
  one = s32[] constant(1)
  k1 = s32[] add(k, one)
  ROOT t = (f32[2], s32[2], f32[2], s32[]) tuple(m, z, s, k1)
}
ENTRY e {
  xs = f32[2,5]{0,1} parameter(0)
  ys = s32[2,5] parameter(1)
  init = f32[2] parameter(2)
  k = s32[] parameter(3)
  ROOT r = (f32[2,5], s32[2,5]{0,1}, f32[2], s32[]) scan(xs, ys, init, k),
      dimensions={1}, num_carries=2, is_reverse=)",
                                        reverse, R"(, to_apply=step
})"),
                           Compare::kBits);
  }
}

TEST(InterpreterOps, ScanWithoutOutputsAndWithoutSteps) {
  ExpectMatchesEvaluator(R"(HloModule m
step {
  x = f32[3] parameter(0)
  c = f32[3] parameter(1)
  ROOT t = (f32[3]) tuple(c)
}
sum {
  x = f32[] parameter(0)
  c = f32[] parameter(1)
  s = f32[] add(x, c)
  ROOT t = (f32[], f32[]) tuple(s, s)
}
ENTRY e {
  xs = f32[4,3] parameter(0)
  init = f32[3] parameter(1)
  a = (f32[3]) scan(xs, init), dimensions={0}, num_carries=1, to_apply=step
  none = f32[0] parameter(2)
  z = f32[] constant(7)
  b = (f32[0], f32[]) scan(none, z), dimensions={0}, num_carries=1, to_apply=sum
  ROOT t = ((f32[3]), (f32[0], f32[])) tuple(a, b)
})",
                         Compare::kBits);
}

TEST(InterpreterOps, ScanWithATupleCarry) {
  ExpectMatchesEvaluator(R"(HloModule m
step {
  x = f32[2] parameter(0)
  c = (f32[2], s32[]) parameter(1)
  a = f32[2] get-tuple-element(c), index=0
  s = f32[2] add(x, a)
  k = s32[] get-tuple-element(c), index=1
  k1 = s32[] add(k, s32[] constant(2))
  ROOT t = (f32[2], (f32[2], s32[])) tuple(s, (f32[2], s32[]) tuple(s, k1))
}
ENTRY e {
  xs = f32[3,2] parameter(0)
  init = (f32[2], s32[]) parameter(1)
  ROOT r = (f32[3,2], (f32[2], s32[])) scan(xs, init), dimensions={0},
      num_carries=1, to_apply=step
})",
                         Compare::kBits);
}

// --- dynamic-reshape (static shapes: a reshape) ---

TEST(InterpreterOps, DynamicReshape) {
  ExpectMatchesEvaluator(R"(HloModule m
ENTRY e {
  x = f32[2,6]{0,1} parameter(0)
  a = s32[] constant(3)
  b = s32[] constant(4)
  ROOT r = f32[3,4] dynamic-reshape(x, a, b)
})",
                         Compare::kBits);
}

// --- batch normalization (a runtime call in double) ---

TEST(InterpreterOps, BatchNormTrainingInferenceGrad) {
  ExpectMatchesEvaluator(R"(HloModule m
ENTRY e {
  x = f32[3,4,5]{0,2,1} parameter(0)
  s = f32[4] parameter(1)
  o = f32[4] parameter(2)
  t = (f32[3,4,5], f32[4], f32[4]) batch-norm-training(x, s, o), epsilon=0.001,
      feature_index=1
  m = f32[4] get-tuple-element(t), index=1
  v0 = f32[4] get-tuple-element(t), index=2
  v = f32[4] abs(v0)
  i = f32[3,4,5] batch-norm-inference(x, s, o, m, v), epsilon=0.01,
      feature_index=1
  g = f32[3,4,5] parameter(3)
  d = (f32[3,4,5], f32[4], f32[4]) batch-norm-grad(x, s, m, v, g),
      epsilon=0.001, feature_index=1
  ROOT r = ((f32[3,4,5], f32[4], f32[4]), f32[3,4,5], (f32[3,4,5], f32[4], f32[4])) tuple(t, i, d)
})",
                         Compare::kBits);
  // Narrow types round once from double; the feature dimension last.
  ExpectMatchesEvaluator(R"(HloModule m
ENTRY e {
  x = bf16[6,3] parameter(0)
  s = bf16[3] parameter(1)
  o = bf16[3] parameter(2)
  ROOT t = (bf16[6,3], bf16[3], bf16[3]) batch-norm-training(x, s, o),
      epsilon=0.5, feature_index=1
})",
                         Compare::kBits);
}

// --- ragged-dot (elemental) and scaled-dot (expanded) ---

TEST(InterpreterOps, RaggedDotNonContractingRaggedDimension) {
  // Random group sizes in [-4, 4]: negative sizes are empty groups, rows
  // past the groups are zero.
  ExpectMatchesEvaluator(R"(HloModule m
ENTRY e {
  a = f32[2,7,3] parameter(0)
  b = f32[2,4,3,5]{1,3,2,0} parameter(1)
  g = s32[4] parameter(2)
  ROOT d = f32[2,7,5] ragged-dot(a, b, g), lhs_batch_dims={0},
      rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={2},
      lhs_ragged_dims={1}, rhs_group_dims={1}
})",
                         Compare::kNear);
  ExpectMatchesEvaluator(R"(HloModule m
ENTRY e {
  a = s8[9,4] parameter(0)
  b = s8[3,4,2] parameter(1)
  g = s64[3] parameter(2)
  ROOT d = s32[9,2] ragged-dot(a, b, g), lhs_contracting_dims={1},
      rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
})",
                         Compare::kBits);
}

TEST(InterpreterOps, RaggedDotRaggedBatchDimension) {
  ExpectMatchesEvaluator(R"(HloModule m
ENTRY e {
  a = bf16[6,2,3] parameter(0)
  b = bf16[6,3,4] parameter(1)
  g = u32[2] parameter(2)
  ROOT d = f32[6,2,4] ragged-dot(a, b, g), lhs_batch_dims={0},
      rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1},
      lhs_ragged_dims={0}
})",
                         Compare::kNear);
}

TEST(InterpreterOps, ScaledDotBlockScalesAndGlobalScales) {
  // MXFP8-like sides (e8m0 scales over blocks of 4 along K), dequantized
  // in bf16.
  ExpectMatchesEvaluator(R"(HloModule m
ENTRY e {
  a = f8e4m3fn[3,8] parameter(0)
  b = f8e5m2[5,8] parameter(1)
  af = f32[3,2] parameter(2)
  bf = f32[5,2] parameter(3)
  aa = f32[3,2] abs(af)
  ba = f32[5,2] abs(bf)
  as = f8e8m0fnu[3,2] convert(aa)
  bs = f8e8m0fnu[5,2] convert(ba)
  ROOT d = f32[3,5] scaled-dot(a, b, as, bs), lhs_contracting_dims={1},
      rhs_contracting_dims={1}
})",
                         Compare::kNear, 1, -4, 4);
  // NVFP4 with the global scales, and f32 data with an f32 scale per block
  // of 2 rows and 3 columns with a batch dimension.
  ExpectMatchesEvaluator(R"(HloModule m
ENTRY e {
  a = f4e2m1fn[2,16] parameter(0)
  b = f4e2m1fn[3,16] parameter(1)
  as = f8e4m3fn[2,1] parameter(2)
  bs = f8e4m3fn[3,1] parameter(3)
  ig = f32[] parameter(4)
  wg = f32[] parameter(5)
  d = bf16[2,3] scaled-dot(a, b, as, bs, ig, wg), lhs_contracting_dims={1},
      rhs_contracting_dims={1}
  x = f32[2,4,6] parameter(6)
  y = f32[2,6,3] parameter(7)
  xs = f32[2,2,2] parameter(8)
  ys = f32[2,3,3] parameter(9)
  s = f32[2,4,3] scaled-dot(x, y, xs, ys), lhs_batch_dims={0},
      rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
  ROOT t = (bf16[2,3], f32[2,4,3]) tuple(d, s)
})",
                         Compare::kNear, 1, 0.25, 4);
}

// --- the block-scaled custom calls (dequantize in generated code, the sum
// in the runtime library): bit-exact with the evaluator ---

TEST(InterpreterOps, BlockScaledDotOpForm) {
  // Scales as positive powers of two (e8m0), from f32 parameters.
  ExpectMatchesEvaluator(R"(HloModule m
ENTRY e {
  a = f8e4m3fn[2,3,64]{1,2,0} parameter(0)
  b = f8e5m2[2,5,64] parameter(1)
  af = f32[2,3,2] parameter(2)
  bf = f32[2,5,4] parameter(3)
  as = f8e8m0fnu[2,3,2] convert(f32[2,3,2] abs(af))
  bs = f8e8m0fnu[2,5,4] convert(f32[2,5,4] abs(bf))
  g = bf16[] parameter(4)
  four = bf16[2,3,5] custom-call(a, b, as, bs),
      custom_call_target="__op$block_scaled_dot"
  five = bf16[2,3,5] custom-call(a, b, as, bs, g),
      custom_call_target="__op$block_scaled_dot"
  r = f16[2,5,64] parameter(5)
  three = f32[2,3,5] custom-call(a, r, as),
      custom_call_target="__op$block_scaled_dot"
  ROOT t = (bf16[2,3,5], bf16[2,3,5], f32[2,3,5]) tuple(four, five, three)
})",
                         Compare::kBits);
  // Pre-padded scales with an explicit block size; an f64 result sums in
  // double.
  ExpectMatchesEvaluator(R"(HloModule m
ENTRY e {
  a = f8e4m3fn[3,40] parameter(0)
  b = f8e4m3fn[2,40] parameter(1)
  af = f32[4,3] parameter(2)
  bf = f32[2,5] parameter(3)
  as = f8e8m0fnu[4,3] convert(f32[4,3] abs(af))
  bs = f8e8m0fnu[2,5] convert(f32[2,5] abs(bf))
  ROOT d = f64[3,2] custom-call(a, b, as, bs),
      custom_call_target="__op$block_scaled_dot",
      backend_config={"block_scaled_dot_backend_config":{"block_size":16}}
})",
                         Compare::kBits);
}

TEST(InterpreterOps, CudnnBlockScaledDotSwizzledScales) {
  ExpectMatchesEvaluator(R"(HloModule m
ENTRY e {
  a = f8e4m3fn[128,64] parameter(0)
  b = f8e4m3fn[128,64] parameter(1)
  af = f32[128,4] parameter(2)
  bf = f32[128,4] parameter(3)
  as = f8e8m0fnu[128,4] convert(f32[128,4] abs(af))
  bs = f8e8m0fnu[128,4] convert(f32[128,4] abs(bf))
  g = f32[] parameter(4)
  ROOT d = (f16[128,128], u8[0]) custom-call(a, b, as, bs, g),
      custom_call_target="__cudnn$blockScaledDot"
})",
                         Compare::kBits);
}

TEST(InterpreterOps, QuantizeAndDequantizeCalls) {
  ExpectMatchesEvaluator(R"(HloModule m
ENTRY e {
  x = f32[3,2,20] parameter(0)
  q = (f8e4m3fn[3,2,20], f8e8m0fnu[3,2,2]) custom-call(x),
      custom_call_target="__op$quantize"
  d = f8e4m3fn[3,2,20] get-tuple-element(q), index=0
  s = f8e8m0fnu[3,2,2] get-tuple-element(q), index=1
  r = bf16[3,2,20] custom-call(d, s), custom_call_target="__op$dequantize"
  ROOT t = ((f8e4m3fn[3,2,20], f8e8m0fnu[3,2,2]), bf16[3,2,20]) tuple(q, r)
})",
                         Compare::kBits, 1, -300, 300);
}

TEST(InterpreterOps, MalformedBlockScaledCallsFailAtCompileTime) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(R"(
HloModule m
ENTRY e {
  a = f8e4m3fn[2,6] parameter(0)
  b = f8e4m3fn[2,6] parameter(1)
  s = f8e8m0fnu[2,4] parameter(2)
  ROOT d = f32[2,2] custom-call(a, b, s), custom_call_target="__op$block_scaled_dot"
})");
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto exe = CpuExecutable::Compile(*std::move(module));
  ASSERT_FALSE(exe.ok());
  EXPECT_NE(exe.status().message().find("cannot compile %d (custom-call): "
                                        "the block size K / scale_K does not "
                                        "divide K"),
            std::string::npos)
      << exe.status().message();
}

// --- sort whose results have different layouts (through a scratch) ---

TEST(InterpreterOps, SortOfDifferentlyLaidOutOperands) {
  ExpectMatchesEvaluator(R"(HloModule m
lt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  e = bf16[] parameter(4)
  f = bf16[] parameter(5)
  ROOT r = pred[] compare(a, b), direction=LT
}
ENTRY e {
  x = f32[4,3,5]{0,2,1} parameter(0)
  y = s32[4,3,5]{2,1,0} parameter(1)
  z = bf16[4,3,5]{1,0,2} parameter(2)
  ROOT s = (f32[4,3,5]{0,2,1}, s32[4,3,5]{2,1,0}, bf16[4,3,5]{1,0,2})
      sort(x, y, z), dimensions={1}, is_stable=true, to_apply=lt
})",
                         Compare::kBits);
}

// --- fusions the elemental emitter cannot generate run as calls ---

TEST(InterpreterOps, FusionsOfNonElementalInstructionsRunAsCalls) {
  // A sort, an rng and a custom call inside fusions, a nested tuple result;
  // the bf16 reduce inside keeps the sequential order of fused reduces.
  ExpectMatchesEvaluator(R"(HloModule m
lt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=LT
}
add {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT s = bf16[] add(a, b)
}
f {
  x = f32[100] parameter(0)
  n = f32[100] negate(x)
  s = f32[100] sort(n), dimensions={0}, to_apply=lt
  h = bf16[100] convert(s)
  r = bf16[] reduce(h, bf16[] constant(0)), dimensions={0}, to_apply=add
  u = f32[3] rng(f32[] constant(0), f32[] constant(1)), distribution=rng_uniform
  k = (f32[2], s32[2]) custom-call(x), custom_call_target="TopK",
      called_computations={lt}
  ROOT t = ((f32[100], bf16[]), f32[3], (f32[2], s32[2])) tuple(
      (f32[100], bf16[]) tuple(s, r), u, k)
}
ENTRY e {
  p = f32[100] parameter(0)
  ROOT c = ((f32[100], bf16[]), f32[3], (f32[2], s32[2])) fusion(p),
      kind=kLoop, calls=f
})",
                         Compare::kBits);
}

}  // namespace
}  // namespace xlite::cpu
