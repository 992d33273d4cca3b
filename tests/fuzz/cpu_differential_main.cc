// cpu_differential: the differential fuzzing of the cpu backend against
// the interpreter over a range of seeds, for runs by hand (the fixed
// budget in `bazel test` is cpu_differential_test). Each module runs in
// a child process, so a crash or a hang is reported for its seed and the
// run goes on.
//
//   bazel run //tests/fuzz:cpu_differential -- --seeds=5000
//       --dump_dir=/tmp/cpu-diff [--first_seed=N] [--run_passes=false]
//   (one command line)
//
// Prints one line per failing seed and the counts per outcome; with
// --dump_dir writes each failing module as seed_N.hlo (run it again with
// hlo-run FILE --reference_platform=interpreter).
//
//   bazel run //tests/fuzz:cpu_differential -- --platform=gpu-emulator
//       --dot_fusions --max_elements=40000 --gemm-backend=tiled
//
// draws dot fusion shapes for the gpu's tiled GEMM kernel (one command
// line).
//
//   bazel run //tests/fuzz:cpu_differential --
//   --reduce=/tmp/cpu-diff/seed_N.hlo
//
// shrinks a failing module while it fails the same way (module_reducer.h)
// and prints the result.

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "gpu_backend/gpu_pipeline.h"
#include "hlo/ir/tiled_gemm_config.h"
#include "tests/fuzz/differential.h"
#include "tests/fuzz/module_reducer.h"
#include "tests/testing/paths.h"

ABSL_FLAG(int64_t, first_seed, 0, "first seed");
ABSL_FLAG(int64_t, seeds, 1000, "how many seeds");
ABSL_FLAG(bool, run_passes, true, "run the backend's pass pipeline first");
ABSL_FLAG(std::string, platform, "cpu",
          "the backend checked against the interpreter: cpu|gpu-emulator");
ABSL_FLAG(int, max_instructions, 30, "instructions per module, at most");
ABSL_FLAG(int64_t, max_elements, 256,
          "elements of any array, at most (larger: kernels of several "
          "blocks and warps)");
ABSL_FLAG(bool, arbitrary_reducers, false,
          "reducers that are not monoids, inits that are not identities");
ABSL_FLAG(bool, tile_sized_transposes, false,
          "transposes of rank 2-3 operands with sides >= 16");
ABSL_FLAG(bool, dot_fusions, false,
          "modules of dots with operand producers and epilogues (the tiled "
          "GEMM fusion's shapes) instead of random instructions");
ABSL_FLAG(xlite::gpu::GemmBackend, gemm_backend, xlite::gpu::GemmBackend::kAuto,
          "auto|tiled|cublaslt (gpu-emulator): which path computes the dots; "
          "also spelled --gemm-backend");
ABSL_FLAG(std::string, tiled_gemm_config, "",
          "the tiling of every tiled GEMM fusion (gpu-emulator), as its text: "
          "e.g. '64x64x32 wgmma groups 1x1 stages 4'");
ABSL_FLAG(std::string, gpu_spec, "h100",
          "the GPU compiled for (gpu-emulator): h100, h200, b200, gb200 or a "
          "spec file; also spelled --gpu-spec");
ABSL_FLAG(std::string, dump_dir, "", "write failing modules here");
ABSL_FLAG(bool, fork, true, "run each module in a child process");
ABSL_FLAG(int, timeout_s, 60, "seconds a module may take (with --fork)");
ABSL_FLAG(bool, refusals, false, "print the refusals' reasons too");
ABSL_FLAG(bool, dump_refused, false,
          "with --dump_dir, write the refused modules there too");
ABSL_FLAG(std::string, interpreter_denormals, "",
          "flush|ieee: the interpreter's denormal mode (default: the "
          "platform's, flushed for cpu)");
ABSL_FLAG(std::string, reduce, "",
          "shrink this failing module instead (prints the smaller module)");

namespace xlite::fuzz {
namespace {

DifferentialOptions Options() {
  DifferentialOptions o;
  o.run_passes = absl::GetFlag(FLAGS_run_passes);
  o.backend = absl::GetFlag(FLAGS_platform) == "gpu-emulator"
                  ? Backend::kGpuEmulator
                  : Backend::kCpu;
  o.module.max_instructions = absl::GetFlag(FLAGS_max_instructions);
  o.module.max_elements = absl::GetFlag(FLAGS_max_elements);
  o.module.arbitrary_reducers = absl::GetFlag(FLAGS_arbitrary_reducers);
  o.module.tile_sized_transposes = absl::GetFlag(FLAGS_tile_sized_transposes);
  o.module.dot_fusions = absl::GetFlag(FLAGS_dot_fusions);
  o.gemm_backend = absl::GetFlag(FLAGS_gemm_backend);
  o.gpu_spec = absl::GetFlag(FLAGS_gpu_spec);
  if (const std::string mode = absl::GetFlag(FLAGS_interpreter_denormals);
      !mode.empty()) {
    if (mode != "flush" && mode != "ieee") {
      std::cerr << "error: bad --interpreter_denormals '" << mode << "'\n";
      std::exit(2);
    }
    o.interpreter_denormals =
        mode == "flush" ? DenormalMode::kFlushToZero : DenormalMode::kIeee;
  }
  if (const std::string tiling = absl::GetFlag(FLAGS_tiled_gemm_config);
      !tiling.empty()) {
    o.tiled_gemm_config = ParseTiledGemmConfig(tiling);
    if (!o.tiled_gemm_config.has_value()) {
      std::cerr << "error: bad --tiled_gemm_config '" << tiling << "'\n";
      std::exit(2);
    }
  }
  return o;
}

struct Report {
  std::string outcome;  // an OutcomeName, "crash" or "timeout"
  std::string message;
};

// Runs `run` in a child (when --fork); its report comes back through a
// pipe, a crash or a timeout as such.
Report InChild(const std::function<Report()>& run) {
  int fds[2];
  if (!absl::GetFlag(FLAGS_fork) || pipe(fds) != 0) return run();
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    alarm(absl::GetFlag(FLAGS_timeout_s));
    const Report r = run();
    const std::string out = absl::StrCat(r.outcome, "\n", r.message);
    for (size_t at = 0; at < out.size();) {
      const ssize_t n = write(fds[1], out.data() + at, out.size() - at);
      if (n <= 0) break;
      at += n;
    }
    _exit(0);
  }
  close(fds[1]);
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof(buffer))) > 0;) {
    text.append(buffer, n);
  }
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    return {sig == SIGALRM ? "timeout" : "crash", absl::StrCat("signal ", sig)};
  }
  const size_t nl = text.find('\n');
  if (nl == std::string::npos) return {"crash", "no report"};
  return {text.substr(0, nl), text.substr(nl + 1)};
}

