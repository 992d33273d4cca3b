// A wgmma through the whole emulator: a kernel built with EmulatorTarget
// copies operands into a shared array (not at offset 0 of the block's
// shared memory), takes its shared address for the descriptors and runs
// Wgmma; the fiber runtime releases it when all 128 threads of a
// warpgroup arrive. Each warpgroup of a block gets its own operands. A
// warpgroup that is not whole, or whose threads disagree on the
// descriptors, is an error, not a hang. A wgmma is computed when it is
// waited for: its accumulators read as NaN until then; shared memory it
// reads changed before the wait, a cp.async into it, and a wgmma issued
// before a cp.async into its operands has landed are errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "gpu_backend/emulator/emulator_runtime.h"
#include "gpu_backend/emulator/emulator_target.h"
#include "gpu_backend/emulator/host_jit.h"
#include "gpu_backend/emulator/wgmma_queue.h"
#include "hlo/ir/float_types.h"

namespace xlite::gpu::emulator {
namespace {

using codegen::GridDim;

// bf16, K = 16. Per warpgroup: A (64 x 16) paired-K (LBO 128, SBO 256)
// at kAStart, B (N x 16) K-outer (LBO N / 8 * 128, SBO 128) at kBStart.
constexpr int64_t kK = 16, kAStart = 32, kBStart = kAStart + 64 * 32 + 16;

int64_t ByteOf(int64_t rows, int64_t k, int64_t lbo, int64_t sbo) {
  return (rows / 8) * sbo + (k / 8) * lbo + (rows % 8) * 16 + (k % 8) * 2;
}

int64_t GroupBytes(int64_t n) { return (kBStart + n * 32 + 511) / 512 * 512; }

// What the kernel does between its wgmma and the wait for it.
enum class Mode {
  kWait,           // commit, wait_group 0
  kLeaveInFlight,  // commit, wait_group 1, then read the registers
  kZeroA,          // commit, zero A (all threads, then a barrier), wait 0
  kCopyIntoA,      // commit, cp.async 16 bytes into A, wait 0
  kTwoGroups,      // commit, the same wgmma again, commit, wait 1, wait 0
  kUnlanded,       // before the wgmma: a cp.async into A, barrier, no wait
};

// The kernel: out is i32[threads][n / 2] holding C on entry, D on exit;
// in holds GroupBytes(n) bytes per warpgroup. `diverge` gives each warp
// a different A start.
absl::Status RunWgmmaKernel(int64_t n, int64_t threads, bool diverge,
                            std::vector<uint8_t>& in, std::vector<int32_t>& out,
                            Mode mode = Mode::kWait) {
  auto jit = HostJit::Create();
  if (!jit.ok()) return jit.status();
  auto context = std::make_unique<llvm::LLVMContext>();
  auto module = std::make_unique<llvm::Module>("test", *context);
  EmulatorTarget t((*jit)->triple(), (*jit)->data_layout());
  t.ConfigureModule(*module);
  llvm::Function* f = t.DeclareKernel(
      *module, "k", std::vector<codegen::KernelParam>(2), threads);
  llvm::IRBuilder<> b(&f->getEntryBlock());
  llvm::Type* i32 = b.getInt32Ty();
  const int64_t group = GroupBytes(n), groups = (threads + 127) / 128;
  t.SharedArray(b, 48, 16, "pad");
  llvm::Value* shared = t.SharedArray(b, groups * group, 16, "s");
  llvm::Value* tid = b.CreateZExt(t.ThreadId(b, GridDim::kX), b.getInt64Ty());
  for (int64_t j = 0; j < groups * group / 4 / threads; ++j) {
    llvm::Value* at = b.CreateAdd(tid, b.getInt64(j * threads));
    b.CreateStore(b.CreateLoad(i32, b.CreateGEP(i32, f->getArg(0), {at})),
                  b.CreateGEP(i32, shared, {at}));
  }
  t.Barrier(b);
  llvm::Value* base = b.CreateZExt(
      b.CreateAdd(
          t.SharedAddress(b, shared),
          b.CreateMul(b.CreateTrunc(b.CreateUDiv(tid, b.getInt64(128)), i32),
                      b.getInt32(group))),
      b.getInt64Ty());
  auto desc = [&](int64_t start, int64_t lbo, int64_t sbo) {
    llvm::Value* addr = b.CreateAdd(base, b.getInt64(start));
    return b.CreateOr(b.CreateLShr(addr, 4),
                      b.getInt64((lbo >> 4) << 16 | (sbo >> 4) << 32));
  };
  llvm::Value* desc_a = desc(kAStart, 128, 256);
  if (diverge) {
    desc_a = b.CreateAdd(desc_a, b.CreateUDiv(tid, b.getInt64(32)));
  }
  llvm::Value* desc_b = desc(kBStart, n / 8 * 128, 128);
  std::vector<llvm::Value*> acc;
  llvm::Value* row = b.CreateMul(tid, b.getInt64(n / 2));
  for (int64_t i = 0; i < n / 2; ++i) {
    acc.push_back(b.CreateLoad(
        i32,
        b.CreateGEP(i32, f->getArg(1), {b.CreateAdd(row, b.getInt64(i))})));
  }
  // The warpgroup's A: 64 x kK bf16 from kAStart.
  llvm::Value* a_bytes = b.CreateGEP(
      b.getInt8Ty(), shared,
      {b.CreateAdd(
          b.CreateMul(b.CreateUDiv(tid, b.getInt64(128)), b.getInt64(group)),
          b.getInt64(kAStart))});
  if (mode == Mode::kUnlanded) {
    t.AsyncCopy(b, a_bytes, f->getArg(0), 16, b.getTrue());
    t.Barrier(b);
  }
  acc = t.WgmmaFence(b, acc);
  const codegen::WgmmaShape shape{codegen::WgmmaKind::kBF16, n, false, false};
  acc = t.Wgmma(b, shape, desc_a, desc_b, acc);
  t.WgmmaCommit(b);
  switch (mode) {
    case Mode::kWait:
    case Mode::kUnlanded:
      break;
    case Mode::kLeaveInFlight:
      acc = t.WgmmaWait(b, 1, acc);
      break;
    case Mode::kZeroA: {
      // 64 * kK * 2 bytes, 16 per thread of the warpgroup.
      llvm::Value* at =
          b.CreateMul(b.CreateURem(tid, b.getInt64(128)), b.getInt64(16));
      b.CreateMemSet(b.CreateGEP(b.getInt8Ty(), a_bytes, {at}), b.getInt8(0),
                     16, llvm::MaybeAlign(1));
      t.Barrier(b);
      break;
    }
    case Mode::kCopyIntoA:
      t.AsyncCopy(b, a_bytes, f->getArg(0), 16, b.getTrue());
      t.AsyncCopyWait(b);
      break;
    case Mode::kTwoGroups:
      acc = t.Wgmma(b, shape, desc_a, desc_b, acc);
      t.WgmmaCommit(b);
      acc = t.WgmmaWait(b, 1, acc);
      break;
  }
  if (mode != Mode::kLeaveInFlight) acc = t.WgmmaWait(b, 0, acc);
  for (int64_t i = 0; i < n / 2; ++i) {
    b.CreateStore(acc[i], b.CreateGEP(i32, f->getArg(1),
                                      {b.CreateAdd(row, b.getInt64(i))}));
  }
  b.CreateRetVoid();
  if (absl::Status s = (*jit)->AddModule(std::move(context), std::move(module));
      !s.ok()) {
    return s;
  }
  auto entry = (*jit)->Lookup(EmulatorTarget::EntryName("k"));
  if (!entry.ok()) return entry.status();
  std::vector<void*> args = {in.data(), out.data()};
  return LaunchKernel(reinterpret_cast<KernelEntry>(*entry),
                      {1, threads, 48 + groups * group, true}, args.data());
}

float ToFloat(int32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

int32_t ToBits(float f) {
  int32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}

// Operands of warpgroup g: small ints, written by the ISA's formula.
struct Operands {
  std::vector<float> a, b;  // 64 x kK, n x kK
};

Operands Fill(int64_t n, int64_t g, std::vector<uint8_t>& in) {
  Operands o;
  uint8_t* group = in.data() + g * GroupBytes(n);
  auto put = [&](std::vector<float>& m, int64_t rows, int64_t start,
                 int64_t lbo, int64_t sbo, int salt) {
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t k = 0; k < kK; ++k) {
        const float v = static_cast<float>((r * 7 + k * 3 + salt) % 13 - 6);
        m.push_back(v);
        const uint16_t bits = FloatToBFloat16(v);
        std::memcpy(group + start + ByteOf(r, k, lbo, sbo), &bits, 2);
      }
    }
  };
  put(o.a, 64, kAStart, 128, 256, static_cast<int>(5 * g + 1));
  put(o.b, n, kBStart, n / 8 * 128, 128, static_cast<int>(11 * g + 2));
  return o;
}

// Runs the kernel in `mode` on filled operands; D must be C plus `times`
// A.B of each warpgroup.
void RunAndCheck(int64_t n, int64_t threads, Mode mode, int times) {
  std::vector<uint8_t> in(threads / 128 * GroupBytes(n), 0xa5);
  std::vector<Operands> ops;
  for (int64_t g = 0; g < threads / 128; ++g) ops.push_back(Fill(n, g, in));
  std::vector<int32_t> out(threads * n / 2);
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = ToBits(static_cast<float>(i % 17) - 8.5f);
  }
  const std::vector<int32_t> c = out;
  absl::Status s = RunWgmmaKernel(n, threads, false, in, out, mode);
  ASSERT_TRUE(s.ok()) << s.message();
  for (int64_t t = 0; t < threads; ++t) {
    const Operands& o = ops[t / 128];
    const int w = (t % 128) / 32, l = t % 32;
    for (int64_t i = 0; i < n / 2; ++i) {
      const int64_t row = 16 * w + l / 4 + 8 * ((i / 2) % 2);
      const int64_t col = 8 * (i / 4) + 2 * (l % 4) + i % 2;
      float want = ToFloat(c[t * n / 2 + i]);
      for (int time = 0; time < times; ++time) {
        for (int64_t k = 0; k < kK; ++k) {
          want += o.a[row * kK + k] * o.b[col * kK + k];
        }
      }
      ASSERT_EQ(ToFloat(out[t * n / 2 + i]), want)
          << "thread " << t << " register " << i;
    }
  }
}

