// The C API (c_api.h) over the backends: the cpu backend's CpuExecutable,
// the evaluator, the GPU pipeline on its emulator. Buffers are literals in
// host memory; every failure becomes an XliteError.

#include "api/c_api.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cpu_backend/executable.h"
#include "cpu_backend/multi_device.h"
#include "gpu_backend/executable.h"
#include "gpu_backend/image_writer.h"
#include "gpu_backend/target_spec.h"
#include "hlo/analysis/verifier.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/ir/literal.h"
#include "hlo/ir/module.h"
#include "hlo/ir/primitive_type.h"
#include "hlo/proto/proto_convert.h"
#include "hlo/text/parser.h"
#include "passes/manual_sharding.h"
#include "runtime/cuda/cuda_device.h"
#include "runtime/gpu_image_runner.h"

struct XliteError {
  absl::Status status;
  std::string message;
};

struct XliteClient {
  std::string platform;
  // "gpu": the local device's spec, compiled for.
  xlite::gpu::GpuTargetSpec gpu_spec;
};

struct XliteBuffer {
  xlite::Literal literal;
  std::vector<int64_t> dims;
};

struct XliteExecutable {
  std::string platform;
  // The module as given (its entry's shapes; run by the interpreter).
  std::unique_ptr<xlite::HloModule> module;
  std::unique_ptr<xlite::cpu::CpuExecutable> cpu;
  std::unique_ptr<xlite::gpu::GpuExecutable> gpu;
  // "gpu": the executable's image and the CUDA device it is loaded on.
  std::unique_ptr<xlite::runtime::GpuImage> image;
  std::unique_ptr<xlite::runtime::cuda::CudaDevice> cuda;
  std::vector<xlite::Shape> argument_leaves;
  std::vector<xlite::Shape> result_leaves;
  int64_t replicas = 1;
  int64_t partitions = 1;
  // "(parameter shapes) -> result shape", without layouts.
  std::string signature;
};

namespace xlite::api {
namespace {

XliteError* Fail(absl::Status status) {
  if (status.ok()) return nullptr;
  auto* error = new XliteError{std::move(status), ""};
  error->message = std::string(error->status.message());
  return error;
}

XliteError* Invalid(const std::string& message) {
  return Fail(absl::InvalidArgumentError(message));
}

bool IsArrayType(int type) {
  return type >= 1 && type <= 33 && type != 13 && type != 14 && type != 17;
}

// The array leaves of `shape`, depth first.
void Leaves(const Shape& shape, std::vector<Shape>& out) {
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) Leaves(s, out);
  } else if (shape.IsArray()) {
    out.push_back(shape);
  }
}

// A literal of `shape` from `leaves` (consumed from `next` on).
absl::StatusOr<Literal> Assemble(const Shape& shape, XliteBuffer* const* leaves,
                                 size_t& next) {
  if (shape.IsTuple()) {
    std::vector<Literal> elements;
    for (const Shape& s : shape.tuple_shapes()) {
      absl::StatusOr<Literal> e = Assemble(s, leaves, next);
      if (!e.ok()) return e.status();
      elements.push_back(*std::move(e));
    }
    return Literal::Tuple(std::move(elements));
  }
  if (!shape.IsArray()) return Literal(shape);  // a token
  const XliteBuffer* b = leaves[next];
  const size_t index = next++;
  if (b == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("argument ", index, " is null"));
  }
  const Shape& got = b->literal.shape();
  if (got.element_type() != shape.element_type() ||
      got.dimensions() != shape.dimensions()) {
    return absl::InvalidArgumentError(
        absl::StrCat("argument ", index, " is ", got.ToString(),
                     ", the module takes ", shape.ToString()));
  }
  Literal literal = b->literal;
  literal.mutable_shape_for_layout() = shape;
  return literal;
}

void Flatten(const Literal& literal, std::vector<const Literal*>& out) {
  if (literal.shape().IsTuple()) {
    for (const Literal& e : literal.tuple_elements()) Flatten(e, out);
  } else if (literal.shape().IsArray()) {
    out.push_back(&literal);
  }
}