Report RunSeed(uint64_t seed) {
  return InChild([seed] {
    SeededChoices choices(seed);
    DifferentialResult r = RunDifferential(choices, Options());
    return Report{OutcomeName(r.outcome), r.message};
  });
}

Report RunText(const std::string& text) {
  return InChild([&text] {
    DifferentialResult r = RunDifferential(text, Options());
    return Report{OutcomeName(r.outcome), r.message};
  });
}

int Reduce(const std::string& path) {
  std::optional<std::string> text = testing::ReadFile(path);
  if (!text.has_value()) {
    std::cerr << path << ": error: cannot read\n";
    return 2;
  }
  const Report first = RunText(*text);
  std::cerr << "outcome: " << first.outcome << ": " << first.message << "\n";
  if (first.outcome == "match" || first.outcome == "refused") return 1;
  const std::string reduced =
      ReduceModule(*text, [&](const std::string& candidate) {
        return RunText(candidate).outcome == first.outcome;
      });
  const Report last = RunText(reduced);
  std::cout << "// " << last.outcome << ": "
            << last.message.substr(0, last.message.find('\n')) << "\n"
            << reduced;
  return 0;
}

// Writes seed N's module as DIR/seed_N.hlo, its outcome in a comment.
void Dump(const std::string& dir, int64_t seed, const Report& r) {
  if (dir.empty()) return;
  SeededChoices choices(seed);
  std::ofstream(absl::StrCat(dir, "/seed_", seed, ".hlo"))
      << "// seed " << seed << ": " << r.outcome << ": "
      << r.message.substr(0, r.message.find('\n')) << "\n"
      << RandomModuleText(choices, Options().module);
}

int Main() {
  const int64_t first = absl::GetFlag(FLAGS_first_seed);
  const int64_t count = absl::GetFlag(FLAGS_seeds);
  const std::string dump = absl::GetFlag(FLAGS_dump_dir);
  std::map<std::string, int64_t> counts;
  std::map<std::string, int64_t> refusals;
  int64_t failures = 0;
  for (int64_t seed = first; seed < first + count; ++seed) {
    const Report r = RunSeed(seed);
    ++counts[r.outcome];
    if (r.outcome == "refused") {
      // "...: why" after the located part, to count refusals by reason.
      const size_t at = r.message.find("): ");
      ++refusals[at == std::string::npos ? r.message
                                         : r.message.substr(at + 3)];
      if (absl::GetFlag(FLAGS_refusals)) {
        std::cout << "seed " << seed << ": refused: " << r.message << "\n";
      }
      if (absl::GetFlag(FLAGS_dump_refused)) Dump(dump, seed, r);
      continue;
    }
    if (r.outcome == "match") continue;
    ++failures;
    std::string first_line = r.message.substr(0, r.message.find('\n'));
    std::cout << "seed " << seed << ": " << r.outcome << ": "
              << first_line.substr(0, 300) << std::endl;
    Dump(dump, seed, r);
  }
  std::cout << "seeds " << first << ".." << first + count - 1 << ":";
  for (const auto& [outcome, n] : counts) {
    std::cout << " " << outcome << " " << n << ";";
  }
  std::cout << "\nrefusals by reason:\n";
  std::vector<std::pair<int64_t, std::string>> sorted;
  for (const auto& [why, n] : refusals) sorted.push_back({n, why});
  std::sort(sorted.rbegin(), sorted.rend());
  for (const auto& [n, why] : sorted)
    std::cout << "  " << n << "  " << why << "\n";
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace xlite::fuzz

int main(int argc, char** argv) {
  // --gemm-backend and --gpu-spec as hlo-run spells them (Abseil flag
  // names take no dash).
  std::vector<std::string> spelled(argv, argv + argc);
  std::vector<char*> args;
  for (std::string& arg : spelled) {
    if (arg.rfind("--gemm-backend", 0) == 0) arg[6] = '_';
    if (arg.rfind("--gpu-spec", 0) == 0) arg[5] = '_';
    args.push_back(arg.data());
  }
  absl::ParseCommandLine(static_cast<int>(args.size()), args.data());
  const std::string platform = absl::GetFlag(FLAGS_platform);
  if (platform != "cpu" && platform != "gpu-emulator") {
    std::cerr << "error: unknown --platform=" << platform
              << " (cpu or gpu-emulator)\n";
    return 2;
  }
  const std::string reduce = absl::GetFlag(FLAGS_reduce);
  if (!reduce.empty()) return xlite::fuzz::Reduce(reduce);
  return xlite::fuzz::Main();
}
