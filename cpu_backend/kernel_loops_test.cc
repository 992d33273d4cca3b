// Elemental kernels walked in tiles (an operand read across the result's
// layout) and split over the cores (large kernels): every result stays
// bit-identical to the evaluator's, at odd sizes (partial tiles, uneven
// task ranges), several ranks and layouts, multi-output fusions and
// reductions; and the compiled code takes the path the rule says. The
// same tests run with XLITE_CPU_THREADS=1 (kernel_loops_one_thread_test),
// where a split kernel runs its one part on the calling thread, and =3.

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

struct Compiled {
  Literal want;
  Literal got;
  std::string llvm_ir;
};

// Compiles and runs `text` on random inputs (integers in [-8, 8] for
// integer and converted parameters, so that sums are exact in any order),
// and evaluates it.
Compiled CompileAndRun(const std::string& text) {
  Compiled c;
  absl::StatusOr<std::unique_ptr<HloModule>> reference = ParseHloModule(text);
  EXPECT_TRUE(reference.ok()) << reference.status();
  if (!reference.ok()) return c;
  std::mt19937_64 rng(11);
  std::vector<Literal> args;
  for (const HloInstruction* p :
       (*reference)->entry_computation()->parameter_instructions()) {
    args.push_back(rtlib_test::RandomLiteral(p->shape(), rng, -8, 8));
  }
  absl::StatusOr<Literal> want = EvaluateModule(**reference, args);
  EXPECT_TRUE(want.ok()) << want.status();
  if (!want.ok()) return c;
  c.want = *std::move(want);
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok());
  if (!module.ok()) return c;
  CompileOptions options;
  options.keep_llvm_ir = true;
  absl::StatusOr<std::unique_ptr<CpuExecutable>> exe =
      CpuExecutable::Compile(*std::move(module), options);
  EXPECT_TRUE(exe.ok()) << exe.status();
  if (!exe.ok()) return c;
  c.llvm_ir = (*exe)->llvm_ir();
  absl::StatusOr<Literal> got = (*exe)->Run(args);
  EXPECT_TRUE(got.ok()) << got.status();
  if (got.ok()) c.got = *std::move(got);
  return c;
}

bool Tiled(const Compiled& c) {
  return c.llvm_ir.find(".tiles") != std::string::npos;
}
bool Split(const Compiled& c) {
  return c.llvm_ir.find("xlite_cpu_parallel_range") != std::string::npos;
}

// A module whose entry has `params` and root `body` (HLO text lines).
std::string Module(const std::string& result_layout, const std::string& body) {
  return "HloModule m" + result_layout + "\nENTRY e {\n" + body + "\n}\n";
}