// Argument (or result) leaf `index` of `exe`; null when out of range.
const Shape* Leaf(const XliteExecutable* exe, size_t index, bool result) {
  if (exe == nullptr) return nullptr;
  const std::vector<Shape>& leaves =
      result ? exe->result_leaves : exe->argument_leaves;
  return index < leaves.size() ? &leaves[index] : nullptr;
}

XliteBuffer* NewBuffer(const Literal& literal) {
  auto* b = new XliteBuffer{literal, {}};
  const auto& dims = literal.shape().dimensions();
  b->dims.assign(dims.begin(), dims.end());
  return b;
}

// Writes `result`'s leaves to `out` (room for `count`).
absl::Status HandOut(const Literal& result, XliteBuffer** out, size_t count) {
  std::vector<const Literal*> leaves;
  Flatten(result, leaves);
  if (leaves.size() != count) {
    return absl::InternalError(absl::StrCat("the result has ", leaves.size(),
                                            " arrays, expected ", count));
  }
  for (const Literal* leaf : leaves) {
    if (leaf->is_unknown()) {
      return absl::InternalError("a result array has no data");
    }
  }
  for (size_t i = 0; i < count; ++i) out[i] = NewBuffer(*leaves[i]);
  return absl::OkStatus();
}

// The entry's arguments from `buffers` (one per array leaf).
absl::StatusOr<std::vector<Literal>> Arguments(const XliteExecutable& exe,
                                               XliteBuffer* const* buffers,
                                               size_t count) {
  if (count != exe.argument_leaves.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the module takes ", exe.argument_leaves.size(),
                     " argument arrays, got ", count));
  }
  if (count > 0 && buffers == nullptr) {
    return absl::InvalidArgumentError("arguments is null");
  }
  std::vector<Literal> args;
  size_t next = 0;
  for (const HloInstruction* p :
       exe.module->entry_computation()->parameter_instructions()) {
    absl::StatusOr<Literal> a = Assemble(p->shape(), buffers, next);
    if (!a.ok()) return a.status();
    args.push_back(*std::move(a));
  }
  return args;
}

absl::StatusOr<Literal> RunOne(const XliteExecutable& exe,
                               const std::vector<Literal>& args) {
  if (exe.cpu != nullptr) return exe.cpu->Run(args);
  if (exe.cuda != nullptr)
    return runtime::RunGpuImage(*exe.image, *exe.cuda, args);
  if (exe.gpu != nullptr) return exe.gpu->Run(args);
  return EvaluateModule(*exe.module, args);
}

// "gpu": PTX for the local device (its driver compiles it when it loads),
// the image, and the image loaded on the device.
absl::Status CompileForCuda(const gpu::GpuTargetSpec& spec,
                            const HloModule& module,
                            const XliteCompileOptions& o,
                            XliteExecutable& exe) {
  gpu::GpuCompileOptions g;
  g.spec = spec;
  g.target = gpu::GpuCodeTarget::kNvptx;
  g.run_passes = o.run_passes != 0;
  absl::StatusOr<std::unique_ptr<gpu::GpuExecutable>> compiled =
      gpu::GpuExecutable::Compile(module.Clone(), g);
  if (!compiled.ok()) return compiled.status();
  absl::StatusOr<runtime::GpuImage> image =
      gpu::ImageFromExecutable(**compiled, spec);
  if (!image.ok()) return image.status();
  exe.image = std::make_unique<runtime::GpuImage>(*std::move(image));
  absl::StatusOr<std::unique_ptr<runtime::cuda::CudaDevice>> device =
      runtime::cuda::CudaDevice::Create(*exe.image);
  if (!device.ok()) return device.status();
  exe.cuda = *std::move(device);
  return absl::OkStatus();
}

