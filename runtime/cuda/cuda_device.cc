#include "runtime/cuda/cuda_device.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "runtime/cuda/cuda_tensor_map.h"
#include "runtime/cuda/graph_plan.h"

namespace xlite::runtime::cuda {
namespace {

uint64_t Address(const std::vector<uint64_t>& allocations, const Slice& s) {
  if (s.allocation < 0) return 0;
  return allocations[s.allocation] + s.offset;
}

bool ContainsGemm(const Thunk& t) {
  if (t.kind == Thunk::Kind::kGemm) return true;
  for (const auto& child : t.children) {
    for (const Thunk& c : child) {
      if (ContainsGemm(c)) return true;
    }
  }
  return false;
}

void CollectKernels(const ThunkSequence& thunks,
                    std::vector<std::string>& names) {
  for (const Thunk& t : thunks) {
    if (t.kind == Thunk::Kind::kKernel) names.push_back(t.kernel);
    for (const auto& child : t.children) CollectKernels(child, names);
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<CudaDevice>> CudaDevice::Create(
    const GpuImage& image) {
  absl::StatusOr<const CudaDriver*> driver = LoadCudaDriver();
  if (!driver.ok()) return driver.status();
  const CudaDriver& d = **driver;
  auto device = std::unique_ptr<CudaDevice>(new CudaDevice(d));
  if (absl::Status s =
          CheckCuda(d, d.cuDeviceGet(&device->device_, 0), "cuDeviceGet");
      !s.ok()) {
    return s;
  }
  int major = 0, minor = 0;
  if (absl::Status s =
          CheckCuda(d,
                    d.cuDeviceGetAttribute(&major, kAttrComputeCapabilityMajor,
                                           device->device_),
                    "cuDeviceGetAttribute");
      !s.ok()) {
    return s;
  }
  (void)d.cuDeviceGetAttribute(&minor, kAttrComputeCapabilityMinor,
                               device->device_);
  device->sm_name_ = absl::StrCat("sm_", major, minor);
  if (absl::Status s = CheckCuda(
          d, d.cuDevicePrimaryCtxRetain(&device->context_, device->device_),
          "cuDevicePrimaryCtxRetain");
      !s.ok()) {
    return s;
  }
  if (absl::Status s =
          CheckCuda(d, d.cuCtxSetCurrent(device->context_), "cuCtxSetCurrent");
      !s.ok()) {
    return s;
  }
  if (absl::Status s =
          CheckCuda(d, d.cuStreamCreate(&device->stream_, 0), "cuStreamCreate");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = device->LoadModule(image); !s.ok()) return s;
  const char* graphs = std::getenv("XLITE_CUDA_GRAPHS");
  device->use_graphs_ =
      d.has_graphs() && !(graphs != nullptr && std::string(graphs) == "0");
  return device;
}

CudaDevice::~CudaDevice() {
  gemm_runner_.reset();  // before the context goes
  cudnn_runner_.reset();
  for (const PendingTiming& p : pending_) {
    d_.cuEventDestroy(p.start);
    d_.cuEventDestroy(p.end);
  }
  for (CuEvent e : free_events_) d_.cuEventDestroy(e);
  for (auto& [key, graph] : graphs_) d_.cuGraphExecDestroy(graph.exec);
  for (auto& [bytes, blocks] : free_blocks_) {
    for (uint64_t block : blocks) d_.cuMemFree(block);
  }
  if (module_ != nullptr) d_.cuModuleUnload(module_);
  if (stream_ != nullptr) d_.cuStreamDestroy(stream_);
  if (context_ != nullptr) d_.cuDevicePrimaryCtxRelease(device_);
}

absl::Status CudaDevice::LoadModule(const GpuImage& image) {
  std::vector<std::string> names;
  CollectKernels(image.thunks, names);
  if (names.empty()) return absl::OkStatus();
  // A cubin for exactly this SM ("sm_90a" runs on sm_90), else the PTX.
  const std::string* code = nullptr;
  for (const auto& [sm, cubin] : image.cubins) {
    if (sm == sm_name_ || sm == sm_name_ + "a") code = &cubin;
  }
  loaded_cubin_ = code != nullptr;
  std::string ptx;
  if (code == nullptr) {
    if (image.ptx.empty()) {
      return absl::FailedPreconditionError(
          absl::StrCat("the .xlx has no cubin for ", sm_name_, " and no PTX"));
    }
    ptx = image.ptx;  // NUL-terminated for the driver
    code = &ptx;
  }
  if (absl::Status s =
          CheckCuda(d_, d_.cuModuleLoadData(&module_, code->c_str()),
                    loaded_cubin_ ? "cuModuleLoadData (cubin)"
                                  : "cuModuleLoadData (PTX JIT)");
      !s.ok()) {
    return s;
  }
  for (const std::string& name : names) {
    Kernel k;
    if (absl::Status s = CheckCuda(
            d_, d_.cuModuleGetFunction(&k.function, module_, name.c_str()),
            absl::StrCat("cuModuleGetFunction(", name, ")"));
        !s.ok()) {
      return s;
    }
    int static_shared = 0;
    if (absl::Status s = CheckCuda(
            d_,
            d_.cuFuncGetAttribute(&static_shared, kFuncAttrStaticSharedBytes,
                                  k.function),
            absl::StrCat("cuFuncGetAttribute(", name, ")"));
        !s.ok()) {
      return s;
    }
    k.static_shared = static_shared;
    k.shared_limit = 48 * 1024 - k.static_shared;
    kernels_[name] = k;
  }
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> CudaDevice::Allocate(int64_t bytes) {
  CuDevicePtr p = 0;
  const size_t n = static_cast<size_t>(bytes > 0 ? bytes : 1);
  if (auto it = free_blocks_.find(static_cast<int64_t>(n));
      it != free_blocks_.end() && !it->second.empty()) {
    p = it->second.back();
    it->second.pop_back();
  } else if (absl::Status s = CheckCuda(d_, d_.cuMemAlloc(&p, n),
                                        absl::StrCat("cuMemAlloc(", n, ")"));
             !s.ok()) {
    return s;
  }
  block_bytes_[p] = static_cast<int64_t>(n);
  if (absl::Status s = CheckCuda(d_, d_.cuMemsetD8(p, 0, n), "cuMemsetD8");
      !s.ok()) {
    return s;
  }
  return static_cast<uint64_t>(p);
}

absl::Status CudaDevice::Free(uint64_t address) {
  auto it = block_bytes_.find(address);
  if (it == block_bytes_.end()) {
    return CheckCuda(d_, d_.cuMemFree(address), "cuMemFree");
  }
  free_blocks_[it->second].push_back(address);  // kept for the next run
  block_bytes_.erase(it);
  return absl::OkStatus();
}

absl::Status CudaDevice::CopyToDevice(uint64_t destination, const void* source,
                                      int64_t bytes) {
  if (bytes <= 0) return absl::OkStatus();
  return CheckCuda(d_, d_.cuMemcpyHtoD(destination, source, bytes),
                   "cuMemcpyHtoD");
}

absl::Status CudaDevice::CopyFromDevice(void* destination, uint64_t source,
                                        int64_t bytes) {
  if (bytes <= 0) return absl::OkStatus();
  return CheckCuda(d_, d_.cuMemcpyDtoH(destination, source, bytes),
                   "cuMemcpyDtoH");
}

absl::Status CudaDevice::Run(const ThunkSequence& thunks,
                             const std::vector<uint64_t>& allocations) {
  const auto start = std::chrono::steady_clock::now();
  absl::Status s = RunSequence(thunks, allocations);
  if (s.ok()) {
    s = CheckCuda(d_, d_.cuStreamSynchronize(stream_), "cuStreamSynchronize");
  }
  if (profile_ == nullptr) return s;
  // On failure the events go back unread (the stream may be broken).
  if (absl::Status r = ResolveTimings(s.ok()); s.ok() && !r.ok()) s = r;
  if (s.ok()) {
    profile_->RecordRun(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count());
  }
  return s;
}

absl::Status CudaDevice::SetProfile(ThunkProfile* profile) {
  if (profile != nullptr) {
    if (profile->clock() != ThunkProfile::Clock::kCudaEvents) {
      return absl::InvalidArgumentError(
          "a CUDA device times thunks with CUDA events only");
    }
    if (!d_.has_events()) {
      return absl::FailedPreconditionError(
          "this CUDA driver has no event timing (cuEventElapsedTime)");
    }
  }
  profile_ = profile;
  return absl::OkStatus();
}

absl::StatusOr<CuEvent> CudaDevice::RecordEvent() {
  CuEvent event = nullptr;
  if (!free_events_.empty()) {
    event = free_events_.back();
    free_events_.pop_back();
  } else if (absl::Status s =
                 CheckCuda(d_, d_.cuEventCreate(&event, 0), "cuEventCreate");
             !s.ok()) {
    return s;
  }
  if (absl::Status s =
          CheckCuda(d_, d_.cuEventRecord(event, stream_), "cuEventRecord");
      !s.ok()) {
    free_events_.push_back(event);
    return s;
  }
  return event;
}

absl::Status CudaDevice::RunTimed(const Thunk& thunk,
                                  const std::vector<uint64_t>& allocations) {
  absl::StatusOr<CuEvent> start = RecordEvent();
  if (!start.ok()) return start.status();
  absl::Status s = RunOne(thunk, allocations);
  absl::StatusOr<CuEvent> end =
      s.ok() ? RecordEvent() : absl::StatusOr<CuEvent>(s);
  if (!end.ok()) {
    free_events_.push_back(*start);
    return end.status();
  }
  pending_.push_back({&thunk, *start, *end});
  return absl::OkStatus();
}

absl::Status CudaDevice::ResolveTimings(bool record) {
  absl::Status status;
  for (const PendingTiming& p : pending_) {
    float ms = 0;
    if (record && status.ok()) {
      status = CheckCuda(d_, d_.cuEventElapsedTime(&ms, p.start, p.end),
                         "cuEventElapsedTime");
      if (status.ok()) profile_->Record(*p.thunk, ms * 1e-3);
    }
    free_events_.push_back(p.start);
    free_events_.push_back(p.end);
  }
  pending_.clear();
  return status;
}

absl::Status CudaDevice::RunSequence(const ThunkSequence& thunks,
                                     const std::vector<uint64_t>& allocations) {
  // Profiled runs are eager: a graph would hide each thunk's time.
  if (!use_graphs_ || capturing_ || profile_ != nullptr) {
    return RunEagerly(thunks, 0, thunks.size(), allocations);
  }
  for (const GraphSegment& segment : PlanGraphSegments(thunks)) {
    absl::Status s =
        segment.capture
            ? RunGraph(thunks, segment.begin, segment.end, allocations)
            : RunEagerly(thunks, segment.begin, segment.end, allocations);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status CudaDevice::RunEagerly(const ThunkSequence& thunks, size_t begin,
                                    size_t end,
                                    const std::vector<uint64_t>& allocations) {
  for (size_t i = begin; i < end; ++i) {
    const Thunk& t = thunks[i];
    const bool timed =
        profile_ != nullptr && !capturing_ &&
        (t.kind == Thunk::Kind::kKernel || t.kind == Thunk::Kind::kGemm ||
         t.kind == Thunk::Kind::kBlockScaledDot);
    if (absl::Status s =
            timed ? RunTimed(t, allocations) : RunOne(t, allocations);
        !s.ok()) {
      return absl::Status(s.code(),
                          absl::StrCat("%", t.instruction, ": ", s.message()));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<CuGraphExec> CudaDevice::Capture(
    const ThunkSequence& thunks, size_t begin, size_t end,
    const std::vector<uint64_t>& allocations) {
  if (absl::Status s = CheckCuda(
          d_, d_.cuStreamBeginCapture(stream_, kStreamCaptureModeRelaxed),
          "cuStreamBeginCapture");
      !s.ok()) {
    return s;
  }
  capturing_ = true;
  absl::Status run = RunEagerly(thunks, begin, end, allocations);
  capturing_ = false;
  CuGraph graph = nullptr;
  absl::Status ended = CheckCuda(d_, d_.cuStreamEndCapture(stream_, &graph),
                                 "cuStreamEndCapture");
  if (run.ok() && ended.ok()) {
    CuGraphExec exec = nullptr;
    run = CheckCuda(d_, d_.cuGraphInstantiateWithFlags(&exec, graph, 0),
                    "cuGraphInstantiateWithFlags");
    if (graph != nullptr) d_.cuGraphDestroy(graph);
    if (run.ok()) return exec;
    return run;
  }
  if (graph != nullptr) d_.cuGraphDestroy(graph);
  return run.ok() ? ended : run;
}

absl::Status CudaDevice::RunGraph(const ThunkSequence& thunks, size_t begin,
                                  size_t end,
                                  const std::vector<uint64_t>& allocations) {
  Graph& graph = graphs_[GraphKey{&thunks, begin}];
  if (graph.exec == nullptr || graph.allocations != allocations) {
    // cuBLASLt's handle is made outside the capture.
    for (size_t i = begin; i < end; ++i) {
      if (!ContainsGemm(thunks[i])) continue;
      if (absl::Status s = LoadGemmRunner(); !s.ok()) return s;
      break;
    }
    if (graph.exec != nullptr) d_.cuGraphExecDestroy(graph.exec);
    graph.exec = nullptr;
    absl::StatusOr<CuGraphExec> exec = Capture(thunks, begin, end, allocations);
    if (!exec.ok()) return exec.status();
    graph.exec = *exec;
    graph.allocations = allocations;
  }
  return CheckCuda(d_, d_.cuGraphLaunch(graph.exec, stream_), "cuGraphLaunch");
}

absl::Status CudaDevice::Launch(const Thunk& t,
                                const std::vector<uint64_t>& allocations) {
  auto it = kernels_.find(t.kernel);
  if (it == kernels_.end()) {
    return absl::NotFoundError(absl::StrCat("no kernel ", t.kernel));
  }
  Kernel& k = it->second;
  // The thunk's figure is the kernel's whole shared memory; the launch
  // names only the dynamic part (past the module's static arrays), and a
  // block over 48 KiB in all must opt in to it.
  const int64_t dynamic =
      std::max<int64_t>(0, t.shared_bytes - k.static_shared);
  if (dynamic > k.shared_limit) {
    if (absl::Status s = CheckCuda(
            d_,
            d_.cuFuncSetAttribute(k.function, kFuncAttrMaxDynamicSharedBytes,
                                  static_cast<int>(dynamic)),
            "cuFuncSetAttribute(max dynamic shared memory)");
        !s.ok()) {
      return s;
    }
    k.shared_limit = dynamic;
  }
  std::vector<CuDevicePtr> values;
  for (const Slice& s : t.arguments) values.push_back(Address(allocations, s));
  // The tensor maps by value after the pointers (the driver copies the
  // parameters at the launch, or into the graph node when capturing).
  absl::StatusOr<std::vector<CuTensorMap>> maps =
      EncodeTensorMaps(d_, t, values);
  if (!maps.ok()) return maps.status();
  std::vector<void*> params;
  for (CuDevicePtr& v : values) params.push_back(&v);
  for (CuTensorMap& m : *maps) params.push_back(&m);
  return CheckCuda(d_,
                   d_.cuLaunchKernel(k.function, static_cast<unsigned>(t.grid),
                                     1, 1, static_cast<unsigned>(t.block), 1, 1,
                                     static_cast<unsigned>(dynamic), stream_,
                                     params.data(), nullptr),
                   absl::StrCat("cuLaunchKernel(", t.kernel, ")"));
}

absl::Status CudaDevice::LoadGemmRunner() {
  if (gemm_runner_ != nullptr) return absl::OkStatus();
  absl::StatusOr<std::unique_ptr<CublasLtRunner>> runner =
      CublasLtRunner::Create();
  if (!runner.ok()) return runner.status();
  gemm_runner_ = *std::move(runner);
  gemm_scope_ = GemmAlgorithmScope(CudaDeviceDescription(d_, device_),
                                   gemm_runner_->version());
  return absl::OkStatus();
}

absl::Status CudaDevice::Gemm(const Thunk& t,
                              const std::vector<uint64_t>& allocations) {
  if (t.gemm == nullptr) return absl::InvalidArgumentError("no GEMM");
  if (absl::Status s = LoadGemmRunner(); !s.ok()) return s;
  std::vector<uint64_t> args;
  for (const Slice& s : t.arguments) args.push_back(Address(allocations, s));
  const int64_t workspace = t.gemm->layout.workspace;
  const int64_t workspace_bytes =
      workspace >= 0 &&
              static_cast<size_t>(workspace) + t.gemm->operands.size() <
                  t.arguments.size()
          ? t.arguments[t.gemm->operands.size() + workspace].size
          : 0;
  // An algorithm tuned elsewhere may not exist in this cuBLASLt, or be
  // slow on this device: the heuristic answers instead.
  const GemmAlgorithm* algorithm =
      t.gemm_algorithm && t.gemm_algorithm->tuned_for == gemm_scope_
          ? &*t.gemm_algorithm
          : nullptr;
  return gemm_runner_->Run(*t.gemm, args, workspace_bytes, stream_, algorithm);
}

absl::Status CudaDevice::BlockScaledDot(
    const Thunk& t, const std::vector<uint64_t>& allocations) {
  if (t.block_scaled_dot == nullptr) {
    return absl::InvalidArgumentError("no block-scaled dot");
  }
  if (cudnn_runner_ == nullptr) {
    absl::StatusOr<std::unique_ptr<CudnnBlockScaledDotRunner>> runner =
        CudnnBlockScaledDotRunner::Create();
    if (!runner.ok()) return runner.status();
    cudnn_runner_ = *std::move(runner);
  }
  std::vector<uint64_t> args;
  for (const Slice& s : t.arguments) args.push_back(Address(allocations, s));
  return cudnn_runner_->Run(*t.block_scaled_dot, args, stream_);
}

absl::StatusOr<int64_t> CudaDevice::ReadScalar(
    const Slice& slice, int bytes, const std::vector<uint64_t>& allocations) {
  uint8_t host[8] = {};
  if (absl::Status s =
          CheckCuda(d_,
                    d_.cuMemcpyDtoHAsync(host, Address(allocations, slice),
                                         bytes, stream_),
                    "cuMemcpyDtoHAsync(predicate)");
      !s.ok()) {
    return s;
  }
  if (absl::Status s =
          CheckCuda(d_, d_.cuStreamSynchronize(stream_), "cuStreamSynchronize");
      !s.ok()) {
    return s;
  }
  if (bytes == 1) return host[0];
  int32_t v = 0;
  std::memcpy(&v, host, sizeof(v));
  return v;
}

absl::Status CudaDevice::RunOne(const Thunk& t,
                                const std::vector<uint64_t>& allocations) {
  switch (t.kind) {
    case Thunk::Kind::kKernel:
      return Launch(t, allocations);
    case Thunk::Kind::kMemcpy:
      if (t.source.size == 0) return absl::OkStatus();
      return CheckCuda(d_,
                       d_.cuMemcpyDtoDAsync(Address(allocations, t.destination),
                                            Address(allocations, t.source),
                                            t.source.size, stream_),
                       "cuMemcpyDtoDAsync");
    case Thunk::Kind::kMemset:
      if (t.destination.size == 0) return absl::OkStatus();
      return CheckCuda(d_,
                       d_.cuMemsetD8Async(Address(allocations, t.destination),
                                          t.byte, t.destination.size, stream_),
                       "cuMemsetD8Async");
    case Thunk::Kind::kWhile:
      // A known trip count: the body that often, nothing read back.
      for (int64_t trip = 0; trip < t.trip_count; ++trip) {
        if (absl::Status s = RunSequence(t.children[1], allocations); !s.ok()) {
          return s;
        }
      }
      if (t.trip_count >= 0) return absl::OkStatus();
      // Otherwise one predicate read-back per iteration.
      while (true) {
        if (absl::Status s = RunSequence(t.children[0], allocations); !s.ok()) {
          return s;
        }
        absl::StatusOr<int64_t> pred = ReadScalar(t.predicate, 1, allocations);
        if (!pred.ok()) return pred.status();
        if (*pred == 0) return absl::OkStatus();
        if (absl::Status s = RunSequence(t.children[1], allocations); !s.ok()) {
          return s;
        }
      }
    case Thunk::Kind::kConditional: {
      const int64_t n = static_cast<int64_t>(t.children.size());
      absl::StatusOr<int64_t> v =
          ReadScalar(t.predicate, t.index_is_pred ? 1 : 4, allocations);
      if (!v.ok()) return v.status();
      int64_t branch = t.index_is_pred ? (*v != 0 ? 0 : 1)
                                       : (*v < 0 || *v >= n ? n - 1 : *v);
      return RunSequence(t.children[branch], allocations);
    }
    case Thunk::Kind::kGemm:
      return Gemm(t, allocations);
    case Thunk::Kind::kBlockScaledDot:
      return BlockScaledDot(t, allocations);
  }
  return absl::OkStatus();
}

}  // namespace xlite::runtime::cuda
