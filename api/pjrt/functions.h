#ifndef XLITE_API_PJRT_FUNCTIONS_H_
#define XLITE_API_PJRT_FUNCTIONS_H_

// The PJRT C API functions xlite implements, each as xlite::pjrt::NAME for
// the slot PJRT_NAME. Every other slot of the PJRT_Api table answers
// UNIMPLEMENTED (api_table.cc).

#include "xla/pjrt/c/pjrt_c_api.h"

#define XLITE_PJRT_FUNCTIONS(X)                                            \
  X(Error_GetCode)                                                         \
  X(Plugin_Initialize)                                                     \
  X(Plugin_Attributes)                                                     \
  X(Event_Destroy)                                                         \
  X(Event_IsReady)                                                         \
  X(Event_Error)                                                           \
  X(Event_Await)                                                           \
  X(Event_OnReady)                                                         \
  X(Event_Create)                                                          \
  X(Event_Set)                                                             \
  X(Client_Create)                                                         \
  X(Client_Destroy)                                                        \
  X(Client_PlatformName)                                                   \
  X(Client_ProcessIndex)                                                   \
  X(Client_PlatformVersion)                                                \
  X(Client_Devices)                                                        \
  X(Client_AddressableDevices)                                             \
  X(Client_LookupDevice)                                                   \
  X(Client_LookupAddressableDevice)                                        \
  X(Client_AddressableMemories)                                            \
  X(Client_Compile)                                                        \
  X(Client_DefaultDeviceAssignment)                                        \
  X(Client_BufferFromHostBuffer)                                           \
  X(Client_TopologyDescription)                                            \
  X(DeviceDescription_Id)                                                  \
  X(DeviceDescription_ProcessIndex)                                        \
  X(DeviceDescription_Attributes)                                          \
  X(DeviceDescription_Kind)                                                \
  X(DeviceDescription_DebugString)                                         \
  X(DeviceDescription_ToString)                                            \
  X(Device_GetDescription)                                                 \
  X(Device_IsAddressable)                                                  \
  X(Device_LocalHardwareId)                                                \
  X(Device_AddressableMemories)                                            \
  X(Device_DefaultMemory)                                                  \
  X(Memory_Id)                                                             \
  X(Memory_Kind)                                                           \
  X(Memory_Kind_Id)                                                        \
  X(Memory_DebugString)                                                    \
  X(Memory_ToString)                                                       \
  X(Memory_AddressableByDevices)                                           \
  X(TopologyDescription_Destroy)                                           \
  X(TopologyDescription_PlatformName)                                      \
  X(TopologyDescription_PlatformVersion)                                   \
  X(TopologyDescription_GetDeviceDescriptions)                             \
  X(TopologyDescription_Attributes)                                        \
  X(Executable_Destroy)                                                    \
  X(Executable_Name)                                                       \
  X(Executable_NumReplicas)                                                \
  X(Executable_NumPartitions)                                              \
  X(Executable_NumOutputs)                                                 \
  X(Executable_SizeOfGeneratedCodeInBytes)                                 \
  X(Executable_GetCostAnalysis)                                            \
  X(Executable_OutputMemoryKinds)                                          \
  X(Executable_OutputElementTypes)                                         \
  X(Executable_OutputDimensions)                                           \
  X(Executable_OptimizedProgram)                                           \
  X(Executable_Fingerprint)                                                \
  X(Executable_GetCompiledMemoryStats)                                     \
  X(Executable_GetCompileOptions)                                          \
  X(LoadedExecutable_Destroy)                                              \
  X(LoadedExecutable_GetExecutable)                                        \
  X(LoadedExecutable_AddressableDevices)                                   \
  X(LoadedExecutable_Delete)                                               \
  X(LoadedExecutable_IsDeleted)                                            \
  X(LoadedExecutable_Execute)                                              \
  X(LoadedExecutable_Fingerprint)                                          \
  X(LoadedExecutable_GetDeviceAssignment)                                  \
  X(Buffer_Destroy)                                                        \
  X(Buffer_ElementType)                                                    \
  X(Buffer_Dimensions)                                                     \
  X(Buffer_UnpaddedDimensions)                                             \
  X(Buffer_DynamicDimensionIndices)                                        \
  X(Buffer_GetMemoryLayout)                                                \
  X(Buffer_OnDeviceSizeInBytes)                                            \
  X(Buffer_Device)                                                         \
  X(Buffer_Memory)                                                         \
  X(Buffer_Delete)                                                         \
  X(Buffer_IsDeleted)                                                      \
  X(Buffer_CopyToDevice)                                                   \
  X(Buffer_CopyToMemory)                                                   \
  X(Buffer_ToHostBuffer)                                                   \
  X(Buffer_IsOnCpu)                                                        \
  X(Buffer_ReadyEvent)                                                     \
  X(Buffer_UnsafePointer)                                                  \
  X(Buffer_IncreaseExternalReferenceCount)                                 \
  X(Buffer_DecreaseExternalReferenceCount)                                 \
  X(Buffer_OpaqueDeviceMemoryDataPointer)

namespace xlite::pjrt {

void Error_Destroy(PJRT_Error_Destroy_Args* args);
void Error_Message(PJRT_Error_Message_Args* args);

#define XLITE_PJRT_DECLARE(name) PJRT_Error* name(PJRT_##name##_Args* args);
XLITE_PJRT_FUNCTIONS(XLITE_PJRT_DECLARE)
#undef XLITE_PJRT_DECLARE

}  // namespace xlite::pjrt

#endif  // XLITE_API_PJRT_FUNCTIONS_H_
