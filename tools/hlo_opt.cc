// hlo-opt: reads an HLO module (text or HloModuleProto), verifies it, runs
// passes and prints the result (text or HloModuleProto). Flags follow XLA's
// hlo-opt; see ../shared/specs/cli.md.

#include <unistd.h>

#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "cpu_backend/executable.h"
#include "cpu_backend/xla_cpu_numerics.h"
#include "gpu_backend/executable.h"
#include "gpu_backend/gemm_path_variants.h"
#include "gpu_backend/gpu_pipeline.h"
#include "gpu_backend/image_writer.h"
#include "runtime/gpu_image.h"
#include "google/protobuf/text_format.h"
#include "gpu_backend/target_spec.h"
#include "hlo/analysis/verifier.h"
#include "hlo/module_io.h"
#include "hlo/proto/proto_convert.h"
#include "hlo/text/parser.h"
#include "hlo/text/printer.h"
#include "hlo/text/text_scanner.h"
#include "passes/registry.h"
#include "runtime/buffer_assignment.h"
#include "runtime/gpu_thunks.h"
#include "tools/gemm_autotuning.h"
#include "tools/tool_flags.h"

ABSL_FLAG(std::string, format, "",
          "input format: hlo, pb or pbtxt (default: from the extension; hlo "
          "for stdin)");
ABSL_FLAG(std::string, platform, "transforms",
          "transforms: only --passes run; cpu/gpu: that backend's pipeline "
          "when no --passes is given");
ABSL_FLAG(std::string, passes, "",
          "comma-separated passes to run in order; options in braces: "
          "name{key=value,...}");
ABSL_FLAG(bool, list_passes, false,
          "print the registered pass names, comma-separated, sorted");
ABSL_FLAG(std::string, stage, "hlo",
          "what to print: hlo, buffer-assignment, llvm, asm, ptx, thunks, "
          "html, dot");
ABSL_FLAG(bool, emit_proto, false, "print the module as an HloModuleProto");
ABSL_FLAG(bool, split_input_file, false,
          "split the input on lines '// -----' and handle each module");
ABSL_FLAG(std::string, o, "", "output file (default: stdout)");
ABSL_FLAG(std::string, gpu_spec, "",
          "target GPU: h100, h200, b200, gb200 or a spec file");
ABSL_FLAG(std::string, cudnn_version, "",
          "override the GPU spec's cuDNN version (X.Y.Z; 0 = no cuDNN)");
ABSL_FLAG(std::string, dump_to, "",
          "write the module before and after each pass to this directory");
ABSL_FLAG(bool, time_passes, false,
          "report each pass's wall time and change flag on stderr");
ABSL_FLAG(bool, verify_each, false, "run the verifier after every pass");
ABSL_FLAG(std::string, autotune_cache, "",
          "read/write the GEMM autotuning results in this file (gpu, "
          "--stage=thunks or executable: entries for this device skip "
          "timing; new results are written back)");
ABSL_FLAG(bool, autotune, true,
          "time GEMM candidates on the device (gpu; false: cuBLASLt's first "
          "heuristic algorithm, the cache unread)");
ABSL_FLAG(xlite::gpu::GemmBackend, gemm_backend, xlite::gpu::GemmBackend::kAuto,
          "auto|tiled|cublaslt (gpu): auto: per dot the path the cost model "
          "(or --gemm-path-cache) finds faster, a tiled GEMM fusion or "
          "cuBLASLt; tiled/cublaslt force one path");
ABSL_FLAG(std::string, gemm_path_cache, "",
          "gpu, --gemm-backend=auto: the paths measured on a device "
          "(tests/gpu/gemm_path_tune.py) for the dots this file names, "
          "instead of the cost model's");
ABSL_FLAG(std::string, gemm_path_variants, "",
          "gpu: write each dot region --gemm-backend=auto decides, compiled "
          "along each path, under this directory (for "
          "tests/gpu/gemm_path_tune.py on a device)");

