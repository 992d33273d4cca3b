#include "gpu_backend/emulator/emulator_device.h"

#include <chrono>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "gpu_backend/emulator/emulated_tensor_map.h"
#include "gpu_backend/emulator/reference_block_scaled_dot.h"
#include "gpu_backend/emulator/reference_gemm.h"
#include "runtime/tensor_map.h"

namespace xlite::gpu::emulator {
namespace {

using runtime::Thunk;

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

uint8_t* Address(const std::vector<uint8_t*>& allocations,
                 const runtime::Slice& slice) {
  if (slice.allocation < 0) return nullptr;
  return allocations[slice.allocation] + slice.offset;
}

// Kernel thunk `thunk` on `entry`: its arguments are one pointer per
// slice, then one pointer per tensor map to its EmulatedTensorMap (checked
// first, as a CUDA device's driver would refuse a bad one), alive for the
// launch.
absl::Status RunKernel(KernelEntry entry, const Thunk& thunk,
                       const std::vector<uint8_t*>& allocations) {
  if (absl::Status s = runtime::ValidateKernelTensorMaps(thunk); !s.ok()) {
    return s;
  }
  std::vector<void*> args;
  for (const runtime::Slice& s : thunk.arguments) {
    args.push_back(Address(allocations, s));
  }
  std::vector<EmulatedTensorMap> maps;
  for (const runtime::TensorMapDescription& map : thunk.tensor_maps) {
    maps.push_back(EncodeEmulatedTensorMap(
        map, reinterpret_cast<uint64_t>(args[map.argument])));
  }
  for (EmulatedTensorMap& map : maps) args.push_back(&map);
  EmulatedLaunch launch{thunk.grid, thunk.block, thunk.shared_bytes,
                        thunk.cooperative};
  return LaunchKernel(entry, launch, args.data());
}

}  // namespace

absl::Status EmulatorDevice::Run(const runtime::ThunkSequence& thunks,
                                 const std::vector<uint8_t*>& allocations,
                                 runtime::ThunkProfile* profile) const {
  if (profile != nullptr &&
      profile->clock() != runtime::ThunkProfile::Clock::kEmulatorHostWall) {
    return absl::InvalidArgumentError(
        "the emulator times thunks with the host's wall clock only");
  }
  const auto start = std::chrono::steady_clock::now();
  absl::Status s = RunSequence(thunks, allocations, profile);
  if (s.ok() && profile != nullptr) profile->RecordRun(SecondsSince(start));
  return s;
}

absl::Status EmulatorDevice::RunSequence(
    const runtime::ThunkSequence& thunks,
    const std::vector<uint8_t*>& allocations,
    runtime::ThunkProfile* profile) const {
  for (const Thunk& thunk : thunks) {
    const bool timed =
        profile != nullptr && (thunk.kind == Thunk::Kind::kKernel ||
                               thunk.kind == Thunk::Kind::kGemm ||
                               thunk.kind == Thunk::Kind::kBlockScaledDot);
    const auto start = std::chrono::steady_clock::now();
    if (absl::Status s = RunOne(thunk, allocations, profile); !s.ok()) {
      return s;
    }
    if (timed) profile->Record(thunk, SecondsSince(start));
  }
  return absl::OkStatus();
}

absl::Status EmulatorDevice::RunWhile(const Thunk& thunk,
                                      const std::vector<uint8_t*>& allocations,
                                      runtime::ThunkProfile* profile) const {
  for (int64_t trip = 0;; ++trip) {
    if (absl::Status s = RunSequence(thunk.children[0], allocations, profile);
        !s.ok()) {
      return s;
    }
    const bool more = *Address(allocations, thunk.predicate) != 0;
    if (thunk.trip_count >= 0 && more != (trip < thunk.trip_count)) {
      return absl::InternalError(absl::StrCat(
          "while %", thunk.instruction, ": compiled with a known trip count of ",
          thunk.trip_count, ", but its condition ",
          more ? "asks for more after " : "ends it after ", trip,
          " iterations"));
    }
    if (!more) return absl::OkStatus();
    if (absl::Status s = RunSequence(thunk.children[1], allocations, profile);
        !s.ok()) {
      return s;
    }
  }
}

absl::Status EmulatorDevice::RunOne(const Thunk& thunk,
                                    const std::vector<uint8_t*>& allocations,
                                    runtime::ThunkProfile* profile) const {
  switch (thunk.kind) {
    case Thunk::Kind::kKernel: {
      auto it = kernels_.find(thunk.kernel);
      if (it == kernels_.end()) {
        return absl::NotFoundError(
            absl::StrCat("no kernel ", thunk.kernel, " on the emulator"));
      }
      absl::Status s = RunKernel(it->second, thunk, allocations);
      if (!s.ok()) {
        return absl::Status(s.code(), absl::StrCat("kernel ", thunk.kernel,
                                                   " (%", thunk.instruction,
                                                   "): ", s.message()));
      }
      return absl::OkStatus();
    }
    case Thunk::Kind::kMemcpy:
      if (thunk.source.size > 0) {
        std::memmove(Address(allocations, thunk.destination),
                     Address(allocations, thunk.source), thunk.source.size);
      }
      return absl::OkStatus();
    case Thunk::Kind::kMemset:
      if (thunk.destination.size > 0) {
        std::memset(Address(allocations, thunk.destination), thunk.byte,
                    thunk.destination.size);
      }
      return absl::OkStatus();
    case Thunk::Kind::kWhile:
      return RunWhile(thunk, allocations, profile);
    case Thunk::Kind::kConditional: {
      const uint8_t* at = Address(allocations, thunk.predicate);
      int64_t branch = 0;
      const int64_t n = static_cast<int64_t>(thunk.children.size());
      if (thunk.index_is_pred) {
        branch = *at != 0 ? 0 : 1;
      } else {
        int32_t index = 0;
        std::memcpy(&index, at, sizeof(index));
        branch = index < 0 || index >= n ? n - 1 : index;
      }
      return RunSequence(thunk.children[branch], allocations, profile);
    }
    case Thunk::Kind::kGemm: {
      if (thunk.gemm == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat(
            "GEMM thunk of %", thunk.instruction, " without a description"));
      }
      std::vector<uint8_t*> args;
      for (const runtime::Slice& s : thunk.arguments) {
        args.push_back(Address(allocations, s));
      }
      if (absl::Status s = RunReferenceGemm(*thunk.gemm, args); !s.ok()) {
        return absl::Status(s.code(), absl::StrCat("gemm (%", thunk.instruction,
                                                   "): ", s.message()));
      }
      return absl::OkStatus();
    }
    case Thunk::Kind::kBlockScaledDot: {
      if (thunk.block_scaled_dot == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat("block-scaled dot thunk of %", thunk.instruction,
                         " without a description"));
      }
      std::vector<uint8_t*> args;
      for (const runtime::Slice& s : thunk.arguments) {
        args.push_back(Address(allocations, s));
      }
      if (absl::Status s =
              RunReferenceBlockScaledDot(*thunk.block_scaled_dot, args);
          !s.ok()) {
        return absl::Status(s.code(),
                            absl::StrCat("block-scaled dot (%",
                                         thunk.instruction, "): ", s.message()));
      }
      return absl::OkStatus();
    }
  }
  return absl::OkStatus();
}

}  // namespace xlite::gpu::emulator
