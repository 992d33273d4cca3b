// Collectives on the CPU backend, run as N devices on N threads
// (multi_device.h): small modules (every collective opcode, the async
// pairs) against the evaluator's
// EvaluateOnDevices, the 4- and 8-device JAX corpus programs against XLA's
// recorded per-partition results, and a deadlock that fails instead of
// hanging.
#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "cpu_backend/executable.h"
#include "cpu_backend/multi_device.h"
#include "cpu_backend/runtime_lib/test_support.h"
#include "hlo/analysis/verifier.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"
#include "runtime/literal_io.h"
#include "tests/testing/paths.h"

namespace xlite::cpu {
namespace {

void Flatten(const Literal& l, std::vector<const Literal*>* out) {
  if (l.shape().IsTuple()) {
    for (const Literal& e : l.tuple_elements()) Flatten(e, out);
  } else {
    out->push_back(&l);
  }
}

std::unique_ptr<HloModule> Parse(const std::string& text) {
  auto module = ParseHloModule(text, {});
  EXPECT_TRUE(module.ok()) << module.status().message();
  if (!module.ok()) return nullptr;
  EXPECT_TRUE(VerifyModule(**module).ok());
  return *std::move(module);
}

// Runs `text` on replicas x partitions devices with random arguments on the
// cpu backend and the evaluator; the results must agree.
void ExpectMatchesEvaluator(const std::string& text, int64_t replicas,
                            int64_t partitions) {
  std::unique_ptr<HloModule> module = Parse(text);
  ASSERT_NE(module, nullptr);
  std::mt19937_64 rng(7);
  const HloComputation& entry = *module->entry_computation();
  std::vector<std::vector<Literal>> args(replicas * partitions);
  for (auto& device : args) {
    for (int64_t i = 0; i < entry.num_parameters(); ++i) {
      device.push_back(rtlib_test::RandomLiteral(
          entry.parameter_instruction(i)->shape(), rng, -4, 4));
    }
  }
  auto want = EvaluateOnDevices(*module, replicas, partitions, args);
  ASSERT_TRUE(want.ok()) << want.status().message();
  auto exe = CpuExecutable::Compile(module->Clone());
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  auto got = RunOnDevices(**exe, replicas, partitions, args);
  ASSERT_TRUE(got.ok()) << got.status().message();
  for (size_t d = 0; d < got->size(); ++d) {
    std::vector<const Literal*> g, w;
    Flatten((*got)[d], &g);
    Flatten((*want)[d], &w);
    ASSERT_EQ(g.size(), w.size());
    for (size_t k = 0; k < g.size(); ++k) {
      EXPECT_TRUE(rtlib_test::Near(*w[k], *g[k]))
          << "device " << d << ", result " << k;
    }
  }
}

constexpr char kAdd[] = R"(
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
)";

TEST(CpuCollectives, AllReduceReplicaGroups) {
  ExpectMatchesEvaluator(
      absl::StrCat("HloModule m, replica_count=4\n", kAdd, R"(
ENTRY e {
  p = f32[3,5] parameter(0)
  ROOT r = f32[3,5] all-reduce(p), replica_groups={{0,2},{1,3}}, to_apply=add
})"),
      4, 1);
}

// A single-op bf16 reduction accumulates in f32, as XLA:CPU's runtime does.
TEST(CpuCollectives, Bf16AllReduceAccumulatesWide) {
  ExpectMatchesEvaluator(R"(HloModule m, replica_count=8
add {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT s = bf16[] add(b, a)
}
ENTRY e {
  p = bf16[64] parameter(0)
  ROOT r = bf16[64] all-reduce(p), replica_groups={}, to_apply=add
})",
                         8, 1);
}

TEST(CpuCollectives, VariadicAllReduceWithComputedMax) {
  ExpectMatchesEvaluator(R"(HloModule m, replica_count=3
maxish {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  m = s32[] maximum(a, b)
  ROOT r = s32[] subtract(m, a)
}
ENTRY e {
  p = s32[4] parameter(0)
  q = s32[2,2]{0,1} parameter(1)
  ROOT r = (s32[4], s32[2,2]{0,1}) all-reduce(p, q), replica_groups={},
      to_apply=maxish
})",
                         3, 1);
}

