#include "gpu_backend/target_spec.h"

#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace xlite::gpu {

bool CudnnVersion::AtLeast(int ma, int mi, int pa) const {
  if (major != ma) return major > ma;
  if (minor != mi) return minor > mi;
  return patch >= pa;
}

std::string CudnnVersion::ToString() const {
  return absl::StrCat(major, ".", minor, ".", patch);
}

absl::StatusOr<CudnnVersion> ParseCudnnVersion(absl::string_view text) {
  std::vector<std::string> parts = absl::StrSplit(text, '.');
  CudnnVersion v;
  int* fields[] = {&v.major, &v.minor, &v.patch};
  if (parts.empty() || parts.size() > 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad cuDNN version '", text, "'; expected X.Y.Z"));
  }
  for (size_t i = 0; i < parts.size(); ++i) {
    if (!absl::SimpleAtoi(parts[i], fields[i]) || *fields[i] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad cuDNN version '", text, "'; expected X.Y.Z"));
    }
  }
  return v;
}

namespace {

constexpr CudnnVersion kToolkitCudnn{9, 19, 0};

GpuTargetSpec Preset(const char* name, int cc_major, int cc_minor, int64_t sms,
                     int64_t smem, int64_t hbm_gb, double bandwidth_gbps) {
  GpuTargetSpec s;
  s.name = name;
  s.compute_capability_major = cc_major;
  s.compute_capability_minor = cc_minor;
  s.sm_count = sms;
  s.shared_memory_per_block = smem;
  s.hbm_bytes = hbm_gb * (int64_t{1} << 30);
  s.hbm_bandwidth_bytes_per_second = bandwidth_gbps * 1e9;
  s.cudnn = kToolkitCudnn;
  return s;
}

}  // namespace

absl::StatusOr<GpuTargetSpec> LoadGpuTargetSpec(
    const std::string& name_or_file) {
  const std::string name = absl::AsciiStrToLower(name_or_file);
  // Data sheet figures (SXM parts): SMs, opt-in shared memory per block,
  // HBM capacity and bandwidth.
  if (name == "h100") return Preset("h100", 9, 0, 132, 232448, 80, 3350);
  if (name == "h200") return Preset("h200", 9, 0, 132, 232448, 141, 4800);
  if (name == "b200") return Preset("b200", 10, 0, 148, 232448, 180, 8000);
  if (name == "gb200") return Preset("gb200", 10, 0, 152, 232448, 186, 8000);
  std::ifstream in(name_or_file);
  if (!in) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown GPU '", name_or_file,
        "': expected h100, h200, b200, gb200 or a spec file"));
  }
  GpuTargetSpec spec;
  spec.name = name_or_file;
  std::string line;
  int number = 0;
  bool have_cc = false;
  while (std::getline(in, line)) {
    ++number;
    absl::string_view text = line;
    if (size_t hash = text.find('#'); hash != absl::string_view::npos) {
      text = text.substr(0, hash);
    }
    text = absl::StripAsciiWhitespace(text);
    if (text.empty()) continue;
    auto error = [&](absl::string_view what) {
      return absl::InvalidArgumentError(
          absl::StrCat(name_or_file, ":", number, ":1: error: ", what));
    };
    const size_t colon = text.find(':');
    if (colon == absl::string_view::npos) {
      return error("expected 'key: value'");
    }
    const absl::string_view key = absl::StripAsciiWhitespace(text.substr(0, colon));
    const absl::string_view value =
        absl::StripAsciiWhitespace(text.substr(colon + 1));
    bool ok = true;
    if (key == "name") {
      spec.name = std::string(value);
    } else if (key == "compute_capability") {
      std::vector<std::string> cc = absl::StrSplit(value, '.');
      ok = cc.size() == 2 &&
           absl::SimpleAtoi(cc[0], &spec.compute_capability_major) &&
           absl::SimpleAtoi(cc[1], &spec.compute_capability_minor);
      have_cc = ok;
    } else if (key == "sm_count") {
      ok = absl::SimpleAtoi(value, &spec.sm_count);
    } else if (key == "shared_memory_per_block") {
      ok = absl::SimpleAtoi(value, &spec.shared_memory_per_block);
    } else if (key == "hbm_bytes") {
      ok = absl::SimpleAtoi(value, &spec.hbm_bytes);
    } else if (key == "hbm_bandwidth_gbps") {
      double gbps;
      ok = absl::SimpleAtod(value, &gbps);
      spec.hbm_bandwidth_bytes_per_second = gbps * 1e9;
    } else if (key == "cudnn_version") {
      absl::StatusOr<CudnnVersion> v = ParseCudnnVersion(value);
      if (!v.ok()) return error(v.status().message());
      spec.cudnn = *v;
    } else {
      return error(absl::StrCat("unknown key '", key, "'"));
    }
    if (!ok) return error(absl::StrCat("bad value '", value, "' for ", key));
  }
  if (!have_cc) {
    return absl::InvalidArgumentError(
        absl::StrCat(name_or_file, ": error: the spec has no compute_capability"));
  }
  return spec;
}

}  // namespace xlite::gpu