namespace xlite {
namespace {

constexpr char kUsage[] =
    "usage: hlo-opt [flags] FILE|-\n"
    "Reads an HLO module, verifies it, runs passes and prints it.";

// How the result is written.
enum class Emit { kText, kProtoBinary, kProtoText };

// --gpu-spec's target (a preset name or a spec file), h100 by default.
absl::StatusOr<gpu::GpuTargetSpec> GpuSpecFromFlag() {
  const std::string name = absl::GetFlag(FLAGS_gpu_spec);
  return gpu::LoadGpuTargetSpec(name.empty() ? "h100" : name);
}

// The backend's own rewrites before buffer assignment: PrepareForCpu, or
// the GPU pipeline for --gpu-spec as the NVPTX target runs it.
absl::Status PrepareForPlatform(HloModule& module,
                                const std::string& platform) {
  if (platform == "cpu") return cpu::PrepareForCpu(module);
  absl::StatusOr<gpu::GpuTargetSpec> spec = GpuSpecFromFlag();
  if (!spec.ok()) return spec.status();
  gpu::GpuPipelineOptions options;
  options.gemm_backend = absl::GetFlag(FLAGS_gemm_backend);
  absl::StatusOr<const gpu::GemmPathCache*> paths =
      GemmPathCacheForTool(absl::GetFlag(FLAGS_gemm_path_cache));
  if (!paths.ok()) return paths.status();
  options.gemm_path_cache = *paths;
  return gpu::PrepareForGpu(module, *spec, options);
}

// --gemm-path-variants=DIR: the regions of `module` (as the GPU pipeline
// sees it) compiled along each path for --gpu-spec: for the device (PTX
// and cubins), or for the emulator with --platform=gpu-emulator.
absl::Status WriteGemmPathVariantsForTool(const HloModule& module,
                                          const std::string& dir) {
  absl::StatusOr<gpu::GpuTargetSpec> spec = GpuSpecFromFlag();
  if (!spec.ok()) return spec.status();
  const std::string platform = absl::GetFlag(FLAGS_platform);
  if (platform != "gpu" && platform != "gpu-emulator") {
    return absl::InvalidArgumentError(
        "--gemm-path-variants needs --platform=gpu or gpu-emulator");
  }
  if (!absl::GetFlag(FLAGS_passes).empty()) {
    return absl::InvalidArgumentError(
        "--gemm-path-variants takes the platform's pipeline, not --passes");
  }
  absl::StatusOr<const gpu::GemmPathCache*> cache =
      GemmPathCacheForTool(absl::GetFlag(FLAGS_gemm_path_cache));
  if (!cache.ok()) return cache.status();
  absl::StatusOr<int64_t> regions = gpu::WriteGemmPathVariants(
      module, *spec, dir, platform == "gpu", *cache);
  if (!regions.ok()) return regions.status();
  std::cerr << "note: " << *regions << " GEMM region"
            << (*regions == 1 ? "" : "s") << " written to " << dir << "\n";
  return absl::OkStatus();
}

// A backend's compile error in `filename`: "FILE:LINE:COL: error: ..." when
// the message is located, "FILE: error: ..." otherwise.
absl::Status InFile(absl::string_view filename, const absl::Status& s) {
  const absl::string_view m = s.message();
  const bool located = !m.empty() && absl::ascii_isdigit(m[0]);
  return absl::Status(s.code(),
                      absl::StrCat(filename, located ? ":" : ": error: ", m));
}

// --platform=gpu (or gpu-emulator) at --stage=executable, llvm, ptx or
// thunks: the backend's compilation for --gpu-spec (default h100), with
// the GEMMs autotuned (--autotune, --autotune-cache) where thunks are
// printed or serialized.
absl::StatusOr<std::string> CompileGpuStage(std::unique_ptr<HloModule> module,
                                            const std::string& stage,
                                            const std::string& filename) {
  const bool emulator = absl::GetFlag(FLAGS_platform) == "gpu-emulator";
  const ToolAutotuning autotuning{absl::GetFlag(FLAGS_autotune),
                                  absl::GetFlag(FLAGS_autotune_cache), filename,
                                  emulator};
  absl::StatusOr<gpu::GpuTargetSpec> spec = GpuSpecFromFlag();
  if (!spec.ok()) return spec.status();
  absl::StatusOr<const gpu::GemmPathCache*> paths =
      GemmPathCacheForTool(absl::GetFlag(FLAGS_gemm_path_cache));
  if (!paths.ok()) return paths.status();
  if (stage == "executable") {
    // The serialized executable (.xlx), from a second copy of the module
    // for the emulator's compilation.
    gpu::GpuImageOptions options;
    options.spec = *spec;
    options.run_passes = false;
    options.gemm_backend = absl::GetFlag(FLAGS_gemm_backend);
    options.gemm_path_cache = *paths;
    std::unique_ptr<HloModule> second = module->Clone();
    absl::StatusOr<runtime::GpuImage> image =
        gpu::CompileGpuImage(std::move(module), std::move(second), options);
    if (!image.ok()) return InFile(filename, image.status());
    if (absl::Status s = AutotuneGemmsForTool(image->thunks, autotuning);
        !s.ok()) {
      return s;
    }
    return runtime::SerializeGpuImage(*image);
  }
  absl::StatusOr<gpu::GpuCompileOptions> options =
      gpu::DefaultGpuCompileOptions(emulator ? gpu::GpuCodeTarget::kEmulator
                                             : gpu::GpuCodeTarget::kNvptx);
  if (!options.ok()) return options.status();
  options->spec = *spec;
  options->run_passes = false;
  options->gemm_backend = absl::GetFlag(FLAGS_gemm_backend);
  options->gemm_path_cache = *paths;
  absl::StatusOr<std::unique_ptr<gpu::GpuExecutable>> exe =
      gpu::GpuExecutable::Compile(std::move(module), *options);
  if (!exe.ok()) return InFile(filename, exe.status());
  if (stage == "thunks") {
    // The launches as run (in-place copies already left out).
    runtime::ThunkSequence thunks = (*exe)->thunks();
    if (absl::Status s = AutotuneGemmsForTool(thunks, autotuning); !s.ok()) {
      return s;
    }
    return runtime::ThunkSequenceToString(thunks);
  }
  return stage == "llvm" ? (*exe)->llvm_ir() : (*exe)->ptx();
}

// Parses, verifies and transforms one module; returns what to write or an
// error status (message already located).
absl::StatusOr<std::string> ProcessModule(const std::string& bytes,
                                          ModuleFormat format,
                                          const std::string& filename,
                                          int line_offset,
                                          const Pipeline& pipeline,
                                          const PipelineRunOptions& run,
                                          Emit emit,
                                          const std::string& stage,
                                          const std::string& platform) {
  const int64_t alignment = platform == "gpu" ? 256 : 64;
  // The platform's whole pipeline, not passes named by --passes.
  const bool run_backend_rewrites = absl::GetFlag(FLAGS_passes).empty();
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ModuleFromBytes(bytes, format, filename, line_offset);
  if (!module.ok()) return module.status();
  absl::Status status = VerifyModule(**module);
  if (!status.ok()) {
    return format == ModuleFormat::kText
               ? AddSourceExcerpt(status, bytes, line_offset)
               : status;
  }
  // The cpu backend's first rewrite, before its pipeline (Compile's
  // order), when the output is the backend's.
  const bool folded = platform == "cpu" && run_backend_rewrites;
  if (folded) {
    if (absl::Status s = cpu::RewriteForXlaCpuNumerics(**module).status();
        !s.ok()) {
      return InFile(filename, s);
    }
  }
  absl::StatusOr<bool> changed = pipeline.Run(**module, run);
  if (!changed.ok()) {
    return absl::Status(changed.status().code(),
                        absl::StrCat(filename, ": error: ",
                                     changed.status().message()));
  }
  if (const std::string dir = absl::GetFlag(FLAGS_gemm_path_variants);
      !dir.empty()) {
    if (absl::Status s = WriteGemmPathVariantsForTool(**module, dir);
        !s.ok()) {
      return InFile(filename, s);
    }
  }
  if (platform == "gpu" && (stage == "executable" || stage == "llvm" ||
                            stage == "ptx" || stage == "thunks")) {
    return CompileGpuStage(std::move(*module), stage, filename);
  }
  if (stage == "llvm" || stage == "asm") {
    // The cpu backend's compilation, after the pipeline that just ran.
    cpu::CompileOptions options;
    options.xla_cpu_numerics = !folded;
    options.run_passes = false;
    options.keep_llvm_ir = stage == "llvm";
    options.keep_asm = stage == "asm";
    absl::StatusOr<std::unique_ptr<cpu::CpuExecutable>> exe =
        cpu::CpuExecutable::Compile(std::move(*module), options);
    if (!exe.ok()) return InFile(filename, exe.status());
    return stage == "llvm" ? (*exe)->llvm_ir() : (*exe)->assembly();
  }
  if (stage == "buffer-assignment") {
    // The backend's own rewrites (copies where must-alias sets would
    // interfere, ...), then the assignment.
    absl::Status prepared = PrepareForPlatform(**module, platform);
    absl::StatusOr<runtime::BufferAssignment> assignment =
        prepared.ok() ? runtime::BufferAssignment::Build(**module, {alignment})
                      : absl::StatusOr<runtime::BufferAssignment>(prepared);
    if (!assignment.ok()) {
      return absl::Status(assignment.status().code(),
                          absl::StrCat(filename, ": error: ",
                                       assignment.status().message()));
    }
    return assignment->ToString();
  }
  if ((platform == "cpu" || platform == "gpu") && run_backend_rewrites) {
    // The HLO the backend generates code from: after its own rewrites
    // (fusion, GEMM calls on the gpu, tree reductions, copies).
    if (absl::Status s = PrepareForPlatform(**module, platform); !s.ok()) {
      return absl::Status(s.code(),
                          absl::StrCat(filename, ": error: ", s.message()));
    }
  }
  if (emit == Emit::kText) return PrintModule(**module);
  absl::StatusOr<xla::HloModuleProto> proto = ModuleToProto(**module);
  if (!proto.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(filename, ": error: ", proto.status().message()));
  }
  if (emit == Emit::kProtoBinary) return SerializeDeterministic(*proto);
  std::string text;
  google::protobuf::TextFormat::PrintToString(*proto, &text);
  return text;
}

// Checks --stage against --platform; kExitOk or the exit code.
int CheckStageAndPlatform(const std::string& stage,
                          const std::string& platform, bool* assign_buffers) {
  // Buffer assignment needs a backend's pipeline and alignment.
  *assign_buffers = (stage == "buffer-assignment" &&
                     (platform == "cpu" || platform == "gpu")) ||
                    ((stage == "llvm" || stage == "asm") && platform == "cpu") ||
                    ((stage == "llvm" || stage == "ptx" ||
                      stage == "thunks" || stage == "executable") &&
                     platform == "gpu");
  if (stage != "hlo" && !*assign_buffers) {
    if (stage == "buffer-assignment") {
      std::cerr << "error: --stage=buffer-assignment needs --platform=cpu "
                   "or --platform=gpu\n";
    } else if (stage == "llvm") {
      std::cerr << "error: --stage=llvm needs --platform=cpu or gpu\n";
    } else if (stage == "asm") {
      std::cerr << "error: --stage=asm needs --platform=cpu\n";
    } else if (stage == "ptx") {
      std::cerr << "error: --stage=ptx needs --platform=gpu\n";
    } else if (stage == "executable" || stage == "thunks") {
      std::cerr << "error: --stage=" << stage << " needs --platform=gpu\n";
    } else if (stage == "html" || stage == "dot") {
      std::cerr << "error: --stage=" << stage
                << " is not in this build of xlite yet; --stage=hlo, "
                   "buffer-assignment (cpu, gpu), llvm (cpu, gpu), asm (cpu), "
                   "ptx and thunks (gpu) are available\n";
    } else {
      std::cerr
          << "error: unknown --stage=" << stage
          << "; expected hlo, buffer-assignment, llvm, asm, ptx, thunks, "
             "html or dot\n";
    }
    return kExitUsage;
  }
  if (platform != "transforms" && platform != "cpu" && platform != "gpu") {
    std::cerr << "error: unknown --platform=" << platform
              << "; expected transforms, cpu, gpu or gpu-emulator\n";
    return kExitUsage;
  }
  return kExitOk;
}

// Target facts for gated passes; kExitOk or the exit code.
int TargetDefaults(const std::string& platform,
                   std::map<std::string, std::string>* target_defaults) {
  // Target facts for gated passes: --gpu-spec, then --cudnn-version.
  // Without --gpu-spec, a local GPU (and its cuDNN) describes the target;
  // with neither, gated passes see "no cuDNN" and take portable paths.
  // (The driver is only asked when a GPU pipeline or a gated pass runs.)
  const bool gated = platform == "gpu" ||
                     absl::StrContains(absl::GetFlag(FLAGS_passes),
                                       "block-scaling-rewriter");
  absl::StatusOr<gpu::GpuTargetSpec> spec =
      !absl::GetFlag(FLAGS_gpu_spec).empty()
          ? gpu::LoadGpuTargetSpec(absl::GetFlag(FLAGS_gpu_spec))
      : gated ? gpu::QueryLocalGpu()
              : absl::StatusOr<gpu::GpuTargetSpec>(
                    absl::NotFoundError("no GPU target"));
  if (!spec.ok() && !absl::GetFlag(FLAGS_gpu_spec).empty()) {
    std::cerr << "error: --gpu-spec: " << spec.status().message() << "\n";
    return kExitUsage;
  }
  if (spec.ok()) {
    (*target_defaults)["cudnn_version"] = spec->cudnn.ToString();
    (*target_defaults)["compute_capability"] =
        absl::StrCat(spec->compute_capability_major, ".",
                     spec->compute_capability_minor);
  }
  if (!absl::GetFlag(FLAGS_cudnn_version).empty()) {
    absl::StatusOr<gpu::CudnnVersion> v =
        gpu::ParseCudnnVersion(absl::GetFlag(FLAGS_cudnn_version));
    if (!v.ok()) {
      std::cerr << "error: --cudnn-version: " << v.status().message() << "\n";
      return kExitUsage;
    }
    (*target_defaults)["cudnn_version"] = v->ToString();
  }
  return kExitOk;
}

int Main(int argc, char** argv) {
  std::vector<std::string> args =
      ParseToolFlags(argc, argv, kUsage, "tools/hlo_opt");
  const PassRegistry& registry = PassRegistry::Global();
  if (absl::GetFlag(FLAGS_list_passes)) {
    std::cout << absl::StrJoin(registry.Names(), ",") << "\n";
    return kExitOk;
  }
  if (args.size() != 1) {
    std::cerr << (args.empty() ? "error: no input file (use - for stdin)\n"
                               : "error: more than one input file\n")
              << kUsage << "\n";
    return kExitUsage;
  }
  const std::string& path = args[0];
  const std::string stage = absl::GetFlag(FLAGS_stage);
  // gpu-emulator: the gpu pipeline and kernels as the emulator compiles
  // them (--stage=llvm prints the host-target kernels); no PTX or image.
  std::string platform = absl::GetFlag(FLAGS_platform);
  if (platform == "gpu-emulator") {
    if (stage == "ptx" || stage == "executable") {
      std::cerr << "error: --stage=" << stage
                << " needs --platform=gpu (the emulator runs host code)\n";
      return kExitUsage;
    }
    platform = "gpu";
  }
  bool assign_buffers = false;
  if (int code = CheckStageAndPlatform(stage, platform, &assign_buffers);
      code != kExitOk) {
    return code;
  }
  ModuleFormat format = ModuleFormatFromPath(path);
  if (!absl::GetFlag(FLAGS_format).empty()) {
    absl::StatusOr<ModuleFormat> named =
        ModuleFormatFromName(absl::GetFlag(FLAGS_format));
    if (!named.ok()) {
      std::cerr << "error: --format: " << named.status().message() << "\n";
      return kExitUsage;
    }
    format = *named;
  }
  const std::string out_path = absl::GetFlag(FLAGS_o);
  const bool to_stdout = out_path.empty() || out_path == "-";
  Emit emit = Emit::kText;
  if (absl::GetFlag(FLAGS_emit_proto)) {
    // Binary to a file or pipe; protobuf text where a person reads it (a
    // terminal) or where the file name asks for it (.pbtxt).
    const bool text =
        to_stdout ? isatty(STDOUT_FILENO) != 0
                  : ModuleFormatFromPath(out_path) == ModuleFormat::kProtoText;
    emit = text ? Emit::kProtoText : Emit::kProtoBinary;
  }
  std::map<std::string, std::string> target_defaults;
  if (int code = TargetDefaults(platform, &target_defaults); code != kExitOk) {
    return code;
  }
  absl::StatusOr<Pipeline> pipeline = registry.BuildPipeline(
      absl::GetFlag(FLAGS_passes), platform, target_defaults);
  if (!pipeline.ok()) {
    std::cerr << "error: " << pipeline.status().message() << "\n";
    return kExitUsage;
  }
  absl::StatusOr<std::string> bytes = ReadFileBytes(path);
  if (!bytes.ok()) {
    std::cerr << bytes.status().message() << "\n";
    return kExitInputError;
  }
  const std::string filename = path == "-" ? "<stdin>" : path;
  std::vector<SplitPiece> pieces;
  if (absl::GetFlag(FLAGS_split_input_file) && format == ModuleFormat::kText) {
    pieces = SplitInputFile(*bytes);
  } else {
    pieces.push_back({*bytes, 0});
  }
  if (stage == "executable" && (to_stdout || pieces.size() > 1)) {
    std::cerr << "error: --stage=executable writes one binary .xlx file; "
                 "give -o FILE.xlx and one module\n";
    return kExitUsage;
  }
  if (assign_buffers && emit != Emit::kText) {
    std::cerr << "error: --stage=" << stage << " prints text; drop "
                 "--emit-proto\n";
    return kExitUsage;
  }
  if (emit != Emit::kText && pieces.size() > 1) {
    std::cerr << "error: --emit-proto writes one module, but "
                 "--split-input-file found "
              << pieces.size() << "\n";
    return kExitUsage;
  }
  std::string output;
  int exit_code = kExitOk;
  for (size_t i = 0; i < pieces.size(); ++i) {
    if (i > 0) output += "// -----\n";
    PipelineRunOptions run;
    run.verify_each = absl::GetFlag(FLAGS_verify_each);
    run.timing = absl::GetFlag(FLAGS_time_passes) ? &std::cerr : nullptr;
    run.dump_to = absl::GetFlag(FLAGS_dump_to);
    run.module_index = static_cast<int>(i);
    absl::StatusOr<std::string> printed =
        ProcessModule(pieces[i].text, format, filename, pieces[i].line_offset,
                      *pipeline, run, emit, stage, platform);
    if (!printed.ok()) {
      std::cerr << printed.status().message() << "\n";
      exit_code = kExitInputError;
      continue;
    }
    output += *printed;
  }
  if (to_stdout) {
    std::cout << output;
  } else {
    std::ofstream out(out_path, std::ios::binary);
    out << output;
    if (!out) {
      std::cerr << out_path << ": error: cannot write output\n";
      return kExitInputError;
    }
  }
  return exit_code;
}

}  // namespace
}  // namespace xlite

int main(int argc, char** argv) { return xlite::Main(argc, argv); }
