// Ahead-of-time libraries without the system toolchain: C identifiers, the
// C interface of a module, the row-major rewrite at the entry, the header,
// and the library's object linked into a JIT and called through its C
// functions, which must compute what CpuExecutable computes (tests/aot
// links real .so and .o files with the system compiler).
#include "cpu_backend/aot/aot_library.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "cpu_backend/aot/elf_symbols.h"
#include "cpu_backend/aot/row_major_entry.h"
#include "cpu_backend/executable.h"
#include "cpu_backend/jit.h"
#include "cpu_backend/runtime_lib/test_support.h"
#include "cpu_backend/runtime_symbols.h"
#include "hlo/ir/denormal_mode.h"
#include "hlo/text/parser.h"

namespace xlite::cpu {
namespace {

std::unique_ptr<HloModule> Parse(const std::string& text) {
  ParseOptions options;
  options.filename = "test.hlo";
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(text, options);
  EXPECT_TRUE(module.ok()) << module.status().message();
  return module.ok() ? *std::move(module) : nullptr;
}

TEST(CIdentifier, SanitizesModuleNames) {
  EXPECT_EQ(SanitizeCIdentifier("jit_f.1"), "jit_f_1");
  EXPECT_EQ(SanitizeCIdentifier("pjit-step"), "pjit_step");
  EXPECT_EQ(SanitizeCIdentifier("3d"), "_3d");
  EXPECT_EQ(SanitizeCIdentifier("int"), "_int");
  EXPECT_EQ(SanitizeCIdentifier(""), "_");
  EXPECT_TRUE(IsCIdentifier("train_step"));
  EXPECT_FALSE(IsCIdentifier("1st"));
  EXPECT_FALSE(IsCIdentifier("a-b"));
  EXPECT_FALSE(IsCIdentifier("while"));
  EXPECT_FALSE(IsCIdentifier(""));
}

TEST(CInterface, FlattensTuplesAndLeavesOutTokens) {
  auto module = Parse(R"(
HloModule m
ENTRY main {
  p = (f32[2], (s32[3], token[])) parameter(0)
  q = u8[4] parameter(1)
  a = f32[2] get-tuple-element(p), index=0
  ROOT t = (f32[2], u8[4]) tuple(a, q)
})");
  ASSERT_NE(module, nullptr);
  absl::StatusOr<CInterface> c = BuildCInterface(*module, "f");
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ(c->params.size(), 3);
  EXPECT_EQ(c->params[0].description, "%p{0}");
  EXPECT_EQ(c->params[1].description, "%p{1,0}");
  EXPECT_EQ(c->params[1].bytes, 12);
  EXPECT_EQ(c->params[2].parameter, 1);
  ASSERT_EQ(c->results.size(), 2);
  EXPECT_EQ(c->results[1].bytes, 4);
}

TEST(RowMajorEntry, CopiesAtTheBoundary) {
  auto module = Parse(R"(
HloModule m
ENTRY main {
  p = f32[3,2]{0,1} parameter(0)
  n = f32[3,2]{0,1} negate(p)
  ROOT t = (f32[3,2]{0,1}, f32[3,2]{0,1}) tuple(n, p)
})");
  ASSERT_NE(module, nullptr);
  absl::StatusOr<bool> changed = MakeEntryRowMajor(*module);
  ASSERT_TRUE(changed.ok()) << changed.status().message();
  EXPECT_TRUE(*changed);
  const HloComputation* entry = module->entry_computation();
  EXPECT_EQ(entry->parameter_instruction(0)->shape().ToString(),
            "f32[3,2]{1,0}");
  EXPECT_EQ(entry->root_instruction()->shape().ToString(),
            "(f32[3,2]{1,0}, f32[3,2]{1,0})");
  EXPECT_TRUE(BuildCInterface(*module, "f").ok());
  EXPECT_FALSE(*MakeEntryRowMajor(*module));
}

TEST(RowMajorEntry, RefusesTupleParametersStoredOtherwise) {
  auto module = Parse(R"(
HloModule m
ENTRY main {
  p = (f32[3,2]{0,1}) parameter(0)
  ROOT a = f32[3,2]{0,1} get-tuple-element(p), index=0
})");
  ASSERT_NE(module, nullptr);
  absl::Status s = MakeEntryRowMajor(*module).status();
  EXPECT_TRUE(absl::StartsWith(s.message(), "4:3: error: ")) << s.message();
  EXPECT_TRUE(absl::StrContains(s.message(), "cannot pass %p")) << s.message();
}

TEST(AotLibrary, RefusesCollectivesOfSeveralDevices) {
  auto module = Parse(R"(
HloModule m, replica_count=2
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[4] parameter(0)
  ROOT r = f32[4] all-reduce(x), replica_groups={{0,1}}, to_apply=add
})");
  ASSERT_NE(module, nullptr);
  absl::StatusOr<AotLibrary> library = CompileAotLibrary(std::move(module), {});
  ASSERT_FALSE(library.ok());
  EXPECT_TRUE(absl::StartsWith(library.status().message(), "10:8: error: "))
      << library.status().message();
  EXPECT_TRUE(absl::StrContains(library.status().message(), "%r (all-reduce)"));
}

TEST(AotLibrary, RefusesNamesOfTheRuntime) {
  auto module =
      Parse("HloModule m\nENTRY main {\n  ROOT c = f32[] constant(1)\n}");
  ASSERT_NE(module, nullptr);
  AotOptions options;
  options.entry_name = "xlite_cpu_sort";
  EXPECT_FALSE(CompileAotLibrary(std::move(module), options).ok());
}

// A loop, a constant, a large (library) dot, a column-major parameter and
// a donated result: run through the library's C functions in a JIT.
constexpr char kModule[] = R"(
HloModule aot_module, input_output_alias={ {2}: (2, {}, may-alias) }

body {
  s = (s32[], f32[8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[8] get-tuple-element(s), index=1
  w = f32[8] constant({1.5, -2, 3.25, 0.125, 7, -0.5, 9, 1e-3})
  m = f32[8] multiply(x, w)
  t = f32[8] tanh(m)
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT r = (s32[], f32[8]) tuple(j, t)
}

cond {
  s = (s32[], f32[8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}

ENTRY main {
  v = f32[8] parameter(0)
  a = f32[96,128]{0,1} parameter(1)
  acc = f32[128] parameter(2)
  zero = s32[] constant(0)
  init = (s32[], f32[8]) tuple(zero, v)
  loop = (s32[], f32[8]) while(init), condition=cond, body=body
  y = f32[8] get-tuple-element(loop), index=1
  b = f32[128,64] broadcast(acc), dimensions={0}
  d = f32[96,64] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  c2 = f32[] constant(2)
  two = f32[128] broadcast(c2), dimensions={}
  next = f32[128] multiply(acc, two)
  ROOT out = (f32[8], f32[96,64], f32[128]) tuple(y, d, next)
})";

using CFunction = int32_t (*)(const void* const*, void* const*);
using CFunctionWithTemp = int32_t (*)(const void* const*, void* const*, void*);

TEST(AotLibrary, RunsAsCpuExecutableRuns) {
  auto module = Parse(kModule);
  ASSERT_NE(module, nullptr);
  auto reference = CpuExecutable::Compile(module->Clone());
  ASSERT_TRUE(reference.ok()) << reference.status().message();
  AotOptions options;
  options.entry_name = "aot_fn";
  absl::StatusOr<AotLibrary> library =
      CompileAotLibrary(std::move(module), options);
  ASSERT_TRUE(library.ok()) << library.status().message();
  EXPECT_TRUE(
      absl::StrContains(library->header, "#define AOT_FN_NUM_PARAMS 3"));
  EXPECT_TRUE(absl::StrContains(library->header,
                                "#define AOT_FN_PARAM1_DIMS {96, 128}"));
  EXPECT_TRUE(
      absl::StrContains(library->header,
                        "int aot_fn(const void* const* params, void* const* "
                        "results);"));
  ASSERT_EQ(library->layout.donors.size(), 3);
  EXPECT_EQ(library->layout.donors[2], 2);
  EXPECT_TRUE(absl::StrContains(library->header,
                                "#define AOT_FN_RESULT2_SHARES_PARAM 2"));

  absl::StatusOr<std::unique_ptr<CpuJit>> jit =
      CpuJit::Create(RuntimeSymbols());
  ASSERT_TRUE(jit.ok()) << jit.status().message();
  ASSERT_TRUE((*jit)->AddObject(library->object, "aot").ok());
  auto run = reinterpret_cast<CFunction>(*(*jit)->Lookup("aot_fn"));
  auto run_with_temp =
      reinterpret_cast<CFunctionWithTemp>(*(*jit)->Lookup("aot_fn_with_temp"));

  std::mt19937_64 rng(3);
  std::vector<Literal> args;
  for (const CArray& p : library->interface.params) {
    args.push_back(rtlib_test::RandomLiteral(p.shape, rng));
  }
  absl::StatusOr<Literal> want = (*reference)->Run(args);
  ASSERT_TRUE(want.ok()) << want.status().message();
  std::vector<const void*> params;
  for (const Literal& a : args) params.push_back(a.data().data());
  std::vector<Literal> got, again;
  std::vector<void*> results, results_again;
  for (const CArray& r : library->interface.results) {
    got.emplace_back(r.shape);
    again.emplace_back(r.shape);
    results.push_back(got.back().mutable_data().data());
    results_again.push_back(again.back().mutable_data().data());
  }
  ASSERT_EQ(run(params.data(), results.data()), 0);
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_TRUE(rtlib_test::Near(want->tuple_elements()[i], got[i]))
        << "result " << i;
  }
  // The caller's arena; none where one is needed is an error.
  std::vector<uint8_t> arena(library->layout.temp_bytes + 64);
  void* temp =
      arena.data() + (64 - reinterpret_cast<uintptr_t>(arena.data()) % 64);
  ASSERT_EQ(run_with_temp(params.data(), results_again.data(), temp), 0);
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].data(), again[i].data()) << "result " << i;
  }
  if (library->layout.temp_bytes > 0) {
    EXPECT_EQ(run_with_temp(params.data(), results_again.data(), nullptr), -1);
  }
  // The donated result computed in its parameter's very buffer.
  Literal donated = args[2];
  params[2] = donated.data().data();
  results[2] = donated.mutable_data().data();
  ASSERT_EQ(run(params.data(), results.data()), 0);
  EXPECT_EQ(donated.data(), got[2].data());
}

