// PJRT buffers: host arrays copied into xlite buffers (dense, row major)
// and back, honouring the caller's byte strides or dimension order.

#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "api/pjrt/functions.h"
#include "api/pjrt/objects.h"

PJRT_Buffer::~PJRT_Buffer() { xlite_buffer_destroy(data); }

namespace xlite::pjrt {
namespace {

std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims,
                                     int64_t element_bytes) {
  std::vector<int64_t> strides(dims.size());
  int64_t stride = element_bytes;
  for (size_t d = dims.size(); d-- > 0;) {
    strides[d] = stride;
    stride *= dims[d];
  }
  return strides;
}

// Byte strides of a layout's dimension order (minor first).
absl::StatusOr<std::vector<int64_t>> StridesOfOrder(
    const std::vector<int64_t>& dims, const int64_t* minor_to_major,
    size_t count, int64_t element_bytes) {
  if (count != dims.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("a layout of ", count, " dimensions for rank ",
                     dims.size()));
  }
  std::vector<int64_t> strides(dims.size(), -1);
  int64_t stride = element_bytes;
  for (size_t i = 0; i < count; ++i) {
    const int64_t d = minor_to_major[i];
    if (d < 0 || d >= static_cast<int64_t>(dims.size()) || strides[d] >= 0) {
      return absl::InvalidArgumentError("minor_to_major is not a permutation");
    }
    strides[d] = stride;
    stride *= dims[d];
  }
  return strides;
}

// Byte strides a memory layout describes (null: row major).
absl::StatusOr<std::vector<int64_t>> LayoutStrides(
    const PJRT_Buffer_MemoryLayout* layout, const std::vector<int64_t>& dims,
    int64_t element_bytes) {
  if (layout == nullptr) return RowMajorStrides(dims, element_bytes);
  if (layout->type == PJRT_Buffer_MemoryLayout_Type_Strides) {
    const PJRT_Buffer_MemoryLayout_Strides& s = layout->strides;
    if (s.num_byte_strides != dims.size()) {
      return absl::InvalidArgumentError("byte strides do not match the rank");
    }
    return std::vector<int64_t>(s.byte_strides,
                                s.byte_strides + s.num_byte_strides);
  }
  const PJRT_Buffer_MemoryLayout_Tiled& t = layout->tiled;
  if (t.num_tiles > 0) {
    return absl::UnimplementedError("xlite buffers have no tiled layouts");
  }
  return StridesOfOrder(dims, t.minor_to_major, t.minor_to_major_size,
                        element_bytes);
}

// Copies an array of `dims` between two byte-strided places.
void CopyStrided(const char* src, const std::vector<int64_t>& src_strides,
                 char* dst, const std::vector<int64_t>& dst_strides,
                 const std::vector<int64_t>& dims, size_t d,
                 int64_t element_bytes) {
  if (d == dims.size()) {
    std::memcpy(dst, src, element_bytes);
    return;
  }
  if (d + 1 == dims.size() && src_strides[d] == element_bytes &&
      dst_strides[d] == element_bytes) {
    std::memcpy(dst, src, dims[d] * element_bytes);
    return;
  }
  for (int64_t i = 0; i < dims[d]; ++i) {
    CopyStrided(src + i * src_strides[d], src_strides,
                dst + i * dst_strides[d], dst_strides, dims, d + 1,
                element_bytes);
  }
}

int64_t ElementCount(const std::vector<int64_t>& dims) {
  return std::accumulate(dims.begin(), dims.end(), int64_t{1},
                         std::multiplies<int64_t>());
}

PJRT_Error* Deleted(const PJRT_Buffer* buffer) {
  if (buffer->data != nullptr) return nullptr;
  return MakeError(absl::FailedPreconditionError(
      "the xlite buffer has been deleted or donated"));
}

}  // namespace

PJRT_Buffer* NewBuffer(PJRT_Device* device, XliteBuffer* data) {
  auto* b = new PJRT_Buffer();
  b->client = device->client;
  b->device = device;
  b->data = data;
  b->type = ToPjrtType(xlite_buffer_element_type(data));
  const int64_t* dims = xlite_buffer_dims(data);
  b->dims.assign(dims, dims + xlite_buffer_rank(data));
  for (size_t d = b->dims.size(); d-- > 0;) b->minor_to_major.push_back(d);
  return b;
}

