// The tiled GEMM's multistage main loop (stages = 3 or 4): both operand
// tiles arrive by cp.async into a ring of `stages` buffers. A multiply
// may leave `in_flight` steps still reading their buffers when it returns
// (the warpgroup loop's wgmma-s, waited for one step later), so the
// copies run d = stages - 1 - in_flight K steps ahead of the multiply:
// global memory latency hides behind d steps of tensor-core work.
//
// Groups: each K step's copies (both sides) are one commit group, and a
// step past K commits an empty group, so that before multiplying step kt
// the thread has committed exactly d + kt + 1 groups and
// wait_group(d - 1) means "steps 0..kt have landed".
//
// Buffers: step kt lives in buffer kt % stages. Step kt + d is issued
// into buffer (kt - 1 - in_flight) % stages only after the barrier at the
// top of iteration kt: every warp has left step kt - 1's multiply by
// then, having waited there until at most in_flight steps (kt - 1's own)
// still read, so step kt - 1 - in_flight's buffer is free.

#include "absl/strings/str_cat.h"
#include "codegen/gpu/tiled_gemm.h"
#include "codegen/loops.h"

namespace xlite::codegen::gpu::tiled_gemm {

absl::Status EmitPipelinedLoop(KernelScope& k, const GemmView& v,
                               const TiledGemmConfig& c, const Side& lhs,
                               const Side& rhs, int64_t lhs_bytes,
                               int64_t rhs_bytes, const BlockOrigin& origin,
                               llvm::Value* tid, int64_t in_flight,
                               const MultiplyStep& multiply) {
  llvm::IRBuilderBase& b = k.b;
  const int64_t stages = c.stages;
  const int64_t ahead_steps = stages - 1 - in_flight;
  if (in_flight < 0 || ahead_steps < 1) {
    return absl::InternalError(
        absl::StrCat("a ", stages, "-stage pipeline cannot leave ", in_flight,
                     " multiplies in flight"));
  }
  const int64_t k_tiles = (v.k + c.block_k - 1) / c.block_k;
  auto buffer = [&](const Side& s, int64_t bytes, llvm::Value* stage) {
    return b.CreateGEP(b.getInt8Ty(), s.shared,
                       {b.CreateMul(stage, b.getInt64(bytes))});
  };
  // Issues K step `kt`'s copies of both sides into buffer `stage`.
  auto issue = [&](llvm::Value* kt, llvm::Value* stage) -> absl::Status {
    llvm::Value* k0 = b.CreateMul(kt, b.getInt64(c.block_k));
    for (const Side* s : {&lhs, &rhs}) {
      const bool is_lhs = s == &lhs;
      if (absl::Status st =
              IssueAsyncTile(k, v, *s, c.block_k, c.threads(), tid,
                             origin.batch, is_lhs ? origin.m0 : origin.n0, k0,
                             buffer(*s, is_lhs ? lhs_bytes : rhs_bytes, stage));
          !st.ok()) {
        return st;
      }
    }
    return absl::OkStatus();
  };
  // The prologue: steps 0 .. d - 1, those past K empty groups.
  for (int64_t step = 0; step < ahead_steps; ++step) {
    if (step < k_tiles) {
      if (absl::Status s = issue(b.getInt64(step), b.getInt64(step)); !s.ok()) {
        return s;
      }
    }
    k.target.AsyncCopyCommit(b);
  }
  absl::Status s = EmitForLoop(
      b, b.getInt64(0), b.getInt64(k_tiles), "k_tile",
      [&](llvm::Value* kt) -> absl::Status {
        k.target.AsyncCopyWaitGroup(b, ahead_steps - 1);
        if (c.warpgroups()) k.target.FenceProxyAsyncShared(b);
        k.target.Barrier(b);
        llvm::Value* ahead = b.CreateAdd(kt, b.getInt64(ahead_steps));
        if (absl::Status s = EmitIf(
                k, b.CreateICmpULT(ahead, b.getInt64(k_tiles)),
                [&]() -> absl::Status {
                  return issue(ahead, b.CreateURem(ahead, b.getInt64(stages)));
                });
            !s.ok()) {
          return s;
        }
        k.target.AsyncCopyCommit(b);
        llvm::Value* now = b.CreateURem(kt, b.getInt64(stages));
        multiply(buffer(lhs, lhs_bytes, now), buffer(rhs, rhs_bytes, now));
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  // Only empty groups are left; none outlives the loop.
  k.target.AsyncCopyWait(b);
  return absl::OkStatus();
}

}  // namespace xlite::codegen::gpu::tiled_gemm
