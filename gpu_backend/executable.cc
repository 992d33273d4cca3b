#include "gpu_backend/executable.h"

#include <cstdlib>
#include <cstring>
#include <functional>

#include "absl/strings/str_cat.h"
#include "gpu_backend/emulator/emulator_device.h"
#include "gpu_backend/emulator/emulator_target.h"
#include "gpu_backend/emulator/host_jit.h"
#include "gpu_backend/gpu_pipeline.h"
#include "gpu_backend/nvptx_target.h"
#include "gpu_backend/ptx_compiler.h"
#include "gpu_backend/thunk_emitter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/raw_ostream.h"

namespace xlite::gpu {
namespace {

constexpr int64_t kAlignment = 256;

struct AlignedFree {
  void operator()(uint8_t* p) const { std::free(p); }
};
using DeviceBuffer = std::unique_ptr<uint8_t, AlignedFree>;

DeviceBuffer AllocateZeroed(int64_t size) {
  const int64_t rounded =
      ((size > 0 ? size : 1) + kAlignment - 1) / kAlignment * kAlignment;
  auto* p = static_cast<uint8_t*>(std::aligned_alloc(kAlignment, rounded));
  std::memset(p, 0, rounded);
  return DeviceBuffer(p);
}

void CollectKernels(const runtime::ThunkSequence& thunks,
                    std::vector<std::string>& names) {
  for (const runtime::Thunk& t : thunks) {
    if (t.kind == runtime::Thunk::Kind::kKernel) names.push_back(t.kernel);
    for (const auto& child : t.children) CollectKernels(child, names);
  }
}

const Literal* LeafOf(const Literal& literal, const ShapeIndex& index) {
  const Literal* at = &literal;
  for (int64_t i : index) {
    if (!at->shape().IsTuple() ||
        i >= static_cast<int64_t>(at->tuple_elements().size())) {
      return nullptr;
    }
    at = &at->tuple_elements()[i];
  }
  return at;
}

std::string PrintModule(const llvm::Module& module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, nullptr);
  return text;
}

}  // namespace

absl::StatusOr<GpuCompileOptions> DefaultGpuCompileOptions(
    GpuCodeTarget target) {
  absl::StatusOr<GpuTargetSpec> spec = LoadGpuTargetSpec("h100");
  if (!spec.ok()) return spec.status();
  GpuCompileOptions options;
  options.spec = *std::move(spec);
  options.target = target;
  return options;
}

GpuExecutable::~GpuExecutable() = default;