TEST(WgmmaRuntime, EachWarpgroupComputesItsProduct) {
  for (int64_t n : {8, 32}) {
    for (int64_t threads : {128, 256}) {
      SCOPED_TRACE(testing::Message() << "n " << n << " threads " << threads);
      RunAndCheck(n, threads, Mode::kWait, 1);
    }
  }
}

// Two groups in flight on the same accumulators: the second starts from
// the first's D, though the registers it was given read as NaN.
TEST(WgmmaRuntime, GroupsInFlightChainTheirAccumulators) {
  for (int64_t threads : {128, 256}) {
    SCOPED_TRACE(testing::Message() << "threads " << threads);
    RunAndCheck(32, threads, Mode::kTwoGroups, 2);
  }
}

// A zeroed between the issue and the wait (a race on a GPU, which may
// read it at any time in between) and a wgmma issued before a cp.async
// into its A has landed are errors.
TEST(WgmmaRuntime, OperandsChangingInFlightAreErrors) {
  for (auto [mode, says] :
       {std::pair{Mode::kZeroA, "changed between its issue and the wait"},
        std::pair{Mode::kUnlanded, "has not landed"}}) {
    std::vector<uint8_t> in(2 * GroupBytes(8), 0);
    Fill(8, 0, in);
    Fill(8, 1, in);
    std::vector<int32_t> out(256 * 4, 0);
    absl::Status s = RunWgmmaKernel(8, 256, false, in, out, mode);
    ASSERT_FALSE(s.ok()) << says;
    EXPECT_NE(s.message().find(says), absl::string_view::npos) << s.message();
  }
}

