// The CPU backend's library calls (library_calls.cc and its parts) against
// the evaluator on random inputs: fft (with a non-default layout), top-k,
// rng-bit-generator, linear algebra (a column-major lapack call),
// select-and-scatter, identity custom calls, one-device collectives, and
// the compile-time errors for what cannot be compiled.

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "cpu_backend/executable.h"
#include "cpu_backend/runtime_lib/test_support.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"

namespace xlite::cpu {
namespace {

using rtlib_test::Near;
using rtlib_test::RandomLiteral;

absl::StatusOr<std::unique_ptr<CpuExecutable>> CompileText(
    const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  if (!module.ok()) return module.status();
  CompileOptions options;
  options.keep_llvm_ir = true;
  return CpuExecutable::Compile(*std::move(module), options);
}

::testing::AssertionResult AllNear(const Literal& want, const Literal& got) {
  if (want.shape().IsTuple() != got.shape().IsTuple()) {
    return ::testing::AssertionFailure() << "tuple vs array";
  }
  if (!want.shape().IsTuple()) return Near(want, got);
  for (size_t i = 0; i < want.tuple_elements().size(); ++i) {
    ::testing::AssertionResult r =
        AllNear(want.tuple_elements()[i], got.tuple_elements()[i]);
    if (!r) return r << " (leaf " << i << ")";
  }
  return ::testing::AssertionSuccess();
}

// Compiles `text`, runs it and the evaluator on the same random arguments,
// and returns the compiled LLVM IR for further checks.
std::string CheckAgainstEvaluator(const std::string& text, int seed = 1) {
  SCOPED_TRACE(text);
  absl::StatusOr<std::unique_ptr<HloModule>> reference = ParseHloModule(text);
  EXPECT_TRUE(reference.ok()) << reference.status();
  if (!reference.ok()) return "";
  std::mt19937_64 rng(seed);
  std::vector<Literal> args;
  for (const HloInstruction* p :
       (*reference)->entry_computation()->parameter_instructions()) {
    args.push_back(RandomLiteral(p->shape(), rng));
  }
  absl::StatusOr<Literal> want = EvaluateModule(**reference, args);
  EXPECT_TRUE(want.ok()) << want.status();
  absl::StatusOr<std::unique_ptr<CpuExecutable>> exe = CompileText(text);
  EXPECT_TRUE(exe.ok()) << exe.status();
  if (!want.ok() || !exe.ok()) return "";
  absl::StatusOr<Literal> got = (*exe)->Run(args);
  EXPECT_TRUE(got.ok()) << got.status();
  if (got.ok()) {
    EXPECT_TRUE(AllNear(*want, *got));
  }
  return (*exe)->llvm_ir();
}

constexpr char kAdd[] =
    "add { x = f32[] parameter(0)\n y = f32[] parameter(1)\n"
    " ROOT s = f32[] add(x, y) }\n";
constexpr char kGe[] =
    "ge { x = f32[] parameter(0)\n y = f32[] parameter(1)\n"
    " ROOT c = pred[] compare(x, y), direction=GE }\n";
constexpr char kGt[] =
    "gt { x = f32[] parameter(0)\n y = f32[] parameter(1)\n"
    " ROOT c = pred[] compare(x, y), direction=GT }\n";
constexpr char kLt[] =
    "lt { x = f32[] parameter(0)\n y = f32[] parameter(1)\n"
    " ROOT c = pred[] compare(x, y), direction=LT }\n";

std::string Module(const std::string& computations, const std::string& entry,
                   const std::string& header = "HloModule m") {
  return header + "\n" + computations + "ENTRY e {\n" + entry + "}\n";
}

TEST(LibraryCalls, FftEveryTypeRowMajor) {
  CheckAgainstEvaluator(Module("", R"(
  p = c64[3,8] parameter(0)
  f = c64[3,8] fft(p), fft_type=FFT, fft_length={8}
  i = c64[3,8] fft(p), fft_type=IFFT, fft_length={3,8}
  r = f32[4,6] parameter(1)
  rd = f64[4,6] convert(r)
  rf = c128[4,4] fft(rd), fft_type=RFFT, fft_length={6}
  ir = f64[4,6] fft(rf), fft_type=IRFFT, fft_length={6}
  ROOT t = (c64[3,8], c64[3,8], c128[4,4], f64[4,6]) tuple(f, i, rf, ir)
)"));
}

TEST(LibraryCalls, FftOnAColumnMajorLayoutGoesThroughScratch) {
  const std::string ir = CheckAgainstEvaluator(Module("", R"(
  p = c64[5,8]{0,1} parameter(0)
  ROOT f = c64[5,8]{0,1} fft(p), fft_type=FFT, fft_length={8}
)"));
  EXPECT_NE(ir.find("xlite_cpu_alloc"), std::string::npos);
  EXPECT_NE(ir.find("xlite_cpu_free"), std::string::npos);
}

TEST(LibraryCalls, TopKOpcodeAndCustomCall) {
  CheckAgainstEvaluator(Module(kGt, R"(
  p = f32[5,9] parameter(0)
  a = (f32[5,3], s32[5,3]) topk(p), k=3, largest=true
  b = (f32[5,4], s32[5,4]) topk(p), k=4, largest=false
  c = (f32[5,2], s32[5,2]) custom-call(p), custom_call_target="TopK", called_computations={gt}
  ROOT t = ((f32[5,3], s32[5,3]), (f32[5,4], s32[5,4]), (f32[5,2], s32[5,2])) tuple(a, b, c)
)"));
  CheckAgainstEvaluator(Module(kLt, R"(
  p = f32[2,3,7]{1,2,0} parameter(0)
  ROOT c = (f32[2,3,3], s32[2,3,3]) custom-call(p), custom_call_target="TopK", called_computations={lt}
)"));
}

TEST(LibraryCalls, RngBitGeneratorEveryAlgorithm) {
  CheckAgainstEvaluator(Module("", R"(
  s = u64[2] parameter(0)
  a = (u64[2], u32[3,5]) rng-bit-generator(s), algorithm=rng_three_fry
  b = (u64[2], u64[7]) rng-bit-generator(s), algorithm=rng_philox
  c = (u64[2], u8[4,4]{0,1}) rng-bit-generator(s), algorithm=rng_default
  ROOT t = ((u64[2], u32[3,5]), (u64[2], u64[7]), (u64[2], u8[4,4]{0,1})) tuple(a, b, c)
)"));
}

// Well-conditioned operands from random ones: a positive definite matrix
// p p^T + 4 I, and a triangle-friendly matrix with a dominant diagonal.
constexpr char kMatrices[] = R"(
  p = f32[4,4] parameter(0)
  rhs = f32[4,3] parameter(1)
  i0 = s32[4,4] iota(), iota_dimension=0
  i1 = s32[4,4] iota(), iota_dimension=1
  eq = pred[4,4] compare(i0, i1), direction=EQ
  eye = f32[4,4] convert(eq)
  c4 = f32[] constant(4)
  b4 = f32[4,4] broadcast(c4), dimensions={}
  four = f32[4,4] multiply(eye, b4)
  ppt = f32[4,4] dot(p, p), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  spd = f32[4,4] add(ppt, four)
  tri = f32[4,4] add(p, four)
)";

TEST(LibraryCalls, CholeskyAndTriangularSolveOpcodes) {
  CheckAgainstEvaluator(Module("", std::string(kMatrices) + R"(
  l = f32[4,4] cholesky(spd), lower=true
  u = f32[4,4] cholesky(spd), lower=false
  x = f32[4,3] triangular-solve(tri, rhs), left_side=true, lower=true, transpose_a=NO_TRANSPOSE
  rt = f32[3,4] transpose(rhs), dimensions={1,0}
  y = f32[3,4] triangular-solve(tri, rt), lower=false, unit_diagonal=true, transpose_a=TRANSPOSE
  ROOT t = (f32[4,4], f32[4,4], f32[4,3], f32[3,4]) tuple(l, u, x, y)
)"));
}

// eigh and svd as JAX's CPU lowering emits them: batched, column-major
// operand and matrix results, the operand aliased by the first result.
TEST(LibraryCalls, EighAndSvdLapackCalls) {
  CheckAgainstEvaluator(Module("", R"(
  p = f32[2,4,4] parameter(0)
  pt = f32[2,4,4] transpose(p), dimensions={0,2,1}
  h = f32[2,4,4]{1,2,0} add(p, pt)
  ROOT e = (f32[2,4,4]{1,2,0}, f32[2,4]{1,0}, s32[2]{0}) custom-call(h), custom_call_target="lapack_ssyevd_ffi", operand_layout_constraints={f32[2,4,4]{1,2,0}}, output_to_operand_aliasing={{0}: (0, {})}, api_version=API_VERSION_TYPED_FFI, backend_config="{mode = 86 : ui8, uplo = 76 : ui8}"
)"));
  CheckAgainstEvaluator(Module("", R"(
  p = c128[3,3] parameter(0)
  ROOT e = (c128[3,3], f64[3], s32[]) custom-call(p), custom_call_target="lapack_zheevd_ffi", api_version=API_VERSION_TYPED_FFI, backend_config="{mode = 86 : ui8, uplo = 85 : ui8}"
)"));
  CheckAgainstEvaluator(Module("", R"(
  p = f32[2,5,3]{1,2,0} parameter(0)
  s = (f32[2,5,3]{1,2,0}, f32[2,3]{1,0}, f32[2,5,3]{1,2,0}, f32[2,3,3]{1,2,0}, s32[2]{0}) custom-call(p), custom_call_target="lapack_sgesdd_ffi", operand_layout_constraints={f32[2,5,3]{1,2,0}}, output_to_operand_aliasing={{0}: (0, {})}, api_version=API_VERSION_TYPED_FFI, backend_config="{mode = 83 : ui8}"
  a = (f32[2,5,3]{1,2,0}, f32[2,3]{1,0}, f32[2,5,5]{1,2,0}, f32[2,3,3]{1,2,0}, s32[2]{0}) custom-call(p), custom_call_target="lapack_sgesdd_ffi", operand_layout_constraints={f32[2,5,3]{1,2,0}}, api_version=API_VERSION_TYPED_FFI, backend_config="{mode = 65 : ui8}"
  ROOT t = ((f32[2,5,3]{1,2,0}, f32[2,3]{1,0}, f32[2,5,3]{1,2,0}, f32[2,3,3]{1,2,0}, s32[2]{0}), (f32[2,5,3]{1,2,0}, f32[2,3]{1,0}, f32[2,5,5]{1,2,0}, f32[2,3,3]{1,2,0}, s32[2]{0})) tuple(s, a)
)"));
  const std::string ir = CheckAgainstEvaluator(Module("", R"(
  p = c64[3,4] parameter(0)
  ROOT s = (c64[3,4], f32[3], c64[3,3], c64[4,4], s32[]) custom-call(p), custom_call_target="lapack_cgesdd_ffi", api_version=API_VERSION_TYPED_FFI, backend_config="{mode = 65 : ui8}"
)"));
  EXPECT_NE(ir.find("xlite_cpu_gesdd"), std::string::npos);
  // compute_uv=False, full_matrices=False: mode 'N' with reduced u and vt;
  // and gesvd (jax's SvdAlgorithm.QR), the same call.
  CheckAgainstEvaluator(Module("", R"(
  p = f64[3,6] parameter(0)
  n = (f64[3,6], f64[3], f64[3,3], f64[3,6], s32[]) custom-call(p), custom_call_target="lapack_dgesdd_ffi", api_version=API_VERSION_TYPED_FFI, backend_config="{mode = 78 : ui8}"
  q = (f64[3,6], f64[3], f64[3,3], f64[3,6], s32[]) custom-call(p), custom_call_target="lapack_dgesvd_ffi", api_version=API_VERSION_TYPED_FFI, backend_config="{mode = 83 : ui8}"
  ROOT t = ((f64[3,6], f64[3], f64[3,3], f64[3,6], s32[]), (f64[3,6], f64[3], f64[3,3], f64[3,6], s32[])) tuple(n, q)
)"));
}

TEST(LibraryCalls, SvdWithMismatchedVectorShapesIsRefused) {
  absl::StatusOr<std::unique_ptr<CpuExecutable>> exe =
      CompileText(Module("", R"(
  p = f32[5,3] parameter(0)
  ROOT s = (f32[5,3], f32[3], f32[5,3], f32[3,3], s32[]) custom-call(p), custom_call_target="lapack_sgesdd_ffi", api_version=API_VERSION_TYPED_FFI, backend_config="{mode = 65 : ui8}"
)"));
  ASSERT_FALSE(exe.ok());
  EXPECT_NE(exe.status().message().find("gesdd"), std::string::npos)
      << exe.status();
}

TEST(LibraryCalls, ColumnMajorLapackCallsUseNoScratch) {
  const std::string ir = CheckAgainstEvaluator(Module("", std::string(kMatrices) + R"(
  a = f32[4,4]{0,1} copy(spd)
  c = (f32[4,4]{0,1}, s32[]) custom-call(a), custom_call_target="lapack_spotrf_ffi", operand_layout_constraints={f32[4,4]{0,1}}, output_to_operand_aliasing={{0}: (0, {})}, api_version=API_VERSION_TYPED_FFI, backend_config="{uplo = 85 : ui8}"
  ta = f32[4,4]{0,1} copy(tri)
  tb = f32[4,3]{0,1} copy(rhs)
  x = f32[4,3]{0,1} custom-call(ta, tb), custom_call_target="lapack_strsm_ffi", operand_layout_constraints={f32[4,4]{0,1}, f32[4,3]{0,1}}, output_to_operand_aliasing={{}: (1, {})}, api_version=API_VERSION_TYPED_FFI, backend_config="{diag = 78 : ui8, side = 76 : ui8, trans_x = 84 : ui8, uplo = 76 : ui8}"
  ROOT t = ((f32[4,4]{0,1}, s32[]), f32[4,3]{0,1}) tuple(c, x)
)"));
  EXPECT_EQ(ir.find("xlite_cpu_alloc"), std::string::npos);
  EXPECT_NE(ir.find("xlite_cpu_cholesky"), std::string::npos);
}

TEST(LibraryCalls, QrAndHouseholderProduct) {
  CheckAgainstEvaluator(Module("", R"(
  a = f64[2,5,3] parameter(0)
  qr = (f64[2,5,3], f64[2,3]) custom-call(a), custom_call_target="Qr"
  v = f64[2,5,3] get-tuple-element(qr), index=0
  taus = f64[2,3] get-tuple-element(qr), index=1
  q = f64[2,5,3] custom-call(v, taus), custom_call_target="ProductOfElementaryHouseholderReflectors"
  ROOT t = (f64[2,5,3], f64[2,3], f64[2,5,3]) tuple(v, taus, q)
)"));
}

TEST(LibraryCalls, SelectAndScatter) {
  // Max-pool gradient with padding, and overlapping windows.
  CheckAgainstEvaluator(Module(std::string(kGe) + kAdd, R"(
  x = f32[5,5] parameter(0)
  s = f32[3,3] parameter(1)
  z = f32[] constant(0)
  a = f32[5,5] select-and-scatter(x, s, z), window={size=2x2 stride=2x2 pad=0_1x0_1}, select=ge, scatter=add
  b = f32[5,5]{0,1} select-and-scatter(x, s, z), window={size=3x3}, select=ge, scatter=add
  ROOT t = (f32[5,5], f32[5,5]{0,1}) tuple(a, b)
)"));
}

TEST(LibraryCalls, IdentityCustomCallsAndOneDeviceCollectives) {
  CheckAgainstEvaluator(Module(kAdd, R"(
  p = f32[4,6] parameter(0)
  s = f32[4,6]{0,1} custom-call(p), custom_call_target="Sharding", sharding={replicated}
  r = f32[4,6] all-reduce(s), replica_groups={}, to_apply=add
  g = f32[4,6] all-gather(r), dimensions={0}, replica_groups={}
  c = f32[4,6] collective-permute(g), source_target_pairs={{0,0}}
  n = f32[4,6] collective-permute(g), source_target_pairs={}
  a = f32[4,6] all-to-all(c), dimensions={1}
  ROOT t = (f32[4,6], f32[4,6], f32[4,6]{0,1}) tuple(a, n, s)
)"));
}

TEST(LibraryCalls, SdyAnnotationsPassTheirOperandThrough) {
  absl::StatusOr<std::unique_ptr<CpuExecutable>> exe = CompileText(Module("", R"(
  p = f32[3,2] parameter(0)
  ROOT s = f32[3,2] custom-call(p), custom_call_target="xla.sdy.GlobalToLocalShape"
)"));
  ASSERT_TRUE(exe.ok()) << exe.status();
  std::mt19937_64 rng(3);
  const Literal x = RandomLiteral(Shape(PrimitiveType::kF32, {3, 2}), rng);
  absl::StatusOr<Literal> got = (*exe)->Run({&x, 1});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(Near(x, *got));
}

TEST(LibraryCalls, FailsAtCompileTimeNamingTheInstruction) {
  absl::StatusOr<std::unique_ptr<CpuExecutable>> unknown = CompileText(Module("", R"(
  p = f32[3] parameter(0)
  ROOT c = f32[3] custom-call(p), custom_call_target="mystery"
)"));
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().message(),
            "5:8: error: the cpu backend cannot compile %c (custom-call): "
            "unknown "
            "custom-call target \"mystery\"");
  // A replicated module compiles: its collectives go through the
  // in-process exchange (multi_device.h, collectives_test.cc).
  absl::StatusOr<std::unique_ptr<CpuExecutable>> replicated = CompileText(
      Module(kAdd, R"(
  p = f32[3] parameter(0)
  ROOT r = f32[3] all-reduce(p), replica_groups={}, to_apply=add
)", "HloModule m, replica_count=2"));
  EXPECT_TRUE(replicated.ok()) << replicated.status();
  absl::StatusOr<std::unique_ptr<CpuExecutable>> stranger = CompileText(
      Module(kAdd, R"(
  p = f32[3] parameter(0)
  ROOT r = f32[3] all-reduce(p), replica_groups={{0,1}}, to_apply=add
)"));
  ASSERT_FALSE(stranger.ok());
  EXPECT_NE(stranger.status().message().find("names device 1"),
            std::string::npos)
      << stranger.status();
}

}  // namespace
}  // namespace xlite::cpu