namespace {

// The tiled GEMM fusions whose kernels ptxas reports spilling, or whose
// wgmma-s it serialized (each waited for before the next), and the tiling
// each had.
std::vector<std::pair<std::string, TiledGemmConfig>> SpillingTiledGemms(
    const GpuExecutable& exe) {
  std::vector<std::pair<std::string, TiledGemmConfig>> out;
  for (const KernelResources& r : exe.kernel_resources()) {
    if (r.spill_bytes == 0 && r.wgmma_serialized.empty()) continue;
    for (const HloComputation* c : exe.module().computations()) {
      for (const HloInstruction* h : c->instructions()) {
        if (h->name() != r.instruction) continue;
        if (std::optional<TiledGemmConfig> config = TiledGemmConfigOf(*h)) {
          out.emplace_back(r.instruction, *config);
        }
      }
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<std::unique_ptr<GpuExecutable>> GpuExecutable::Compile(
    std::unique_ptr<HloModule> module, const GpuCompileOptions& options) {
  // Only ptxas knows registers: when it runs and a tiled GEMM kernel the
  // heuristic tiled spills (or has its wgmma-s serialized), compile again
  // with that tiling ruled out for
  // that fusion (a few times at most; the heuristic keeps its last
  // proposal rather than none).
  if (options.target != GpuCodeTarget::kNvptx || !options.assemble ||
      options.tiled_gemm_config.has_value()) {
    return CompileOnce(std::move(module), options);
  }
  GpuCompileOptions attempt = options;
  for (int tries = 0;; ++tries) {
    absl::StatusOr<std::unique_ptr<GpuExecutable>> exe =
        CompileOnce(module->Clone(), attempt);
    if (!exe.ok()) return exe;
    (*exe)->tiled_gemm_spilled_ = attempt.tiled_gemm_spilled;
    if (tries == 3) return exe;
    const auto spilling = SpillingTiledGemms(**exe);
    if (spilling.empty()) return exe;
    for (const auto& [fusion, config] : spilling) {
      attempt.tiled_gemm_spilled[fusion].push_back(config);
    }
  }
}

absl::StatusOr<std::unique_ptr<GpuExecutable>> GpuExecutable::CompileOnce(
    std::unique_ptr<HloModule> module, const GpuCompileOptions& options) {
  auto exe = std::unique_ptr<GpuExecutable>(new GpuExecutable());
  exe->tiled_gemm_spilled_ = options.tiled_gemm_spilled;
  if (options.run_passes) {
    if (absl::Status s = RunGpuSimplification(*module, options.spec); !s.ok()) {
      return s;
    }
  }
  GpuPipelineOptions pipeline;
  pipeline.fuse = options.fuse;
  pipeline.expand_gemm_calls = options.expand_gemm_calls;
  pipeline.gemm_backend = options.gemm_backend;
  pipeline.tiled_gemm_config = options.tiled_gemm_config;
  pipeline.gemm_path_cache = options.gemm_path_cache;
  pipeline.tiled_gemm_spilled = options.tiled_gemm_spilled;
  // A device's cuDNN plans may want scratch; 32 MiB (XLA's cuBLAS
  // workspace on Hopper and Blackwell) for each call. The emulator needs
  // none.
  if (options.target == GpuCodeTarget::kNvptx) {
    pipeline.cudnn_workspace_bytes = int64_t{32} << 20;
  }
  if (absl::Status s = PrepareForGpu(*module, options.spec, pipeline);
      !s.ok()) {
    return s;
  }
  absl::StatusOr<runtime::BufferAssignment> assignment =
      runtime::BufferAssignment::Build(*module, {/*alignment=*/kAlignment});
  if (!assignment.ok()) return assignment.status();
  exe->assignment_ =
      std::make_unique<runtime::BufferAssignment>(*std::move(assignment));
  exe->module_ = std::move(module);

  auto context = std::make_unique<llvm::LLVMContext>();
  auto kernels = std::make_unique<llvm::Module>(exe->module_->name(), *context);
  if (options.target == GpuCodeTarget::kNvptx) {
    NvptxTarget target;
    target.ConfigureModule(*kernels);
    absl::StatusOr<runtime::ThunkSequence> thunks =
        EmitThunks(*exe->module_, *exe->assignment_, target, *kernels);
    if (!thunks.ok()) return thunks.status();
    exe->thunks_ = *std::move(thunks);
    absl::StatusOr<std::string> ptx =
        CompileToPtx(*kernels, PtxTargetFor(options.spec));
    if (!ptx.ok()) return ptx.status();
    exe->ptx_ = RetargetTcgen05Ptx(*std::move(ptx), options.spec);
    exe->llvm_ir_ = PrintModule(*kernels);
    // Shared and tensor memory from the PTX first, so that a kernel too
    // big is refused by name before ptxas fails on it.
    exe->kernel_resources_ = CollectKernelResources(exe->thunks_, exe->ptx_);
    if (absl::Status s =
            CheckKernelResources(exe->kernel_resources_, options.spec);
        !s.ok()) {
      return s;
    }
    if (options.assemble) {
      std::string usage;
      absl::StatusOr<std::string> cubin =
          AssembleWithPtxas(exe->ptx_, CubinArchFor(options.spec), &usage);
      if (!cubin.ok()) return cubin.status();
      exe->cubin_ = *std::move(cubin);
      // ptxas's own figures, registers included.
      exe->kernel_resources_ =
          CollectKernelResources(exe->thunks_, exe->ptx_, usage);
      if (absl::Status s =
              CheckKernelResources(exe->kernel_resources_, options.spec);
          !s.ok()) {
        return s;
      }
    }
    return exe;
  }
  // By reference: on failure the module must go before its context.
  if (absl::Status s = exe->BuildForEmulator(context, kernels); !s.ok()) {
    return s;
  }
  // The emulator runs what the spec's GPU could: the same limits.
  exe->kernel_resources_ = CollectKernelResources(exe->thunks_);
  if (absl::Status s =
          CheckKernelResources(exe->kernel_resources_, options.spec);
      !s.ok()) {
    return s;
  }
  return exe;
}

absl::Status GpuExecutable::BuildForEmulator(
    std::unique_ptr<llvm::LLVMContext>& context,
    std::unique_ptr<llvm::Module>& kernels) {
  absl::StatusOr<std::unique_ptr<emulator::HostJit>> jit =
      emulator::HostJit::Create();
  if (!jit.ok()) return jit.status();
  jit_ = *std::move(jit);
  emulator::EmulatorTarget target(jit_->triple(), jit_->data_layout());
  target.ConfigureModule(*kernels);
  absl::StatusOr<runtime::ThunkSequence> thunks =
      EmitThunks(*module_, *assignment_, target, *kernels);
  if (!thunks.ok()) return thunks.status();
  thunks_ = *std::move(thunks);
  emulator::OptimizeForHost(*kernels);
  llvm_ir_ = PrintModule(*kernels);
  if (absl::Status s = jit_->AddModule(std::move(context), std::move(kernels));
      !s.ok()) {
    return s;
  }
  std::vector<std::string> names;
  CollectKernels(thunks_, names);
  absl::flat_hash_map<std::string, emulator::KernelEntry> entries;
  for (const std::string& name : names) {
    absl::StatusOr<void*> entry =
        jit_->Lookup(emulator::EmulatorTarget::EntryName(name));
    if (!entry.ok()) return entry.status();
    entries[name] = reinterpret_cast<emulator::KernelEntry>(*entry);
  }
  device_ = std::make_unique<emulator::EmulatorDevice>(std::move(entries));
  return absl::OkStatus();
}

absl::StatusOr<Literal> GpuExecutable::Run(
    absl::Span<const Literal> arguments, runtime::ThunkProfile* profile) const {
  if (device_ == nullptr) {
    return absl::FailedPreconditionError(
        "this GPU executable was compiled for NVPTX; running it needs a CUDA "
        "device, which this runtime does not drive yet");
  }
  const HloComputation* entry = module_->entry_computation();
  const auto& params = entry->parameter_instructions();
  if (arguments.size() != params.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the module takes ", params.size(), " arguments, got ",
                     arguments.size()));
  }
  const auto& allocations = assignment_->allocations();
  std::vector<DeviceBuffer> owned;
  std::vector<uint8_t*> bases(allocations.size(), nullptr);
  for (size_t i = 0; i < allocations.size(); ++i) {
    const runtime::Allocation& a = allocations[i];
    owned.push_back(AllocateZeroed(a.size));
    bases[i] = owned.back().get();
    std::vector<uint8_t> bytes;
    if (a.kind == runtime::Allocation::Kind::kConstant) {
      const Literal& literal = *a.constant->attrs().literal;
      if (literal.is_unknown()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "constant %", a.constant->name(), " has an elided value"));
      }
      bytes = literal.PhysicalData(a.constant->shape());
    } else if (a.kind == runtime::Allocation::Kind::kParameter) {
      const HloInstruction* param = params[a.parameter_number];
      const Literal* leaf =
          LeafOf(arguments[a.parameter_number], a.parameter_index);
      const Shape* shape = param->shape().Subshape(a.parameter_index);
      if (leaf == nullptr || shape == nullptr || leaf->shape().IsTuple() ||
          leaf->shape().dimensions() != shape->dimensions() ||
          leaf->shape().element_type() != shape->element_type() ||
          leaf->is_unknown()) {
        return absl::InvalidArgumentError(
            absl::StrCat("argument ", a.parameter_number,
                         " does not have the shape of %", param->name()));
      }
      bytes = leaf->PhysicalData(*shape);
    }
    if (!bytes.empty()) {
      std::memcpy(bases[i], bytes.data(),
                  std::min<int64_t>(bytes.size(), a.size));
    }
  }
  if (absl::Status s = device_->Run(thunks_, bases, profile); !s.ok()) {
    return s;
  }
  const HloInstruction* root = entry->root_instruction();
  Literal result(root->shape());
  std::function<absl::Status(const Shape&, ShapeIndex&)> read =
      [&](const Shape& s, ShapeIndex& at) -> absl::Status {
    if (s.IsTuple()) {
      for (int64_t i = 0; i < s.tuple_shapes_size(); ++i) {
        at.push_back(i);
        if (absl::Status st = read(s.tuple_shapes(i), at); !st.ok()) return st;
        at.pop_back();
      }
      return absl::OkStatus();
    }
    if (!s.IsArray()) return absl::OkStatus();
    absl::StatusOr<runtime::Slice> slice = assignment_->GetSlice(root, at);
    if (!slice.ok()) return slice.status();
    Literal* leaf = const_cast<Literal*>(LeafOf(result, at));
    leaf->SetFromPhysicalData(
        s, absl::MakeConstSpan(bases[slice->allocation] + slice->offset,
                               slice->size));
    return absl::OkStatus();
  };
  ShapeIndex start;
  if (absl::Status s = read(root->shape(), start); !s.ok()) return s;
  return result;
}

}  // namespace xlite::gpu
