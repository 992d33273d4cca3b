// Kernels too big for the target are refused at compile time with
// RESOURCE_EXHAUSTED naming the kernel, its instruction and the numbers:
// shared memory on b200 and gb200, registers, tensor memory on tcgen05
// targets only (b200, not sm_120); modules that fit compile.
#include "gpu_backend/resource_check.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "gpu_backend/executable.h"
#include "gpu_backend/ptx_compiler.h"
#include "hlo/text/parser.h"

namespace xlite::gpu {
namespace {

GpuTargetSpec Spec(const std::string& name) {
  absl::StatusOr<GpuTargetSpec> spec = LoadGpuTargetSpec(name);
  EXPECT_TRUE(spec.ok()) << spec.status();
  return *spec;
}

// An sm_120 part (RTX Blackwell): tcgen05-free.
GpuTargetSpec Sm120() {
  GpuTargetSpec spec = Spec("b200");
  spec.name = "rtx-blackwell";
  spec.compute_capability_major = 12;
  spec.compute_capability_minor = 0;
  spec.shared_memory_per_block = 101376;
  return spec;
}

runtime::Thunk KernelThunk(const std::string& kernel,
                           const std::string& instruction, int64_t block,
                           int64_t shared_bytes) {
  runtime::Thunk t;
  t.kind = runtime::Thunk::Kind::kKernel;
  t.kernel = kernel;
  t.instruction = instruction;
  t.block = block;
  t.shared_bytes = shared_bytes;
  return t;
}

// A fusion's kernel with a 300 KiB shared-memory tile.
constexpr char kBigTilePtx[] = R"(
.version 8.0
.target sm_90
.address_size 64
.shared .align 16 .b8 fusion_7_$_tile[307200];
.visible .entry fusion_7(.param .u64 p)
{
	.reg .b64 %rd<2>;
	mov.u64 %rd1, fusion_7_$_tile;
	ret;
}
)";

TEST(ResourceCheck, RefusesAnOversizedSharedTileOnB200AndGb200) {
  const runtime::ThunkSequence thunks = {
      KernelThunk("fusion_7", "fusion.7", 256, 307200)};
  for (const char* name : {"b200", "gb200"}) {
    for (bool from_ptx : {true, false}) {
      absl::Status s = CheckKernelResources(
          CollectKernelResources(thunks, from_ptx ? kBigTilePtx : ""),
          Spec(name));
      ASSERT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << name;
      EXPECT_EQ(s.message(),
                absl::StrCat("the gpu backend's kernels do not fit ", name,
                             " (sm_100a): kernel fusion_7 of %fusion.7 needs "
                             "307200 bytes of shared memory per block (307200 "
                             "static + 0 dynamic), over the 232448 a block "
                             "may opt into"));
    }
  }
}

TEST(ResourceCheck, CountsDynamicSharedMemoryBeyondTheStaticArrays) {
  constexpr char kDynamicPtx[] = R"(
.extern .shared .align 16 .b8 smem[];
.shared .align 4 .b8 k_$_flag[16];
.visible .entry k()
{
	.reg .b64 %rd<3>;
	mov.u64 %rd1, smem;
	mov.u64 %rd2, k_$_flag;
	ret;
}
)";
  const runtime::ThunkSequence thunks = {
      KernelThunk("k", "dot.1", 128, 240016)};
  std::vector<KernelResources> resources =
      CollectKernelResources(thunks, kDynamicPtx);
  ASSERT_EQ(resources.size(), 1u);
  EXPECT_EQ(resources[0].static_shared_bytes, 16);
  EXPECT_EQ(resources[0].dynamic_shared_bytes, 240000);
  absl::Status s = CheckKernelResources(resources, Spec("b200"));
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(absl::StrContains(s.message(), "(16 static + 240000 dynamic)"))
      << s.message();
  // Under the limit: fine.
  resources[0].dynamic_shared_bytes = 232448 - 16;
  EXPECT_TRUE(CheckKernelResources(resources, Spec("b200")).ok());
}

