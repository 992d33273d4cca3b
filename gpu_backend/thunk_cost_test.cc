// The byte and FLOP model of kernel and GEMM thunks (thunk_cost.h), and the
// costs thunk emission puts on each launch of a compiled module.
#include "gpu_backend/thunk_cost.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "gpu_backend/executable.h"
#include "hlo/ir/computation.h"
#include "hlo/text/parser.h"

namespace xlite::gpu {
namespace {

constexpr char kModule[] = R"(
HloModule costs
f {
  fx = f32[16] parameter(0)
  fy = f32[16] parameter(1)
  fm = f32[16] multiply(fx, fy)
  ROOT fs = f32[16] add(fm, fx)
}
g {
  ga = bf16[2,8] parameter(0)
  gb = bf16[8,4] parameter(1)
  ROOT gd = bf16[2,4] dot(ga, gb), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
ENTRY e {
  x = f32[16] parameter(0)
  y = f32[16] parameter(1)
  loop = f32[16] fusion(x, y), kind=kLoop, calls=f
  a = bf16[2,8] parameter(2)
  b = bf16[8,4] parameter(3)
  dot = bf16[2,4] fusion(a, b), kind=kOutput, calls=g
  w = f64[3] parameter(4)
  neg = f64[3] negate(w)
  ROOT t = (f32[16], bf16[2,4], f64[3]) tuple(loop, dot, neg)
})";

const HloInstruction* Find(const HloModule& module, const std::string& name) {
  for (const HloInstruction* i : module.entry_computation()->instructions()) {
    if (i->name() == name) return i;
  }
  return nullptr;
}

TEST(ThunkCost, KernelsCountTheirArraysAndArithmetic) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(kModule);
  ASSERT_TRUE(module.ok()) << module.status();
  // multiply and add over 16 elements; two f32[16] read, one written.
  const runtime::ThunkCost loop =
      KernelThunkCost(*Find(**module, "loop"), false);
  EXPECT_EQ(loop.flops, 32);
  EXPECT_EQ(loop.bytes, 3 * 64);
  EXPECT_EQ(loop.flop_type, "f32");
  EXPECT_EQ(loop.label, "fusion:kLoop:add");
  // A bf16 dot: 2*M*N*K = 2*2*4*8, against the bf16 rate.
  const runtime::ThunkCost dot = KernelThunkCost(*Find(**module, "dot"), false);
  EXPECT_EQ(dot.flops, 128);
  EXPECT_EQ(dot.bytes, 2 * 16 + 2 * 32 + 2 * 8);
  EXPECT_EQ(dot.flop_type, "bf16");
  const runtime::ThunkCost neg = KernelThunkCost(*Find(**module, "neg"), false);
  EXPECT_EQ(neg.flops, 3);
  EXPECT_EQ(neg.bytes, 48);
  EXPECT_EQ(neg.flop_type, "f64");
  EXPECT_EQ(neg.label, "negate");
  const runtime::ThunkCost init = InitLaunchCost(*Find(**module, "loop"), 128);
  EXPECT_EQ(init.bytes, 128);
  EXPECT_EQ(init.flops, 0);
  EXPECT_EQ(init.label, "fusion:kLoop:add:init");
}

std::string GemmConfig(const std::string& precision) {
  return "{\"gemm_backend_config\":{\"alpha_real\":1,\"beta\":0,"
         "\"dot_dimension_numbers\":{\"lhs_contracting_dimensions\":[2],"
         "\"rhs_contracting_dimensions\":[1],\"lhs_batch_dimensions\":[0],"
         "\"rhs_batch_dimensions\":[0]},\"precision_config\":{"
         "\"operand_precision\":[\"" +
         precision + "\",\"" + precision + "\"]},\"epilogue\":\"DEFAULT\"}}";
}

runtime::GemmDescription Gemm(const std::string& precision,
                              const std::string& type) {
  std::vector<Shape> operands = {*ParseShape(type + "[3,4,8]{2,1,0}"),
                                 *ParseShape(type + "[3,8,16]{2,1,0}")};
  absl::StatusOr<runtime::GemmDescription> gemm = runtime::DescribeGemm(
      "__cublas$lt$matmul", GemmConfig(precision), operands,
      *ParseShape("(" + type + "[3,4,16]{2,1,0}, s8[1024]{0})"));
  EXPECT_TRUE(gemm.ok()) << gemm.status();
  return *gemm;
}

TEST(ThunkCost, GemmsCountTwiceMNKPerBatchAndSkipTheWorkspace) {
  const runtime::ThunkCost f32 = GemmThunkCost(Gemm("DEFAULT", "f32"));
  EXPECT_EQ(f32.flops, 2 * 3 * 4 * 16 * 8);
  EXPECT_EQ(f32.bytes, 4 * (3 * 4 * 8 + 3 * 8 * 16 + 3 * 4 * 16));
  EXPECT_EQ(f32.flop_type, "tf32");
  EXPECT_EQ(f32.label, "gemm");
  EXPECT_EQ(GemmThunkCost(Gemm("HIGHEST", "f32")).flop_type, "f32");
  EXPECT_EQ(GemmThunkCost(Gemm("DEFAULT", "bf16")).flop_type, "bf16");
  EXPECT_EQ(GemmThunkCost(Gemm("DEFAULT", "f64")).flop_type, "f64");
}

// Thunk emission: a scatter's init copy is charged its copy, the update
// kernel the in-place scatter; a GEMM thunk its matrices.
TEST(ThunkCost, EmittedThunksCarryTheirCost) {
  constexpr char kScatter[] = R"(
HloModule s
add {
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  ROOT r = f32[] add(p, q)
}
ENTRY e {
  operand = f32[8] parameter(0)
  indices = s32[2,1] parameter(1)
  updates = f32[2] parameter(2)
  ROOT s = f32[8] scatter(operand, indices, updates), update_window_dims={},
      inserted_window_dims={0}, scatter_dims_to_operand_dims={0},
      index_vector_dim=1, to_apply=add
})";
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(kScatter);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<GpuCompileOptions> options =
      DefaultGpuCompileOptions(GpuCodeTarget::kEmulator);
  ASSERT_TRUE(options.ok());
  options->run_passes = false;
  options->fuse = false;
  absl::StatusOr<std::unique_ptr<GpuExecutable>> exe =
      GpuExecutable::Compile(*std::move(module), *options);
  ASSERT_TRUE(exe.ok()) << exe.status();
  const runtime::ThunkSequence& thunks = (*exe)->thunks();
  ASSERT_EQ(thunks.size(), 2u) << runtime::ThunkSequenceToString(thunks);
  EXPECT_EQ(thunks[0].kernel, "s_init");
  EXPECT_EQ(thunks[0].cost.bytes, 64);  // f32[8] read and written
  EXPECT_EQ(thunks[0].cost.flops, 0);
  // In place: indices, updates and the old values under them read, the
  // updated elements written; one add per update.
  EXPECT_EQ(thunks[1].cost.bytes, 8 + 2 * 8 + 8);
  EXPECT_EQ(thunks[1].cost.flops, 2);
  EXPECT_EQ(thunks[1].cost.label, "scatter");
}

}  // namespace
}  // namespace xlite::gpu
