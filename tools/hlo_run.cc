// hlo-run: runs an HLO module (text, HloModuleProto or HloSnapshot) on
// given or generated arguments and prints, writes or compares the results.
// Flags follow XLA's run_hlo_module; see ../shared/specs/cli.md.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>

#include "absl/flags/flag.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cpu_backend/executable.h"
#include "gpu_backend/emulator/emulator_image_device.h"
#include "gpu_backend/executable.h"
#include "runtime/cuda/cuda_device.h"
#include "tools/gemm_autotuning.h"
#include "tools/xlx_run.h"
#include "cpu_backend/multi_device.h"
#include "cpu_backend/profile_report.h"
#include "gpu_backend/emulator/emulator_image_device.h"
#include "gpu_backend/executable.h"
#include "hlo/analysis/verifier.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/module_io.h"
#include "runtime/cuda/cuda_device.h"
#include "runtime/literal_io.h"
#include "runtime/thunk_profile.h"
#include "tools/gpu_profile_output.h"
#include "tools/tool_flags.h"
#include "tools/xlx_run.h"

ABSL_FLAG(std::string, platform, "",
          "interpreter, cpu, gpu or gpu-emulator (default: cpu); the "
          "interpreter flushes f32/f64 denormals as XLA:CPU and the cpu "
          "platform do, unless compared with a gpu platform");
ABSL_FLAG(std::string, reference_platform, "none",
          "run also on this platform and compare (none: no comparison)");
ABSL_FLAG(std::vector<std::string>, input, {},
          "one per entry parameter, in order: .npy, .npz (one array per "
          "parameter) or a text file with one HLO literal");
ABSL_FLAG(int64_t, random_seed, 42,
          "seed for generated arguments when no --input is given");
ABSL_FLAG(int64_t, replicas, 0,
          "replicas to run (default: the module's replica_count)");
ABSL_FLAG(int64_t, iterations, 1, "run N times; report min/median time");
ABSL_FLAG(bool, print_literals, false,
          "print each result as an HLO literal on stdout");
ABSL_FLAG(std::string, output, "", "write the results as .npy files here");
ABSL_FLAG(double, abs_error_bound, 1e-3, "absolute error bound");
ABSL_FLAG(double, rel_error_bound, 1e-3, "relative error bound");
ABSL_FLAG(bool, run_passes, true, "run the platform's pipeline first");
ABSL_FLAG(std::string, gpu_spec, "h100",
          "gpu-emulator: the GPU the pipeline compiles for (a preset name "
          "or a spec file)");
ABSL_FLAG(bool, cache, true,
          "use the compiled-module cache (in memory, and on disk under "
          "$XLITE_CACHE_DIR, else $XDG_CACHE_HOME/xlite, else "
          "$HOME/.cache/xlite)");
ABSL_FLAG(bool, profile, false,
          "per kernel / library call: time, bytes, FLOPs, achieved GB/s and "
          "FLOP/s vs the target's peak, on stderr (cpu: the host's measured "
          "peak; gpu, gpu-emulator: the GPU spec's data-sheet peaks, sorted "
          "by time; the emulator's times are the host's)");
ABSL_FLAG(std::string, profile_json, "",
          "write the --profile report as JSON to this file; on gpu and "
          "gpu-emulator also its roofline chart (SVG) beside it: FILE with "
          ".json replaced by .svg, else FILE.svg");
ABSL_FLAG(std::string, autotune_cache, "",
          "read/write the GEMM autotuning results in this file (gpu: entries "
          "for this device skip timing; new results are written back)");
ABSL_FLAG(bool, autotune, true,
          "time GEMM candidates on the device before running a .xlx (gpu; "
          "false: cuBLASLt's first heuristic algorithm, the cache unread)");
ABSL_FLAG(xlite::gpu::GemmBackend, gemm_backend, xlite::gpu::GemmBackend::kAuto,
          "auto|tiled|cublaslt (gpu-emulator): auto: per dot the path the "
          "cost model (or --gemm-path-cache) finds faster, a tiled GEMM "
          "fusion or cuBLASLt; tiled/cublaslt force one path");
ABSL_FLAG(std::string, gemm_path_cache, "",
          "gpu-emulator, --gemm-backend=auto: the paths measured on a device "
          "for the dots this file names, instead of the cost model's");

