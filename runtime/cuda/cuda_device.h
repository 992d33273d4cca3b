#ifndef XLITE_RUNTIME_CUDA_CUDA_DEVICE_H_
#define XLITE_RUNTIME_CUDA_CUDA_DEVICE_H_

// A GPU image on a CUDA device through the driver API (dlopen'ed): the
// primary context of device 0, one stream, the image's cubin for the
// device's SM (else its PTX, JIT-compiled by the driver), kernels launched
// with their dynamic shared memory (the limit raised only when a launch
// needs more than the default), copies and fills on the stream, while and
// conditional reading their predicate back to the host (a while with a
// known trip count reads nothing back), GEMM thunks by cuBLASLt
// (cublas_lt.h, loaded at the first GEMM) with their autotuned algorithm
// when it was tuned for this device and cuBLASLt build, else the
// heuristic's first. Runs of thunks that need no host
// (runtime/cuda/graph_plan.h) are captured once into CUDA graphs and
// replayed while the buffers stay where they were; XLITE_CUDA_GRAPHS=0
// turns that off. Freed blocks are kept for allocations of the same size,
// so the arenas of one executable land where its graphs expect them.
// Profiling (SetProfile) runs every thunk eagerly, with a pair of CUDA
// events recorded around each kernel and GEMM on the stream, read once the
// run has synchronized. Without a device, Create says "no CUDA device".

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "runtime/cuda/cublas_lt.h"
#include "runtime/cuda/cuda_driver.h"
#include "runtime/cuda/cudnn_block_scaled_dot.h"
#include "runtime/gpu_device.h"
#include "runtime/gpu_image.h"

namespace xlite::runtime::cuda {

class CudaDevice : public GpuDevice {
 public:
  static absl::StatusOr<std::unique_ptr<CudaDevice>> Create(
      const GpuImage& image);
  ~CudaDevice() override;

  absl::StatusOr<uint64_t> Allocate(int64_t bytes) override;
  absl::Status Free(uint64_t address) override;
  absl::Status CopyToDevice(uint64_t destination, const void* source,
                            int64_t bytes) override;
  absl::Status CopyFromDevice(void* destination, uint64_t source,
                              int64_t bytes) override;
  absl::Status Run(const ThunkSequence& thunks,
                   const std::vector<uint64_t>& allocations) override;
  /// Times with CUDA events (a profile of another clock is refused, and
  /// so is any when the driver has no events).
  absl::Status SetProfile(ThunkProfile* profile) override;

  /// "sm_90a"-style name of the device, and whether its module came from a
  /// cubin (false: the driver JIT-compiled the PTX).
  const std::string& sm_name() const { return sm_name_; }
  bool loaded_cubin() const { return loaded_cubin_; }

 private:
  struct Kernel {
    CuFunction function = nullptr;
    /// Its static shared memory (the module's .shared arrays).
    int64_t static_shared = 0;
    /// The dynamic shared memory it may be launched with.
    int64_t shared_limit = 48 * 1024;
  };
  struct Graph {
    CuGraphExec exec = nullptr;
    std::vector<uint64_t> allocations;  // the buffers it was captured on
  };
  using GraphKey = std::pair<const ThunkSequence*, size_t>;
  /// A timed thunk whose events are recorded but not yet read.
  struct PendingTiming {
    const Thunk* thunk = nullptr;
    CuEvent start = nullptr;
    CuEvent end = nullptr;
  };
  explicit CudaDevice(const CudaDriver& driver) : d_(driver) {}
  absl::Status LoadModule(const GpuImage& image);
  absl::Status RunSequence(const ThunkSequence& thunks,
                           const std::vector<uint64_t>& allocations);
  absl::Status RunOne(const Thunk& thunk,
                      const std::vector<uint64_t>& allocations);
  absl::Status RunEagerly(const ThunkSequence& thunks, size_t begin, size_t end,
                          const std::vector<uint64_t>& allocations);
  /// thunks[begin, end) as one CUDA graph, captured on first use.
  absl::Status RunGraph(const ThunkSequence& thunks, size_t begin, size_t end,
                        const std::vector<uint64_t>& allocations);
  absl::StatusOr<CuGraphExec> Capture(const ThunkSequence& thunks, size_t begin,
                                      size_t end,
                                      const std::vector<uint64_t>& allocations);
  absl::Status Launch(const Thunk& thunk,
                      const std::vector<uint64_t>& allocations);
  absl::Status LoadGemmRunner();
  absl::Status Gemm(const Thunk& thunk,
                    const std::vector<uint64_t>& allocations);
  absl::Status BlockScaledDot(const Thunk& thunk,
                              const std::vector<uint64_t>& allocations);
  /// An event from the pool (created when the pool is empty), recorded
  /// on the stream now.
  absl::StatusOr<CuEvent> RecordEvent();
  /// RunOne between two recorded events (kept in pending_).
  absl::Status RunTimed(const Thunk& thunk,
                        const std::vector<uint64_t>& allocations);
  /// After the stream synchronized: the pending times into the profile
  /// (when `record`), and their events back to the pool.
  absl::Status ResolveTimings(bool record);
  /// Copies `bytes` (at most 8) at `slice` to the host, after the stream.
  absl::StatusOr<int64_t> ReadScalar(const Slice& slice, int bytes,
                                     const std::vector<uint64_t>& allocations);

  const CudaDriver& d_;
  CuDevice device_ = 0;
  CuContext context_ = nullptr;
  CuStream stream_ = nullptr;
  CuModule module_ = nullptr;
  std::string sm_name_;
  bool loaded_cubin_ = false;
  absl::flat_hash_map<std::string, Kernel> kernels_;
  /// GemmAlgorithmScope() of this device and its cuBLASLt: the autotuned
  /// algorithms that apply here.
  std::string gemm_scope_;
  std::unique_ptr<CublasLtRunner> gemm_runner_;
  /// cuDNN, made at the first block-scaled dot; its plans are made once
  /// per thunk description.
  std::unique_ptr<CudnnBlockScaledDotRunner> cudnn_runner_;
  bool use_graphs_ = false;
  bool capturing_ = false;
  absl::flat_hash_map<GraphKey, Graph> graphs_;
  absl::flat_hash_map<uint64_t, int64_t> block_bytes_;
  absl::flat_hash_map<int64_t, std::vector<uint64_t>> free_blocks_;
  ThunkProfile* profile_ = nullptr;
  std::vector<CuEvent> free_events_;
  std::vector<PendingTiming> pending_;
};

}  // namespace xlite::runtime::cuda

#endif  // XLITE_RUNTIME_CUDA_CUDA_DEVICE_H_