TEST(ResourceCheck, TensorMemoryOnlyOnTcgen05Targets) {
  constexpr char kTmemPtx[] = R"(
.shared .align 4 .b32 taddr;
.visible .entry mma_kernel()
{
	.reg .b32 %r<2>;
	mov.u32 %r1, 512;
	tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [taddr], 512;
	tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [taddr], %r1;
	ret;
}
)";
  const runtime::ThunkSequence thunks = {
      KernelThunk("mma_kernel", "gemm_fusion.3", 128, 4)};
  const std::vector<KernelResources> resources =
      CollectKernelResources(thunks, kTmemPtx);
  ASSERT_EQ(resources.size(), 1u);
  EXPECT_EQ(resources[0].tensor_memory_columns, 1024);
  absl::Status b200 = CheckKernelResources(resources, Spec("b200"));
  EXPECT_EQ(b200.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(absl::StrContains(
      b200.message(),
      "kernel mma_kernel of %gemm_fusion.3 needs 1024 tensor-memory columns "
      "(tcgen05.alloc), over the 512 of an SM"))
      << b200.message();
  GpuTargetSpec b300 = Spec("b200");
  b300.compute_capability_minor = 3;  // sm_103a
  EXPECT_EQ(CheckKernelResources(resources, b300).code(),
            absl::StatusCode::kResourceExhausted);
  // sm_120 has no tensor memory to run out of; Hopper neither.
  EXPECT_FALSE(HasTensorMemory(Sm120()));
  EXPECT_TRUE(CheckKernelResources(resources, Sm120()).ok());
  EXPECT_TRUE(CheckKernelResources(resources, Spec("h100")).ok());
  // Without the "a" features (portable sm_100) no tcgen05 either.
  GpuTargetSpec portable = Spec("b200");
  portable.feature_suffix = "";
  EXPECT_FALSE(HasTensorMemory(portable));
  // 512 columns fit.
  std::vector<KernelResources> half = resources;
  half[0].tensor_memory_columns = 512;
  EXPECT_TRUE(CheckKernelResources(half, Spec("b200")).ok());
}

TEST(ResourceCheck, RegistersPerBlockWhenPtxasReportedThem) {
  KernelResources k;
  k.kernel = "reduce_2";
  k.instruction = "reduce.2";
  k.threads_per_block = 1024;
  k.registers_per_thread = 64;  // 64 x 1024 = the whole register file
  EXPECT_TRUE(CheckKernelResources({k}, Spec("h100")).ok());
  k.registers_per_thread = 65;  // 2080 per warp, allocated as 2304
  absl::Status s = CheckKernelResources({k}, Spec("h100"));
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(s.message(),
            "the gpu backend's kernels do not fit h100 (sm_90a): kernel "
            "reduce_2 of %reduce.2 needs 73728 registers per block (65 per "
            "thread x 1024 threads, allocated per warp in units of 256), over "
            "the 65536 of an SM");
  k.registers_per_thread = 300;
  EXPECT_TRUE(
      absl::StrContains(CheckKernelResources({k}, Spec("h100")).message(),
                        "300 registers per thread, over 255"));
  k.registers_per_thread.reset();  // ptxas did not run: not checked
  EXPECT_TRUE(CheckKernelResources({k}, Spec("h100")).ok());
}

TEST(ResourceCheck, NamesEveryKernelOverALimitInNestedSequences) {
  runtime::Thunk loop;
  loop.kind = runtime::Thunk::Kind::kWhile;
  loop.children = {{KernelThunk("cond_1", "lt.1", 1, 0)},
                   {KernelThunk("body_2", "fusion.2", 64, 250000)}};
  const runtime::ThunkSequence thunks = {
      KernelThunk("first_0", "fusion.0", 64, 300000), loop};
  absl::Status s =
      CheckKernelResources(CollectKernelResources(thunks), Spec("gb200"));
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(absl::StrContains(s.message(), ": kernel first_0 of %fusion.0"));
  EXPECT_TRUE(absl::StrContains(s.message(), "; kernel body_2 of %fusion.2"));
  EXPECT_FALSE(absl::StrContains(s.message(), "cond_1"));
}

