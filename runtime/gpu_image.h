#ifndef XLITE_RUNTIME_GPU_IMAGE_H_
#define XLITE_RUNTIME_GPU_IMAGE_H_

// A compiled GPU module as a file (.xlx): everything a runtime needs to run
// it without a compiler — the PTX and cubins, the thunk sequence (kernel
// names, launch dimensions, shared bytes), the allocations of the buffer
// assignment (constants' bytes inline), the parameter and result shapes
// and where each result leaf lives — and, for the emulator, the kernels'
// LLVM IR for the host. Versioned and checksummed; a damaged, truncated or
// foreign file is refused with an error, never trusted.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/ir/shape.h"
#include "runtime/buffer_assignment.h"
#include "runtime/gpu_thunks.h"

namespace xlite::runtime {

/// The xlite version written into every image.
inline constexpr char kXliteVersion[] = "0.1.0";
/// The format version this build reads and writes.
/// 2: GEMM thunks carry their description (target, config, shapes).
/// 3: while thunks carry their known trip count.
/// 4: GEMM thunks carry their autotuned algorithm, if any.
/// 5: block-scaled dot thunks (__cudnn$blockScaledDot).
/// 6: every thunk carries its cost (bytes, FLOPs, FLOP type, label).
/// 7: kernel thunks carry their TMA tensor maps.
inline constexpr uint32_t kGpuImageFormatVersion = 7;
/// The first format with tensor maps.
inline constexpr uint32_t kGpuImageTensorMapVersion = 7;
/// The oldest format this build still reads (a version-3 image is one
/// whose GEMMs were never autotuned; before 6, thunks have no cost).
inline constexpr uint32_t kGpuImageOldestReadableVersion = 3;

struct GpuImageAllocation {
  Allocation::Kind kind = Allocation::Kind::kTemp;
  int64_t size = 0;
  /// kParameter: which parameter and which leaf of it.
  int64_t parameter_number = -1;
  ShapeIndex parameter_index;
  /// kConstant: the constant's bytes in its layout.
  std::string constant_bytes;
};

/// One array leaf of the entry result and the slice holding it.
struct GpuImageOutput {
  ShapeIndex index;
  Slice slice;
};

struct GpuImage {
  std::string xlite_version = kXliteVersion;
  std::string module_name;
  /// The target spec compiled for ("h100") and its SM ("sm_90a").
  std::string spec_name;
  std::string sm_name;
  std::vector<Shape> parameter_shapes;
  Shape result_shape;
  std::vector<GpuImageAllocation> allocations;
  std::vector<GpuImageOutput> outputs;
  ThunkSequence thunks;
  std::string ptx;
  /// Cubins by SM name ("sm_90a"), when ptxas was available.
  std::map<std::string, std::string> cubins;
  /// The kernels built for the emulator target, as LLVM IR text (empty
  /// when the image was written without them).
  std::string emulator_ir;
};

/// The file's bytes: magic, format version, payload length, CRC-32, payload.
/// `version` may name an older readable format, for runtimes not yet
/// upgraded (what it cannot carry, such as GEMM algorithms, is left out).
/// Tensor maps cannot be left out (their kernels would read garbage): an
/// image with any is written in format 7 whatever `version` asks, which an
/// older runtime refuses by its version.
std::string SerializeGpuImage(const GpuImage& image,
                              uint32_t version = kGpuImageFormatVersion);

/// Parses and validates (checksum, bounds, every slice inside its
/// allocation); `name` is for messages.
absl::StatusOr<GpuImage> DeserializeGpuImage(absl::string_view bytes,
                                             absl::string_view name);

/// What the runtime trusts in an image: allocation kinds and sizes, every
/// slice inside its allocation, positive launch dimensions, each result
/// leaf and parameter leaf matching its shape's size, tensor maps on
/// kernel thunks only, each valid over its argument
/// (ValidateKernelTensorMaps).
absl::Status ValidateGpuImage(const GpuImage& image, absl::string_view name);

absl::StatusOr<GpuImage> ReadGpuImageFile(const std::string& path);
absl::Status WriteGpuImageFile(const GpuImage& image, const std::string& path);

/// Whether `bytes` start with the image magic.
bool LooksLikeGpuImage(absl::string_view bytes);

}  // namespace xlite::runtime

#endif  // XLITE_RUNTIME_GPU_IMAGE_H_
