// PJRT executables: what a compiled program says of itself, and
// PJRT_LoadedExecutable_Execute over the xlite C API (synchronous: the
// completion events it hands out are ready).

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/pjrt/functions.h"
#include "api/pjrt/objects.h"

struct PJRT_DeviceAssignmentSerialized {
  std::string bytes;
};

struct PJRT_SerializedCompileOptions {
  std::string bytes;
};

namespace xlite::pjrt {

PJRT_Error* Executable_Destroy(PJRT_Executable_Destroy_Args* args) {
  delete args->executable;
  return nullptr;
}

PJRT_Error* Executable_Name(PJRT_Executable_Name_Args* args) {
  const std::string& name = args->executable->program->name;
  args->executable_name = name.data();
  args->executable_name_size = name.size();
  return nullptr;
}

PJRT_Error* Executable_NumReplicas(PJRT_Executable_NumReplicas_Args* args) {
  args->num_replicas = args->executable->program->replicas;
  return nullptr;
}

PJRT_Error* Executable_NumPartitions(
    PJRT_Executable_NumPartitions_Args* args) {
  args->num_partitions = args->executable->program->partitions;
  return nullptr;
}

PJRT_Error* Executable_NumOutputs(PJRT_Executable_NumOutputs_Args* args) {
  args->num_outputs = args->executable->program->output_types.size();
  return nullptr;
}

PJRT_Error* Executable_SizeOfGeneratedCodeInBytes(
    PJRT_Executable_SizeOfGeneratedCodeInBytes_Args* args) {
  args->size_in_bytes = 0;
  return nullptr;
}

PJRT_Error* Executable_GetCostAnalysis(
    PJRT_Executable_GetCostAnalysis_Args* args) {
  args->num_properties = 0;
  args->properties = nullptr;
  return nullptr;
}

PJRT_Error* Executable_OutputMemoryKinds(
    PJRT_Executable_OutputMemoryKinds_Args* args) {
  const CompiledProgram& p = *args->executable->program;
  args->num_outputs = p.output_memory_kinds.size();
  args->memory_kinds = p.output_memory_kinds.data();
  args->memory_kind_sizes = p.output_memory_kind_sizes.data();
  return nullptr;
}

PJRT_Error* Executable_OutputElementTypes(
    PJRT_Executable_OutputElementTypes_Args* args) {
  auto& types = args->executable->program->output_types;
  args->output_types = types.data();
  args->num_output_types = types.size();
  return nullptr;
}

PJRT_Error* Executable_OutputDimensions(
    PJRT_Executable_OutputDimensions_Args* args) {
  const CompiledProgram& p = *args->executable->program;
  args->num_outputs = p.output_ranks.size();
  args->dims = p.output_dims.data();
  args->dim_sizes = p.output_ranks.data();
  return nullptr;
}

PJRT_Error* Executable_OptimizedProgram(
    PJRT_Executable_OptimizedProgram_Args* args) {
  // The StableHLO program as given (jax reads it back for as_text() and
  // its output shardings); xlite's optimized HLO is not handed out.
  static const char kFormat[] = "mlir";
  const std::string& code = args->executable->program->stablehlo;
  if (code.empty()) {
    return Unimplemented("xlite keeps the program of mlir compiles only");
  }
  PJRT_Program* program = args->program;
  program->format = kFormat;
  program->format_size = sizeof(kFormat) - 1;
  if (program->code == nullptr) {
    program->code_size = code.size();
    return nullptr;
  }
  if (program->code_size < code.size()) {
    return InvalidArgument("the program's code buffer is too small");
  }
  std::memcpy(program->code, code.data(), code.size());
  program->code_size = code.size();
  return nullptr;
}

PJRT_Error* Executable_Fingerprint(PJRT_Executable_Fingerprint_Args* args) {
  const std::string& f = args->executable->program->fingerprint;
  args->executable_fingerprint = f.data();
  args->executable_fingerprint_size = f.size();
  return nullptr;
}

PJRT_Error* Executable_GetCompiledMemoryStats(
    PJRT_Executable_GetCompiledMemoryStats_Args* args) {
  // Every size xlite reports is 0 (unknown); only the fields the caller's
  // struct has are written.
  const size_t header = offsetof(PJRT_Executable_GetCompiledMemoryStats_Args,
                                 generated_code_size_in_bytes);
  const size_t end =
      std::min(args->struct_size,
               sizeof(PJRT_Executable_GetCompiledMemoryStats_Args));
  if (end > header) {
    std::memset(reinterpret_cast<char*>(args) + header, 0, end - header);
  }
  return nullptr;
}

PJRT_Error* Executable_GetCompileOptions(
    PJRT_Executable_GetCompileOptions_Args* args) {
  auto* options = new PJRT_SerializedCompileOptions{
      args->executable->program->compile_options};
  args->serialized_compile_options = options;
  args->serialized_bytes = options->bytes.data();
  args->serialized_bytes_size = options->bytes.size();
  args->serialized_compile_options_deleter =
      +[](PJRT_SerializedCompileOptions* o) { delete o; };
  return nullptr;
}

PJRT_Error* LoadedExecutable_Destroy(
    PJRT_LoadedExecutable_Destroy_Args* args) {
  delete args->executable;
  return nullptr;
}

PJRT_Error* LoadedExecutable_GetExecutable(
    PJRT_LoadedExecutable_GetExecutable_Args* args) {
  args->executable = new PJRT_Executable{args->loaded_executable->program};
  return nullptr;
}

PJRT_Error* LoadedExecutable_AddressableDevices(
    PJRT_LoadedExecutable_AddressableDevices_Args* args) {
  args->addressable_devices = args->executable->devices.data();
  args->num_addressable_devices = args->executable->devices.size();
  return nullptr;
}

PJRT_Error* LoadedExecutable_Delete(PJRT_LoadedExecutable_Delete_Args* args) {
  args->executable->deleted = true;
  return nullptr;
}

PJRT_Error* LoadedExecutable_IsDeleted(
    PJRT_LoadedExecutable_IsDeleted_Args* args) {
  args->is_deleted = args->executable->deleted;
  return nullptr;
}

PJRT_Error* LoadedExecutable_Fingerprint(
    PJRT_LoadedExecutable_Fingerprint_Args* args) {
  const std::string& f = args->executable->program->fingerprint;
  args->executable_fingerprint = f.data();
  args->executable_fingerprint_size = f.size();
  return nullptr;
}

PJRT_Error* LoadedExecutable_GetDeviceAssignment(
    PJRT_LoadedExecutable_GetDeviceAssignment_Args* args) {
  const PJRT_LoadedExecutable& e = *args->executable;
  auto* da = new PJRT_DeviceAssignmentSerialized{SerializeDeviceAssignment(
      e.program->replicas, e.program->partitions, e.devices)};
  args->serialized_device_assignment = da;
  args->serialized_bytes = da->bytes.data();
  args->serialized_bytes_size = da->bytes.size();
  args->serialized_device_assignment_deleter =
      +[](PJRT_DeviceAssignmentSerialized* d) { delete d; };
  return nullptr;
}

PJRT_Error* LoadedExecutable_Execute(
    PJRT_LoadedExecutable_Execute_Args* args) {
  PJRT_LoadedExecutable& e = *args->executable;
  if (e.deleted) {
    return MakeError(absl::FailedPreconditionError(
        "the executable has been deleted"));
  }
  std::vector<PJRT_Device*> devices = e.devices;
  if (args->execute_device != nullptr) {
    if (devices.size() != 1) {
      return InvalidArgument(
          "execute_device is for single-device executables");
    }
    devices[0] = args->execute_device;
  }
  const size_t n = args->num_devices;
  if (n != devices.size()) {
    return InvalidArgument(absl::StrCat("the executable runs on ",
                                        devices.size(), " devices, got ", n));
  }
  XliteExecutable* exe = e.program->exe;
  const size_t num_results = xlite_executable_num_results(exe);
  std::vector<std::vector<XliteBuffer*>> arguments(n), results(n);
  std::vector<XliteBuffer* const*> argument_rows(n);
  std::vector<XliteBuffer**> result_rows(n);
  for (size_t d = 0; d < n; ++d) {
    for (size_t i = 0; i < args->num_args; ++i) {
      PJRT_Buffer* b = args->argument_lists[d][i];
      if (b == nullptr || b->data == nullptr) {
        return MakeError(absl::FailedPreconditionError(absl::StrCat(
            "argument ", i, " of device ", d, " is deleted or donated")));
      }
      arguments[d].push_back(b->data);
    }
    results[d].assign(num_results, nullptr);
    argument_rows[d] = arguments[d].data();
    result_rows[d] = results[d].data();
  }
  if (PJRT_Error* err = FromXlite(xlite_execute_devices(
          exe, n, argument_rows.data(), args->num_args, result_rows.data(),
          num_results))) {
    return err;
  }
  for (size_t d = 0; d < n; ++d) {
    for (size_t j = 0; j < num_results; ++j) {
      args->output_lists[d][j] = NewBuffer(devices[d], results[d][j]);
    }
    if (args->device_complete_events != nullptr) {
      args->device_complete_events[d] = new PJRT_Event();
    }
  }
  return nullptr;
}

}  // namespace xlite::pjrt
