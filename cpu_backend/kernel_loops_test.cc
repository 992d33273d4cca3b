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

TEST(KernelLoops, ElementwiseFusionInItsOperandsBufferIsSplit) {
  // The fusion's result reuses the dot's buffer; each element reads only
  // its own position there, so the tasks may write in place. (Integer
  // inputs: the dot's sums are exact in any order.)
  const Compiled c = CompileAndRun(Module("", R"(
  xi = s32[512,256] parameter(0)
  wi = s32[256,640] parameter(1)
  x = f32[512,256] convert(xi)
  w = f32[256,640] convert(wi)
  d = f32[512,640] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  m = f32[512,640] multiply(d, d)
  ROOT r = f32[512,640] add(m, d))"));
  EXPECT_EQ(c.want, c.got);
  EXPECT_TRUE(Split(c));
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

// Reassociable reducers (maximum, minimum, integer folds) along the
// operand's minor dimension are folded in vector strips, one result at a
// time: the same values as the evaluator's sequential (or tree) order,
// NaN, -0 and +0 included, at run lengths that leave a remainder, with
// other reduced dimensions around the runs, and through a column-major
// operand whose minor dimension is dimension 0.
TEST(KernelLoops, ReassociableReductionsFoldInStrips) {
  struct Case {
    const char* type;
    const char* op;
    const char* init;
  };
  const Case cases[] = {{"f32", "maximum", "-inf"}, {"f32", "minimum", "inf"},
                        {"f64", "maximum", "-inf"}, {"s32", "add", "0"},
                        {"u8", "maximum", "3"},     {"s64", "multiply", "1"},
                        {"s16", "xor", "0"},        {"s8", "minimum", "100"}};
  const char* shapes[][3] = {
      // operand, reduced dimensions, result
      {"[37,301]{1,0}", "{1}", "[37]"},
      {"[5,7,300]{2,1,0}", "{0,2}", "[7]"},
      {"[300,9]{0,1}", "{0}", "[9]"},
      {"[64,65]{1,0}", "{0,1}", "[]"},
  };
  for (const Case& k : cases) {
    for (const auto& shape : shapes) {
      SCOPED_TRACE(std::string(k.type) + " " + k.op + " " + shape[0]);
      const std::string t = k.type;
      const bool is_float = t[0] == 'f';
      // Floats: the input negated to [-8, 0] (its zeros -0), +0 where it
      // was 3, NaN where it was 7 in row 3 of dimension 0.
      const std::string sh = shape[0];
      auto bc = [&](const std::string& name, const std::string& type,
                    const std::string& value) {
        return "  " + name + "s = " + type + "[] constant(" + value + ")\n  " +
               name + " = " + type + sh + " broadcast(" + name +
               "s), dimensions={}\n";
      };
      const std::string special =
          is_float
              ? bc("b3", t, "3") + bc("b7", t, "7") + bc("bn", t, "nan") +
                    bc("bz", t, "0") + bc("r3", "s32", "3") + "  a = " + t +
                    sh + " abs(x)\n  g = " + t + sh +
                    " negate(a)\n  e3 = pred" + sh +
                    " compare(x, b3), direction=EQ\n  w = " + t + sh +
                    " select(e3, bz, g)\n  io = s32" + sh +
                    " iota(), iota_dimension=0\n  ei = pred" + sh +
                    " compare(io, r3), direction=EQ\n  e7 = pred" + sh +
                    " compare(x, b7), direction=EQ\n  en = pred" + sh +
                    " and(ei, e7)\n  y = " + t + sh + " select(en, bn, w)\n"
              : "  y = " + t + sh + " copy(x)\n";
      const std::string text =
          "HloModule m\nf { a = " + t + "[] parameter(0)\n b = " + t +
          "[] parameter(1)\n ROOT s = " + t + "[] " + k.op +
          "(a, b) }\nENTRY e {\n  p = s32" + shape[0] + " parameter(0)\n" +
          "  x = " + t + shape[0] + " convert(p)\n" + special + "  z = " + t +
          "[] constant(" + k.init + ")\n  ROOT r = " + t + shape[2] +
          " reduce(y, z), dimensions=" + shape[1] + ", to_apply=f\n}\n";
      const Compiled c = CompileAndRun(text);
      EXPECT_EQ(c.want, c.got);
      EXPECT_NE(c.llvm_ir.find("llvm.vector.reduce."), std::string::npos);
    }
  }
}

// Column reductions (the reduced dimension physically above the kept
// minor one) walk a block of columns row by row, one accumulator row per
// tree level: bit for bit the evaluator's (XLA:CPU's) tree order on random
// reals, with padded windows, outer kept dimensions, several inner ones,
// a column-major operand, size-1 reduced dimensions, a non-identity init
// value, a reassociable reducer without a tree, and elementwise
// operations after the reduce (a bias updated by its gradient).
TEST(KernelLoops, ColumnReductionsWalkRowsBitIdentical) {
  struct Case {
    const char* type;
    const char* operand;
    const char* dims;
    const char* result;
    const char* op;
    const char* init;
  };
  const Case cases[] = {
      {"f32", "[1031,517]{1,0}", "{0}", "[517]", "add", "0"},
      {"f32", "[3,700,40]{2,1,0}", "{1}", "[3,40]", "add", "0"},
      {"f32", "[700,6,20]{2,1,0}", "{0}", "[6,20]", "add", "0"},
      {"f32", "[517,1031]{0,1}", "{1}", "[517]", "add", "0"},
      {"f32", "[1,900,64]{2,1,0}", "{0,1}", "[64]", "add", "0"},
      {"f64", "[333,100]{1,0}", "{0}", "[100]", "add", "5"},
      {"f32", "[2000,70]{1,0}", "{0}", "[70]", "maximum", "-inf"},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(std::string(k.type) + k.operand + " " + k.dims);
    const std::string t = k.type;
    const std::string text =
        "HloModule m\nf { a = " + t + "[] parameter(0)\n b = " + t +
        "[] parameter(1)\n ROOT s = " + t + "[] " + k.op +
        "(a, b) }\nENTRY e {\n  x = " + t + k.operand +
        " parameter(0)\n  y = " + t + k.operand +
        " multiply(x, x)\n  z = " + t + "[] constant(" + k.init +
        ")\n  ROOT r = " + t + k.result +
        " reduce(y, z), dimensions=" + k.dims + ", to_apply=f\n}\n";
    const Compiled c = CompileAndRun(text);
    EXPECT_EQ(c.want, c.got);
    // The column emitter's loops ("col.rows", "col.c", ...): which of them
    // survive LLVM's unrolling depends on the host's vector width.
    EXPECT_NE(c.llvm_ir.find("col."), std::string::npos);
  }
  const Compiled c = CompileAndRun(R"(HloModule m
f { a = f32[] parameter(0)
 b = f32[] parameter(1)
 ROOT s = f32[] add(a, b) }
ENTRY e {
  g = f32[300,512] parameter(0)
  bias = f32[512] parameter(1)
  z = f32[] constant(0)
  r = f32[512] reduce(g, z), dimensions={0}, to_apply=f
  k = f32[] constant(0.01)
  kb = f32[512] broadcast(k), dimensions={}
  m = f32[512] multiply(r, kb)
  ROOT u = f32[512] subtract(bias, m)
})");
  EXPECT_EQ(c.want, c.got);
  EXPECT_NE(c.llvm_ir.find("col."), std::string::npos);
}

// Operands read across the result's layout are copied tile by tile
// (tile_staging.h): whole 8x8-blocked tiles and partial edge tiles of
// 4-byte elements, element copies of 1-, 2- and 8-byte ones, a batch
// dimension, a broadcast read transposed; an operand also read through a
// slice is not copied (and is still right).
TEST(KernelLoops, TransposedOperandsStagedByTileBitIdentical) {
  struct Case {
    const char* name;
    const char* body;
    bool staged;
  };
  const Case cases[] = {
      {"f32 whole tiles", R"(
  x = f32[256,512]{1,0} parameter(0)
  y = f32[512,256]{1,0} parameter(1)
  t = f32[512,256]{1,0} transpose(x), dimensions={1,0}
  ROOT a = f32[512,256]{1,0} add(t, y))",
       true},
      {"f32 edge tiles", R"(
  x = f32[389,517]{1,0} parameter(0)
  y = f32[517,389]{1,0} parameter(1)
  t = f32[517,389]{1,0} transpose(x), dimensions={1,0}
  ROOT a = f32[517,389]{1,0} multiply(t, y))",
       true},
      {"bf16", R"(
  x = bf16[300,700]{1,0} parameter(0)
  t = bf16[700,300]{1,0} transpose(x), dimensions={1,0}
  ROOT n = bf16[700,300]{1,0} negate(t))",
       true},
      {"s8", R"(
  x = s8[300,700]{1,0} parameter(0)
  t = s8[700,300]{1,0} transpose(x), dimensions={1,0}
  ROOT n = s8[700,300]{1,0} negate(t))",
       true},
      {"f64 batch", R"(
  x = f64[3,130,170]{2,1,0} parameter(0)
  t = f64[3,170,130]{2,1,0} transpose(x), dimensions={0,2,1}
  ROOT n = f64[3,170,130]{2,1,0} negate(t))",
       true},
      {"broadcast", R"(
  x = f32[300,200]{1,0} parameter(0)
  b = f32[200,5,300]{2,1,0} broadcast(x), dimensions={2,0}
  ROOT n = f32[200,5,300]{2,1,0} negate(b))",
       true},
      {"also sliced", R"(
  x = f32[400,600]{1,0} parameter(0)
  t = f32[600,400]{1,0} transpose(x), dimensions={1,0}
  s = f32[400,600]{1,0} slice(x), slice={[0:400], [0:600]}
  u = f32[600,400]{1,0} transpose(s), dimensions={1,0}
  r = f32[600,400]{1,0} reverse(u), dimensions={0}
  ROOT a = f32[600,400]{1,0} add(t, r))",
       false},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.name);
    const Compiled c = CompileAndRun(Module("", k.body));
    EXPECT_EQ(c.want, c.got);
    EXPECT_TRUE(Tiled(c));
    EXPECT_EQ(c.llvm_ir.find("stage.c") != std::string::npos, k.staged);
  }
}

