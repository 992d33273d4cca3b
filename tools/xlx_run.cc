#include "tools/xlx_run.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "gpu_backend/target_spec.h"
#include "runtime/gpu_image_runner.h"
#include "runtime/literal_io.h"
#include "runtime/thunk_profile.h"
#include "tools/gpu_profile_output.h"
#include "tools/tool_flags.h"

namespace xlite {
namespace {

void Flatten(const Literal& l, std::vector<const Literal*>* out) {
  if (l.shape().IsTuple()) {
    for (const Literal& e : l.tuple_elements()) Flatten(e, out);
  } else {
    out->push_back(&l);
  }
}

int WriteResults(const Literal& result, const XlxRunOptions& options) {
  std::vector<const Literal*> leaves;
  Flatten(result, &leaves);
  if (options.print_literals) {
    for (const Literal* leaf : leaves) std::cout << leaf->ToString() << "\n";
  }
  if (options.output_dir.empty()) return kExitOk;
  std::error_code error;
  std::filesystem::create_directories(options.output_dir, error);
  for (size_t k = 0; k < leaves.size(); ++k) {
    absl::Status s = WriteNpyFile(
        *leaves[k], absl::StrCat(options.output_dir, "/out_", k, ".npy"));
    if (!s.ok()) {
      std::cerr << s.message() << "\n";
      return kExitInputError;
    }
  }
  return kExitOk;
}

// The spec the image was compiled for; when it cannot be loaded here (a
// spec file left behind), its name and SM with no peaks.
gpu::GpuTargetSpec PeakSpecOf(const runtime::GpuImage& image) {
  absl::StatusOr<gpu::GpuTargetSpec> spec =
      gpu::LoadGpuTargetSpec(image.spec_name);
  if (spec.ok()) return *std::move(spec);
  gpu::GpuTargetSpec unknown;
  unknown.name = image.spec_name;
  absl::string_view sm = image.sm_name;
  if (absl::ConsumePrefix(&sm, "sm_")) {
    while (!sm.empty() && absl::ascii_isalpha(sm.back())) {
      unknown.feature_suffix.insert(0, 1, sm.back());
      sm.remove_suffix(1);
    }
    int cc = 0;
    if (sm.size() >= 2 && absl::SimpleAtoi(sm, &cc)) {
      unknown.compute_capability_major = cc / 10;
      unknown.compute_capability_minor = cc % 10;
    }
  }
  return unknown;
}

}  // namespace

bool IsXlxFile(const std::string& path) {
  if (absl::EndsWith(path, ".xlx")) return true;
  std::ifstream in(path, std::ios::binary);
  char head[8] = {};
  in.read(head, sizeof(head));
  return in && runtime::LooksLikeGpuImage(absl::string_view(head, 8));
}

int RunXlxFile(const std::string& path, const GpuDeviceFactory& make_device,
               const XlxRunOptions& options) {
  absl::StatusOr<runtime::GpuImage> image = runtime::ReadGpuImageFile(path);
  if (!image.ok()) {
    std::cerr << image.status().message() << "\n";
    return kExitInputError;
  }
  if (options.prepare_image) {
    if (absl::Status s = options.prepare_image(*image); !s.ok()) {
      std::cerr << s.message() << "\n";
      return kExitInputError;
    }
  }
  if (options.inputs.size() != image->parameter_shapes.size()) {
    std::cerr << "error: " << path << " takes "
              << image->parameter_shapes.size() << " arguments, "
              << options.inputs.size() << " --input given\n";
    return kExitInputError;
  }
  std::vector<Literal> arguments;
  for (size_t i = 0; i < options.inputs.size(); ++i) {
    absl::StatusOr<Literal> literal =
        ReadLiteralFile(options.inputs[i], &image->parameter_shapes[i]);
    if (!literal.ok()) {
      std::cerr << literal.status().message() << "\n";
      return kExitInputError;
    }
    arguments.push_back(*std::move(literal));
  }
  absl::StatusOr<std::unique_ptr<runtime::GpuDevice>> device =
      make_device(*image);
  if (!device.ok()) {
    std::cerr << path << ": error: " << device.status().message() << "\n";
    return kExitInputError;
  }
  const bool profiled = options.profile || !options.profile_json.empty();
  runtime::ThunkProfile profile(
      options.platform == "gpu"
          ? runtime::ThunkProfile::Clock::kCudaEvents
          : runtime::ThunkProfile::Clock::kEmulatorHostWall);
  if (profiled) {
    if (absl::Status s = (*device)->SetProfile(&profile); !s.ok()) {
      std::cerr << path << ": error: " << s.message() << "\n";
      return kExitInputError;
    }
  }
  std::vector<double> seconds;
  absl::StatusOr<Literal> result = absl::UnknownError("not run");
  for (int64_t i = 0; i < std::max<int64_t>(options.iterations, 1); ++i) {
    const auto start = std::chrono::steady_clock::now();
    result = runtime::RunGpuImage(*image, **device, arguments);
    seconds.push_back(std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - start)
                          .count());
    if (!result.ok()) {
      std::cerr << path << ": error: " << result.status().message() << "\n";
      return kExitInputError;
    }
  }
  if (seconds.size() > 1) {
    std::sort(seconds.begin(), seconds.end());
    std::cerr << "time (" << options.platform << ", " << seconds.size()
              << " runs): min " << seconds.front() * 1e3 << " ms, median "
              << seconds[seconds.size() / 2] * 1e3 << " ms\n";
  }
  if (profiled) {
    const gpu::GpuProfileSource source{image->module_name, options.platform,
                                       &profile, PeakSpecOf(*image)};
    if (int code =
            ReportGpuProfile(source, options.profile, options.profile_json);
        code != kExitOk) {
      return code;
    }
  }
  return WriteResults(*result, options);
}

}  // namespace xlite