// Registers of a wgmma still in flight (wait_group 1 leaves its group)
// are not its D.
TEST(WgmmaRuntime, AccumulatorsInFlightReadAsNaN) {
  std::vector<uint8_t> in(GroupBytes(8), 0);
  Fill(8, 0, in);
  std::vector<int32_t> out(128 * 4, 0);
  absl::Status s = RunWgmmaKernel(8, 128, false, in, out, Mode::kLeaveInFlight);
  ASSERT_TRUE(s.ok()) << s.message();
  for (int32_t bits : out) ASSERT_EQ(bits, kWgmmaInFlight);
  EXPECT_TRUE(std::isnan(ToFloat(kWgmmaInFlight)));
}

TEST(WgmmaRuntime, CopyIntoAnOperandInFlightIsAnError) {
  std::vector<uint8_t> in(GroupBytes(8), 0);
  Fill(8, 0, in);
  std::vector<int32_t> out(128 * 4, 0);
  absl::Status s = RunWgmmaKernel(8, 128, false, in, out, Mode::kCopyIntoA);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("a wgmma in flight"), absl::string_view::npos)
      << s.message();
}

TEST(WgmmaRuntime, PartialWarpgroupIsAnError) {
  std::vector<uint8_t> in(2 * GroupBytes(8), 0);
  std::vector<int32_t> out(192 * 4, 0);
  for (int64_t threads : {64, 192}) {
    absl::Status s = RunWgmmaKernel(8, threads, false, in, out);
    EXPECT_FALSE(s.ok()) << threads;
    EXPECT_NE(s.message().find("warpgroup"), absl::string_view::npos)
        << s.message();
  }
}

TEST(WgmmaRuntime, DivergentDescriptorsAreAnError) {
  std::vector<uint8_t> in(GroupBytes(8), 0);
  std::vector<int32_t> out(128 * 4, 0);
  absl::Status s = RunWgmmaKernel(8, 128, true, in, out);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("descriptors"), absl::string_view::npos)
      << s.message();
}

}  // namespace
}  // namespace xlite::gpu::emulator