PJRT_Error* Client_BufferFromHostBuffer(
    PJRT_Client_BufferFromHostBuffer_Args* args) {
  PJRT_Device* device = args->device;
  if (device == nullptr && args->memory != nullptr &&
      !args->memory->devices.empty()) {
    device = args->memory->devices[0];
  }
  if (device == nullptr) return InvalidArgument("no device or memory given");
  const int type = ToXliteType(args->type);
  const int64_t element_bytes = static_cast<int64_t>(xlite_element_size(type));
  if (element_bytes == 0) {
    return InvalidArgument(
        absl::StrCat("xlite has no buffers of PJRT element type ", args->type));
  }
  std::vector<int64_t> dims(args->dims, args->dims + args->num_dims);
  for (int64_t d : dims) {
    if (d < 0) return InvalidArgument("a dimension is negative");
  }
  if (args->device_layout != nullptr) {
    absl::StatusOr<std::vector<int64_t>> s =
        LayoutStrides(args->device_layout, dims, element_bytes);
    if (!s.ok()) return MakeError(s.status());
    if (*s != RowMajorStrides(dims, element_bytes) && ElementCount(dims) > 1) {
      return Unimplemented("xlite buffers are row major on the device");
    }
  }
  std::vector<int64_t> dense = RowMajorStrides(dims, element_bytes);
  std::vector<char> bytes(ElementCount(dims) * element_bytes);
  if (!bytes.empty()) {
    std::vector<int64_t> strides = dense;
    if (args->num_byte_strides > 0) {
      if (args->num_byte_strides != dims.size()) {
        return InvalidArgument("byte_strides do not match the rank");
      }
      strides.assign(args->byte_strides,
                     args->byte_strides + args->num_byte_strides);
    }
    CopyStrided(static_cast<const char*>(args->data), strides, bytes.data(),
                dense, dims, 0, element_bytes);
  }
  XliteBuffer* data = nullptr;
  if (PJRT_Error* e = FromXlite(xlite_buffer_from_host(
          type, dims.data(), dims.size(), bytes.empty() ? nullptr : bytes.data(),
          bytes.size(), &data))) {
    return e;
  }
  args->done_with_host_buffer = new PJRT_Event();
  args->buffer = NewBuffer(device, data);
  return nullptr;
}

PJRT_Error* Buffer_ToHostBuffer(PJRT_Buffer_ToHostBuffer_Args* args) {
  PJRT_Buffer* b = args->src;
  if (PJRT_Error* e = Deleted(b)) return e;
  const size_t size = xlite_buffer_size(b->data);
  if (args->dst == nullptr) {
    args->dst_size = size;
    return nullptr;
  }
  if (args->dst_size < size) {
    return InvalidArgument(absl::StrCat("the host buffer holds ",
                                        args->dst_size, " bytes; ", size,
                                        " needed"));
  }
  const int64_t element_bytes =
      static_cast<int64_t>(xlite_element_size(xlite_buffer_element_type(b->data)));
  absl::StatusOr<std::vector<int64_t>> strides =
      LayoutStrides(args->host_layout, b->dims, element_bytes);
  if (!strides.ok()) return MakeError(strides.status());
  if (size > 0) {
    CopyStrided(static_cast<const char*>(xlite_buffer_data(b->data)),
                RowMajorStrides(b->dims, element_bytes),
                static_cast<char*>(args->dst), *strides, b->dims, 0,
                element_bytes);
  }
  args->event = new PJRT_Event();
  return nullptr;
}

PJRT_Error* Buffer_Destroy(PJRT_Buffer_Destroy_Args* args) {
  delete args->buffer;
  return nullptr;
}

PJRT_Error* Buffer_ElementType(PJRT_Buffer_ElementType_Args* args) {
  args->type = args->buffer->type;
  return nullptr;
}

PJRT_Error* Buffer_Dimensions(PJRT_Buffer_Dimensions_Args* args) {
  args->dims = args->buffer->dims.data();
  args->num_dims = args->buffer->dims.size();
  return nullptr;
}

PJRT_Error* Buffer_UnpaddedDimensions(
    PJRT_Buffer_UnpaddedDimensions_Args* args) {
  args->unpadded_dims = args->buffer->dims.data();
  args->num_dims = args->buffer->dims.size();
  return nullptr;
}

PJRT_Error* Buffer_DynamicDimensionIndices(
    PJRT_Buffer_DynamicDimensionIndices_Args* args) {
  args->dynamic_dim_indices = nullptr;
  args->num_dynamic_dims = 0;
  return nullptr;
}

