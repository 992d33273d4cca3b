#include "runtime/cuda/cublas_lt_tuner.h"

#include <dlfcn.h>

#include <chrono>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hlo/ir/gemm_config.h"
#include "hlo/ir/literal.h"
#include "runtime/cuda/cublas_lt.h"
#include "runtime/cuda/cuda_driver.h"

namespace xlite::runtime::cuda {
namespace {

// cudnnGetVersion() of the installed cuDNN ("91900"), or "none": part of
// every cache key, though cuBLASLt's algorithms do not depend on it.
std::string CudnnVersion() {
  for (const char* name : {"libcudnn.so.9", "libcudnn.so"}) {
    void* library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) continue;
    using VersionFn = size_t (*)();
    auto version =
        reinterpret_cast<VersionFn>(dlsym(library, "cudnnGetVersion"));
    if (version != nullptr) return absl::StrCat(version());
  }
  return "none";
}

// What the device and its trials share.
struct TunerContext {
  explicit TunerContext(const CudaDriver& driver) : d(driver) {}
  const CudaDriver& d;
  CuDevice device = 0;
  CuContext context = nullptr;
  CuStream stream = nullptr;
  std::unique_ptr<CublasLtRunner> runner;
  CublasLtTunerOptions options;
};

// Operand values every GEMM type holds: uniform in [-1, 1) from a fixed
// seed (so reruns see the same data), scalars (the f8 scales) 1.
std::string OperandBytes(const Shape& shape, std::mt19937_64& gen) {
  Literal value(shape);
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  for (int64_t i = 0; i < value.element_count(); ++i) {
    if (shape.rank() == 0) {
      value.SetFromDouble(i, 1);
    } else if (IsComplex(shape.element_type())) {
      value.SetFromComplex(i, {real(gen), real(gen)});
    } else {
      value.SetFromDouble(i, real(gen));
    }
  }
  const std::vector<uint8_t> bytes = value.PhysicalData(shape);
  return std::string(bytes.begin(), bytes.end());
}

// Two events around the timed runs, destroyed with it.
class EventPair {
 public:
  explicit EventPair(const CudaDriver& d) : d_(d) {}
  ~EventPair() {
    if (start_ != nullptr) d_.cuEventDestroy(start_);
    if (end_ != nullptr) d_.cuEventDestroy(end_);
  }
  absl::Status Create() {
    absl::Status s =
        CheckCuda(d_, d_.cuEventCreate(&start_, 0), "cuEventCreate");
    s.Update(CheckCuda(d_, d_.cuEventCreate(&end_, 0), "cuEventCreate"));
    return s;
  }
  CuEvent start() const { return start_; }
  CuEvent end() const { return end_; }

 private:
  const CudaDriver& d_;
  CuEvent start_ = nullptr;
  CuEvent end_ = nullptr;
};

class CublasLtTrial : public GemmTrial {
 public:
  CublasLtTrial(TunerContext& c, GemmDescription gemm)
      : c_(c), gemm_(std::move(gemm)) {}
  ~CublasLtTrial() override {
    for (CuDevicePtr p : buffers_) c_.d.cuMemFree(p);
  }

  /// The operands filled, the results zeroed, the heuristic asked.
  absl::Status Prepare();

  absl::StatusOr<std::vector<GemmAlgorithm>> Candidates() override;
  absl::StatusOr<GemmMeasurement> Measure(
      const GemmAlgorithm& candidate) override;

 private:
  absl::StatusOr<CuDevicePtr> Allocate(int64_t bytes);
  absl::Status RunAndSync(const GemmAlgorithm& candidate, int times);
  absl::StatusOr<double> TimeRuns(const GemmAlgorithm& candidate);