TEST(AotLibrary, FlushesDenormalsAndRestoresTheCallersMode) {
  if (!kDenormalModeSettable) GTEST_SKIP() << "no denormal mode here";
  auto module = Parse(R"(
HloModule m
ENTRY main {
  p = f32[2] parameter(0)
  ROOT m = f32[2] multiply(p, p)
})");
  ASSERT_NE(module, nullptr);
  AotOptions options;
  options.entry_name = "square";
  absl::StatusOr<AotLibrary> library =
      CompileAotLibrary(std::move(module), options);
  ASSERT_TRUE(library.ok()) << library.status().message();
  EXPECT_TRUE(absl::StrContains(library->header, "flushes f32 and f64"));
  absl::StatusOr<std::unique_ptr<CpuJit>> jit =
      CpuJit::Create(RuntimeSymbols());
  ASSERT_TRUE(jit.ok()) << jit.status().message();
  ASSERT_TRUE((*jit)->AddObject(library->object, "aot").ok());
  auto run = reinterpret_cast<CFunction>(*(*jit)->Lookup("square"));
  // 1e-20f squared is a subnormal, 0 where denormals are flushed.
  const float x[2] = {1e-20f, 3.0f};
  float y[2] = {1, 1};
  const void* params[] = {x};
  void* results[] = {y};
  for (DenormalMode caller :
       {DenormalMode::kIeee, DenormalMode::kFlushToZero}) {
    ScopedDenormalMode mode(caller);
    ASSERT_EQ(run(params, results), 0);
    EXPECT_EQ(y[0], 0.0f);
    EXPECT_EQ(y[1], 9.0f);
    EXPECT_EQ(CurrentDenormalMode(), caller);
  }
}

TEST(ElfSymbols, RefusesWhatIsNoElfObject) {
  std::string bytes = "not an object file";
  EXPECT_FALSE(MakeUniqueSymbolsGlobal(bytes).ok());
}

}  // namespace
}  // namespace xlite::cpu