PJRT_Error* Buffer_GetMemoryLayout(PJRT_Buffer_GetMemoryLayout_Args* args) {
  PJRT_Buffer_MemoryLayout& layout = args->layout;
  std::memset(&layout, 0, sizeof(layout));
  layout.struct_size = PJRT_Buffer_MemoryLayout_STRUCT_SIZE;
  layout.type = PJRT_Buffer_MemoryLayout_Type_Tiled;
  layout.tiled.struct_size = PJRT_Buffer_MemoryLayout_Tiled_STRUCT_SIZE;
  layout.tiled.minor_to_major = args->buffer->minor_to_major.data();
  layout.tiled.minor_to_major_size = args->buffer->minor_to_major.size();
  layout.tiled.num_tiles = 0;
  return nullptr;
}

PJRT_Error* Buffer_OnDeviceSizeInBytes(
    PJRT_Buffer_OnDeviceSizeInBytes_Args* args) {
  if (PJRT_Error* e = Deleted(args->buffer)) return e;
  args->on_device_size_in_bytes = xlite_buffer_size(args->buffer->data);
  return nullptr;
}

PJRT_Error* Buffer_Device(PJRT_Buffer_Device_Args* args) {
  args->device = args->buffer->device;
  return nullptr;
}

PJRT_Error* Buffer_Memory(PJRT_Buffer_Memory_Args* args) {
  args->memory = args->buffer->device->memory;
  return nullptr;
}

PJRT_Error* Buffer_Delete(PJRT_Buffer_Delete_Args* args) {
  xlite_buffer_destroy(args->buffer->data);
  args->buffer->data = nullptr;
  return nullptr;
}

PJRT_Error* Buffer_IsDeleted(PJRT_Buffer_IsDeleted_Args* args) {
  args->is_deleted = args->buffer->data == nullptr;
  return nullptr;
}

namespace {

PJRT_Error* CopyTo(PJRT_Buffer* b, PJRT_Device* device, PJRT_Buffer** out) {
  if (PJRT_Error* e = Deleted(b)) return e;
  XliteBuffer* data = nullptr;
  const size_t size = xlite_buffer_size(b->data);
  if (PJRT_Error* e = FromXlite(xlite_buffer_from_host(
          xlite_buffer_element_type(b->data), b->dims.data(), b->dims.size(),
          size == 0 ? nullptr : xlite_buffer_data(b->data), size, &data))) {
    return e;
  }
  *out = NewBuffer(device, data);
  return nullptr;
}

}  // namespace

PJRT_Error* Buffer_CopyToDevice(PJRT_Buffer_CopyToDevice_Args* args) {
  return CopyTo(args->buffer, args->dst_device, &args->dst_buffer);
}

PJRT_Error* Buffer_CopyToMemory(PJRT_Buffer_CopyToMemory_Args* args) {
  if (args->dst_memory->devices.empty()) {
    return InvalidArgument("the memory has no device");
  }
  return CopyTo(args->buffer, args->dst_memory->devices[0],
                &args->dst_buffer);
}

PJRT_Error* Buffer_IsOnCpu(PJRT_Buffer_IsOnCpu_Args* args) {
  args->is_on_cpu = true;
  return nullptr;
}

PJRT_Error* Buffer_ReadyEvent(PJRT_Buffer_ReadyEvent_Args* args) {
  args->event = new PJRT_Event();
  return nullptr;
}

PJRT_Error* Buffer_UnsafePointer(PJRT_Buffer_UnsafePointer_Args* args) {
  if (PJRT_Error* e = Deleted(args->buffer)) return e;
  args->buffer_pointer =
      reinterpret_cast<uintptr_t>(xlite_buffer_data(args->buffer->data));
  return nullptr;
}

PJRT_Error* Buffer_IncreaseExternalReferenceCount(
    PJRT_Buffer_IncreaseExternalReferenceCount_Args* args) {
  ++args->buffer->external_references;
  return nullptr;
}

PJRT_Error* Buffer_DecreaseExternalReferenceCount(
    PJRT_Buffer_DecreaseExternalReferenceCount_Args* args) {
  if (args->buffer->external_references == 0) {
    return MakeError(absl::FailedPreconditionError(
        "the buffer has no external references"));
  }
  --args->buffer->external_references;
  return nullptr;
}

PJRT_Error* Buffer_OpaqueDeviceMemoryDataPointer(
    PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args* args) {
  if (PJRT_Error* e = Deleted(args->buffer)) return e;
  args->device_memory_ptr = const_cast<void*>(
      xlite_buffer_data(args->buffer->data));
  return nullptr;
}

}  // namespace xlite::pjrt
