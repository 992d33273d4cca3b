// PJRT_Client_Compile: a StableHLO artifact (through the registered
// converter) or a serialized HloModuleProto, compiled by the xlite C API
// for the replicas and partitions the CompileOptionsProto asks for.

#include <memory>
#include <string>
#include <vector>

#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "api/pjrt/functions.h"
#include "api/pjrt/objects.h"

CompiledProgram::~CompiledProgram() { xlite_executable_destroy(exe); }

namespace xlite::pjrt {
namespace {

// Fills the output description of `p` from its executable.
void DescribeOutputs(CompiledProgram& p) {
  static const char kDevice[] = "device";
  const size_t n = xlite_executable_num_results(p.exe);
  for (size_t i = 0; i < n; ++i) {
    p.output_types.push_back(ToPjrtType(xlite_executable_result_type(p.exe, i)));
    const size_t rank = xlite_executable_result_rank(p.exe, i);
    const int64_t* dims = xlite_executable_result_dims(p.exe, i);
    p.output_dims.insert(p.output_dims.end(), dims, dims + rank);
    p.output_ranks.push_back(rank);
    p.output_memory_kinds.push_back(kDevice);
    p.output_memory_kind_sizes.push_back(sizeof(kDevice) - 1);
  }
}

absl::Status PickDevices(PJRT_Client* client, const CompileOptions& options,
                         std::vector<PJRT_Device*>& out) {
  const int64_t n = options.num_replicas * options.num_partitions;
  std::vector<int64_t> ids = options.device_assignment;
  if (ids.empty()) {
    for (int64_t i = 0; i < n; ++i) ids.push_back(i);
  }
  if (static_cast<int64_t>(ids.size()) != n) {
    return absl::InvalidArgumentError(
        "the device assignment does not match replicas x partitions");
  }
  for (int64_t id : ids) {
    if (id < 0 || id >= static_cast<int64_t>(client->devices.size())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the program needs device ", id, " of ", client->devices.size(),
          " xlite devices (set XLITE_PJRT_DEVICE_COUNT)"));
    }
    out.push_back(client->devices[id]);
  }
  return absl::OkStatus();
}

// The serialized HloModuleProto a program holds.
absl::Status ProgramModule(const PJRT_Program& program, std::string& proto) {
  const absl::string_view format(program.format, program.format_size);
  const absl::string_view code(program.code, program.code_size);
  if (format == "mlir") return ConvertStableHlo(code, proto);
  if (format == "hlo") {
    proto = std::string(code);
    return absl::OkStatus();
  }
  return absl::UnimplementedError(
      absl::StrCat("xlite compiles programs of format mlir or hlo, not '",
                   format, "'"));
}

}  // namespace

PJRT_Error* Client_Compile(PJRT_Client_Compile_Args* args) {
  CompileOptions options;
  if (absl::Status s = ParseCompileOptions(
          absl::string_view(args->compile_options, args->compile_options_size),
          options);
      !s.ok()) {
    return MakeError(s);
  }
  if (options.parameter_is_tupled_arguments) {
    return Unimplemented("xlite takes untupled arguments");
  }
  auto program = std::make_shared<CompiledProgram>();
  if (absl::Status s = ProgramModule(*args->program, program->hlo_proto);
      !s.ok()) {
    return MakeError(s);
  }
  const PJRT_Program& given = *args->program;
  if (absl::string_view(given.format, given.format_size) == "mlir") {
    program->stablehlo.assign(given.code, given.code_size);
  }
  std::vector<PJRT_Device*> devices;
  if (absl::Status s = PickDevices(args->client, options, devices); !s.ok()) {
    return MakeError(s);
  }
  XliteCompileOptions o;
  xlite_compile_options_init(&o, sizeof(o));
  o.replica_count = static_cast<int>(options.num_replicas);
  o.num_partitions = static_cast<int>(options.num_partitions);
  if (PJRT_Error* e = FromXlite(xlite_compile_hlo_proto(
          args->client->api, program->hlo_proto.data(),
          program->hlo_proto.size(), &o, &program->exe))) {
    return e;
  }
  program->name = xlite_executable_name(program->exe);
  program->replicas = o.replica_count;
  program->partitions = o.num_partitions;
  program->compile_options.assign(args->compile_options,
                                  args->compile_options_size);
  program->fingerprint = absl::StrFormat(
      "%016x", absl::HashOf(program->hlo_proto, program->compile_options));
  DescribeOutputs(*program);
  auto* loaded = new PJRT_LoadedExecutable();
  loaded->client = args->client;
  loaded->program = std::move(program);
  loaded->devices = std::move(devices);
  args->executable = loaded;
  return nullptr;
}

}  // namespace xlite::pjrt
