// The emulator's primitives, each through a small kernel built with
// EmulatorTarget: barriers order shared-memory traffic, shuffles exchange
// lanes, atomics add up, asynchronous copies land only when waited for,
// and a barrier that not every thread reaches is an error rather than a
// hang.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "gpu_backend/emulator/emulator_runtime.h"
#include "gpu_backend/emulator/emulator_target.h"
#include "gpu_backend/emulator/host_jit.h"

namespace xlite::gpu::emulator {
namespace {

using codegen::GridDim;
using Body = std::function<void(EmulatorTarget&, llvm::IRBuilder<>&,
                                llvm::Function*)>;

// Builds kernel "k" with `params` pointer arguments from `body`, JITs it and
// launches it on `args`.
absl::Status RunKernel(int params, const Body& body, const EmulatedLaunch& launch,
                 std::vector<void*> args) {
  auto jit = HostJit::Create();
  if (!jit.ok()) return jit.status();
  auto context = std::make_unique<llvm::LLVMContext>();
  auto module = std::make_unique<llvm::Module>("test", *context);
  EmulatorTarget target((*jit)->triple(), (*jit)->data_layout());
  target.ConfigureModule(*module);
  llvm::Function* kernel = target.DeclareKernel(
      *module, "k", std::vector<codegen::KernelParam>(params), launch.block);
  llvm::IRBuilder<> b(&kernel->getEntryBlock());
  body(target, b, kernel);
  b.CreateRetVoid();
  if (absl::Status s = (*jit)->AddModule(std::move(context), std::move(module));
      !s.ok()) {
    return s;
  }
  auto entry = (*jit)->Lookup(EmulatorTarget::EntryName("k"));
  if (!entry.ok()) return entry.status();
  return LaunchKernel(reinterpret_cast<KernelEntry>(*entry), launch,
                      args.data());
}

llvm::Value* Tid64(EmulatorTarget& t, llvm::IRBuilder<>& b) {
  return b.CreateZExt(t.ThreadId(b, GridDim::kX), b.getInt64Ty());
}

TEST(Emulator, BarrierOrdersSharedMemory) {
  // Each thread writes tid to shared[tid], syncs, reads shared[n-1-tid].
  constexpr int n = 64;
  std::vector<int32_t> out(n, -1);
  absl::Status s = RunKernel(
      1,
      [&](EmulatorTarget& t, llvm::IRBuilder<>& b, llvm::Function* f) {
        llvm::Value* shared = t.SharedArray(b, n * 4, 4, "s");
        llvm::Value* tid = Tid64(t, b);
        b.CreateStore(b.CreateTrunc(tid, b.getInt32Ty()),
                      b.CreateGEP(b.getInt32Ty(), shared, {tid}));
        t.Barrier(b);
        llvm::Value* mirror = b.CreateSub(b.getInt64(n - 1), tid);
        llvm::Value* v =
            b.CreateLoad(b.getInt32Ty(),
                         b.CreateGEP(b.getInt32Ty(), shared, {mirror}));
        b.CreateStore(v, b.CreateGEP(b.getInt32Ty(), f->getArg(0), {tid}));
      },
      {1, n, n * 4, true}, {out.data()});
  ASSERT_TRUE(s.ok()) << s.message();
  for (int i = 0; i < n; ++i) EXPECT_EQ(out[i], n - 1 - i);
}

TEST(Emulator, ShuffleDownAndXor) {
  constexpr int n = 64;  // two warps
  std::vector<int64_t> down(n), bfly(n);
  absl::Status s = RunKernel(
      2,
      [&](EmulatorTarget& t, llvm::IRBuilder<>& b, llvm::Function* f) {
        llvm::Value* tid = Tid64(t, b);
        // 64-bit values go through two 32-bit shuffles.
        llvm::Value* v = b.CreateAdd(tid, b.getInt64(int64_t{1} << 40));
        auto d = t.Shuffle(b, codegen::ShuffleKind::kDown, v, b.getInt32(3));
        auto x = t.Shuffle(b, codegen::ShuffleKind::kXor, v, b.getInt32(5));
        b.CreateStore(*d, b.CreateGEP(b.getInt64Ty(), f->getArg(0), {tid}));
        b.CreateStore(*x, b.CreateGEP(b.getInt64Ty(), f->getArg(1), {tid}));
      },
      {1, n, 0, true}, {down.data(), bfly.data()});
  ASSERT_TRUE(s.ok()) << s.message();
  const int64_t high = int64_t{1} << 40;
  for (int i = 0; i < n; ++i) {
    const int lane = i % 32;
    EXPECT_EQ(down[i], high + (lane + 3 < 32 ? i + 3 : i)) << i;
    EXPECT_EQ(bfly[i], high + (i - lane + (lane ^ 5))) << i;
  }
}

TEST(Emulator, AtomicsOnGlobalAndShared) {
  // Every thread of 4 blocks adds 1 to a global counter, its id to a shared
  // sum (written out by thread 0 after a barrier), and maxes a global.
  std::vector<int64_t> counter(1, 0), sums(4, 0);
  std::vector<float> maximum(1, -1.0f);
  absl::Status s = RunKernel(
      3,
      [&](EmulatorTarget& t, llvm::IRBuilder<>& b, llvm::Function* f) {
        llvm::Value* shared = t.SharedArray(b, 8, 8, "sum");
        llvm::Value* tid = Tid64(t, b);
        // Shared memory starts undefined (as on a GPU): thread 0 zeroes
        // the sum before anyone adds.
        auto* zero = llvm::BasicBlock::Create(b.getContext(), "z", f);
        auto* zeroed = llvm::BasicBlock::Create(b.getContext(), "zd", f);
        b.CreateCondBr(b.CreateICmpEQ(tid, b.getInt64(0)), zero, zeroed);
        b.SetInsertPoint(zero);
        b.CreateStore(b.getInt64(0), shared);
        b.CreateBr(zeroed);
        b.SetInsertPoint(zeroed);
        t.Barrier(b);
        ASSERT_TRUE(t.AtomicRmw(b, codegen::AtomicOp::kAdd, true,
                                f->getArg(0), b.getInt64(1))
                        .ok());
        ASSERT_TRUE(
            t.AtomicRmw(b, codegen::AtomicOp::kAdd, true, shared, tid).ok());
        llvm::Value* fv = b.CreateUIToFP(tid, b.getFloatTy());
        ASSERT_TRUE(
            t.AtomicRmw(b, codegen::AtomicOp::kMax, true, f->getArg(2), fv)
                .ok());
        t.Barrier(b);
        llvm::Value* block =
            b.CreateZExt(t.BlockId(b, GridDim::kX), b.getInt64Ty());
        llvm::Value* sum = b.CreateLoad(b.getInt64Ty(), shared);
        auto* then = llvm::BasicBlock::Create(b.getContext(), "t", f);
        auto* done = llvm::BasicBlock::Create(b.getContext(), "d", f);
        b.CreateCondBr(b.CreateICmpEQ(tid, b.getInt64(0)), then, done);
        b.SetInsertPoint(then);
        b.CreateStore(sum, b.CreateGEP(b.getInt64Ty(), f->getArg(1), {block}));
        b.CreateBr(done);
        b.SetInsertPoint(done);
      },
      {4, 100, 8, true}, {counter.data(), sums.data(), maximum.data()});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(counter[0], 400);
  for (int64_t sum : sums) EXPECT_EQ(sum, 99 * 100 / 2);
  EXPECT_EQ(maximum[0], 99.0f);
}

TEST(Emulator, BarrierNotReachedByEveryThreadIsAnError) {
  // if (tid < 10) __syncthreads();
  absl::Status s = RunKernel(
      0,
      [&](EmulatorTarget& t, llvm::IRBuilder<>& b, llvm::Function* f) {
        auto* then = llvm::BasicBlock::Create(b.getContext(), "t", f);
        auto* done = llvm::BasicBlock::Create(b.getContext(), "d", f);
        b.CreateCondBr(b.CreateICmpULT(Tid64(t, b), b.getInt64(10)), then,
                       done);
        b.SetInsertPoint(then);
        t.Barrier(b);
        b.CreateBr(done);
        b.SetInsertPoint(done);
      },
      {2, 64, 0, true}, {});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("barrier was reached by 10 of 64 threads"),
            std::string::npos)
      << s.message();
}

TEST(Emulator, BarrierAgainstShuffleIsADeadlockError) {
  // Warp 0 shuffles while warp 1 waits at a barrier: warp 0 then exits.
  // Lanes 0-15 shuffle, lanes 16-31 wait at a barrier: a deadlock.
  absl::Status s = RunKernel(
      0,
      [&](EmulatorTarget& t, llvm::IRBuilder<>& b, llvm::Function* f) {
        auto* then = llvm::BasicBlock::Create(b.getContext(), "t", f);
        auto* other = llvm::BasicBlock::Create(b.getContext(), "o", f);
        auto* done = llvm::BasicBlock::Create(b.getContext(), "d", f);
        b.CreateCondBr(b.CreateICmpULT(Tid64(t, b), b.getInt64(16)), then,
                       other);
        b.SetInsertPoint(then);
        t.ShuffleI32(b, codegen::ShuffleKind::kDown, b.getInt32(1),
                     b.getInt32(1));
        b.CreateBr(done);
        b.SetInsertPoint(other);
        t.Barrier(b);
        b.CreateBr(done);
        b.SetInsertPoint(done);
      },
      {1, 32, 0, true}, {});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("deadlock"), std::string::npos) << s.message();
}

