#include "gpu_backend/image_writer.h"

#include <functional>

#include "absl/strings/str_cat.h"
#include "gpu_backend/ptx_compiler.h"

namespace xlite::gpu {
namespace {

absl::Status AddOutputs(const GpuExecutable& exe, runtime::GpuImage& image) {
  const HloInstruction* root =
      exe.module().entry_computation()->root_instruction();
  ShapeIndex at;
  std::function<absl::Status(const Shape&)> walk =
      [&](const Shape& s) -> absl::Status {
    if (s.IsTuple()) {
      for (int64_t i = 0; i < s.tuple_shapes_size(); ++i) {
        at.push_back(i);
        if (absl::Status st = walk(s.tuple_shapes(i)); !st.ok()) return st;
        at.pop_back();
      }
      return absl::OkStatus();
    }
    if (!s.IsArray()) return absl::OkStatus();
    absl::StatusOr<runtime::Slice> slice = exe.assignment().GetSlice(root, at);
    if (!slice.ok()) return slice.status();
    image.outputs.push_back({at, *slice});
    return absl::OkStatus();
  };
  return walk(root->shape());
}

}  // namespace

absl::StatusOr<runtime::GpuImage> ImageFromExecutable(
    const GpuExecutable& exe, const GpuTargetSpec& spec) {
  runtime::GpuImage image;
  const HloComputation* entry = exe.module().entry_computation();
  image.module_name = exe.module().name();
  image.spec_name = spec.name;
  image.sm_name = spec.SmName();
  for (const HloInstruction* p : entry->parameter_instructions()) {
    image.parameter_shapes.push_back(p->shape());
  }
  image.result_shape = entry->root_instruction()->shape();
  for (const runtime::Allocation& a : exe.assignment().allocations()) {
    runtime::GpuImageAllocation out;
    out.kind = a.kind;
    out.size = a.size;
    out.parameter_number = a.parameter_number;
    out.parameter_index = a.parameter_index;
    if (a.kind == runtime::Allocation::Kind::kConstant) {
      const Literal& literal = *a.constant->attrs().literal;
      if (literal.is_unknown()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "constant %", a.constant->name(), " has an elided value"));
      }
      const std::vector<uint8_t> bytes =
          literal.PhysicalData(a.constant->shape());
      out.constant_bytes.assign(bytes.begin(), bytes.end());
    }
    image.allocations.push_back(std::move(out));
  }
  if (absl::Status s = AddOutputs(exe, image); !s.ok()) return s;
  image.thunks = exe.thunks();
  image.ptx = exe.ptx();
  if (!exe.cubin().empty()) image.cubins[spec.SmName()] = exe.cubin();
  if (exe.ptx().empty()) image.emulator_ir = exe.llvm_ir();
  return image;
}

absl::StatusOr<runtime::GpuImage> CompileGpuImage(
    const HloModule& module, const GpuImageOptions& options) {
  return CompileGpuImage(module.Clone(), module.Clone(), options);
}

absl::StatusOr<runtime::GpuImage> CompileGpuImage(
    std::unique_ptr<HloModule> for_nvptx,
    std::unique_ptr<HloModule> for_emulator, const GpuImageOptions& options) {
  GpuCompileOptions compile;
  compile.spec = options.spec;
  compile.run_passes = options.run_passes;
  compile.gemm_backend = options.gemm_backend;
  compile.tiled_gemm_config = options.tiled_gemm_config;
  compile.gemm_path_cache = options.gemm_path_cache;
  const bool emulator = options.emulator_ir || !options.nvptx;
  if (emulator && for_emulator == nullptr) {
    return absl::InvalidArgumentError("no module for the emulator build");
  }
  if (!options.nvptx) {
    compile.target = GpuCodeTarget::kEmulator;
    absl::StatusOr<std::unique_ptr<GpuExecutable>> exe =
        GpuExecutable::Compile(std::move(for_emulator), compile);
    if (!exe.ok()) return exe.status();
    return ImageFromExecutable(**exe, options.spec);
  }
  compile.target = GpuCodeTarget::kNvptx;
  compile.assemble = options.cubins && FindPtxas().ok();
  absl::StatusOr<std::unique_ptr<GpuExecutable>> exe =
      GpuExecutable::Compile(std::move(for_nvptx), compile);
  if (!exe.ok()) return exe.status();
  absl::StatusOr<runtime::GpuImage> image =
      ImageFromExecutable(**exe, options.spec);
  if (!image.ok() || !emulator) return image;
  // The emulator build takes the tilings ptxas left the NVPTX build.
  compile.target = GpuCodeTarget::kEmulator;
  compile.assemble = false;
  compile.tiled_gemm_spilled = (*exe)->tiled_gemm_spilled();
  absl::StatusOr<std::unique_ptr<GpuExecutable>> emulated =
      GpuExecutable::Compile(std::move(for_emulator), compile);
  if (!emulated.ok()) return emulated.status();
  if (runtime::ThunkSequenceToString((*emulated)->thunks()) !=
      runtime::ThunkSequenceToString(image->thunks)) {
    return absl::InternalError(
        "the emulator and NVPTX compilations gave different thunks; the "
        "image cannot carry both");
  }
  image->emulator_ir = (*emulated)->llvm_ir();
  return image;
}

}  // namespace xlite::gpu