absl::Status Compile(XliteClient* client, std::unique_ptr<HloModule> module,
                     const XliteCompileOptions* options, XliteExecutable* exe) {
  if (absl::Status s = VerifyModule(*module); !s.ok()) return s;
  XliteCompileOptions o;
  xlite_compile_options_init(&o, sizeof(o));
  if (options != nullptr) {
    if (options->struct_size < sizeof(size_t) + 2 * sizeof(int)) {
      return absl::InvalidArgumentError(
          "XliteCompileOptions.struct_size is too small");
    }
    o.run_passes = options->run_passes;
    o.use_cache = options->use_cache;
    if (options->struct_size >= sizeof(XliteCompileOptions)) {
      o.replica_count = options->replica_count;
      o.num_partitions = options->num_partitions;
    }
  }
  if (o.replica_count < 0 || o.num_partitions < 0) {
    return absl::InvalidArgumentError(
        "replica_count and num_partitions must not be negative");
  }
  if (o.replica_count > 0) module->config().replica_count = o.replica_count;
  if (o.num_partitions > 0) module->config().num_partitions = o.num_partitions;
  // A shard_map program takes and gives each partition's shards.
  if (absl::StatusOr<bool> s = LocalizeManualSharding(*module); !s.ok()) {
    return s.status();
  }
  if (absl::Status s = CheckNoSplitParameters(*module); !s.ok()) return s;
  exe->platform = client->platform;
  exe->replicas = std::max<int64_t>(module->config().replica_count, 1);
  exe->partitions = std::max<int64_t>(module->config().num_partitions, 1);
  const HloComputation* entry = module->entry_computation();
  for (const HloInstruction* p : entry->parameter_instructions()) {
    Leaves(p->shape(), exe->argument_leaves);
  }
  Leaves(entry->root_instruction()->shape(), exe->result_leaves);
  std::vector<std::string> parameters;
  for (const HloInstruction* p : entry->parameter_instructions()) {
    parameters.push_back(p->shape().ToString(/*print_layout=*/false));
  }
  exe->signature =
      absl::StrCat("(", absl::StrJoin(parameters, ", "), ") -> ",
                   entry->root_instruction()->shape().ToString(false));
  if (client->platform == "cpu") {
    cpu::CompileOptions c;
    c.run_passes = o.run_passes != 0;
    c.use_cache = o.use_cache != 0;
    absl::StatusOr<std::unique_ptr<cpu::CpuExecutable>> compiled =
        cpu::CpuExecutable::Compile(module->Clone(), c);
    if (!compiled.ok()) return compiled.status();
    exe->cpu = *std::move(compiled);
  } else if (client->platform == "gpu-emulator") {
    absl::StatusOr<gpu::GpuCompileOptions> g =
        gpu::DefaultGpuCompileOptions(gpu::GpuCodeTarget::kEmulator);
    if (!g.ok()) return g.status();
    g->run_passes = o.run_passes != 0;
    absl::StatusOr<std::unique_ptr<gpu::GpuExecutable>> compiled =
        gpu::GpuExecutable::Compile(module->Clone(), *g);
    if (!compiled.ok()) return compiled.status();
    exe->gpu = *std::move(compiled);
  } else if (client->platform == "gpu") {
    if (absl::Status s = CompileForCuda(client->gpu_spec, *module, o, *exe);
        !s.ok()) {
      return s;
    }
  }
  exe->module = std::move(module);
  return absl::OkStatus();
}

XliteError* CompileModule(XliteClient* client,
                          absl::StatusOr<std::unique_ptr<HloModule>> module,
                          const XliteCompileOptions* options,
                          XliteExecutable** executable) {
  if (!module.ok()) return Fail(module.status());
  auto exe = std::make_unique<XliteExecutable>();
  if (absl::Status s = Compile(client, *std::move(module), options, exe.get());
      !s.ok()) {
    return Fail(s);
  }
  *executable = exe.release();
  return nullptr;
}

}  // namespace
}  // namespace xlite::api

using xlite::api::Fail;
using xlite::api::Invalid;

