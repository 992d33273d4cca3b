// hlo-run-gpu: the runtime-only runner. Runs a serialized GPU executable
// (.xlx from hlo-opt --platform=gpu --stage=executable) on the CUDA device,
// with no compiler (no LLVM) in the binary — what a GPU machine with only
// the NVIDIA driver needs.
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "runtime/cuda/cuda_device.h"
#include "tools/gemm_autotuning.h"
#include "tools/tool_flags.h"
#include "tools/xlx_run.h"

ABSL_FLAG(std::vector<std::string>, input, {},
          "one per entry parameter in order: .npy or HLO literal text "
          "(comma-separated or repeated)");
ABSL_FLAG(std::string, output, "", "write results as DIR/out_K.npy");
ABSL_FLAG(bool, print_literals, false, "print each result on stdout");
ABSL_FLAG(int64_t, iterations, 1, "run N times, report min/median time");
ABSL_FLAG(std::string, platform, "gpu", "only gpu (the CUDA device)");
ABSL_FLAG(std::string, autotune_cache, "",
          "read/write the GEMM autotuning results in this file (entries for "
          "this device skip timing; new results are written back)");
ABSL_FLAG(bool, autotune, true,
          "time GEMM candidates on the device before running (false: "
          "cuBLASLt's first heuristic algorithm, the cache unread)");
ABSL_FLAG(bool, profile, false,
          "per kernel / library call: time (CUDA events), bytes, FLOPs, "
          "achieved GB/s and FLOP/s vs the peaks of the GPU spec the .xlx was "
          "compiled for, sorted by time, on stderr (as hlo-run --profile)");
ABSL_FLAG(std::string, profile_json, "",
          "write the --profile report as JSON to this file, and its roofline "
          "chart (SVG) beside it: FILE with .json replaced by .svg, else "
          "FILE.svg");

namespace {

constexpr char kUsage[] =
    "usage: hlo-run-gpu [flags] FILE.xlx\n"
    "  runs a serialized GPU executable on the CUDA device";

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args =
      xlite::ParseToolFlags(argc, argv, kUsage, "tools/hlo_run_gpu");
  if (args.size() != 1) {
    std::cerr << "error: expected one .xlx file\n" << kUsage << "\n";
    return xlite::kExitUsage;
  }
  if (absl::GetFlag(FLAGS_platform) != "gpu") {
    std::cerr << "error: hlo-run-gpu runs on --platform=gpu only (the "
                 "emulator needs LLVM: use hlo-run --platform=gpu-emulator)\n";
    return xlite::kExitUsage;
  }
  xlite::XlxRunOptions options;
  options.inputs = absl::GetFlag(FLAGS_input);
  options.output_dir = absl::GetFlag(FLAGS_output);
  options.print_literals = absl::GetFlag(FLAGS_print_literals);
  options.iterations = absl::GetFlag(FLAGS_iterations);
  const xlite::ToolAutotuning autotuning{absl::GetFlag(FLAGS_autotune),
                                         absl::GetFlag(FLAGS_autotune_cache),
                                         args[0], /*emulator=*/false};
  options.prepare_image = [&](xlite::runtime::GpuImage& image) {
    return xlite::AutotuneGemmsForTool(image.thunks, autotuning);
  };
  options.profile = absl::GetFlag(FLAGS_profile);
  options.profile_json = absl::GetFlag(FLAGS_profile_json);
  return xlite::RunXlxFile(
      args[0],
      [](const xlite::runtime::GpuImage& image)
          -> absl::StatusOr<std::unique_ptr<xlite::runtime::GpuDevice>> {
        auto device = xlite::runtime::cuda::CudaDevice::Create(image);
        if (!device.ok()) return device.status();
        return std::unique_ptr<xlite::runtime::GpuDevice>(*std::move(device));
      },
      options);
}
