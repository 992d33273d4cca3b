// Profiled compilation (CompileOptions::profile): one site per timed
// instruction with the cost model's bytes and FLOPs, counters that count
// every execution (a while body's kernels once per trip), per-device
// counters for replicated runs, the report's rows, and unprofiled code
// without any trace of the profiler. No assertion is about how long
// anything took.

#include <gtest/gtest.h>

#include <algorithm>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "cpu_backend/executable.h"
#include "cpu_backend/host_peak.h"
#include "cpu_backend/multi_device.h"
#include "cpu_backend/profile_report.h"
#include "cpu_backend/runtime_lib/test_support.h"
#include "hlo/ir/opcode.h"
#include "hlo/text/parser.h"

namespace xlite::cpu {
namespace {

// A dot and a loop fusion in the entry, and a while loop of 5 trips whose
// body has two kernels (next, step) and whose condition one (lt). The cpu
// pipeline's own fusion may wrap single instructions in fusions of their
// own (SiteIndex finds those).
constexpr char kModule[] = R"(
HloModule prof
f {
  fx = f32[16] parameter(0)
  fy = f32[16] parameter(1)
  fm = f32[16] multiply(fx, fy)
  ROOT fs = f32[16] add(fm, fx)
}
cond {
  cp = (s32[], f32[16]) parameter(0)
  ci = s32[] get-tuple-element(cp), index=0
  cn = s32[] constant(5)
  ROOT lt = pred[] compare(ci, cn), direction=LT
}
body {
  bp = (s32[], f32[16]) parameter(0)
  bi = s32[] get-tuple-element(bp), index=0
  bv = f32[16] get-tuple-element(bp), index=1
  one = s32[] constant(1)
  next = s32[] add(bi, one)
  half = f32[16] constant({0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5,
                           0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5})
  step = f32[16] multiply(bv, half)
  ROOT bt = (s32[], f32[16]) tuple(next, step)
}
ENTRY e {
  a = f32[4,8] parameter(0)
  b = f32[8,16] parameter(1)
  d = f32[4,16] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  x = f32[16] parameter(2)
  y = f32[16] parameter(3)
  fused = f32[16] fusion(x, y), kind=kLoop, calls=f
  zero = s32[] constant(0)
  init = (s32[], f32[16]) tuple(zero, fused)
  w = (s32[], f32[16]) while(init), condition=cond, body=body
  r = f32[16] get-tuple-element(w), index=1
  ROOT out = (f32[4,16], f32[16]) tuple(d, r)
})";

absl::StatusOr<std::unique_ptr<CpuExecutable>> Compile(const std::string& text,
                                                       bool profile) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  if (!module.ok()) return module.status();
  CompileOptions options;
  options.run_passes = false;  // keep the instructions as written
  options.keep_llvm_ir = true;
  options.profile = profile;
  return CpuExecutable::Compile(*std::move(module), options);
}

std::vector<Literal> Arguments(const HloModule& module) {
  std::mt19937_64 rng(7);
  std::vector<Literal> args;
  for (const HloInstruction* p :
       module.entry_computation()->parameter_instructions()) {
    args.push_back(rtlib_test::RandomLiteral(p->shape(), rng));
  }
  return args;
}