extern "C" {

int xlite_api_version(void) { return XLITE_API_VERSION; }

int xlite_error_code(const XliteError* error) {
  return error == nullptr ? 0 : static_cast<int>(error->status.code());
}

const char* xlite_error_message(const XliteError* error) {
  return error == nullptr ? "" : error->message.c_str();
}

void xlite_error_destroy(XliteError* error) { delete error; }

size_t xlite_element_size(int element_type) {
  if (!xlite::api::IsArrayType(element_type)) return 0;
  return static_cast<size_t>(
      xlite::StorageBytes(static_cast<xlite::PrimitiveType>(element_type)));
}

XliteError* xlite_client_create(const char* platform, XliteClient** client) {
  if (platform == nullptr || client == nullptr) {
    return Invalid("xlite_client_create: null platform or client");
  }
  const std::string p = platform;
  if (p != "cpu" && p != "interpreter" && p != "gpu-emulator" && p != "gpu") {
    return Invalid("unknown platform '" + p +
                   "'; expected cpu, interpreter, gpu-emulator or gpu");
  }
  xlite::gpu::GpuTargetSpec spec;
  if (p == "gpu") {
    // The local device and its cuDNN; "no CUDA device" when there is none.
    absl::StatusOr<xlite::gpu::GpuTargetSpec> local =
        xlite::gpu::QueryLocalGpu();
    if (!local.ok()) return Fail(local.status());
    spec = *std::move(local);
  }
  *client = new XliteClient{p, std::move(spec)};
  return nullptr;
}

void xlite_client_destroy(XliteClient* client) { delete client; }

const char* xlite_client_platform(const XliteClient* client) {
  return client == nullptr ? "" : client->platform.c_str();
}

void xlite_compile_options_init(XliteCompileOptions* options,
                                size_t struct_size) {
  if (options == nullptr || struct_size < sizeof(size_t)) return;
  XliteCompileOptions o;
  o.struct_size = std::min(struct_size, sizeof(XliteCompileOptions));
  o.run_passes = 1;
  o.use_cache = 1;
  o.replica_count = 0;
  o.num_partitions = 0;
  std::memcpy(options, &o, o.struct_size);
}

XliteError* xlite_compile_hlo_text(XliteClient* client, const char* text,
                                   size_t size,
                                   const XliteCompileOptions* options,
                                   XliteExecutable** executable) {
  if (client == nullptr || executable == nullptr ||
      (text == nullptr && size > 0)) {
    return Invalid("xlite_compile_hlo_text: null client, text or executable");
  }
  return xlite::api::CompileModule(client,
                                   xlite::ParseHloModule(absl::string_view(
                                       text == nullptr ? "" : text, size)),
                                   options, executable);
}

XliteError* xlite_compile_hlo_proto(XliteClient* client, const void* bytes,
                                    size_t size,
                                    const XliteCompileOptions* options,
                                    XliteExecutable** executable) {
  if (client == nullptr || executable == nullptr ||
      (bytes == nullptr && size > 0)) {
    return Invalid("xlite_compile_hlo_proto: null client, bytes or executable");
  }
  const std::string data(static_cast<const char*>(bytes), size);
  return xlite::api::CompileModule(
      client, xlite::ModuleFromSerializedProto(data, false, "module"), options,
      executable);
}

void xlite_executable_destroy(XliteExecutable* executable) {
  delete executable;
}

size_t xlite_executable_num_arguments(const XliteExecutable* executable) {
  return executable == nullptr ? 0 : executable->argument_leaves.size();
}

size_t xlite_executable_num_results(const XliteExecutable* executable) {
  return executable == nullptr ? 0 : executable->result_leaves.size();
}

size_t xlite_executable_num_devices(const XliteExecutable* executable) {
  return executable == nullptr ? 0
                               : static_cast<size_t>(executable->replicas *
                                                     executable->partitions);
}

int xlite_executable_argument_type(const XliteExecutable* executable,
                                   size_t index) {
  const xlite::Shape* s = xlite::api::Leaf(executable, index, false);
  return s == nullptr ? 0 : static_cast<int>(s->element_type());
}

size_t xlite_executable_argument_rank(const XliteExecutable* executable,
                                      size_t index) {
  const xlite::Shape* s = xlite::api::Leaf(executable, index, false);
  return s == nullptr ? 0 : s->dimensions().size();
}

const int64_t* xlite_executable_argument_dims(const XliteExecutable* executable,
                                              size_t index) {
  const xlite::Shape* s = xlite::api::Leaf(executable, index, false);
  return s == nullptr ? nullptr : s->dimensions().data();
}

int xlite_executable_result_type(const XliteExecutable* executable,
                                 size_t index) {
  const xlite::Shape* s = xlite::api::Leaf(executable, index, true);
  return s == nullptr ? 0 : static_cast<int>(s->element_type());
}

size_t xlite_executable_result_rank(const XliteExecutable* executable,
                                    size_t index) {
  const xlite::Shape* s = xlite::api::Leaf(executable, index, true);
  return s == nullptr ? 0 : s->dimensions().size();
}

const int64_t* xlite_executable_result_dims(const XliteExecutable* executable,
                                            size_t index) {
  const xlite::Shape* s = xlite::api::Leaf(executable, index, true);
  return s == nullptr ? nullptr : s->dimensions().data();
}

const char* xlite_executable_name(const XliteExecutable* executable) {
  return executable == nullptr || executable->module == nullptr
             ? ""
             : executable->module->name().c_str();
}

const char* xlite_executable_signature(const XliteExecutable* executable) {
  return executable == nullptr ? "" : executable->signature.c_str();
}

XliteError* xlite_buffer_from_host(int element_type, const int64_t* dims,
                                   size_t rank, const void* data, size_t size,
                                   XliteBuffer** buffer) {
  if (buffer == nullptr || (dims == nullptr && rank > 0)) {
    return Invalid("xlite_buffer_from_host: null dims or buffer");
  }
  const size_t bytes = xlite_element_size(element_type);
  if (bytes == 0) {
    return Invalid(absl::StrCat("unknown element type ", element_type));
  }
  if (rank > 64) return Invalid(absl::StrCat("rank ", rank, " is too large"));
  size_t count = 1;
  for (size_t d = 0; d < rank; ++d) {
    if (dims[d] < 0) {
      return Invalid(absl::StrCat("dimension ", d, " is negative"));
    }
    const auto n = static_cast<size_t>(dims[d]);
    if (n != 0 && count > std::numeric_limits<size_t>::max() / bytes / n) {
      return Invalid("the array's size overflows");
    }
    count *= n;
  }
  if (count * bytes != size) {
    return Invalid(
        absl::StrCat("the array needs ", count * bytes, " bytes, got ", size));
  }
  if (size > 0 && data == nullptr) return Invalid("data is null");
  const xlite::Shape shape(static_cast<xlite::PrimitiveType>(element_type),
                           absl::MakeConstSpan(dims, rank));
  xlite::Literal literal(shape);
  if (literal.data().size() != size) {
    return Fail(absl::InternalError("literal size mismatch"));
  }
  if (size > 0) std::memcpy(literal.mutable_data().data(), data, size);
  if (xlite::BitWidth(shape.element_type()) < 8) {
    // The literal's form: sign-extended (signed) or zero-extended.
    for (size_t i = 0; i < count; ++i) {
      literal.SetBits(static_cast<int64_t>(i),
                      literal.GetBits(static_cast<int64_t>(i)));
    }
  }
  *buffer = xlite::api::NewBuffer(literal);
  return nullptr;
}

void xlite_buffer_destroy(XliteBuffer* buffer) { delete buffer; }

int xlite_buffer_element_type(const XliteBuffer* buffer) {
  return buffer == nullptr
             ? 0
             : static_cast<int>(buffer->literal.shape().element_type());
}

size_t xlite_buffer_rank(const XliteBuffer* buffer) {
  return buffer == nullptr ? 0 : buffer->dims.size();
}

const int64_t* xlite_buffer_dims(const XliteBuffer* buffer) {
  return buffer == nullptr ? nullptr : buffer->dims.data();
}

size_t xlite_buffer_size(const XliteBuffer* buffer) {
  return buffer == nullptr ? 0 : buffer->literal.data().size();
}

const void* xlite_buffer_data(const XliteBuffer* buffer) {
  return buffer == nullptr ? nullptr : buffer->literal.data().data();
}

XliteError* xlite_buffer_to_host(const XliteBuffer* buffer, void* data,
                                 size_t size) {
  if (buffer == nullptr || (data == nullptr && size > 0)) {
    return Invalid("xlite_buffer_to_host: null buffer or data");
  }
  const std::vector<uint8_t>& bytes = buffer->literal.data();
  if (size < bytes.size()) {
    return Invalid(absl::StrCat("the buffer holds ", bytes.size(),
                                " bytes; room for ", size));
  }
  if (!bytes.empty()) std::memcpy(data, bytes.data(), bytes.size());
  return nullptr;
}

XliteError* xlite_execute(XliteExecutable* executable,
                          XliteBuffer* const* arguments, size_t num_arguments,
                          XliteBuffer** results, size_t num_results) {
  if (executable == nullptr || (results == nullptr && num_results > 0)) {
    return Invalid("xlite_execute: null executable or results");
  }
  if (executable->replicas * executable->partitions != 1) {
    return Invalid("the module runs on several devices: xlite_execute_devices");
  }
  if (num_results != executable->result_leaves.size()) {
    return Invalid(
        absl::StrCat("the module has ", executable->result_leaves.size(),
                     " result arrays, room given for ", num_results));
  }
  absl::StatusOr<std::vector<xlite::Literal>> args =
      xlite::api::Arguments(*executable, arguments, num_arguments);
  if (!args.ok()) return Fail(args.status());
  absl::StatusOr<xlite::Literal> result =
      xlite::api::RunOne(*executable, *args);
  if (!result.ok()) return Fail(result.status());
  return Fail(xlite::api::HandOut(*result, results, num_results));
}

XliteError* xlite_execute_devices(XliteExecutable* executable,
                                  size_t num_devices,
                                  XliteBuffer* const* const* arguments,
                                  size_t num_arguments,
                                  XliteBuffer** const* results,
                                  size_t num_results) {
  if (executable == nullptr || arguments == nullptr || results == nullptr) {
    return Invalid(
        "xlite_execute_devices: null executable, arguments or results");
  }
  const int64_t devices = executable->replicas * executable->partitions;
  if (static_cast<int64_t>(num_devices) != devices) {
    return Invalid(absl::StrCat("the module runs on ", devices,
                                " devices, got ", num_devices));
  }
  if (num_results != executable->result_leaves.size()) {
    return Invalid(
        absl::StrCat("the module has ", executable->result_leaves.size(),
                     " result arrays, room given for ", num_results));
  }
  std::vector<std::vector<xlite::Literal>> per_device;
  for (size_t d = 0; d < num_devices; ++d) {
    if (results[d] == nullptr && num_results > 0) {
      return Invalid(absl::StrCat("results of device ", d, " is null"));
    }
    absl::StatusOr<std::vector<xlite::Literal>> args =
        xlite::api::Arguments(*executable, arguments[d], num_arguments);
    if (!args.ok()) {
      return Fail(absl::Status(
          args.status().code(),
          absl::StrCat("device ", d, ": ", args.status().message())));
    }
    per_device.push_back(*std::move(args));
  }
  absl::StatusOr<std::vector<xlite::Literal>> out;
  if (devices == 1) {
    absl::StatusOr<xlite::Literal> one =
        xlite::api::RunOne(*executable, per_device[0]);
    if (!one.ok()) return Fail(one.status());
    out = std::vector<xlite::Literal>();
    out->push_back(*std::move(one));
  } else if (executable->cpu != nullptr) {
    out = xlite::cpu::RunOnDevices(*executable->cpu, executable->replicas,
                                   executable->partitions, per_device);
  } else if (executable->gpu == nullptr && executable->cuda == nullptr) {
    out = xlite::EvaluateOnDevices(*executable->module, executable->replicas,
                                   executable->partitions, per_device);
  } else {
    return Fail(absl::UnimplementedError(
        "the gpu platforms run single-device modules only"));
  }
  if (!out.ok()) return Fail(out.status());
  // All or nothing: results are handed out once every device's are known.
  std::vector<std::vector<XliteBuffer*>> made(num_devices);
  for (size_t d = 0; d < num_devices; ++d) {
    made[d].resize(num_results, nullptr);
    absl::Status s =
        xlite::api::HandOut((*out)[d], made[d].data(), num_results);
    if (!s.ok()) {
      for (auto& row : made) {
        for (XliteBuffer* b : row) delete b;
      }
      return Fail(s);
    }
  }
  for (size_t d = 0; d < num_devices; ++d) {
    for (size_t i = 0; i < num_results; ++i) results[d][i] = made[d][i];
  }
  return nullptr;
}

}  // extern "C"
