// Dots and convolutions through the runtime library (dot_library_call.cc,
// conv_library_call.cc) against the evaluator on random inputs: operand
// and result layouts ({1,0}, {0,1}, batch dimensions in the middle,
// transposed and several contracting dimensions), element types, sizes on
// both sides of the threshold, dot-wrapping fusions, a dot in a loop, and
// convolutions with padding, strides, dilations, reversal, other
// dim_labels and layouts; dots whose arrays the strided entry reads in place
// (attention's batch dots) against the same dots made dense. The emitted
// LLVM IR shows which way each went.

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cpu_backend/executable.h"
#include "cpu_backend/runtime_lib/test_support.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"

namespace xlite::cpu {
namespace {

using rtlib_test::Near;
using rtlib_test::RandomLiteral;

enum class Way { kLibrary, kLoops };

constexpr char kMatmul[] = "xlite_cpu_matmul";
constexpr char kMatmulStrided[] = "xlite_cpu_matmul_strided";
constexpr char kConv[] = "xlite_cpu_conv";

// True when the generated code calls the runtime function `call`.
bool CallsExactly(const CpuExecutable& exe, const std::string& call) {
  return exe.llvm_ir().find(absl::StrCat("call i32 @", call, "(")) !=
         std::string::npos;
}

// CallsExactly, but for kMatmul either matrix product entry.
bool Calls(const CpuExecutable& exe, const std::string& call) {
  return CallsExactly(exe, call) ||
         (call == kMatmul && CallsExactly(exe, kMatmulStrided));
}

// Compiles and runs `text` and the evaluator on the same random arguments;
// expects the results to match and `call` (a runtime function) to be
// called from the generated code exactly when `way` is kLibrary (kMatmul:
// either matrix product entry).
void Check(const std::string& text, const std::string& call, Way way,
           int seed = 1) {
  SCOPED_TRACE(text);
  absl::StatusOr<std::unique_ptr<HloModule>> reference = ParseHloModule(text);
  ASSERT_TRUE(reference.ok()) << reference.status();
  std::mt19937_64 rng(seed);
  std::vector<Literal> args;
  for (const HloInstruction* p :
       (*reference)->entry_computation()->parameter_instructions()) {
    args.push_back(RandomLiteral(p->shape(), rng));
  }
  absl::StatusOr<Literal> want = EvaluateModule(**reference, args);
  ASSERT_TRUE(want.ok()) << want.status();
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  CompileOptions options;
  options.keep_llvm_ir = true;
  absl::StatusOr<std::unique_ptr<CpuExecutable>> exe =
      CpuExecutable::Compile(*std::move(module), options);
  ASSERT_TRUE(exe.ok()) << exe.status();
  absl::StatusOr<Literal> got = (*exe)->Run(args);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(Near(*want, *got));
  EXPECT_EQ(Calls(**exe, call), way == Way::kLibrary) << call;
}

// A module whose root is one dot of `lhs` and `rhs` (shapes with layouts).
std::string Dot(const std::string& lhs, const std::string& rhs,
                const std::string& out, const std::string& dims) {
  return absl::StrCat("HloModule m\nENTRY e {\n  a = ", lhs,
                      " parameter(0)\n  b = ", rhs,
                      " parameter(1)\n  ROOT d = ", out, " dot(a, b)",
                      dims.empty() ? "" : ", ", dims, "\n}\n");
}

constexpr char kMatMul[] = "lhs_contracting_dims={1}, rhs_contracting_dims={0}";
TEST(DotLibrary, RowAndColumnMajorOperandsAndResults) {
  for (const char* ll : {"{1,0}", "{0,1}"}) {
    for (const char* rl : {"{1,0}", "{0,1}"}) {
      for (const char* ol : {"{1,0}", "{0,1}"}) {
        Check(
            Dot(absl::StrCat("f32[64,48]", ll), absl::StrCat("f32[48,40]", rl),
                absl::StrCat("f32[64,40]", ol), kMatMul),
            kMatmul, Way::kLibrary);
      }
    }
  }
}

TEST(DotLibrary, TransposedContractingDimensions) {
  Check(Dot("f32[48,64]{1,0}", "f32[40,48]{1,0}", "f32[64,40]{1,0}",
            "lhs_contracting_dims={0}, rhs_contracting_dims={1}"),
        kMatmul, Way::kLibrary);
  Check(Dot("f32[48,64]{0,1}", "f32[40,48]{1,0}", "f32[64,40]{0,1}",
            "lhs_contracting_dims={0}, rhs_contracting_dims={1}"),
        kMatmul, Way::kLibrary);
}

TEST(DotLibrary, BatchDimensions) {
  // Leading batch dimensions, read in place.
  Check(Dot("f32[2,3,32,40]{3,2,1,0}", "f32[2,3,40,24]{3,2,1,0}",
            "f32[2,3,32,24]{3,2,1,0}",
            "lhs_batch_dims={0,1}, lhs_contracting_dims={3}, "
            "rhs_batch_dims={0,1}, rhs_contracting_dims={2}"),
        kMatmul, Way::kLibrary);
  // Batch dimensions in the middle, and the rhs's in another order.
  Check(Dot("f32[16,4,32]{2,1,0}", "f32[32,20,4]{2,1,0}", "f32[4,16,20]{2,1,0}",
            "lhs_batch_dims={1}, lhs_contracting_dims={2}, "
            "rhs_batch_dims={2}, rhs_contracting_dims={0}"),
        kMatmul, Way::kLibrary);
  // A batched result stored column-major within each matrix.
  Check(Dot("f32[3,32,24]{2,1,0}", "f32[3,24,20]{1,2,0}", "f32[3,32,20]{1,2,0}",
            "lhs_batch_dims={0}, lhs_contracting_dims={2}, "
            "rhs_batch_dims={0}, rhs_contracting_dims={1}"),
        kMatmul, Way::kLibrary);
}

TEST(DotLibrary, SeveralContractingAndFreeDimensions) {
  Check(Dot("f32[16,6,32]{2,1,0}", "f32[6,32,16]{2,1,0}", "f32[16,16]{1,0}",
            "lhs_contracting_dims={1,2}, rhs_contracting_dims={0,1}"),
        kMatmul, Way::kLibrary);
  // Pairs in another order than the dimensions.
  Check(Dot("f32[16,6,32]{2,1,0}", "f32[6,32,16]{2,1,0}", "f32[16,16]{1,0}",
            "lhs_contracting_dims={2,1}, rhs_contracting_dims={1,0}"),
        kMatmul, Way::kLibrary);
  Check(Dot("f32[4,8,32]{2,1,0}", "f32[32,5,8]{2,1,0}", "f32[4,8,5,8]{3,2,1,0}",
            "lhs_contracting_dims={2}, rhs_contracting_dims={0}"),
        kMatmul, Way::kLibrary);
}

TEST(DotLibrary, MatrixVectorProducts) {
  Check(Dot("f32[256,128]{1,0}", "f32[128]{0}", "f32[256]{0}", kMatMul),
        kMatmul, Way::kLibrary);
  Check(Dot("f32[128]{0}", "f32[128,256]{0,1}", "f32[256]{0}",
            "lhs_contracting_dims={0}, rhs_contracting_dims={0}"),
        kMatmul, Way::kLibrary);
}

TEST(DotLibrary, ElementTypes) {
  for (const char* t : {"f64", "c64", "c128", "f16", "bf16"}) {
    Check(Dot(absl::StrCat(t, "[40,48]{1,0}"), absl::StrCat(t, "[48,36]{0,1}"),
              absl::StrCat(t, "[40,36]{1,0}"), kMatMul),
          kMatmul, Way::kLibrary);
  }
  // Narrow operands, f32 result; mixed widths accumulate in f64.
  Check(Dot("bf16[40,48]{1,0}", "bf16[48,36]{1,0}", "f32[40,36]{1,0}", kMatMul),
        kMatmul, Way::kLibrary);
  Check(Dot("f32[40,48]{1,0}", "f64[48,36]{1,0}", "f64[40,36]{1,0}", kMatMul),
        kMatmul, Way::kLibrary);
  // Integer dots stay emitted (and exact).
  Check(Dot("s32[40,48]{1,0}", "s32[48,36]{1,0}", "s32[40,36]{1,0}", kMatMul),
        kMatmul, Way::kLoops);
}

TEST(DotLibrary, AroundTheThresholds) {
  // 16 * 32 * 16 multiply-adds with k = 32 go to the library; k = 31 or
  // 16 * 16 * 16 do not.
  Check(Dot("f32[16,32]{1,0}", "f32[32,16]{1,0}", "f32[16,16]{1,0}", kMatMul),
        kMatmul, Way::kLibrary);
  Check(Dot("f32[16,31]{1,0}", "f32[31,16]{1,0}", "f32[16,16]{1,0}", kMatMul),
        kMatmul, Way::kLoops);
  Check(Dot("f32[16,16]{1,0}", "f32[16,16]{0,1}", "f32[16,16]{0,1}", kMatMul),
        kMatmul, Way::kLoops);
  // A short contraction stays emitted however large the product.
  Check(Dot("f32[128,8]{1,0}", "f32[8,128]{1,0}", "f32[128,128]{1,0}", kMatMul),
        kMatmul, Way::kLoops);
  // f16 goes to the library from 512 multiply-adds.
  Check(Dot("f16[8,8]{1,0}", "f16[8,8]{0,1}", "f16[8,8]{1,0}", kMatMul),
        kMatmul, Way::kLibrary);
}

// Compiles `strided` (a dot whose arrays xlite_cpu_matmul_strided reads and
// writes in place) and `dense` (the same dot, with layouts that
// xlite_cpu_matmul takes in place): the first calls the strided entry and
// allocates no scratch, the second the dense one; on the same arguments
// both match the evaluator, and each other bit for bit (the same GEMM and
// split over threads, only where it reads and writes differs).
void CheckStrided(const std::string& strided, const std::string& dense) {
  SCOPED_TRACE(strided);
  absl::StatusOr<std::unique_ptr<HloModule>> reference =
      ParseHloModule(strided);
  ASSERT_TRUE(reference.ok()) << reference.status();
  std::mt19937_64 rng(11);
  std::vector<Literal> args;
  for (const HloInstruction* p :
       (*reference)->entry_computation()->parameter_instructions()) {
    args.push_back(RandomLiteral(p->shape(), rng));
  }
  absl::StatusOr<Literal> want = EvaluateModule(**reference, args);
  ASSERT_TRUE(want.ok()) << want.status();
  std::vector<Literal> results;
  for (const std::string& text : {strided, dense}) {
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
    ASSERT_TRUE(module.ok()) << module.status();
    CompileOptions options;
    options.keep_llvm_ir = true;
    absl::StatusOr<std::unique_ptr<CpuExecutable>> exe =
        CpuExecutable::Compile(*std::move(module), options);
    ASSERT_TRUE(exe.ok()) << exe.status();
    const bool is_strided = results.empty();
    EXPECT_EQ(CallsExactly(**exe, kMatmulStrided), is_strided);
    EXPECT_NE(CallsExactly(**exe, kMatmul), is_strided);
    // No scratch: xlite_cpu_alloc is not even declared.
    EXPECT_EQ((*exe)->llvm_ir().find("@xlite_cpu_alloc("), std::string::npos);
    absl::StatusOr<Literal> got = (*exe)->Run(args);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(Near(*want, *got));
    results.push_back(*std::move(got));
  }
  EXPECT_TRUE(results[0] == results[1]);
}

TEST(DotLibrary, StridedAttentionScores) {
  // Q K^T per (batch, head) of [batch, seq, head, dim] arrays.
  constexpr char kDims[] =
      "lhs_batch_dims={0,2}, lhs_contracting_dims={3}, "
      "rhs_batch_dims={0,2}, rhs_contracting_dims={3}";
  CheckStrided(Dot("f32[2,40,3,64]{3,2,1,0}", "f32[2,40,3,64]{3,2,1,0}",
                   "f32[2,3,40,40]{3,2,1,0}", kDims),
               Dot("f32[2,40,3,64]{3,1,2,0}", "f32[2,40,3,64]{3,1,2,0}",
                   "f32[2,3,40,40]{3,2,1,0}", kDims));
}

TEST(DotLibrary, StridedAttentionValues) {
  // V^T P^T per (batch, head): V [batch, seq, head, dim] contracted over
  // seq, P [batch, head, query, seq].
  constexpr char kDims[] =
      "lhs_batch_dims={0,2}, lhs_contracting_dims={1}, "
      "rhs_batch_dims={0,1}, rhs_contracting_dims={3}";
  CheckStrided(Dot("f32[2,64,3,24]{3,2,1,0}", "f32[2,3,40,64]{3,2,1,0}",
                   "f32[2,3,24,40]{3,2,1,0}", kDims),
               Dot("f32[2,64,3,24]{1,3,2,0}", "f32[2,3,40,64]{3,2,1,0}",
                   "f32[2,3,24,40]{3,2,1,0}", kDims));
}

TEST(DotLibrary, StridedBatchInTheMiddleAndTransposedResult) {
  constexpr char kDims[] =
      "lhs_batch_dims={1}, lhs_contracting_dims={2}, "
      "rhs_batch_dims={1}, rhs_contracting_dims={0}";
  for (const char* t : {"f32", "f64", "c64"}) {
    CheckStrided(Dot(absl::StrCat(t, "[40,3,64]{2,1,0}"),
                     absl::StrCat(t, "[64,3,48]{2,1,0}"),
                     absl::StrCat(t, "[3,40,48]{1,2,0}"), kDims),
                 Dot(absl::StrCat(t, "[40,3,64]{2,0,1}"),
                     absl::StrCat(t, "[64,3,48]{2,0,1}"),
                     absl::StrCat(t, "[3,40,48]{1,2,0}"), kDims));
  }
}

// Emitted dots computed in joint lanes (16 adjacent results at once along
// the result's minor dimension, when the operand they move through keeps
// it minor) sum each result in the same order as the one-at-a-time loops:
// each case is run beside the same dot with layouts that rule lanes out
// (bit-equal), and against the evaluator (whose f32 sums run in Eigen's
// order: near). Lane remainders, batch dimensions, lanes through the lhs,
// integer and narrow types.
TEST(EmittedDot, JointLanesSumAsOneAtATime) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {Dot("f32[37,9]{1,0}", "f32[9,45]{1,0}", "f32[37,45]{1,0}", kMatMul),
       Dot("f32[37,9]{1,0}", "f32[9,45]{1,0}", "f32[37,45]{0,1}", kMatMul)},
      {Dot("f32[5,6,19]{2,1,0}", "f32[5,6,21]{2,1,0}", "f32[5,19,21]{2,1,0}",
           "lhs_batch_dims={0}, lhs_contracting_dims={1}, "
           "rhs_batch_dims={0}, rhs_contracting_dims={1}"),
       Dot("f32[5,6,19]{2,1,0}", "f32[5,6,21]{1,2,0}", "f32[5,19,21]{2,1,0}",
           "lhs_batch_dims={0}, lhs_contracting_dims={1}, "
           "rhs_batch_dims={0}, rhs_contracting_dims={1}")},
      {Dot("f32[6,40]{1,0}", "f32[6]{0}", "f32[40]{0}",
           "lhs_contracting_dims={0}, rhs_contracting_dims={0}"),
       Dot("f32[6,40]{0,1}", "f32[6]{0}", "f32[40]{0}",
           "lhs_contracting_dims={0}, rhs_contracting_dims={0}")},
      {Dot("bf16[20,10]{1,0}", "bf16[10,18]{1,0}", "bf16[20,18]{1,0}", kMatMul),
       Dot("bf16[20,10]{1,0}", "bf16[10,18]{0,1}", "bf16[20,18]{1,0}",
           kMatMul)},
      {Dot("s32[20,10]{1,0}", "s32[10,18]{1,0}", "s32[20,18]{1,0}", kMatMul),
       Dot("s32[20,10]{1,0}", "s32[10,18]{0,1}", "s32[20,18]{1,0}", kMatMul)},
      {Dot("f64[9,11]{1,0}", "f64[11,13]{1,0}", "f64[9,13]{1,0}", kMatMul),
       Dot("f64[9,11]{1,0}", "f64[11,13]{0,1}", "f64[9,13]{1,0}", kMatMul)},
  };
  for (const auto& [lanes, single] : cases) {
    SCOPED_TRACE(lanes);
    absl::StatusOr<std::unique_ptr<HloModule>> reference =
        ParseHloModule(lanes);
    ASSERT_TRUE(reference.ok()) << reference.status();
    std::mt19937_64 rng(5);
    std::vector<Literal> args;
    for (const HloInstruction* p :
         (*reference)->entry_computation()->parameter_instructions()) {
      args.push_back(RandomLiteral(p->shape(), rng));
    }
    absl::StatusOr<Literal> want = EvaluateModule(**reference, args);
    ASSERT_TRUE(want.ok()) << want.status();
    std::vector<Literal> results;
    for (const std::string& text : {lanes, single}) {
      absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
      ASSERT_TRUE(module.ok()) << module.status();
      absl::StatusOr<std::unique_ptr<CpuExecutable>> exe =
          CpuExecutable::Compile(*std::move(module));
      ASSERT_TRUE(exe.ok()) << exe.status();
      absl::StatusOr<Literal> got = (*exe)->Run(args);
      ASSERT_TRUE(got.ok()) << got.status();
      results.push_back(*std::move(got));
    }
    EXPECT_TRUE(results[0] == results[1]);
    EXPECT_TRUE(Near(*want, results[0]));
  }
}