// The index of the site named `name`, or -1.
int ExactSiteIndex(const CpuExecutable& exe, const std::string& name) {
  const auto& sites = exe.profile_sites();
  for (size_t i = 0; i < sites.size(); ++i) {
    if (sites[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

// Whether `computation` holds a copy of instruction `name` (the copy is
// `name` or, renamed unique, `name.N`).
bool HoldsCopyOf(const HloComputation& computation, const std::string& name) {
  for (const HloInstruction* i : computation.instructions()) {
    if (i->name() == name || absl::StartsWith(i->name(), name + ".")) {
      return true;
    }
  }
  return false;
}

// The site that times instruction `name`: its own, or that of the fusion
// the cpu pipeline wrapped it in.
int SiteIndex(const CpuExecutable& exe, const std::string& name) {
  if (int i = ExactSiteIndex(exe, name); i >= 0) return i;
  for (const HloComputation* c : exe.module().computations()) {
    for (const HloInstruction* i : c->instructions()) {
      if (i->opcode() == HloOpcode::kFusion &&
          HoldsCopyOf(*i->fused_computation(), name)) {
        return ExactSiteIndex(exe, i->name());
      }
    }
  }
  return -1;
}

TEST(ProfileTest, CountsEveryExecutionOfEverySite) {
  absl::StatusOr<std::unique_ptr<CpuExecutable>> exe = Compile(kModule, true);
  ASSERT_TRUE(exe.ok()) << exe.status();
  const std::vector<ProfileSite>& sites = (*exe)->profile_sites();
  ProfileCounters counters(sites.size());
  RunOptions options;
  options.profile = &counters;
  ASSERT_TRUE((*exe)->Run(Arguments((*exe)->module()), options).ok());
  EXPECT_EQ(counters.runs(), 1);
  EXPECT_GT(counters.run_nanos(), 0);

  const std::vector<std::pair<std::string, int64_t>> expected = {
      {"d", 1}, {"fused", 1}, {"lt", 6}, {"next", 5}, {"step", 5}};
  for (const auto& [name, calls] : expected) {
    const int i = SiteIndex(**exe, name);
    ASSERT_GE(i, 0) << name << " has no site";
    EXPECT_EQ(counters.sites()[i].calls, calls) << name;
  }
  // Instructions that run no code get no site; nor does control flow.
  for (const char* name : {"a", "zero", "init", "w", "r", "out", "bi", "half"}) {
    EXPECT_EQ(ExactSiteIndex(**exe, name), -1) << name;
  }
  // Every site is one instruction, once.
  for (const ProfileSite& site : sites) {
    EXPECT_EQ(std::count_if(sites.begin(), sites.end(),
                            [&](const ProfileSite& s) {
                              return s.name == site.name;
                            }),
              1)
        << site.name;
  }

  // A second run accumulates.
  ASSERT_TRUE((*exe)->Run(Arguments((*exe)->module()), options).ok());
  EXPECT_EQ(counters.runs(), 2);
  EXPECT_EQ(counters.sites()[SiteIndex(**exe, "next")].calls, 10);
}

TEST(ProfileTest, SitesCarryTheCostModel) {
  absl::StatusOr<std::unique_ptr<CpuExecutable>> exe = Compile(kModule, true);
  ASSERT_TRUE(exe.ok()) << exe.status();
  const auto& sites = (*exe)->profile_sites();
  const ProfileSite& dot = sites[SiteIndex(**exe, "d")];
  EXPECT_EQ(dot.op, "dot");
  EXPECT_EQ(dot.cost.flops, 2 * 4 * 16 * 8);
  EXPECT_EQ(dot.cost.bytes(), (4 * 8 + 8 * 16 + 4 * 16) * 4);
  const ProfileSite& fusion = sites[SiteIndex(**exe, "fused")];
  EXPECT_EQ(fusion.op, "fusion");
  EXPECT_EQ(fusion.fusion_kind, "kLoop");
  EXPECT_EQ(fusion.root, "add");
  EXPECT_EQ(fusion.cost.flops, 2 * 16);  // multiply and add per element
  EXPECT_EQ(fusion.cost.bytes(), 3 * 16 * 4);
}

TEST(ProfileTest, ReportHasOneRowPerSite) {
  absl::StatusOr<std::unique_ptr<CpuExecutable>> exe = Compile(kModule, true);
  ASSERT_TRUE(exe.ok()) << exe.status();
  const auto& sites = (*exe)->profile_sites();
  ProfileCounters counters(sites.size());
  RunOptions options;
  options.profile = &counters;
  ASSERT_TRUE((*exe)->Run(Arguments((*exe)->module()), options).ok());
  HostPeak peak;
  peak.bytes_per_second = 1e10;
  peak.flops_per_second = 1e11;
  peak.cpu = "test";
  const std::vector<ProfileRow> rows = ProfileRows(sites, counters, peak);
  ASSERT_EQ(rows.size(), sites.size());
  for (size_t i = 1; i < rows.size(); ++i) {
    EXPECT_GE(rows[i - 1].total_us, rows[i].total_us);
  }
  const ProfileSite* step = &sites[SiteIndex(**exe, "step")];
  int step_rows = 0;
  for (const ProfileRow& row : rows) {
    if (row.site != step) continue;
    ++step_rows;
    EXPECT_EQ(row.calls, 5);
    EXPECT_EQ(row.bytes, 5 * step->cost.bytes());
    EXPECT_EQ(row.flops, 5 * 16);
  }
  EXPECT_EQ(step_rows, 1);
  const std::string table =
      FormatProfileTable("prof", sites, {{0, 0, &counters}}, peak);
  for (const ProfileSite& site : sites) {
    EXPECT_TRUE(absl::StrContains(table, "\n  " + site.name + " "))
        << site.name << " missing in\n"
        << table;
  }
  EXPECT_TRUE(absl::StrContains(table, "fusion:kLoop:add")) << table;
  EXPECT_TRUE(absl::StrContains(table, "\n  (total) ")) << table;
  const std::string json =
      FormatProfileJson("prof", sites, {{0, 0, &counters}}, peak);
  EXPECT_TRUE(absl::StrContains(json, "{\"name\": \"d\", \"op\": \"dot\", "
                                      "\"bytes_per_call\": 896, "
                                      "\"flops_per_call\": 1024, \"calls\": 1"))
      << json;
  EXPECT_TRUE(absl::StrContains(json, "\"source\": \"measured\"")) << json;
}

TEST(ProfileTest, UnprofiledCodeHasNoProfileCalls) {
  absl::StatusOr<std::unique_ptr<CpuExecutable>> plain =
      Compile(kModule, false);
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_TRUE((*plain)->profile_sites().empty());
  EXPECT_FALSE(absl::StrContains((*plain)->llvm_ir(), "xlite_cpu_profile"));
  absl::StatusOr<std::unique_ptr<CpuExecutable>> profiled =
      Compile(kModule, true);
  ASSERT_TRUE(profiled.ok()) << profiled.status();
  EXPECT_TRUE(
      absl::StrContains((*profiled)->llvm_ir(), "@xlite_cpu_profile_begin"));
  // A profiled module run without counters records nothing and still runs.
  std::vector<Literal> args = Arguments((*profiled)->module());
  absl::StatusOr<Literal> got = (*profiled)->Run(args);
  absl::StatusOr<Literal> want = (*plain)->Run(args);
  ASSERT_TRUE(got.ok() && want.ok());
  EXPECT_TRUE(rtlib_test::Near(*want, *got));
}

TEST(ProfileTest, ReplicasHaveTheirOwnCounters) {
  absl::StatusOr<std::unique_ptr<CpuExecutable>> exe = Compile(R"(
HloModule m, replica_count=2
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  p = f32[8] parameter(0)
  n = f32[8] negate(p)
  ROOT ar = f32[8] all-reduce(n), replica_groups={{0,1}}, to_apply=add
})",
                                                               true);
  ASSERT_TRUE(exe.ok()) << exe.status();
  const auto& sites = (*exe)->profile_sites();
  ProfileCounters r0(sites.size()), r1(sites.size());
  MultiDeviceOptions options;
  options.profiles = {&r0, &r1};
  std::vector<Literal> args = Arguments((*exe)->module());
  ASSERT_TRUE(RunOnDevices(**exe, 2, 1, {args, args}, options).ok());
  for (const char* name : {"n", "ar"}) {
    const int i = SiteIndex(**exe, name);
    ASSERT_GE(i, 0) << name;
    EXPECT_EQ(r0.sites()[i].calls, 1) << name;
    EXPECT_EQ(r1.sites()[i].calls, 1) << name;
  }
  EXPECT_EQ(r0.runs(), 1);
  EXPECT_EQ(r1.runs(), 1);
}

TEST(ProfileTest, HostPeakIsMeasured) {
  absl::StatusOr<HostPeak> peak = MeasuredHostPeak();
  ASSERT_TRUE(peak.ok()) << peak.status();
  EXPECT_GT(peak->bytes_per_second, 0);
  EXPECT_GT(peak->flops_per_second, 0);
  EXPECT_FALSE(peak->cpu.empty());
}

}  // namespace
}  // namespace xlite::cpu
