// While loops on the GPU backend: a counted loop compiles to a while thunk
// with its trip count (the device then reads no predicate back), a loop
// whose condition depends on data keeps reading it, and the emulator
// rejects a known_trip_count the condition contradicts instead of running
// a wrong number of iterations silently.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "absl/strings/str_replace.h"
#include "gpu_backend/executable.h"
#include "hlo/text/parser.h"

namespace xlite::gpu {
namespace {

constexpr char kLoop[] = R"(
HloModule m
cond {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  b = s32[] BOUND
  ROOT c = pred[] compare(i, b), direction=LT
}
body {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  s = s32[] constant(1)
  n = s32[] add(i, s)
  v = f32[4] get-tuple-element(p), index=1
  w = f32[4] add(v, v)
  ROOT t = (s32[], f32[4]) tuple(n, w)
}
ENTRY e {
  z = s32[] constant(0)
  x = f32[4] parameter(0)
  t = (s32[], f32[4]) tuple(z, x)
  l = (s32[], f32[4]) while(t), condition=cond, body=bodyCONFIG
  ROOT r = f32[4] get-tuple-element(l), index=1
})";

absl::StatusOr<std::unique_ptr<GpuExecutable>> Compile(
    const std::string& bound, const std::string& config = "") {
  const std::string text = absl::StrReplaceAll(
      kLoop, {{"BOUND", bound},
              {"CONFIG", config.empty() ? "" : ", backend_config=" + config}});
  auto module = ParseHloModule(text);
  if (!module.ok()) return module.status();
  absl::StatusOr<GpuCompileOptions> options =
      DefaultGpuCompileOptions(GpuCodeTarget::kEmulator);
  if (!options.ok()) return options.status();
  return GpuExecutable::Compile(*std::move(module), *options);
}

const runtime::Thunk* FindWhile(const runtime::ThunkSequence& thunks) {
  for (const runtime::Thunk& t : thunks) {
    if (t.kind == runtime::Thunk::Kind::kWhile) return &t;
  }
  return nullptr;
}

Literal Input() {
  return Literal::FromDoubles(ParseShape("f32[4]").value(), {1, 2, 3, 4});
}

TEST(GpuWhile, CountedLoopRunsItsTripCountWithoutThePredicate) {
  auto exe = Compile("constant(5)");
  ASSERT_TRUE(exe.ok()) << exe.status();
  const runtime::Thunk* loop = FindWhile((*exe)->thunks());
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->trip_count, 5);
  absl::StatusOr<Literal> out = (*exe)->Run({Input()});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->ToString(), "f32[4] {32, 64, 96, 128}");
}

TEST(GpuWhile, DataDependentLoopReadsItsPredicate) {
  // The loop also ends once x[0] reaches 100: known only at run time.
  const std::string dependent = absl::StrReplaceAll(
      kLoop, {{"b = s32[] BOUND", "f = f32[] constant(100)\n"
                                  "  v = f32[4] get-tuple-element(p), index=1\n"
                                  "  e = f32[1] slice(v), slice={[0:1]}\n"
                                  "  g = f32[] reshape(e)\n"
                                  "  k = pred[] compare(g, f), direction=LT\n"
                                  "  b = s32[] constant(1000)"},
              {"ROOT c = pred[] compare(i, b), direction=LT",
               "j = pred[] compare(i, b), direction=LT\n"
               "  ROOT c = pred[] and(j, k)"},
              {"CONFIG", ""}});
  auto module = ParseHloModule(dependent);
  ASSERT_TRUE(module.ok()) << module.status();
  auto options = DefaultGpuCompileOptions(GpuCodeTarget::kEmulator);
  ASSERT_TRUE(options.ok());
  auto dyn = GpuExecutable::Compile(*std::move(module), *options);
  ASSERT_TRUE(dyn.ok()) << dyn.status();
  const runtime::Thunk* loop = FindWhile((*dyn)->thunks());
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->trip_count, -1);
  absl::StatusOr<Literal> out = (*dyn)->Run({Input()});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->ToString(), "f32[4] {128, 256, 384, 512}");
}

TEST(GpuWhile, EmulatorRejectsAWrongKnownTripCount) {
  auto exe = Compile("constant(5)", R"({"known_trip_count":{"n":"3"}})");
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_EQ(FindWhile((*exe)->thunks())->trip_count, 3);
  absl::StatusOr<Literal> out = (*exe)->Run({Input()});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find(
                "compiled with a known trip count of 3, but its condition "
                "asks for more after 3 iterations"),
            std::string::npos)
      << out.status();
}

}  // namespace
}  // namespace xlite::gpu
