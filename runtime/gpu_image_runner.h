#ifndef XLITE_RUNTIME_GPU_IMAGE_RUNNER_H_
#define XLITE_RUNTIME_GPU_IMAGE_RUNNER_H_

// Runs a GPU image on a device: one zeroed arena per allocation kind
// (parameters, constants, outputs, temporaries) with each allocation at a
// 256-byte aligned offset, constants and arguments copied in, the thunks
// run, the result leaves copied out.

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/ir/literal.h"
#include "runtime/gpu_device.h"
#include "runtime/gpu_image.h"

namespace xlite::runtime {

/// One literal per entry parameter, of the image's parameter shapes.
absl::StatusOr<Literal> RunGpuImage(const GpuImage& image, GpuDevice& device,
                                    absl::Span<const Literal> arguments);

}  // namespace xlite::runtime

#endif  // XLITE_RUNTIME_GPU_IMAGE_RUNNER_H_