TEST(KernelLoops, TransposedOperandIsTiledAndSplitBitIdentical) {
  // 517 x 389: neither a multiple of the 32-element tile.
  const Compiled c = CompileAndRun(Module("", R"(
  x = f32[389,517] parameter(0)
  y = f32[517,389] parameter(1)
  t = f32[517,389] transpose(x), dimensions={1,0}
  ROOT a = f32[517,389] add(t, y))"));
  EXPECT_EQ(c.want, c.got);
  EXPECT_TRUE(Tiled(c));
  EXPECT_TRUE(Split(c));
}

TEST(KernelLoops, ColumnMajorResultOfATransposeIsTiled) {
  // As jax's x.T + y with a {0,1} result: the transpose is a bitcast, y is
  // read across the result's layout.
  const Compiled c =
      CompileAndRun(Module(", entry_computation_layout={(f32[300,701]{1,0}, "
                           "f32[701,300]{1,0})->f32[701,300]{0,1}}",
                           R"(
  x = f32[300,701]{1,0} parameter(0)
  y = f32[701,300]{1,0} parameter(1)
  t = f32[701,300]{1,0} transpose(x), dimensions={1,0}
  ROOT a = f32[701,300]{0,1} add(t, y))"));
  EXPECT_EQ(c.want, c.got);
  EXPECT_TRUE(Tiled(c));
  EXPECT_TRUE(Split(c));
}

TEST(KernelLoops, RankThreeTransposeBitIdentical) {
  const Compiled c = CompileAndRun(Module("", R"(
  x = s32[37,45,131] parameter(0)
  t = s32[131,37,45] transpose(x), dimensions={2,0,1}
  ROOT n = s32[131,37,45] negate(t))"));
  EXPECT_EQ(c.want, c.got);
  EXPECT_TRUE(Tiled(c));
  EXPECT_TRUE(Split(c));
}

TEST(KernelLoops, LayoutChangingCopyBitIdentical) {
  const Compiled c = CompileAndRun(Module(
      ", entry_computation_layout={(f64[263,301]{1,0})->f64[263,301]{0,1}}",
      R"(
  x = f64[263,301]{1,0} parameter(0)
  ROOT c = f64[263,301]{0,1} copy(x))"));
  EXPECT_EQ(c.want, c.got);
  EXPECT_TRUE(Tiled(c));
}

TEST(KernelLoops, LargeElementwiseChainIsSplitNotTiled) {
  const Compiled c = CompileAndRun(Module("", R"(
  x = f32[300007] parameter(0)
  y = f32[300007] parameter(1)
  a = f32[300007] add(x, y)
  m = f32[300007] multiply(a, x)
  s = f32[300007] subtract(m, y)
  ROOT r = f32[300007] maximum(s, a))"));
  EXPECT_EQ(c.want, c.got);
  EXPECT_FALSE(Tiled(c));
  EXPECT_TRUE(Split(c));
}

TEST(KernelLoops, SmallKernelsStayWholeAndInline) {
  const Compiled c = CompileAndRun(Module("", R"(
  x = f32[40,50] parameter(0)
  y = f32[50,40] parameter(1)
  t = f32[50,40] transpose(x), dimensions={1,0}
  ROOT a = f32[50,40] add(t, y))"));
  EXPECT_EQ(c.want, c.got);
  EXPECT_FALSE(Tiled(c));
  EXPECT_FALSE(Split(c));
}

TEST(KernelLoops, MultiOutputFusionOfTransposesBitIdentical) {
  const Compiled c = CompileAndRun(Module("", R"(
  x = f32[389,517] parameter(0)
  y = f32[517,389] parameter(1)
  t = f32[517,389] transpose(x), dimensions={1,0}
  a = f32[517,389] add(t, y)
  m = f32[517,389] multiply(t, y)
  ROOT r = (f32[517,389], f32[517,389]) tuple(a, m))"));
  EXPECT_EQ(c.want, c.got);
}

TEST(KernelLoops, ColumnAndRowSumsSplitBitIdentical) {
  const std::string add =
      "HloModule m\nadd { a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
      " ROOT s = f32[] add(a, b) }\n";
  for (const char* dims : {"{0}", "{1}"}) {
    SCOPED_TRACE(dims);
    const bool column = std::string(dims) == "{0}";
    const std::string out = column ? "f32[517]" : "f32[1031]";
    const Compiled c = CompileAndRun(add + "ENTRY e {\n" + R"(
  p = s32[1031,517] parameter(0)
  x = f32[1031,517] convert(p)
  z = f32[] constant(0)
  ROOT r = )" + out + " reduce(x, z), dimensions=" +
                                     dims + ", to_apply=add\n}\n");
    EXPECT_EQ(c.want, c.got);
    EXPECT_TRUE(Split(c));
  }
}

TEST(KernelLoops, InPlaceUpdateStaysWhole) {
  const Compiled c = CompileAndRun(Module("", R"(
  x = f32[1024,300] parameter(0)
  u = f32[1000,300] parameter(1)
  i = s32[] constant(3)
  z = s32[] constant(0)
  ROOT d = f32[1024,300] dynamic-update-slice(x, u, i, z))"));
  EXPECT_EQ(c.want, c.got);
}

}  // namespace
}  // namespace xlite::cpu