  TunerContext& c_;
  const GemmDescription gemm_;
  std::vector<CuDevicePtr> buffers_;
  std::vector<uint64_t> args_;
  int64_t workspace_bytes_ = 0;
  std::vector<lt::HeuristicResult> heuristics_;
};

absl::StatusOr<CuDevicePtr> CublasLtTrial::Allocate(int64_t bytes) {
  CuDevicePtr p = 0;
  const size_t n = static_cast<size_t>(std::max<int64_t>(bytes, 1));
  if (absl::Status s = CheckCuda(c_.d, c_.d.cuMemAlloc(&p, n),
                                 absl::StrCat("cuMemAlloc(", n, ")"));
      !s.ok()) {
    return s;
  }
  buffers_.push_back(p);
  if (absl::Status s = CheckCuda(c_.d, c_.d.cuMemsetD8(p, 0, n), "cuMemsetD8");
      !s.ok()) {
    return s;
  }
  return p;
}

absl::Status CublasLtTrial::Prepare() {
  std::mt19937_64 gen(42);
  for (const Shape& s : gemm_.operands) {
    const std::string bytes = OperandBytes(s, gen);
    absl::StatusOr<CuDevicePtr> p = Allocate(bytes.size());
    if (!p.ok()) return p.status();
    if (absl::Status st =
            CheckCuda(c_.d, c_.d.cuMemcpyHtoD(*p, bytes.data(), bytes.size()),
                      "cuMemcpyHtoD");
        !st.ok()) {
      return st;
    }
    args_.push_back(*p);
  }
  const std::vector<Shape> leaves = gemm_.ResultLeaves();
  for (size_t i = 0; i < leaves.size(); ++i) {
    const int64_t bytes = leaves[i].ByteSizeOfElements();
    if (static_cast<int64_t>(i) == gemm_.layout.workspace) {
      workspace_bytes_ = bytes;
    }
    absl::StatusOr<CuDevicePtr> p = Allocate(bytes);
    if (!p.ok()) return p.status();
    args_.push_back(*p);
  }
  absl::StatusOr<std::vector<lt::HeuristicResult>> heuristics =
      c_.runner->Heuristics(gemm_, args_, workspace_bytes_,
                            c_.options.candidates);
  if (!heuristics.ok()) return heuristics.status();
  heuristics_ = *std::move(heuristics);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<GemmAlgorithm>> CublasLtTrial::Candidates() {
  std::vector<GemmAlgorithm> out;
  for (const lt::HeuristicResult& h : heuristics_) {
    GemmAlgorithm a;
    std::memcpy(a.data.data(), h.algo.data, sizeof(h.algo.data));
    a.label = absl::StrCat(c_.runner->Describe(h.algo),
                           " workspace=", h.workspace_size);
    out.push_back(std::move(a));
  }
  return out;
}

absl::Status CublasLtTrial::RunAndSync(const GemmAlgorithm& candidate,
                                       int times) {
  for (int i = 0; i < times; ++i) {
    if (absl::Status s = c_.runner->Run(gemm_, args_, workspace_bytes_,
                                        c_.stream, &candidate);
        !s.ok()) {
      return s;
    }
  }
  return CheckCuda(c_.d, c_.d.cuStreamSynchronize(c_.stream),
                   "cuStreamSynchronize");
}

absl::StatusOr<double> CublasLtTrial::TimeRuns(const GemmAlgorithm& candidate) {
  const int runs = std::max(c_.options.timed_runs, 1);
  if (!c_.d.has_events()) {
    const auto start = std::chrono::steady_clock::now();
    if (absl::Status s = RunAndSync(candidate, runs); !s.ok()) return s;
    return std::chrono::duration<double, std::micro>(
               std::chrono::steady_clock::now() - start)
               .count() /
           runs;
  }
  EventPair events(c_.d);
  if (absl::Status s = events.Create(); !s.ok()) return s;
  absl::Status s = CheckCuda(
      c_.d, c_.d.cuEventRecord(events.start(), c_.stream), "cuEventRecord");
  for (int i = 0; i < runs && s.ok(); ++i) {
    s = c_.runner->Run(gemm_, args_, workspace_bytes_, c_.stream, &candidate);
  }
  if (s.ok()) {
    s = CheckCuda(c_.d, c_.d.cuEventRecord(events.end(), c_.stream),
                  "cuEventRecord");
  }
  if (s.ok()) {
    s = CheckCuda(c_.d, c_.d.cuEventSynchronize(events.end()),
                  "cuEventSynchronize");
  }
  float milliseconds = 0;
  if (s.ok()) {
    s = CheckCuda(
        c_.d,
        c_.d.cuEventElapsedTime(&milliseconds, events.start(), events.end()),
        "cuEventElapsedTime");
  }
  if (!s.ok()) return s;
  return milliseconds * 1e3 / runs;
}

absl::StatusOr<GemmMeasurement> CublasLtTrial::Measure(
    const GemmAlgorithm& candidate) {
  for (const lt::HeuristicResult& h : heuristics_) {
    if (std::memcmp(h.algo.data, candidate.data.data(), sizeof(h.algo.data)) ==
            0 &&
        static_cast<int64_t>(h.workspace_size) > workspace_bytes_) {
      return absl::ResourceExhaustedError(
          absl::StrCat("needs ", h.workspace_size,
                       " bytes of workspace, the call has ", workspace_bytes_));
    }
  }
  if (absl::Status s =
          CheckCuda(c_.d, c_.d.cuCtxSetCurrent(c_.context), "cuCtxSetCurrent");
      !s.ok()) {
    return s;
  }
  // The checked run, whose d is what the result check compares.
  if (absl::Status s = RunAndSync(candidate, 1); !s.ok()) return s;
  GemmMeasurement m;
  m.result.resize(GemmOutputShape(gemm_.result).ByteSizeOfElements());
  if (absl::Status s = CheckCuda(
          c_.d,
          c_.d.cuMemcpyDtoH(m.result.data(), args_[gemm_.operands.size()],
                            m.result.size()),
          "cuMemcpyDtoH");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = RunAndSync(candidate, c_.options.warmup_runs); !s.ok()) {
    return s;
  }
  absl::StatusOr<double> microseconds = TimeRuns(candidate);
  if (!microseconds.ok()) return microseconds.status();
  m.microseconds = *microseconds;
  return m;
}

class CublasLtTuningDevice : public GemmTuningDevice {
 public:
  explicit CublasLtTuningDevice(const CudaDriver& d) : c_(d) {}
  ~CublasLtTuningDevice() override {
    c_.runner.reset();  // before the context goes
    if (c_.stream != nullptr) c_.d.cuStreamDestroy(c_.stream);
    if (c_.context != nullptr) c_.d.cuDevicePrimaryCtxRelease(c_.device);
  }

  absl::Status Init(const CublasLtTunerOptions& options);

  const GemmTuningPlatform& platform() const override { return platform_; }

  absl::StatusOr<std::unique_ptr<GemmTrial>> StartTrial(
      const GemmDescription& gemm) override {
    if (absl::Status s = CheckCuda(c_.d, c_.d.cuCtxSetCurrent(c_.context),
                                   "cuCtxSetCurrent");
        !s.ok()) {
      return s;
    }
    auto trial = std::make_unique<CublasLtTrial>(c_, gemm);
    if (absl::Status s = trial->Prepare(); !s.ok()) return s;
    return std::unique_ptr<GemmTrial>(std::move(trial));
  }

 private:
  TunerContext c_;
  GemmTuningPlatform platform_;
};

absl::Status CublasLtTuningDevice::Init(const CublasLtTunerOptions& options) {
  const CudaDriver& d = c_.d;
  c_.options = options;
  absl::Status s = CheckCuda(d, d.cuDeviceGet(&c_.device, 0), "cuDeviceGet");
  if (s.ok()) {
    s = CheckCuda(d, d.cuDevicePrimaryCtxRetain(&c_.context, c_.device),
                  "cuDevicePrimaryCtxRetain");
  }
  if (s.ok())
    s = CheckCuda(d, d.cuCtxSetCurrent(c_.context), "cuCtxSetCurrent");
  if (s.ok())
    s = CheckCuda(d, d.cuStreamCreate(&c_.stream, 0), "cuStreamCreate");
  if (!s.ok()) return s;
  absl::StatusOr<std::unique_ptr<CublasLtRunner>> runner =
      CublasLtRunner::Create();
  if (!runner.ok()) return runner.status();
  c_.runner = *std::move(runner);
  platform_.device = CudaDeviceDescription(d, c_.device);
  platform_.cublaslt = c_.runner->version();
  platform_.cudnn = CudnnVersion();
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<GemmTuningDevice>> CreateCublasLtTuningDevice(
    const CublasLtTunerOptions& options) {
  absl::StatusOr<const CudaDriver*> driver = LoadCudaDriver();
  if (!driver.ok()) return driver.status();
  auto device = std::make_unique<CublasLtTuningDevice>(**driver);
  if (absl::Status s = device->Init(options); !s.ok()) return s;
  return std::unique_ptr<GemmTuningDevice>(std::move(device));
}

}  // namespace xlite::runtime::cuda