// Kernel chains: a row softmax (its division by the row sum written as
// algsimp leaves it, a multiply by the reciprocal, so that the evaluator
// of the text is the reference) and a layer norm (reductions along rows,
// elementwise ops reading them back per row) run block by block of rows,
// each member's part in turn, bit for bit as kernel after kernel; a
// transposed read of a chained result ends the chain.
TEST(KernelLoops, KernelChainsRunRowBlocksBitIdentical) {
  const std::string reducers = R"(HloModule m
mx { a = f32[] parameter(0)
 b = f32[] parameter(1)
 ROOT s = f32[] maximum(a, b) }
ad { a = f32[] parameter(0)
 b = f32[] parameter(1)
 ROOT s = f32[] add(a, b) }
)";
  const std::string softmax = reducers + R"(ENTRY e {
  x = f32[300,517] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[300] reduce(x, ninf), dimensions={1}, to_apply=mx
  mb = f32[300,517] broadcast(m), dimensions={0}
  d = f32[300,517] subtract(x, mb)
  ex = f32[300,517] exponential(d)
  z = f32[] constant(0)
  s = f32[300] reduce(ex, z), dimensions={1}, to_apply=ad
  one = f32[300] broadcast(f32[] constant(1)), dimensions={}
  rs = f32[300] divide(one, s)
  sb = f32[300,517] broadcast(rs), dimensions={0}
  ROOT r = f32[300,517] multiply(ex, sb)
})";
  const std::string layer_norm = reducers + R"(ENTRY e {
  x = f32[257,1000] parameter(0)
  z = f32[] constant(0)
  n = f32[] constant(0.001)
  nb = f32[257] broadcast(n), dimensions={}
  s = f32[257] reduce(x, z), dimensions={1}, to_apply=ad
  mean = f32[257] multiply(s, nb)
  mb = f32[257,1000] broadcast(mean), dimensions={0}
  c = f32[257,1000] subtract(x, mb)
  c2 = f32[257,1000] multiply(c, c)
  v = f32[257] reduce(c2, z), dimensions={1}, to_apply=ad
  var = f32[257] multiply(v, nb)
  eps = f32[] constant(1e-5)
  eb = f32[257] broadcast(eps), dimensions={}
  ve = f32[257] add(var, eb)
  rs = f32[257] rsqrt(ve)
  rb = f32[257,1000] broadcast(rs), dimensions={0}
  ROOT y = f32[257,1000] multiply(c, rb)
})";
  for (const std::string& text : {softmax, layer_norm}) {
    const Compiled c = CompileAndRun(text);
    EXPECT_EQ(c.want, c.got);
    EXPECT_NE(c.llvm_ir.find("chain."), std::string::npos);
    // The exp (the centred values) only later members read: it lives in
    // a block-sized scratch, not in memory.
    EXPECT_NE(c.llvm_ir.find("chain.scratch"), std::string::npos);
    // x, read again (from the cache) by the member after the first,
    // is prefetched there one block ahead (read_ahead.h).
    EXPECT_NE(c.llvm_ir.find("call void @llvm.prefetch"), std::string::npos);
  }
  // 16 MiB: with the exp in scratch, nothing before the divide writes the
  // result's lines, and the divide streams them.
  std::string large = softmax;
  for (const char* from : {"300,517", "[300]"}) {
    const std::string to = from[0] == '[' ? "[1024]" : "1024,4096";
    for (size_t at; (at = large.find(from)) != std::string::npos;) {
      large.replace(at, std::string(from).size(), to);
    }
  }
  const Compiled big = CompileAndRun(large);
  EXPECT_EQ(big.want, big.got);
  EXPECT_NE(big.llvm_ir.find("chain.scratch"), std::string::npos);
  EXPECT_NE(big.llvm_ir.find("!nontemporal"), std::string::npos);
  // The transpose reads other rows of the softmax: it runs after the
  // whole chain.
  const std::string transposed = reducers + R"(ENTRY e {
  x = f32[400,400] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[400] reduce(x, ninf), dimensions={1}, to_apply=mx
  mb = f32[400,400] broadcast(m), dimensions={0}
  d = f32[400,400] subtract(x, mb)
  ex = f32[400,400] exponential(d)
  t = f32[400,400] transpose(ex), dimensions={1,0}
  ROOT r = f32[400,400] add(ex, t)
})";
  const Compiled c = CompileAndRun(transposed);
  EXPECT_EQ(c.want, c.got);
}

