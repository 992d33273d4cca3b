#include "runtime/cuda/cuda_tensor_map.h"

#include "absl/strings/str_cat.h"
#include "runtime/tensor_map.h"

namespace xlite::runtime::cuda {
namespace {

int DataType(int64_t element_bytes) {
  switch (element_bytes) {
    case 1:
      return kTensorMapDataTypeUint8;
    case 2:
      return kTensorMapDataTypeUint16;
  }
  return kTensorMapDataTypeUint32;
}

}  // namespace

TiledEncoding TiledEncodingOf(const TensorMapDescription& map,
                              uint64_t address) {
  TiledEncoding e;
  e.data_type = DataType(map.element_bytes);
  e.rank = static_cast<uint32_t>(map.dims.size());
  e.address = address;
  for (uint32_t i = 0; i < e.rank; ++i) {
    e.dims[i] = static_cast<uint64_t>(map.dims[i]);
    if (i >= 1) e.strides[i - 1] = static_cast<uint64_t>(map.strides[i]);
    e.box[i] = static_cast<uint32_t>(map.box[i]);
    e.element_strides[i] = 1;
  }
  e.swizzle = map.swizzle_128b ? kTensorMapSwizzle128B : kTensorMapSwizzleNone;
  return e;
}

absl::StatusOr<std::vector<CuTensorMap>> EncodeTensorMaps(
    const CudaDriver& driver, const Thunk& t,
    const std::vector<CuDevicePtr>& addresses) {
  std::vector<CuTensorMap> maps(t.tensor_maps.size());
  if (maps.empty()) return maps;
  if (absl::Status s = ValidateKernelTensorMaps(t); !s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("kernel ", t.kernel, ": ", s.message()));
  }
  if (driver.cuTensorMapEncodeTiled == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("kernel ", t.kernel,
                     " takes TMA tensor maps, but this CUDA driver lacks "
                     "cuTensorMapEncodeTiled (CUDA 12 on)"));
  }
  for (size_t i = 0; i < maps.size(); ++i) {
    const TensorMapDescription& map = t.tensor_maps[i];
    const TiledEncoding e = TiledEncodingOf(map, addresses[map.argument]);
    const CuResult r = driver.cuTensorMapEncodeTiled(
        &maps[i], e.data_type, e.rank, reinterpret_cast<void*>(e.address),
        e.dims, e.strides, e.box, e.element_strides, e.interleave, e.swizzle,
        e.l2_promotion, e.oob_fill);
    if (absl::Status s = CheckCuda(
            driver, r,
            absl::StrCat("cuTensorMapEncodeTiled(", t.kernel, ", tensor map ",
                         i, " ", TensorMapToString(map), ")"));
        !s.ok()) {
      return s;
    }
  }
  return maps;
}

}  // namespace xlite::runtime::cuda