TEST(CpuCollectives, AllGatherAndReduceScatterWithLayouts) {
  ExpectMatchesEvaluator(
      absl::StrCat("HloModule m, replica_count=1, num_partitions=4\n", kAdd, R"(
ENTRY e {
  p = f32[2,3]{0,1} parameter(0)
  g = f32[2,12]{0,1} all-gather(p), channel_id=1, replica_groups={{0,1,2,3}},
      dimensions={1}, use_global_device_ids=true
  q = f32[8,3] parameter(1)
  s = f32[4,3]{0,1} reduce-scatter(q), channel_id=2,
      replica_groups={{3,1},{0,2}}, dimensions={0}, use_global_device_ids=true,
      to_apply=add
  ROOT t = (f32[2,12]{0,1}, f32[4,3]{0,1}) tuple(g, s)
})"),
      1, 4);
}

TEST(CpuCollectives, AllToAllArrayAndTupleForms) {
  ExpectMatchesEvaluator(R"(HloModule m, replica_count=2, num_partitions=2
ENTRY e {
  p = f32[4,8] parameter(0)
  a = f32[4,8] all-to-all(p), channel_id=4, replica_groups={{0,1}},
      dimensions={1}
  x = s32[3] parameter(1)
  y = s32[3] parameter(2)
  b = (s32[3], s32[3]) all-to-all(x, y), replica_groups={{1,0}}
  ROOT t = (f32[4,8], (s32[3], s32[3])) tuple(a, b)
})",
                         2, 2);
}

TEST(CpuCollectives, CollectivePermuteMissingSourcesGetZeros) {
  ExpectMatchesEvaluator(R"(HloModule m, num_partitions=4
ENTRY e {
  p = f32[2,3] parameter(0)
  c = f32[2,3] collective-permute(p), channel_id=1,
      source_target_pairs={{0,2},{2,1}}
  r = f32[2,3] collective-permute(p), source_target_pairs={{0,0}}
  ROOT t = (f32[2,3], f32[2,3]) tuple(c, r)
})",
                         1, 4);
}

// The async pairs become the synchronous collectives at their done
// (async_to_sync.h); on one device they are the one-device copies.
TEST(CpuCollectives, AsyncStartDonePairs) {
  const std::string text =
      absl::StrCat("HloModule m, replica_count=2\n", kAdd, R"(
ENTRY e {
  p = f32[4] parameter(0)
  q = s32[2,3] parameter(1)
  ars = f32[4] all-reduce-start(p), replica_groups={}, to_apply=add
  ard = f32[4] all-reduce-done(ars)
  ags = (s32[2,3], s32[4,3]) all-gather-start(q), replica_groups={{0,1}},
      dimensions={0}
  agd = s32[4,3] all-gather-done(ags)
  cps = ((f32[4], s32[2,3]), (f32[4], s32[2,3])) collective-permute-start(p, q),
      source_target_pairs={{0,1},{1,0}}
  cpd = (f32[4], s32[2,3]) collective-permute-done(cps)
  ROOT t = (f32[4], s32[4,3], (f32[4], s32[2,3])) tuple(ard, agd, cpd)
})");
  ExpectMatchesEvaluator(text, 2, 1);
  ExpectMatchesEvaluator(absl::StrCat("HloModule m\n", kAdd, R"(
ENTRY e {
  p = f32[4] parameter(0)
  ars = f32[4] all-reduce-start(p), replica_groups={}, to_apply=add
  ard = f32[4] all-reduce-done(ars)
  cps = (f32[4], f32[4]) collective-permute-start(ard),
      source_target_pairs={{0,0}}
  ROOT cpd = f32[4] collective-permute-done(cps)
})"),
                         1, 1);
}

TEST(CpuCollectives, CollectiveBroadcastAndReduce) {
  ExpectMatchesEvaluator(absl::StrCat("HloModule m, replica_count=4\n", kAdd,
                                      R"(
ENTRY e {
  p = f32[2,3]{0,1} parameter(0)
  q = s32[5] parameter(1)
  b = (f32[2,3]{0,1}, s32[5]) collective-broadcast(p, q),
      replica_groups={{2,0},{1,3}}
  r = f32[2,3] collective-reduce(p), replica_groups={{3,2,1,0}}, to_apply=add
  ROOT t = ((f32[2,3]{0,1}, s32[5]), f32[2,3]) tuple(b, r)
})"),
                         4, 1);
  // One device: the operands.
  ExpectMatchesEvaluator(absl::StrCat("HloModule m\n", kAdd, R"(
ENTRY e {
  p = f32[2,3] parameter(0)
  b = f32[2,3] collective-broadcast(p), replica_groups={}
  ROOT r = f32[2,3] collective-reduce(b), replica_groups={}, to_apply=add
})"),
                         1, 1);
}

