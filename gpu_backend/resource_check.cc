#include "gpu_backend/resource_check.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gpu_backend/ptx_resources.h"

namespace xlite::gpu {
namespace {

// Registers are allocated to a warp in units of this many.
constexpr int64_t kRegisterAllocationUnit = 256;
constexpr int64_t kWarpSize = 32;

void Collect(const runtime::ThunkSequence& thunks,
             const absl::flat_hash_map<std::string, PtxKernelUsage>* ptx,
             const absl::flat_hash_map<std::string, PtxasKernelUsage>& ptxas,
             std::vector<KernelResources>& out) {
  for (const runtime::Thunk& t : thunks) {
    for (const runtime::ThunkSequence& child : t.children) {
      Collect(child, ptx, ptxas, out);
    }
    if (t.kind != runtime::Thunk::Kind::kKernel) continue;
    KernelResources k;
    k.kernel = t.kernel;
    k.instruction = t.instruction;
    k.threads_per_block = t.block;
    k.static_shared_bytes = t.shared_bytes;
    if (ptx != nullptr) {
      auto it = ptx->find(t.kernel);
      const PtxKernelUsage usage =
          it != ptx->end() ? it->second : PtxKernelUsage{};
      k.static_shared_bytes = usage.static_shared_bytes;
      k.tensor_memory_columns = usage.tensor_memory_columns;
    }
    if (auto it = ptxas.find(t.kernel); it != ptxas.end()) {
      k.static_shared_bytes = it->second.shared_bytes;
      k.registers_per_thread = it->second.registers;
      k.spill_bytes = it->second.spill_bytes;
      k.wgmma_serialized = it->second.wgmma_serialized;
    }
    k.dynamic_shared_bytes =
        std::max<int64_t>(0, t.shared_bytes - k.static_shared_bytes);
    out.push_back(std::move(k));
  }
}

std::string Target(const GpuTargetSpec& spec) {
  return absl::StrCat(spec.name, " (", spec.SmName(), ")");
}

// Why `k` does not fit `spec`, one clause per exceeded limit.
std::vector<std::string> Excesses(const KernelResources& k,
                                  const GpuTargetSpec& spec) {
  std::vector<std::string> out;
  const int64_t shared = k.static_shared_bytes + k.dynamic_shared_bytes;
  if (spec.shared_memory_per_block > 0 &&
      shared > spec.shared_memory_per_block) {
    out.push_back(absl::StrCat(
        shared, " bytes of shared memory per block (", k.static_shared_bytes,
        " static + ", k.dynamic_shared_bytes, " dynamic), over the ",
        spec.shared_memory_per_block, " a block may opt into"));
  }
  if (k.registers_per_thread.has_value()) {
    const int64_t per_thread = *k.registers_per_thread;
    const int64_t warps = (k.threads_per_block + kWarpSize - 1) / kWarpSize;
    const int64_t per_warp =
        (per_thread * kWarpSize + kRegisterAllocationUnit - 1) /
        kRegisterAllocationUnit * kRegisterAllocationUnit;
    if (per_thread > kMaxRegistersPerThread) {
      out.push_back(absl::StrCat(per_thread, " registers per thread, over ",
                                 kMaxRegistersPerThread));
    } else if (spec.registers_per_sm > 0 &&
               per_warp * warps > spec.registers_per_sm) {
      out.push_back(absl::StrCat(
          per_warp * warps, " registers per block (", per_thread,
          " per thread x ", k.threads_per_block,
          " threads, allocated per warp in units of ", kRegisterAllocationUnit,
          "), over the ", spec.registers_per_sm, " of an SM"));
    }
  }
  if (HasTensorMemory(spec) && k.tensor_memory_columns > kTensorMemoryColumns) {
    out.push_back(absl::StrCat(k.tensor_memory_columns,
                               " tensor-memory columns (tcgen05.alloc), over "
                               "the ",
                               kTensorMemoryColumns, " of an SM"));
  }
  return out;
}

}  // namespace

bool HasTensorMemory(const GpuTargetSpec& spec) {
  return spec.compute_capability_major == 10 &&
         (spec.feature_suffix == "a" || spec.feature_suffix == "f");
}

std::vector<KernelResources> CollectKernelResources(
    const runtime::ThunkSequence& thunks, absl::string_view ptx,
    absl::string_view ptxas_log) {
  absl::flat_hash_map<std::string, PtxKernelUsage> scanned;
  if (!ptx.empty()) scanned = ScanPtxKernels(ptx);
  std::vector<KernelResources> out;
  Collect(thunks, ptx.empty() ? nullptr : &scanned, ParsePtxasUsage(ptxas_log),
          out);
  return out;
}

absl::Status CheckKernelResources(const std::vector<KernelResources>& kernels,
                                  const GpuTargetSpec& spec) {
  std::vector<std::string> problems;
  for (const KernelResources& k : kernels) {
    const std::vector<std::string> excesses = Excesses(k, spec);
    if (excesses.empty()) continue;
    problems.push_back(absl::StrCat("kernel ", k.kernel, " of %", k.instruction,
                                    " needs ",
                                    absl::StrJoin(excesses, ", and ")));
  }
  if (problems.empty()) return absl::OkStatus();
  return absl::ResourceExhaustedError(
      absl::StrCat("the gpu backend's kernels do not fit ", Target(spec), ": ",
                   absl::StrJoin(problems, "; ")));
}

}  // namespace xlite::gpu
