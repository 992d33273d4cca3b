// PJRT clients, devices, memories and the topology: one client per
// PJRT_Client_Create over an xlite C API client; its devices are host
// "devices" of the one process (XLITE_PJRT_DEVICE_COUNT or the create
// option device_count, default 1), each with one memory of kind "device".

#include <cstdlib>
#include <memory>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "api/pjrt/functions.h"
#include "api/pjrt/objects.h"

PJRT_Client::~PJRT_Client() { xlite_client_destroy(api); }

namespace xlite::pjrt {
namespace {

constexpr absl::string_view kPlatformName = "xlite";
constexpr int kMaxDevices = 1024;

struct CreateOptions {
  std::string platform = "cpu";
  int64_t device_count = 1;
};

absl::Status ReadCreateOptions(const PJRT_NamedValue* values, size_t count,
                               CreateOptions& out) {
  if (const char* env = std::getenv("XLITE_PJRT_DEVICE_COUNT")) {
    if (!absl::SimpleAtoi(env, &out.device_count)) {
      return absl::InvalidArgumentError(
          absl::StrCat("XLITE_PJRT_DEVICE_COUNT=", env, " is not a number"));
    }
  }
  if (const char* env = std::getenv("XLITE_PJRT_PLATFORM")) out.platform = env;
  for (size_t i = 0; i < count; ++i) {
    const PJRT_NamedValue& v = values[i];
    const absl::string_view name(v.name, v.name_size);
    if (name == "device_count" && v.type == PJRT_NamedValue_kInt64) {
      out.device_count = v.int64_value;
    } else if (name == "platform" && v.type == PJRT_NamedValue_kString) {
      out.platform = std::string(v.string_value, v.value_size);
    }
  }
  if (out.device_count < 1 || out.device_count > kMaxDevices) {
    return absl::InvalidArgumentError(
        absl::StrCat("device_count ", out.device_count, " is not in [1, ",
                     kMaxDevices, "]"));
  }
  return absl::OkStatus();
}

void AddDevice(PJRT_Client& client, int id) {
  auto device = std::make_unique<PJRT_Device>();
  auto memory = std::make_unique<PJRT_Memory>();
  device->client = &client;
  device->description.id = id;
  device->description.kind = "cpu";
  device->description.debug_string = absl::StrCat("XLITE_", id);
  device->description.to_string = absl::StrCat("XliteDevice(id=", id, ")");
  memory->id = id;
  memory->kind = "device";
  memory->debug_string = absl::StrCat("XLITE_", id, ":device");
  memory->to_string = absl::StrCat("XliteMemory(id=", id, ", kind=device)");
  memory->devices.push_back(device.get());
  device->memory = memory.get();
  client.devices.push_back(device.get());
  client.descriptions.push_back(&device->description);
  client.memories.push_back(memory.get());
  client.owned_devices.push_back(std::move(device));
  client.owned_memories.push_back(std::move(memory));
}

PJRT_Device* FindDevice(PJRT_Client* client, int id) {
  if (id < 0 || id >= static_cast<int>(client->devices.size())) {
    return nullptr;
  }
  return client->devices[id];
}

}  // namespace

PJRT_Error* Client_Create(PJRT_Client_Create_Args* args) {
  CreateOptions options;
  if (absl::Status s =
          ReadCreateOptions(args->create_options, args->num_options, options);
      !s.ok()) {
    return MakeError(s);
  }
  auto client = std::make_unique<PJRT_Client>();
  if (PJRT_Error* e = FromXlite(
          xlite_client_create(options.platform.c_str(), &client->api))) {
    return e;
  }
  for (int i = 0; i < options.device_count; ++i) AddDevice(*client, i);
  client->topology.client = client.get();
  args->client = client.release();
  return nullptr;
}

PJRT_Error* Client_Destroy(PJRT_Client_Destroy_Args* args) {
  delete args->client;
  return nullptr;
}

PJRT_Error* Client_PlatformName(PJRT_Client_PlatformName_Args* args) {
  args->platform_name = kPlatformName.data();
  args->platform_name_size = kPlatformName.size();
  return nullptr;
}

PJRT_Error* Client_ProcessIndex(PJRT_Client_ProcessIndex_Args* args) {
  args->process_index = 0;
  return nullptr;
}

PJRT_Error* Client_PlatformVersion(PJRT_Client_PlatformVersion_Args* args) {
  static const std::string* version = new std::string(
      absl::StrCat("xlite (C API ", XLITE_API_VERSION, ")"));
  args->platform_version = version->data();
  args->platform_version_size = version->size();
  return nullptr;
}

PJRT_Error* Client_Devices(PJRT_Client_Devices_Args* args) {
  args->devices = args->client->devices.data();
  args->num_devices = args->client->devices.size();
  return nullptr;
}

PJRT_Error* Client_AddressableDevices(
    PJRT_Client_AddressableDevices_Args* args) {
  args->addressable_devices = args->client->devices.data();
  args->num_addressable_devices = args->client->devices.size();
  return nullptr;
}

PJRT_Error* Client_LookupDevice(PJRT_Client_LookupDevice_Args* args) {
  args->device = FindDevice(args->client, args->id);
  if (args->device != nullptr) return nullptr;
  return MakeError(
      absl::NotFoundError(absl::StrCat("no xlite device with id ", args->id)));
}

PJRT_Error* Client_LookupAddressableDevice(
    PJRT_Client_LookupAddressableDevice_Args* args) {
  args->addressable_device = FindDevice(args->client, args->local_hardware_id);
  if (args->addressable_device != nullptr) return nullptr;
  return MakeError(absl::NotFoundError(absl::StrCat(
      "no xlite device with local id ", args->local_hardware_id)));
}

PJRT_Error* Client_AddressableMemories(
    PJRT_Client_AddressableMemories_Args* args) {
  args->addressable_memories = args->client->memories.data();
  args->num_addressable_memories = args->client->memories.size();
  return nullptr;
}

PJRT_Error* Client_DefaultDeviceAssignment(
    PJRT_Client_DefaultDeviceAssignment_Args* args) {
  const int64_t n =
      static_cast<int64_t>(args->num_replicas) * args->num_partitions;
  if (args->num_replicas < 1 || args->num_partitions < 1 ||
      n > static_cast<int64_t>(args->client->devices.size())) {
    return InvalidArgument(absl::StrCat(
        args->num_replicas, " replicas x ", args->num_partitions,
        " partitions do not fit the client's ", args->client->devices.size(),
        " devices (set XLITE_PJRT_DEVICE_COUNT)"));
  }
  if (args->default_assignment_size < static_cast<size_t>(n)) {
    return InvalidArgument("default_assignment has too little room");
  }
  for (int64_t i = 0; i < n; ++i) {
    args->default_assignment[i] = static_cast<int>(i);
  }
  return nullptr;
}

PJRT_Error* Client_TopologyDescription(
    PJRT_Client_TopologyDescription_Args* args) {
  args->topology = &args->client->topology;
  return nullptr;
}

PJRT_Error* TopologyDescription_Destroy(
    PJRT_TopologyDescription_Destroy_Args*) {
  return nullptr;  // owned by its client
}

PJRT_Error* TopologyDescription_PlatformName(
    PJRT_TopologyDescription_PlatformName_Args* args) {
  args->platform_name = kPlatformName.data();
  args->platform_name_size = kPlatformName.size();
  return nullptr;
}

PJRT_Error* TopologyDescription_PlatformVersion(
    PJRT_TopologyDescription_PlatformVersion_Args* args) {
  PJRT_Client_PlatformVersion_Args version;
  version.client = args->topology->client;
  Client_PlatformVersion(&version);
  args->platform_version = version.platform_version;
  args->platform_version_size = version.platform_version_size;
  return nullptr;
}

PJRT_Error* TopologyDescription_GetDeviceDescriptions(
    PJRT_TopologyDescription_GetDeviceDescriptions_Args* args) {
  PJRT_Client* client = args->topology->client;
  args->descriptions = client->descriptions.data();
  args->num_descriptions = client->descriptions.size();
  return nullptr;
}

PJRT_Error* TopologyDescription_Attributes(
    PJRT_TopologyDescription_Attributes_Args* args) {
  args->attributes = nullptr;
  args->num_attributes = 0;
  return nullptr;
}

}  // namespace xlite::pjrt