namespace xlite {
namespace {

constexpr char kUsage[] =
    "usage: hlo-run [flags] FILE\n"
    "Runs an HLO module (text, HloModuleProto or HloSnapshot) on given or "
    "generated arguments.";

// "f32[2,2] {{1, 2}, {3, 4}}": shape and value on one line (cli.md).
std::string FormatLiteral(const Literal& l) {
  const Shape& shape = l.shape();
  if (shape.IsTuple()) {
    std::vector<std::string> parts;
    for (const Literal& e : l.tuple_elements())
      parts.push_back(FormatLiteral(e));
    return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
  }
  std::string out = shape.ToString(false);
  if (!shape.IsArray()) return out;
  out += ' ';
  const int64_t rank = shape.rank();
  if (rank == 0) return out + l.ElementToString(0);
  int64_t linear = 0;
  std::function<void(int64_t)> print = [&](int64_t depth) {
    if (depth == rank) {
      out += l.ElementToString(linear++, /*pred_as_digit=*/true);
      return;
    }
    out += '{';
    for (int64_t i = 0; i < shape.dimensions(depth); ++i) {
      if (i > 0) out += ", ";
      print(depth + 1);
    }
    out += '}';
  };
  print(0);
  return out;
}

// The leaves of a (possibly tuple) literal, in order.
void Flatten(const Literal& l, std::vector<const Literal*>* out) {
  if (l.shape().IsTuple()) {
    for (const Literal& e : l.tuple_elements()) Flatten(e, out);
  } else {
    out->push_back(&l);
  }
}

// Compares two results leaf by leaf; returns the worst mismatch or "".
std::string Compare(const Literal& got, const Literal& want, double abs_bound,
                    double rel_bound) {
  std::vector<const Literal*> a, b;
  Flatten(got, &a);
  Flatten(want, &b);
  if (a.size() != b.size()) return "the results have different tuple shapes";
  for (size_t k = 0; k < a.size(); ++k) {
    if (!ShapesCompatible(a[k]->shape(), b[k]->shape())) {
      return absl::StrCat("result ", k, " has shape ",
                          a[k]->shape().ToString(false), ", expected ",
                          b[k]->shape().ToString(false));
    }
    const PrimitiveType type = a[k]->shape().element_type();
    double worst = -1;
    int64_t worst_at = -1;
    for (int64_t i = 0; i < a[k]->element_count(); ++i) {
      if (IsFloatingPoint(type) || IsComplex(type)) {
        const auto x = a[k]->GetAsComplex(i), y = b[k]->GetAsComplex(i);
        const bool both_nan = (std::isnan(x.real()) && std::isnan(y.real()));
        if (both_nan || x == y) continue;
        const double err = std::abs(x - y);
        const double rel = err / std::max(std::abs(y), 1e-30);
        if (err > abs_bound && rel > rel_bound) {
          if (err > worst) {
            worst = err;
            worst_at = i;
          }
        }
      } else if (a[k]->GetBits(i) != b[k]->GetBits(i)) {
        worst_at = i;
        break;
      }
    }
    if (worst_at >= 0) {
      return absl::StrCat("result ", k, " differs at element ", worst_at, ": ",
                          a[k]->ElementToString(worst_at), " vs ",
                          b[k]->ElementToString(worst_at));
    }
  }
  return "";
}

// The gpu emulator's compile options for --gpu-spec and --run_passes.
absl::StatusOr<gpu::GpuCompileOptions> GpuEmulatorOptions() {
  absl::StatusOr<gpu::GpuTargetSpec> spec =
      gpu::LoadGpuTargetSpec(absl::GetFlag(FLAGS_gpu_spec));
  if (!spec.ok()) return spec.status();
  gpu::GpuCompileOptions options;
  options.spec = *std::move(spec);
  options.target = gpu::GpuCodeTarget::kEmulator;
  options.run_passes = absl::GetFlag(FLAGS_run_passes);
  options.gemm_backend = absl::GetFlag(FLAGS_gemm_backend);
  absl::StatusOr<const gpu::GemmPathCache*> paths =
      GemmPathCacheForTool(absl::GetFlag(FLAGS_gemm_path_cache));
  if (!paths.ok()) return paths.status();
  options.gemm_path_cache = *paths;
  return options;
}

// --autotune and --autotune-cache for `path` on `platform`.
ToolAutotuning Autotuning(const std::string& path,
                          const std::string& platform) {
  return {absl::GetFlag(FLAGS_autotune), absl::GetFlag(FLAGS_autotune_cache),
          path, platform != "gpu"};
}

// Checks --platform and --reference_platform; kExitOk or the exit code.
int CheckPlatforms(std::string* platform) {
  *platform = absl::GetFlag(FLAGS_platform);
  if (platform->empty()) *platform = "cpu";
  for (const std::string& p :
       {*platform, absl::GetFlag(FLAGS_reference_platform)}) {
    if (p == "none" && &p != platform) continue;
    if (p != "interpreter" && p != "cpu" && p != "gpu" &&
        p != "gpu-emulator") {
      std::cerr << "error: unknown platform '" << p
                << "'; expected interpreter, cpu, gpu or gpu-emulator\n";
      return kExitUsage;
    }
    if (p == "gpu") {
      std::cerr << "error: --platform=gpu runs a compiled .xlx (hlo-opt "
                   "--platform=gpu --stage=executable -o m.xlx); for HLO use "
                   "--platform=gpu-emulator, cpu or interpreter\n";
      return kExitUsage;
    }
    if (p == "gpu-emulator") {
      if (absl::Status s = GpuEmulatorOptions().status(); !s.ok()) {
        std::cerr << "error: --gpu-spec: " << s.message() << "\n";
        return kExitUsage;
      }
    }
  }
  return kExitOk;
}

// The module at `path`, or a snapshot's module and its arguments.
int LoadModule(const std::string& path, std::unique_ptr<HloModule>* module,
               std::vector<Literal>* arguments) {
  absl::StatusOr<Snapshot> snapshot = absl::NotFoundError("");
  if (ModuleFormatFromPath(path) == ModuleFormat::kProto) {
    snapshot = ReadHloSnapshotFile(path);
  }
  if (snapshot.ok() && !snapshot->arguments.empty()) {
    *module = std::move(snapshot->module);
    *arguments = std::move(snapshot->arguments);
    absl::Status verified = VerifyModule(**module);
    if (!verified.ok()) {
      std::cerr << verified.message() << "\n";
      return kExitInputError;
    }
    return kExitOk;
  }
  absl::StatusOr<std::unique_ptr<HloModule>> loaded = LoadVerifiedModule(path);
  if (!loaded.ok()) {
    std::cerr << loaded.status().message() << "\n";
    return kExitInputError;
  }
  *module = *std::move(loaded);
  return kExitOk;
}

// The --input files, one per entry parameter (an .npz fills several).
int ReadInputs(const HloComputation& entry, std::vector<Literal>* arguments) {
  arguments->clear();
  for (const std::string& input : absl::GetFlag(FLAGS_input)) {
    const int64_t next = arguments->size();
    if (absl::EndsWith(input, ".npz")) {
      std::vector<PrimitiveType> types;
      for (int64_t i = next; i < entry.num_parameters(); ++i) {
        const Shape& s = entry.parameter_instruction(i)->shape();
        types.push_back(s.IsArray() ? s.element_type() : PrimitiveType::kF32);
      }
      absl::StatusOr<NamedLiterals> arrays = ReadNpzFile(input, types);
      if (!arrays.ok()) {
        std::cerr << arrays.status().message() << "\n";
        return kExitInputError;
      }
      for (auto& [name, literal] : *arrays) arguments->push_back(literal);
      continue;
    }
    if (next >= entry.num_parameters()) {
      std::cerr << input << ": error: the entry computation has only "
                << entry.num_parameters() << " parameters\n";
      return kExitInputError;
    }
    const Shape& want = entry.parameter_instruction(next)->shape();
    absl::StatusOr<Literal> literal = ReadLiteralFile(input, &want);
    if (!literal.ok()) {
      std::cerr << literal.status().message() << "\n";
      return kExitInputError;
    }
    arguments->push_back(*std::move(literal));
  }
  return kExitOk;
}

// Generated arguments when none were given; then one per parameter, each
// of its parameter's shape.
int CompleteArguments(const HloComputation& entry,
                      std::vector<Literal>* arguments) {
  if (arguments->empty() && entry.num_parameters() > 0) {
    std::mt19937_64 gen(absl::GetFlag(FLAGS_random_seed));
    for (int64_t i = 0; i < entry.num_parameters(); ++i) {
      arguments->push_back(
          RandomLiteral(entry.parameter_instruction(i)->shape(), gen));
    }
  }
  if (static_cast<int64_t>(arguments->size()) != entry.num_parameters()) {
    std::cerr << "error: the entry computation takes " << entry.num_parameters()
              << " arguments, " << arguments->size() << " given\n";
    return kExitInputError;
  }
  for (int64_t i = 0; i < entry.num_parameters(); ++i) {
    const Shape& want = entry.parameter_instruction(i)->shape();
    if (!ShapesCompatible((*arguments)[i].shape(), want)) {
      std::cerr << "error: argument " << i << " has shape "
                << (*arguments)[i].shape().ToString(false) << ", parameter "
                << i << " needs " << want.ToString(false) << "\n";
      return kExitInputError;
    }
  }
  return kExitOk;
}

// Runs again on the reference platform and compares, reporting each
// mismatch. False if the reference run failed (reported); `*mismatch` says
// whether any device's results differ.
bool CompareWithReference(
    const std::function<absl::StatusOr<std::vector<Literal>>()>& run_once,
    const std::vector<Literal>& results, bool* mismatch) {
  absl::StatusOr<std::vector<Literal>> reference = run_once();
  if (!reference.ok()) {
    std::cerr << "reference: " << reference.status().message() << "\n";
    return false;
  }
  *mismatch = false;
  for (size_t d = 0; d < results.size(); ++d) {
    const std::string difference = Compare(
        results[d], (*reference)[d], absl::GetFlag(FLAGS_abs_error_bound),
        absl::GetFlag(FLAGS_rel_error_bound));
    if (!difference.empty()) {
      std::cerr << "mismatch (replica " << d << "): " << difference << "\n";
      *mismatch = true;
    }
  }
  if (!*mismatch) std::cerr << "results match the reference\n";
  return true;
}

// --print_literals and --output, per device.
int WriteResults(const std::vector<Literal>& results) {
  const std::string output = absl::GetFlag(FLAGS_output);
  for (size_t d = 0; d < results.size(); ++d) {
    std::vector<const Literal*> leaves;
    Flatten(results[d], &leaves);
    if (absl::GetFlag(FLAGS_print_literals)) {
      if (results.size() > 1) std::cout << "replica " << d << ":\n";
      for (const Literal* leaf : leaves)
        std::cout << FormatLiteral(*leaf) << "\n";
    }
    if (output.empty()) continue;
    std::string dir = output;
    if (results.size() > 1) dir = absl::StrCat(output, "/replica_", d);
    std::error_code error;
    std::filesystem::create_directories(dir, error);
    for (size_t k = 0; k < leaves.size(); ++k) {
      absl::Status written =
          WriteNpyFile(*leaves[k], absl::StrCat(dir, "/out_", k, ".npy"));
      if (!written.ok()) {
        std::cerr << written.message() << "\n";
        return kExitInputError;
      }
    }
  }
  return kExitOk;
}

using Runner = std::function<absl::StatusOr<std::vector<Literal>>()>;

// --profile / --profile_json: the profiled executable and one set of
// counters per device, which every run adds to (cpu), or the thunk times
// of the emulator's runs and the spec compiled for (gpu-emulator).
struct Profiling {
  std::shared_ptr<cpu::CpuExecutable> exe;
  std::vector<std::unique_ptr<cpu::ProfileCounters>> devices;
  std::unique_ptr<runtime::ThunkProfile> gpu;
  std::string gpu_module;
  gpu::GpuTargetSpec gpu_spec;
};

bool ProfileRequested() {
  return absl::GetFlag(FLAGS_profile) ||
         !absl::GetFlag(FLAGS_profile_json).empty();
}

// Prints (--profile) and writes (--profile_json) the profile of the runs.
int ReportProfile(const Profiling& profiling, int64_t partitions) {
  if (profiling.gpu != nullptr) {
    return ReportGpuProfile({profiling.gpu_module, "gpu-emulator",
                             profiling.gpu.get(), profiling.gpu_spec},
                            absl::GetFlag(FLAGS_profile),
                            absl::GetFlag(FLAGS_profile_json));
  }
  absl::StatusOr<cpu::HostPeak> peak = cpu::MeasuredHostPeak();
  if (!peak.ok()) {
    std::cerr << "error: measuring the host's peak: " << peak.status().message()
              << "\n";
    return kExitInputError;
  }
  std::vector<cpu::DeviceProfile> devices;
  for (size_t d = 0; d < profiling.devices.size(); ++d) {
    devices.push_back({static_cast<int64_t>(d) / partitions,
                       static_cast<int64_t>(d) % partitions,
                       profiling.devices[d].get()});
  }
  const std::string& module = profiling.exe->module().name();
  const auto& sites = profiling.exe->profile_sites();
  if (absl::GetFlag(FLAGS_profile)) {
    std::cerr << cpu::FormatProfileTable(module, sites, devices, *peak);
  }
  const std::string json_path = absl::GetFlag(FLAGS_profile_json);
  if (json_path.empty()) return kExitOk;
  std::ofstream json(json_path);
  json << cpu::FormatProfileJson(module, sites, devices, *peak);
  if (!json.good()) {
    std::cerr << json_path << ": error: cannot write the profile\n";
    return kExitInputError;
  }
  return kExitOk;
}

// The interpreter's denormal mode: XLA:CPU's (flushed), unless a GPU
// platform, whose f32 keeps subnormals as XLA:GPU's does, is run beside it.
DenormalMode InterpreterDenormals() {
  for (const std::string& p : {absl::GetFlag(FLAGS_platform),
                               absl::GetFlag(FLAGS_reference_platform)}) {
    if (p == "gpu" || p == "gpu-emulator") return DenormalMode::kIeee;
  }
  return DenormalMode::kFlushToZero;
}

// Runs the module on `platform` (compiled once, here, for cpu). The
// arguments and module must outlive the runner, and so must `profiling`
// (cpu, gpu-emulator; null: not profiled), which gets what the report
// reads: the executable and counters, or the thunk times.
absl::StatusOr<Runner> MakeRunner(
    const std::string& platform, const HloModule& module,
    const std::vector<Literal>& arguments, int64_t replicas, int64_t partitions,
    Profiling* profiling = nullptr, double* execute_seconds = nullptr,
    bool* from_cache = nullptr, const ToolAutotuning* autotuning = nullptr) {
  const int64_t devices = replicas * partitions;
  if (platform == "interpreter") {
    EvaluatorOptions options;
    options.denormals = InterpreterDenormals();
    return Runner([&module, &arguments, replicas, partitions, devices,
                   options]() -> absl::StatusOr<std::vector<Literal>> {
      if (devices == 1) {
        absl::StatusOr<Literal> r = EvaluateModule(module, arguments, options);
        if (!r.ok()) return r.status();
        std::vector<Literal> out;
        out.push_back(*std::move(r));
        return out;
      }
      std::vector<std::vector<Literal>> per_device(devices, arguments);
      return EvaluateOnDevices(module, replicas, partitions, per_device,
                               options);
    });
  }
  if (platform == "gpu-emulator") {
    if (devices != 1) {
      return absl::UnimplementedError(
          "the gpu emulator runs single-device modules only");
    }
    absl::StatusOr<gpu::GpuCompileOptions> options = GpuEmulatorOptions();
    if (!options.ok()) return options.status();
    absl::StatusOr<std::unique_ptr<gpu::GpuExecutable>> compiled =
        gpu::GpuExecutable::Compile(module.Clone(), *options);
    if (!compiled.ok()) return compiled.status();
    std::shared_ptr<gpu::GpuExecutable> exe = std::move(*compiled);
    if (autotuning != nullptr) {
      // Nothing to tune on the emulator; the cache is still checked and the
      // note says so.
      runtime::ThunkSequence thunks = exe->thunks();
      if (absl::Status s = AutotuneGemmsForTool(thunks, *autotuning); !s.ok()) {
        return s;
      }
    }
    runtime::ThunkProfile* thunk_profile = nullptr;
    if (profiling != nullptr) {
      profiling->gpu = std::make_unique<runtime::ThunkProfile>(
          runtime::ThunkProfile::Clock::kEmulatorHostWall);
      profiling->gpu_module = exe->module().name();
      profiling->gpu_spec = options->spec;
      thunk_profile = profiling->gpu.get();
    }
    return Runner([exe, &arguments,
                   thunk_profile]() -> absl::StatusOr<std::vector<Literal>> {
      absl::StatusOr<Literal> r = exe->Run(arguments, thunk_profile);
      if (!r.ok()) return r.status();
      std::vector<Literal> out;
      out.push_back(*std::move(r));
      return out;
    });
  }
  cpu::CompileOptions options;
  options.run_passes = absl::GetFlag(FLAGS_run_passes);
  options.use_cache = absl::GetFlag(FLAGS_cache);
  options.profile = profiling != nullptr;
  absl::StatusOr<std::unique_ptr<cpu::CpuExecutable>> compiled =
      cpu::CpuExecutable::Compile(module.Clone(), options);
  if (!compiled.ok()) return compiled.status();
  std::shared_ptr<cpu::CpuExecutable> exe = std::move(*compiled);
  if (from_cache != nullptr) *from_cache = exe->from_cache();
  std::vector<cpu::ProfileCounters*> counters;
  if (profiling != nullptr) {
    profiling->exe = exe;
    for (int64_t d = 0; d < devices; ++d) {
      profiling->devices.push_back(std::make_unique<cpu::ProfileCounters>(
          exe->profile_sites().size()));
      counters.push_back(profiling->devices.back().get());
    }
  }
  if (devices != 1) {
    return Runner([exe, &arguments, replicas, partitions, devices,
                   counters]() -> absl::StatusOr<std::vector<Literal>> {
      std::vector<std::vector<Literal>> per_device(devices, arguments);
      cpu::MultiDeviceOptions run_options;
      run_options.profiles = counters;
      return cpu::RunOnDevices(*exe, replicas, partitions, per_device,
                               run_options);
    });
  }
  return Runner([exe, &arguments, counters,
                 execute_seconds]() -> absl::StatusOr<std::vector<Literal>> {
    cpu::RunOptions run_options;
    if (!counters.empty()) run_options.profile = counters[0];
    run_options.execute_seconds = execute_seconds;
    absl::StatusOr<Literal> r = exe->Run(arguments, run_options);
    if (!r.ok()) return r.status();
    std::vector<Literal> out;
    out.push_back(*std::move(r));
    return out;
  });
}

// A serialized GPU executable: on the CUDA device or the emulator, without
// recompiling.
int RunXlx(const std::string& path) {
  const std::string platform = absl::GetFlag(FLAGS_platform);
  if (platform != "gpu" && platform != "gpu-emulator") {
    std::cerr << "error: a .xlx runs with --platform=gpu or gpu-emulator\n";
    return kExitUsage;
  }
  XlxRunOptions options;
  options.inputs = absl::GetFlag(FLAGS_input);
  options.output_dir = absl::GetFlag(FLAGS_output);
  options.print_literals = absl::GetFlag(FLAGS_print_literals);
  options.iterations = absl::GetFlag(FLAGS_iterations);
  options.platform = platform;
  options.prepare_image = [&](runtime::GpuImage& image) {
    return AutotuneGemmsForTool(image.thunks, Autotuning(path, platform));
  };
  options.profile = absl::GetFlag(FLAGS_profile);
  options.profile_json = absl::GetFlag(FLAGS_profile_json);
  return RunXlxFile(
      path,
      [&platform](const runtime::GpuImage& image)
          -> absl::StatusOr<std::unique_ptr<runtime::GpuDevice>> {
        if (platform == "gpu") {
          auto device = runtime::cuda::CudaDevice::Create(image);
          if (!device.ok()) return device.status();
          return std::unique_ptr<runtime::GpuDevice>(*std::move(device));
        }
        auto device = gpu::emulator::EmulatorImageDevice::Create(image);
        if (!device.ok()) return device.status();
        return std::unique_ptr<runtime::GpuDevice>(*std::move(device));
      },
      options);
}

int Main(int argc, char** argv) {
  std::vector<std::string> args =
      ParseToolFlags(argc, argv, kUsage, "tools/hlo_run");
  if (args.size() != 1) {
    std::cerr << (args.empty() ? "error: no input file\n"
                               : "error: more than one input file\n")
              << kUsage << "\n";
    return kExitUsage;
  }
  if (IsXlxFile(args[0])) return RunXlx(args[0]);
  std::string platform;
  if (int code = CheckPlatforms(&platform); code != kExitOk) return code;
  if (ProfileRequested() && platform != "cpu" && platform != "gpu-emulator") {
    std::cerr << "error: --profile and --profile_json need --platform=cpu, "
                 "gpu-emulator or gpu (a .xlx)\n";
    return kExitUsage;
  }
  if (absl::GetFlag(FLAGS_iterations) < 1) {
    std::cerr << "error: --iterations must be >= 1\n";
    return kExitUsage;
  }
  std::unique_ptr<HloModule> module;
  std::vector<Literal> arguments;
  if (int code = LoadModule(args[0], &module, &arguments); code != kExitOk) {
    return code;
  }
  const HloComputation& entry = *module->entry_computation();
  if (!absl::GetFlag(FLAGS_input).empty()) {
    if (int code = ReadInputs(entry, &arguments); code != kExitOk) return code;
  }
  if (int code = CompleteArguments(entry, &arguments); code != kExitOk) {
    return code;
  }
  int64_t replicas = absl::GetFlag(FLAGS_replicas);
  if (replicas < 0) {
    std::cerr << "error: --replicas must be >= 1\n";
    return kExitUsage;
  }
  if (replicas == 0) replicas = module->config().replica_count;
  const int64_t partitions = module->config().num_partitions;
  const int64_t devices = replicas * partitions;

  Profiling profiling;
  // The cpu backend times the module's run alone (its buffers and code, not
  // the conversion of arguments and results); others: the whole call.
  double execute_seconds = -1;
  bool from_cache = false;
  const auto compile_start = std::chrono::steady_clock::now();
  const ToolAutotuning autotuning = Autotuning(args[0], platform);
  absl::StatusOr<Runner> run_once =
      MakeRunner(platform, *module, arguments, replicas, partitions,
                 ProfileRequested() ? &profiling : nullptr, &execute_seconds,
                 &from_cache, &autotuning);
  const double compile_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                    compile_start)
          .count();
  if (!run_once.ok()) {
    // Compile errors located in the input ("LINE:COL: error: ...") get
    // the file name; others read "FILE: error: ..." (an autotuning
    // cache's errors already name the cache).
    const absl::string_view message = run_once.status().message();
    if (const std::string& cache = autotuning.cache_path;
        !cache.empty() && absl::StartsWith(message, cache + ":")) {
      std::cerr << message << "\n";
      return kExitInputError;
    }
    const bool located = !message.empty() && absl::ascii_isdigit(message[0]);
    std::cerr << args[0] << (located ? ":" : ": error: ") << message << "\n";
    return kExitInputError;
  }
  std::vector<double> seconds;
  absl::StatusOr<std::vector<Literal>> results = absl::UnknownError("");
  for (int64_t i = 0; i < absl::GetFlag(FLAGS_iterations); ++i) {
    const auto start = std::chrono::steady_clock::now();
    results = (*run_once)();
    seconds.push_back(
        execute_seconds >= 0
            ? execute_seconds
            : std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                            start)
                  .count());
    if (!results.ok()) {
      std::cerr << results.status().message() << "\n";
      return kExitInputError;
    }
  }
  if (seconds.size() > 1) {
    // The compile in this process (passes, LLVM and JIT, or a load from
    // the compiled-module cache), then the runs.
    if (platform == "cpu") {
      std::cerr << "compile (cpu): " << compile_seconds * 1e3 << " ms"
                << (from_cache ? ", loaded from the compiled-module cache" : "")
                << "\n";
    }
    std::sort(seconds.begin(), seconds.end());
    std::cerr << "time (" << platform << ", " << seconds.size()
              << " runs): min " << seconds.front() * 1e3 << " ms, median "
              << seconds[seconds.size() / 2] * 1e3 << " ms\n";
  }
  if (ProfileRequested()) {
    if (int code = ReportProfile(profiling, partitions); code != kExitOk) {
      return code;
    }
  }
  // A mismatch is reported and still writes the results.
  bool mismatch = false;
  const std::string reference = absl::GetFlag(FLAGS_reference_platform);
  if (reference != "none") {
    absl::StatusOr<Runner> run_reference =
        MakeRunner(reference, *module, arguments, replicas, partitions);
    if (!run_reference.ok()) {
      std::cerr << "reference: " << run_reference.status().message() << "\n";
      return kExitInputError;
    }
    if (!CompareWithReference(*run_reference, *results, &mismatch)) {
      return kExitInputError;
    }
  }
  if (int code = WriteResults(*results); code != kExitOk) return code;
  return mismatch ? kExitInputError : kExitOk;
}

}  // namespace
}  // namespace xlite

int main(int argc, char** argv) { return xlite::Main(argc, argv); }