// ragged-all-to-all with offset tables computed on each device (random
// tables would send rows outside the buffers): replica r sends rows
// [r, r + 1 + q) of its input to replica q, which writes them at row
// 3 * r of its output.
TEST(CpuCollectives, RaggedAllToAll) {
  const std::string tables = R"(
  id = s64[] convert(u32[] replica-id())
  i2 = s64[2] iota(), iota_dimension=0
  r2 = s64[2] broadcast(id), dimensions={}
  one = s64[2] constant({1, 1})
  three = s64[2] constant({3, 3})
  io = s64[2] broadcast(id), dimensions={}
  ss = s64[2] add(i2, one)
  oo = s64[2] multiply(r2, three)
  rs = s64[2] add(i2, one)
)";
  ExpectMatchesEvaluator(absl::StrCat(R"(HloModule m, replica_count=2
ENTRY e {
  in = f32[4,3] parameter(0)
  out = f32[6,3]{0,1} parameter(1))",
                                      tables, R"(
  ROOT r = f32[6,3]{0,1} ragged-all-to-all(in, out, io, ss, oo, rs),
      replica_groups={{0,1}}
})"),
                         2, 1);
  // s32 tables, one device sending rows to itself.
  ExpectMatchesEvaluator(R"(HloModule m
ENTRY e {
  in = s8[5] parameter(0)
  out = s8[5] parameter(1)
  io = s32[1] constant({1})
  ss = s32[1] constant({3})
  oo = s32[1] constant({0})
  rs = s32[1] constant({3})
  ROOT r = s8[5] ragged-all-to-all(in, out, io, ss, oo, rs),
      replica_groups={{0}}
})",
                         1, 1);
}

TEST(CpuCollectives, RaggedAllToAllOutOfBoundsFails) {
  std::unique_ptr<HloModule> module = Parse(R"(HloModule m
ENTRY e {
  in = f32[4] parameter(0)
  out = f32[4] parameter(1)
  io = s64[1] constant({2})
  ss = s64[1] constant({3})
  oo = s64[1] constant({0})
  rs = s64[1] constant({3})
  ROOT r = f32[4] ragged-all-to-all(in, out, io, ss, oo, rs),
      replica_groups={{0}}
})");
  ASSERT_NE(module, nullptr);
  auto exe = CpuExecutable::Compile(module->Clone());
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  std::vector<std::vector<Literal>> args(1);
  for (int i = 0; i < 2; ++i) {
    args[0].push_back(Literal(Shape(PrimitiveType::kF32, {4})));
  }
  auto got = RunOnDevices(**exe, 1, 1, args);
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("outside the buffers"),
            std::string::npos)
      << got.status().message();
}

TEST(CpuCollectives, AllReduceInsideWhileLoop) {
  ExpectMatchesEvaluator(absl::StrCat("HloModule m, replica_count=2\n", kAdd,
                                      R"(
cond {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  j = s32[] add(i, one)
  v = f32[4] get-tuple-element(s), index=1
  r = f32[4] all-reduce(v), replica_groups={}, to_apply=add
  id = u32[] replica-id()
  f = f32[] convert(id)
  b = f32[4] broadcast(f), dimensions={}
  w = f32[4] add(r, b)
  ROOT t = (s32[], f32[4]) tuple(j, w)
}
ENTRY e {
  p = f32[4] parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[4]) tuple(z, p)
  ROOT w = (s32[], f32[4]) while(t), condition=cond, body=body
})"),
                         2, 1);
}