// A tiled transpose stages 32x32 tiles through shared memory.
constexpr char kTransposeModule[] = R"(
HloModule transpose
ENTRY e {
  p = f32[64,128] parameter(0)
  ROOT t = f32[128,64] transpose(p), dimensions={1,0}
})";

absl::StatusOr<std::unique_ptr<GpuExecutable>> CompileTranspose(
    const GpuTargetSpec& spec, GpuCodeTarget target, bool assemble = false) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(kTransposeModule);
  if (!module.ok()) return module.status();
  GpuCompileOptions options;
  options.spec = spec;
  options.target = target;
  options.run_passes = false;
  options.fuse = false;
  options.assemble = assemble;
  return GpuExecutable::Compile(*std::move(module), options);
}

TEST(ResourceCheck, ModulesThatFitCompileAndReportTheirUsage) {
  for (const char* name : {"b200", "gb200"}) {
    for (GpuCodeTarget target :
         {GpuCodeTarget::kNvptx, GpuCodeTarget::kEmulator}) {
      absl::StatusOr<std::unique_ptr<GpuExecutable>> exe =
          CompileTranspose(Spec(name), target);
      ASSERT_TRUE(exe.ok()) << name << ": " << exe.status();
      const std::vector<KernelResources>& resources =
          (*exe)->kernel_resources();
      ASSERT_EQ(resources.size(), 1u);
      EXPECT_EQ(resources[0].instruction, "t");
      // The PTX declares what the emitter launches with.
      EXPECT_GT(resources[0].static_shared_bytes, 0);
      EXPECT_EQ(resources[0].static_shared_bytes,
                (*exe)->thunks()[0].shared_bytes);
      EXPECT_EQ(resources[0].dynamic_shared_bytes, 0);
      EXPECT_FALSE(resources[0].registers_per_thread.has_value());
    }
  }
}

TEST(ResourceCheck, TheCompilePathRefusesKernelsOverTheSpec) {
  GpuTargetSpec small = Spec("b200");
  small.name = "small-smem";
  small.shared_memory_per_block = 1024;
  for (GpuCodeTarget target :
       {GpuCodeTarget::kNvptx, GpuCodeTarget::kEmulator}) {
    absl::StatusOr<std::unique_ptr<GpuExecutable>> exe =
        CompileTranspose(small, target);
    ASSERT_FALSE(exe.ok());
    EXPECT_EQ(exe.status().code(), absl::StatusCode::kResourceExhausted);
    EXPECT_TRUE(absl::StrContains(exe.status().message(),
                                  "do not fit small-smem (sm_100a): kernel t "
                                  "of %t needs "))
        << exe.status().message();
    EXPECT_TRUE(absl::StrContains(exe.status().message(), "over the 1024"));
  }
}

// With ptxas, every kernel's registers are known and checked.
TEST(ResourceCheck, PtxasReportsRegisters) {
  if (!FindPtxas().ok()) GTEST_SKIP() << FindPtxas().status().message();
  absl::StatusOr<std::unique_ptr<GpuExecutable>> exe =
      CompileTranspose(Spec("b200"), GpuCodeTarget::kNvptx, true);
  ASSERT_TRUE(exe.ok()) << exe.status();
  ASSERT_EQ((*exe)->kernel_resources().size(), 1u);
  const KernelResources& k = (*exe)->kernel_resources()[0];
  ASSERT_TRUE(k.registers_per_thread.has_value());
  EXPECT_GT(*k.registers_per_thread, 0);
  EXPECT_EQ(k.static_shared_bytes, (*exe)->thunks()[0].shared_bytes);
}

}  // namespace
}  // namespace xlite::gpu