TEST(DotLibrary, FusionsThatWrapADot) {
  // As XLA:CPU wraps dots (__ynn_fusion), and with a transpose and a copy
  // of a parameter between.
  Check(R"(
HloModule m
fused {
  p0 = f32[48,64]{1,0} parameter(0)
  p1 = f32[40,48]{1,0} parameter(1)
  t = f32[64,48]{0,1} transpose(p0), dimensions={1,0}
  c = f32[64,48]{1,0} copy(t)
  t1 = f32[48,40]{0,1} transpose(p1), dimensions={1,0}
  ROOT d = f32[64,40]{1,0} dot(c, t1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
ENTRY e {
  a = f32[48,64]{1,0} parameter(0)
  b = f32[40,48]{1,0} parameter(1)
  ROOT f = f32[64,40]{1,0} fusion(a, b), kind=kCustom, calls=fused
})",
        kMatmul, Way::kLibrary);
  Check(R"(
HloModule m
fused {
  p0 = f32[2,32,48]{2,1,0} parameter(0)
  b0 = f32[64,48]{1,0} bitcast(p0)
  p1 = f32[48,40]{1,0} parameter(1)
  ROOT d = f32[64,40]{1,0} dot(b0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
ENTRY e {
  a = f32[2,32,48]{2,1,0} parameter(0)
  b = f32[48,40]{1,0} parameter(1)
  n = f32[64,40]{1,0} fusion(a, b), kind=kOutput, calls=fused
  ROOT r = f32[64,40]{1,0} negate(n)
})",
        kMatmul, Way::kLibrary);
}

TEST(DotLibrary, InsideALoop) {
  Check(R"(
HloModule m
body {
  s = (s32[], f32[48,48]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[48,48]{0,1} get-tuple-element(s), index=1
  d = f32[48,48]{1,0} dot(x, x), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  c = f32[] constant(0.05)
  bc = f32[48,48]{1,0} broadcast(c), dimensions={}
  m = f32[48,48]{1,0} multiply(d, bc)
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT t = (s32[], f32[48,48]) tuple(j, m)
}
cond {
  s = (s32[], f32[48,48]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY e {
  x = f32[48,48]{1,0} parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[48,48]) tuple(z, x)
  w = (s32[], f32[48,48]) while(t), condition=cond, body=body
  ROOT r = f32[48,48]{1,0} get-tuple-element(w), index=1
})",
        kMatmul, Way::kLibrary);
}

// A module whose root is one convolution.
std::string Conv(const std::string& input, const std::string& kernel,
                 const std::string& out, const std::string& attrs) {
  return absl::StrCat("HloModule m\nENTRY e {\n  a = ", input,
                      " parameter(0)\n  b = ", kernel,
                      " parameter(1)\n  ROOT c = ", out, " convolution(a, b), ",
                      attrs, "\n}\n");
}

TEST(ConvolutionLibrary, PaddingStridesAndDilations) {
  Check(Conv("f32[2,16,16,8]", "f32[3,3,8,16]", "f32[2,16,16,16]",
             "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"),
        kConv, Way::kLibrary);
  Check(Conv("f32[2,17,16,8]", "f32[3,3,8,16]", "f32[2,8,8,16]",
             "window={size=3x3 stride=2x2 pad=0_0x1_0}, "
             "dim_labels=b01f_01io->b01f"),
        kConv, Way::kLibrary);
  Check(Conv("f32[2,16,16,8]", "f32[3,3,8,16]", "f32[2,16,16,16]",
             "window={size=3x3 pad=2_2x2_2 rhs_dilate=2x2 rhs_reversal=1x0}, "
             "dim_labels=b01f_01io->b01f"),
        kConv, Way::kLibrary);
  Check(Conv("f32[2,8,8,8]", "f32[4,4,8,16]", "f32[2,16,16,16]",
             "window={size=4x4 pad=2_2x2_2 lhs_dilate=2x2}, "
             "dim_labels=b01f_01io->b01f"),
        kConv, Way::kLibrary);
}

TEST(ConvolutionLibrary, DimLabelsAndLayouts) {
  // NCHW / OIHW, copied into the library's order and back.
  Check(Conv("f32[2,8,16,16]", "f32[16,8,3,3]", "f32[2,16,16,16]",
             "window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01"),
        kConv, Way::kLibrary);
  // The library's order, reached through layouts.
  Check(Conv("f32[2,8,16,16]{1,3,2,0}", "f32[16,8,3,3]{0,1,3,2}",
             "f32[2,16,16,16]{1,3,2,0}",
             "window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01"),
        kConv, Way::kLibrary);
  Check(Conv("f32[2,16,16,8]{0,1,2,3}", "f32[3,3,8,16]{3,2,1,0}",
             "f32[2,16,16,16]{2,1,0,3}",
             "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"),
        kConv, Way::kLibrary);
}

TEST(ConvolutionLibrary, OneAndThreeSpatialDimensionsAndTypes) {
  Check(Conv("f32[4,64,16]", "f32[5,16,32]", "f32[4,31,32]",
             "window={size=5 stride=2 pad=1_2}, dim_labels=b0f_0io->b0f"),
        kConv, Way::kLibrary);
  Check(Conv("f64[1,6,6,6,4]", "f64[3,3,3,4,8]", "f64[1,6,6,6,8]",
             "window={size=3x3x3 pad=1_1x1_1x1_1}, "
             "dim_labels=b012f_012io->b012f"),
        kConv, Way::kLibrary);
  Check(Conv("f16[2,16,16,8]", "f16[3,3,8,16]", "f16[2,16,16,16]",
             "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"),
        kConv, Way::kLibrary);
  Check(Conv("bf16[2,16,16,8]", "bf16[3,3,8,16]", "f32[2,16,16,16]",
             "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"),
        kConv, Way::kLibrary);
}

TEST(ConvolutionLibrary, OthersStayEmitted) {
  // Small, or thin features.
  Check(Conv("f32[1,5,5,2]", "f32[3,3,2,2]", "f32[1,5,5,2]",
             "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"),
        kConv, Way::kLoops);
  Check(Conv("f32[2,16,16,3]", "f32[5,5,3,8]", "f32[2,16,16,8]",
             "window={size=5x5 pad=2_2x2_2}, dim_labels=b01f_01io->b01f"),
        kConv, Way::kLoops);
  // Grouped.
  Check(Conv("f32[2,16,16,8]", "f32[3,3,4,16]", "f32[2,16,16,16]",
             "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, "
             "feature_group_count=2"),
        kConv, Way::kLoops);
  // Integer.
  Check(Conv("s32[2,16,16,8]", "s32[3,3,8,16]", "s32[2,16,16,16]",
             "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"),
        kConv, Way::kLoops);
}

}  // namespace
}  // namespace xlite::cpu