TEST(CpuCollectives, DeadlockFailsNamingTheInstruction) {
  std::unique_ptr<HloModule> module =
      Parse(absl::StrCat("HloModule m, replica_count=2\n", kAdd, R"(
reduce_it {
  p = f32[2] parameter(0)
  ROOT r = f32[2] all-reduce(p), replica_groups={}, to_apply=add
}
skip {
  ROOT p = f32[2] parameter(0)
}
ENTRY e {
  p = f32[2] parameter(0)
  id = u32[] replica-id()
  zero = u32[] constant(0)
  first = pred[] compare(id, zero), direction=EQ
  ROOT c = f32[2] conditional(first, p, p), true_computation=reduce_it,
      false_computation=skip
})"));
  ASSERT_NE(module, nullptr);
  auto exe = CpuExecutable::Compile(module->Clone());
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  std::vector<std::vector<Literal>> args(2);
  for (auto& a : args) a.push_back(Literal(Shape(PrimitiveType::kF32, {2})));
  auto got = RunOnDevices(**exe, 2, 1, args);
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("deadlock"), std::string::npos)
      << got.status().message();
  EXPECT_NE(got.status().message().find("r#0"), std::string::npos)
      << got.status().message();
}

// --- The corpus: XLA's recorded per-partition results. ---

std::vector<Literal> ReadArrays(const std::string& dir, const std::string& stem,
                                const std::vector<Shape>& shapes,
                                const std::string& suffix) {
  std::vector<Literal> out;
  for (size_t i = 0; i < shapes.size(); ++i) {
    auto literal = ReadLiteralFile(
        absl::StrCat(dir, "/", stem, "_", i, suffix, ".npy"), &shapes[i]);
    EXPECT_TRUE(literal.ok()) << literal.status().message();
    if (literal.ok()) out.push_back(*std::move(literal));
  }
  return out;
}

std::vector<Shape> Leaves(const Shape& shape) {
  std::vector<Shape> out;
  std::function<void(const Shape&)> walk = [&](const Shape& s) {
    if (s.IsTuple()) {
      for (const Shape& e : s.tuple_shapes()) walk(e);
    } else {
      out.push_back(s);
    }
  };
  walk(shape);
  return out;
}

class CorpusOnDevices
    : public ::testing::TestWithParam<std::pair<std::string, int64_t>> {};

TEST_P(CorpusOnDevices, MatchesXla) {
  const auto& [name, partitions] = GetParam();
  const std::string dir = absl::StrCat("tests/corpus/programs/", name);
  std::optional<std::string> text = testing::ReadFile(dir + "/after.hlo");
  ASSERT_TRUE(text.has_value()) << dir;
  std::unique_ptr<HloModule> module = Parse(*text);
  ASSERT_NE(module, nullptr);
  const HloComputation& entry = *module->entry_computation();
  std::vector<Shape> param_shapes;
  for (int64_t i = 0; i < entry.num_parameters(); ++i) {
    param_shapes.push_back(entry.parameter_instruction(i)->shape());
  }
  const std::vector<Shape> result_shapes =
      Leaves(entry.root_instruction()->shape());
  std::vector<std::vector<Literal>> args, expected;
  for (int64_t p = 0; p < partitions; ++p) {
    args.push_back(ReadArrays(dir, "in", param_shapes, absl::StrCat(".p", p)));
    expected.push_back(
        ReadArrays(dir, "out", result_shapes, absl::StrCat(".p", p)));
  }
  auto exe = CpuExecutable::Compile(std::move(module));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  auto got = RunOnDevices(**exe, 1, partitions, args);
  ASSERT_TRUE(got.ok()) << got.status().message();
  for (int64_t d = 0; d < partitions; ++d) {
    std::vector<const Literal*> leaves;
    Flatten((*got)[d], &leaves);
    ASSERT_EQ(leaves.size(), expected[d].size());
    for (size_t k = 0; k < leaves.size(); ++k) {
      EXPECT_TRUE(rtlib_test::Near(expected[d][k], *leaves[k]))
          << name << ", device " << d << ", result " << k;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, CorpusOnDevices,
    ::testing::Values(std::pair<std::string, int64_t>{"collectives_4", 4},
                      std::pair<std::string, int64_t>{"collectives_8", 8},
                      std::pair<std::string, int64_t>{"data_parallel_sgd", 4},
                      std::pair<std::string, int64_t>{"grad_accumulation_scan",
                                                      4}),
    [](const auto& info) { return info.param.first; });

}  // namespace
}  // namespace xlite::cpu
