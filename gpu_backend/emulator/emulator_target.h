#ifndef XLITE_GPU_BACKEND_EMULATOR_EMULATOR_TARGET_H_
#define XLITE_GPU_BACKEND_EMULATOR_EMULATOR_TARGET_H_

// KernelTarget for the host emulator: thread ids, barriers, shuffles,
// tensor-core steps (mma) and shared memory are calls into the emulator runtime
// (emulator_runtime.h); atomics are host atomics; math calls stay libm calls,
// limited to those the GPU has too (so that what runs here compiles for NVPTX).
// Each kernel `name(ptr...)` gets a host entry `name.entry(ptr args)` that
// unpacks the argument array.

#include <string>

#include "codegen/kernel_target.h"

namespace xlite::gpu::emulator {

class EmulatorTarget : public codegen::KernelTarget {
 public:
  /// For modules of `triple` and `data_layout` (the host JIT's).
  EmulatorTarget(std::string triple, std::string data_layout)
      : triple_(std::move(triple)), data_layout_(std::move(data_layout)) {}

  std::string name() const override { return "emulator"; }
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
  // Warpgroup tensor cores (emulator_wgmma.cc).
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

  /// The host entry symbol of kernel `name`.
  static std::string EntryName(absl::string_view name);

 private:
  std::string triple_;
  std::string data_layout_;
  int32_t mma_sites_ = 0;  // numbers each Mma and Wgmma call site
};

}  // namespace xlite::gpu::emulator

#endif  // XLITE_GPU_BACKEND_EMULATOR_EMULATOR_TARGET_H_