// A small batched c64 dot (its operands made by two kernels in one
// temporary allocation) computes 5 lanes per group: the groups' loops stay
// rolled (codegen/loops.cc EmitLaneLoopNest), since fully unrolled LLVM 19
// produced wrong values from them.
TEST(KernelLoops, SmallBatchedComplexDotBitIdentical) {
  const Compiled c = CompileAndRun(R"(HloModule m
ENTRY e {
  u = c64[4,3,3]{2,1,0} parameter(0)
  vh = c64[4,5,5]{2,1,0} parameter(1)
  a = c64[4,3,3]{2,1,0} negate(u)
  b = c64[4,3,5]{2,1,0} slice(vh), slice={[0:4], [0:3], [0:5]}
  ROOT d = c64[4,3,5]{2,1,0} dot(a, b), lhs_batch_dims={0},
    lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
})");
  EXPECT_EQ(c.want, c.got);
}

TEST(KernelLoops, OrderedReductionsKeepTheTree) {
  // A float sum rounds in its order; an integer sum from 5 counts the init
  // value once per window of the tree order: both keep the evaluator's
  // (XLA:CPU's) tree result.
  for (const char* t : {"f32", "s32"}) {
    SCOPED_TRACE(t);
    const std::string type = t;
    const Compiled c = CompileAndRun(
        "HloModule m\nf { a = " + type + "[] parameter(0)\n b = " + type +
        "[] parameter(1)\n ROOT s = " + type +
        "[] add(a, b) }\nENTRY e {\n  p = s32[37,301] parameter(0)\n  x = " +
        type + "[37,301] convert(p)\n  z = " + type +
        "[] constant(5)\n  ROOT r = " + type +
        "[37] reduce(x, z), dimensions={1}, to_apply=f\n}\n");
    EXPECT_EQ(c.want, c.got);
  }
}

