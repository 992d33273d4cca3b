#ifndef XLITE_GPU_BACKEND_NVPTX_TARGET_H_
#define XLITE_GPU_BACKEND_NVPTX_TARGET_H_

// KernelTarget for NVIDIA GPUs through LLVM's NVPTX backend: special
// registers and barriers are nvvm intrinsics, shuffles are
// shfl.sync (full warp mask), tensor-core steps mma.sync (sm_80 on) and
// wgmma (sm_90a, inline PTX), shared
// memory is addrspace(3) globals, math calls map to libdevice's __nv_*
// functions, and kernels carry the kernel annotation with exact block sizes
// (reqntidx; ptxas refuses maxntid next to it).

#include <string>

#include "codegen/kernel_target.h"

namespace xlite::gpu {

class NvptxTarget : public codegen::KernelTarget {
 public:
  std::string name() const override { return "nvptx"; }
  void ConfigureModule(llvm::Module& module) const override;
  llvm::Function* DeclareKernel(llvm::Module& module, absl::string_view name,
                                const std::vector<codegen::KernelParam>& params,
                                int64_t block_size) override;
  llvm::Value* ThreadId(llvm::IRBuilderBase& b, codegen::GridDim d) override;
  llvm::Value* BlockId(llvm::IRBuilderBase& b, codegen::GridDim d) override;
  llvm::Value* BlockDim(llvm::IRBuilderBase& b, codegen::GridDim d) override;
  llvm::Value* GridSize(llvm::IRBuilderBase& b, codegen::GridDim d) override;
  void Barrier(llvm::IRBuilderBase& b) override;
  llvm::Value* ShuffleI32(llvm::IRBuilderBase& b, codegen::ShuffleKind kind,
                          llvm::Value* value, llvm::Value* offset) override;
  std::vector<llvm::Value*> LdMatrix(llvm::IRBuilderBase& b, int64_t count,
                                     llvm::Value* row) override;
  std::vector<llvm::Value*> Mma(llvm::IRBuilderBase& b, codegen::MmaKind kind,
                                const std::vector<llvm::Value*>& a,
                                const std::vector<llvm::Value*>& bv,
                                const std::vector<llvm::Value*>& c) override;
  void AsyncCopy(llvm::IRBuilderBase& b, llvm::Value* dst, llvm::Value* src,
                 int64_t bytes, llvm::Value* copy) override;
  void AsyncCopyWait(llvm::IRBuilderBase& b) override;
  void AsyncCopyCommit(llvm::IRBuilderBase& b) override;
  void AsyncCopyWaitGroup(llvm::IRBuilderBase& b, int64_t pending) override;
  // Warpgroup tensor cores (nvptx_wgmma.cc): inline PTX, which LLVM 19
  // has no intrinsics for.
  std::vector<llvm::Value*> Wgmma(
      llvm::IRBuilderBase& b, const codegen::WgmmaShape& shape,
      llvm::Value* desc_a, llvm::Value* desc_b,
      const std::vector<llvm::Value*>& acc) override;
  std::vector<llvm::Value*> WgmmaFence(
      llvm::IRBuilderBase& b, const std::vector<llvm::Value*>& acc) override;
  void WgmmaCommit(llvm::IRBuilderBase& b) override;
  std::vector<llvm::Value*> WgmmaWait(
      llvm::IRBuilderBase& b, int64_t pending,
      const std::vector<llvm::Value*>& acc) override;
  void FenceProxyAsyncShared(llvm::IRBuilderBase& b) override;
  void MbarrierInit(llvm::IRBuilderBase& b, llvm::Value* bar,
                    int64_t count) override;
  void MbarrierArriveExpectTx(llvm::IRBuilderBase& b, llvm::Value* bar,
                              int64_t bytes) override;
  void MbarrierArrive(llvm::IRBuilderBase& b, llvm::Value* bar) override;
  void MbarrierWait(llvm::IRBuilderBase& b, llvm::Value* bar,
                    llvm::Value* parity) override;
  void TensorMapLoad(llvm::IRBuilderBase& b, llvm::Value* dst, llvm::Value* map,
                     const std::vector<llvm::Value*>& coords,
                     llvm::Value* bar) override;
  llvm::Value* SharedAddress(llvm::IRBuilderBase& b,
                             llvm::Value* pointer) override;
  void TmemAlloc(llvm::IRBuilderBase& b, llvm::Value* slot,
                 int64_t columns) override;
  void TmemDealloc(llvm::IRBuilderBase& b, llvm::Value* address,
                   int64_t columns) override;
  void Tcgen05Mma(llvm::IRBuilderBase& b, const codegen::WgmmaShape& shape,
                  llvm::Value* tmem, llvm::Value* desc_a, llvm::Value* desc_b,
                  llvm::Value* accumulate) override;
  void Tcgen05Commit(llvm::IRBuilderBase& b, llvm::Value* bar) override;
  std::vector<llvm::Value*> Tcgen05Load(llvm::IRBuilderBase& b,
                                        llvm::Value* address,
                                        int64_t count) override;
  void Tcgen05Fence(llvm::IRBuilderBase& b, bool before) override;
  llvm::Value* SharedArray(llvm::IRBuilderBase& b, int64_t bytes,
                           int64_t alignment, absl::string_view name) override;
  llvm::Value* DynamicSharedArray(llvm::IRBuilderBase& b, int64_t bytes,
                                  int64_t alignment,
                                  absl::string_view name) override;
  absl::StatusOr<std::string> MathFunction(
      absl::string_view name) const override;
};

/// The NVPTX triple and data layout (64-bit, generic shared pointers).
inline constexpr char kNvptxTriple[] = "nvptx64-nvidia-cuda";
inline constexpr char kNvptxDataLayout[] =
    "e-i64:64-i128:128-v16:16-v32:32-n16:32:64";

}  // namespace xlite::gpu

#endif  // XLITE_GPU_BACKEND_NVPTX_TARGET_H_
