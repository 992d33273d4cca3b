// PJRT device descriptions, devices and memories (client.cc makes them).

#include "api/pjrt/functions.h"
#include "api/pjrt/objects.h"

namespace xlite::pjrt {

PJRT_Error* DeviceDescription_Id(PJRT_DeviceDescription_Id_Args* args) {
  args->id = args->device_description->id;
  return nullptr;
}

PJRT_Error* DeviceDescription_ProcessIndex(
    PJRT_DeviceDescription_ProcessIndex_Args* args) {
  args->process_index = 0;
  return nullptr;
}

PJRT_Error* DeviceDescription_Attributes(
    PJRT_DeviceDescription_Attributes_Args* args) {
  args->num_attributes = 0;
  args->attributes = nullptr;
  return nullptr;
}

PJRT_Error* DeviceDescription_Kind(PJRT_DeviceDescription_Kind_Args* args) {
  const std::string& s = args->device_description->kind;
  args->device_kind = s.data();
  args->device_kind_size = s.size();
  return nullptr;
}

PJRT_Error* DeviceDescription_DebugString(
    PJRT_DeviceDescription_DebugString_Args* args) {
  const std::string& s = args->device_description->debug_string;
  args->debug_string = s.data();
  args->debug_string_size = s.size();
  return nullptr;
}

PJRT_Error* DeviceDescription_ToString(
    PJRT_DeviceDescription_ToString_Args* args) {
  const std::string& s = args->device_description->to_string;
  args->to_string = s.data();
  args->to_string_size = s.size();
  return nullptr;
}

PJRT_Error* Device_GetDescription(PJRT_Device_GetDescription_Args* args) {
  args->device_description = &args->device->description;
  return nullptr;
}

PJRT_Error* Device_IsAddressable(PJRT_Device_IsAddressable_Args* args) {
  args->is_addressable = true;
  return nullptr;
}

PJRT_Error* Device_LocalHardwareId(PJRT_Device_LocalHardwareId_Args* args) {
  args->local_hardware_id = args->device->description.id;
  return nullptr;
}

PJRT_Error* Device_AddressableMemories(
    PJRT_Device_AddressableMemories_Args* args) {
  args->memories = &args->device->memory;
  args->num_memories = 1;
  return nullptr;
}

PJRT_Error* Device_DefaultMemory(PJRT_Device_DefaultMemory_Args* args) {
  args->memory = args->device->memory;
  return nullptr;
}

PJRT_Error* Memory_Id(PJRT_Memory_Id_Args* args) {
  args->id = args->memory->id;
  return nullptr;
}

PJRT_Error* Memory_Kind(PJRT_Memory_Kind_Args* args) {
  args->kind = args->memory->kind.data();
  args->kind_size = args->memory->kind.size();
  return nullptr;
}

PJRT_Error* Memory_Kind_Id(PJRT_Memory_Kind_Id_Args* args) {
  args->kind_id = 0;
  return nullptr;
}

PJRT_Error* Memory_DebugString(PJRT_Memory_DebugString_Args* args) {
  args->debug_string = args->memory->debug_string.data();
  args->debug_string_size = args->memory->debug_string.size();
  return nullptr;
}

PJRT_Error* Memory_ToString(PJRT_Memory_ToString_Args* args) {
  args->to_string = args->memory->to_string.data();
  args->to_string_size = args->memory->to_string.size();
  return nullptr;
}

PJRT_Error* Memory_AddressableByDevices(
    PJRT_Memory_AddressableByDevices_Args* args) {
  args->devices = args->memory->devices.data();
  args->num_devices = args->memory->devices.size();
  return nullptr;
}

}  // namespace xlite::pjrt