bool Streams(const Compiled& c) {
  return c.llvm_ir.find("!nontemporal") != std::string::npos;
}

TEST(KernelLoops, LargeTiledResultStreamsBitIdentical) {
  // 16 MiB written in tiles: the streaming version's vector stores are
  // non-temporal (hlo-run's buffers are aligned, so it is the one run).
  const Compiled c = CompileAndRun(Module("", R"(
  x = f32[2048,2048] parameter(0)
  y = f32[2048,2048] parameter(1)
  t = f32[2048,2048] transpose(x), dimensions={1,0}
  ROOT r = f32[2048,2048] add(t, y))"));
  EXPECT_EQ(c.want, c.got);
  EXPECT_TRUE(Tiled(c));
  EXPECT_TRUE(Streams(c));
}

TEST(KernelLoops, LargeVectorStreamsInAlignedSharesBitIdentical) {
  // One dimension of odd length, split along it: each task's share starts
  // on a 64-byte boundary, the last one ends the array.
  const Compiled c = CompileAndRun(Module("", R"(
  x = f32[4194311] parameter(0)
  y = f32[4194311] parameter(1)
  a = f32[4194311] add(x, y)
  ROOT m = f32[4194311] multiply(a, x))"));
  EXPECT_EQ(c.want, c.got);
  EXPECT_TRUE(Split(c));
  EXPECT_TRUE(Streams(c));
}

TEST(KernelLoops, SmallOrUnalignedRowResultsDoNotStream) {
  // 16 MiB in rows of 1001 floats (rows start unaligned), and 4 MiB.
  for (const char* shape : {"f32[4191,1001]", "f32[1024,1024]"}) {
    SCOPED_TRACE(shape);
    const std::string s = shape;
    const Compiled c = CompileAndRun(Module(
        "", "  x = " + s + " parameter(0)\n  ROOT r = " + s + " add(x, x)"));
    EXPECT_EQ(c.want, c.got);
    EXPECT_FALSE(Streams(c));
  }
}

TEST(KernelLoops, SmallTwoDimensionalKernelsAreUnrolled) {
  // A 3x3 step of a scan: its loops unroll completely, so the rows are
  // read at constant offsets, not by strided gathers along the outer loop.
  const Compiled c = CompileAndRun(Module("", R"(
  xs = f32[10,3,3] parameter(0)
  i = s32[] parameter(1)
  z = s32[] constant(0)
  x = f32[1,3,3] dynamic-slice(xs, i, z, z), dynamic_slice_sizes={1,3,3}
  r = f32[3,3] reshape(x)
  h = f32[3,3] parameter(2)
  a = f32[3,3] add(r, h)
  ROOT t = f32[3,3] tanh(a))"));
  EXPECT_EQ(c.want, c.got);
  EXPECT_EQ(c.llvm_ir.find("d1.header"), std::string::npos);
  EXPECT_EQ(c.llvm_ir.find("masked.gather"), std::string::npos);
}

}  // namespace
}  // namespace xlite::cpu
