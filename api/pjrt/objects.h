#ifndef XLITE_API_PJRT_OBJECTS_H_
#define XLITE_API_PJRT_OBJECTS_H_

// The objects behind the PJRT C API's opaque handles, over the xlite C API
// (api/c_api.h): a client owns its devices and their memories; a buffer
// owns an XliteBuffer (a dense row-major array in host memory); an
// executable shares one XliteExecutable among its handles. Execution is
// synchronous, so every event is ready when it is handed out.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/strings/string_view.h"
#include "api/c_api.h"
#include "xla/pjrt/c/pjrt_c_api.h"

struct PJRT_Error {
  absl::Status status;
  std::string message;
};

// Events xlite hands out are ready when made; one made by
// PJRT_Event_Create is ready once PJRT_Event_Set is called.
struct PJRT_Event {
  absl::Mutex mu;
  bool ready = true;
  absl::Status status;
  std::vector<std::pair<PJRT_Event_OnReadyCallback, void*>> waiting;
};

struct PJRT_DeviceDescription {
  int id = 0;
  std::string kind;
  std::string debug_string;
  std::string to_string;
};

struct PJRT_Memory {
  int id = 0;
  std::string kind;
  std::string debug_string;
  std::string to_string;
  std::vector<PJRT_Device*> devices;
};

struct PJRT_Device {
  PJRT_Client* client = nullptr;
  PJRT_DeviceDescription description;
  PJRT_Memory* memory = nullptr;
};

struct PJRT_TopologyDescription {
  PJRT_Client* client = nullptr;
};

struct PJRT_Client {
  XliteClient* api = nullptr;
  std::vector<std::unique_ptr<PJRT_Device>> owned_devices;
  std::vector<std::unique_ptr<PJRT_Memory>> owned_memories;
  std::vector<PJRT_Device*> devices;
  std::vector<PJRT_Memory*> memories;
  std::vector<PJRT_DeviceDescription*> descriptions;
  PJRT_TopologyDescription topology;
  ~PJRT_Client();
};

struct PJRT_Buffer {
  PJRT_Client* client = nullptr;
  PJRT_Device* device = nullptr;
  XliteBuffer* data = nullptr;  // owned; null once deleted
  PJRT_Buffer_Type type = PJRT_Buffer_Type_INVALID;
  std::vector<int64_t> dims;
  std::vector<int64_t> minor_to_major;  // row major: rank-1 ... 0
  int external_references = 0;
  ~PJRT_Buffer();
};

// What a compiled program is, shared by the PJRT_Executable and
// PJRT_LoadedExecutable handles made from it.
struct CompiledProgram {
  XliteExecutable* exe = nullptr;  // owned
  std::string name;
  std::string fingerprint;
  std::string compile_options;  // serialized CompileOptionsProto, as given
  std::string hlo_proto;        // the module compiled (HloModuleProto)
  std::string stablehlo;        // the StableHLO artifact it came from, if any
  int replicas = 1;
  int partitions = 1;
  std::vector<PJRT_Buffer_Type> output_types;
  std::vector<int64_t> output_dims;  // all outputs' dims, concatenated
  std::vector<size_t> output_ranks;
  std::vector<const char*> output_memory_kinds;
  std::vector<size_t> output_memory_kind_sizes;
  std::vector<int> parameter_donated;  // per argument leaf: aliased to an output
  ~CompiledProgram();
};

struct PJRT_Executable {
  std::shared_ptr<CompiledProgram> program;
};

struct PJRT_LoadedExecutable {
  PJRT_Client* client = nullptr;
  std::shared_ptr<CompiledProgram> program;
  std::vector<PJRT_Device*> devices;  // replica-major
  bool deleted = false;
};

namespace xlite::pjrt {

/// A PJRT_Error for a failed status (null for OK).
PJRT_Error* MakeError(absl::Status status);
PJRT_Error* Unimplemented(absl::string_view what);
PJRT_Error* InvalidArgument(absl::string_view message);

/// Checks a caller's args struct is at least as large as the fields this
/// plugin reads (`needed`, the offset past the last of them).
PJRT_Error* CheckStructSize(absl::string_view name, size_t given,
                            size_t needed);

/// Turns an XliteError from the C API into a PJRT_Error (consuming it).
PJRT_Error* FromXlite(XliteError* error);

/// A PJRT buffer on `device` owning `data`.
PJRT_Buffer* NewBuffer(PJRT_Device* device, XliteBuffer* data);

/// XLA PrimitiveType numbers (the C API's element types) and PJRT's.
int ToXliteType(PJRT_Buffer_Type type);
PJRT_Buffer_Type ToPjrtType(int xlite_type);

/// The StableHLO-to-HLO converter a host process registers
/// (stablehlo_converter.cc), and the version of StableHLO it reads.
absl::Status ConvertStableHlo(absl::string_view artifact, std::string& proto);
std::vector<int64_t> StableHloVersion();

/// Parsed from a serialized CompileOptionsProto (the fields xlite uses).
struct CompileOptions {
  int64_t num_replicas = 1;
  int64_t num_partitions = 1;
  bool use_spmd_partitioning = false;
  bool parameter_is_tupled_arguments = false;
  std::vector<int64_t> device_assignment;  // replica-major device ids
};
absl::Status ParseCompileOptions(absl::string_view bytes, CompileOptions& out);
/// A serialized DeviceAssignmentProto.
std::string SerializeDeviceAssignment(int replicas, int partitions,
                                      const std::vector<PJRT_Device*>& devices);

}  // namespace xlite::pjrt

#endif  // XLITE_API_PJRT_OBJECTS_H_