TEST(Emulator, NonCooperativeLaunchRunsEveryThread) {
  std::vector<int32_t> out(3 * 50, 0);
  absl::Status s = RunKernel(
      1,
      [&](EmulatorTarget& t, llvm::IRBuilder<>& b, llvm::Function* f) {
        llvm::Value* block =
            b.CreateZExt(t.BlockId(b, GridDim::kX), b.getInt64Ty());
        llvm::Value* dim =
            b.CreateZExt(t.BlockDim(b, GridDim::kX), b.getInt64Ty());
        llvm::Value* i = b.CreateAdd(b.CreateMul(block, dim), Tid64(t, b));
        b.CreateStore(b.CreateTrunc(i, b.getInt32Ty()),
                      b.CreateGEP(b.getInt32Ty(), f->getArg(0), {i}));
      },
      {3, 50, 0, false}, {out.data()});
  ASSERT_TRUE(s.ok()) << s.message();
  for (int i = 0; i < 150; ++i) EXPECT_EQ(out[i], i);
}

TEST(Emulator, AsyncCopiesLandOnlyWhenWaitedFor) {
  // Each of 32 threads copies 16 bytes (4 i32) of `src` into stage 0 and
  // then into stage 1 of shared memory, each its own group (stage 1's
  // copy zero-filling: copy = false), and records its stages' first word:
  // after a barrier (nothing landed: the 0xA5 fill), after wait_group 1
  // (stage 0 landed, stage 1 not) and after wait_all (both).
  constexpr int n = 32;
  std::vector<int32_t> src(4 * n), out(5 * n, -1);
  for (int i = 0; i < 4 * n; ++i) src[i] = 1000 + i;
  absl::Status s = RunKernel(
      2,
      [&](EmulatorTarget& t, llvm::IRBuilder<>& b, llvm::Function* f) {
        llvm::Type* i32 = b.getInt32Ty();
        llvm::Value* shared = t.SharedArray(b, 2 * n * 16, 16, "stages");
        llvm::Value* tid = Tid64(t, b);
        llvm::Value* at = b.CreateMul(tid, b.getInt64(4));
        llvm::Value* stage0 = b.CreateGEP(i32, shared, {at});
        llvm::Value* stage1 =
            b.CreateGEP(i32, shared, {b.CreateAdd(at, b.getInt64(4 * n))});
        t.AsyncCopy(b, stage0, b.CreateGEP(i32, f->getArg(0), {at}), 16,
                    b.getTrue());
        t.AsyncCopyCommit(b);
        t.AsyncCopy(b, stage1, b.CreateGEP(i32, f->getArg(0), {at}), 16,
                    b.getFalse());
        t.AsyncCopyCommit(b);
        int64_t slot = 0;
        auto record = [&](llvm::Value* stage) {
          llvm::Value* i = b.CreateAdd(b.CreateMul(tid, b.getInt64(5)),
                                       b.getInt64(slot++));
          b.CreateStore(b.CreateLoad(i32, stage),
                        b.CreateGEP(i32, f->getArg(1), {i}));
        };
        t.Barrier(b);
        record(stage0);
        t.AsyncCopyWaitGroup(b, 1);
        record(stage0);
        record(stage1);
        t.AsyncCopyWait(b);
        record(stage0);
        record(stage1);
      },
      {2, n, 2 * n * 16, true}, {src.data(), out.data()});
  ASSERT_TRUE(s.ok()) << s.message();
  const int32_t fill = static_cast<int32_t>(0xA5A5A5A5u);
  for (int t = 0; t < n; ++t) {
    const int32_t* o = &out[5 * t];
    EXPECT_EQ(o[0], fill) << "thread " << t << ": landed before any wait";
    EXPECT_EQ(o[1], 1000 + 4 * t) << t;
    EXPECT_EQ(o[2], fill) << "thread " << t << ": wait_group 1 landed both";
    EXPECT_EQ(o[3], 1000 + 4 * t) << t;
    EXPECT_EQ(o[4], 0) << t;
  }
}

TEST(Emulator, WaitAllLandsCopiesNotYetCommitted) {
  constexpr int n = 4;
  std::vector<int32_t> src = {7, 8, 9, 10}, out(n, -1);
  absl::Status s = RunKernel(
      2,
      [&](EmulatorTarget& t, llvm::IRBuilder<>& b, llvm::Function* f) {
        llvm::Type* i32 = b.getInt32Ty();
        llvm::Value* shared = t.SharedArray(b, n * 4, 16, "s");
        llvm::Value* tid = Tid64(t, b);
        llvm::Value* dst = b.CreateGEP(i32, shared, {tid});
        t.AsyncCopy(b, dst, b.CreateGEP(i32, f->getArg(0), {tid}), 4,
                    b.getTrue());
        t.AsyncCopyWait(b);
        b.CreateStore(b.CreateLoad(i32, dst),
                      b.CreateGEP(i32, f->getArg(1), {tid}));
      },
      {1, n, n * 4, true}, {src.data(), out.data()});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(out, src);
}

}  // namespace
}  // namespace xlite::gpu::emulator
