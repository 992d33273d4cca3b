#include "gpu_backend/target_spec.h"

#include <dlfcn.h>

#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
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
                     int64_t smem, int64_t hbm_gb, double bandwidth_gbps,
                     std::map<std::string, double> tflops) {
  GpuTargetSpec s;
  s.name = name;
  s.compute_capability_major = cc_major;
  s.compute_capability_minor = cc_minor;
  s.feature_suffix = "a";
  s.sm_count = sms;
  s.shared_memory_per_sm = smem + 1024;
  s.peak_tflops = std::move(tflops);
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
  // Dense peak TFLOP/s from NVIDIA's data sheets (tensor cores where the
  // type has them; f32 is the CUDA-core rate).
  const std::map<std::string, double> hopper = {
      {"f64", 67}, {"f32", 67}, {"tf32", 495}, {"bf16", 989},
      {"f16", 989}, {"f8", 1979}, {"f4", 0}};
  const std::map<std::string, double> b200 = {
      {"f64", 40}, {"f32", 80}, {"tf32", 1100}, {"bf16", 2250},
      {"f16", 2250}, {"f8", 4500}, {"f4", 9000}};
  const std::map<std::string, double> gb200 = {
      {"f64", 45}, {"f32", 90}, {"tf32", 1250}, {"bf16", 2500},
      {"f16", 2500}, {"f8", 5000}, {"f4", 10000}};
  if (name == "h100") return Preset("h100", 9, 0, 132, 232448, 80, 3350, hopper);
  if (name == "h200") return Preset("h200", 9, 0, 132, 232448, 141, 4800, hopper);
  if (name == "b200") return Preset("b200", 10, 0, 148, 232448, 180, 8000, b200);
  if (name == "gb200") {
    return Preset("gb200", 10, 0, 152, 232448, 186, 8000, gb200);
  }
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
      // "9.0", "10.0a", "10.3a", "12.1a", "10.0f".
      std::string cc_text(value);
      if (!cc_text.empty() && (cc_text.back() == 'a' || cc_text.back() == 'f')) {
        spec.feature_suffix = std::string(1, cc_text.back());
        cc_text.pop_back();
      }
      std::vector<std::string> cc = absl::StrSplit(cc_text, '.');
      ok = cc.size() == 2 &&
           absl::SimpleAtoi(cc[0], &spec.compute_capability_major) &&
           absl::SimpleAtoi(cc[1], &spec.compute_capability_minor);
      have_cc = ok;
    } else if (key == "registers_per_sm") {
      ok = absl::SimpleAtoi(value, &spec.registers_per_sm);
    } else if (key == "shared_memory_per_sm") {
      ok = absl::SimpleAtoi(value, &spec.shared_memory_per_sm);
    } else if (absl::StartsWith(key, "peak_tflops_")) {
      double v;
      ok = absl::SimpleAtod(value, &v) && v >= 0;
      spec.peak_tflops[std::string(key.substr(12))] = v;
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

std::string GpuTargetSpec::SmName() const {
  return absl::StrCat("sm_", compute_capability_major,
                      compute_capability_minor, feature_suffix);
}

absl::StatusOr<GpuTargetSpec> QueryLocalGpu() {
  // The driver API, loaded at run time so xlite runs without a GPU.
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (cuda == nullptr) {
    return absl::UnavailableError(
        "no CUDA device: the CUDA driver (libcuda.so.1) is not installed");
  }
  using InitFn = int (*)(unsigned);
  using GetFn = int (*)(int*, int);
  using AttrFn = int (*)(int*, int, int);
  using MemFn = int (*)(size_t*, int);
  using NameFn = int (*)(char*, int, int);
  auto init = reinterpret_cast<InitFn>(dlsym(cuda, "cuInit"));
  auto get = reinterpret_cast<GetFn>(dlsym(cuda, "cuDeviceGet"));
  auto attr = reinterpret_cast<AttrFn>(dlsym(cuda, "cuDeviceGetAttribute"));
  auto mem = reinterpret_cast<MemFn>(dlsym(cuda, "cuDeviceTotalMem_v2"));
  auto name_fn = reinterpret_cast<NameFn>(dlsym(cuda, "cuDeviceGetName"));
  int device = 0;
  if (init == nullptr || get == nullptr || attr == nullptr || init(0) != 0 ||
      get(&device, 0) != 0) {
    return absl::UnavailableError("no CUDA device: the driver found none");
  }
  // CUdevice_attribute values from cuda.h.
  auto attribute = [&](int which) {
    int v = 0;
    attr(&v, which, device);
    return v;
  };
  GpuTargetSpec spec;
  char name[256] = {0};
  if (name_fn != nullptr) name_fn(name, sizeof(name) - 1, device);
  spec.name = name;
  spec.compute_capability_major = attribute(75);
  spec.compute_capability_minor = attribute(76);
  if (spec.compute_capability_major >= 9) spec.feature_suffix = "a";
  spec.sm_count = attribute(16);
  spec.shared_memory_per_block = attribute(97);
  spec.shared_memory_per_sm = attribute(81);
  spec.registers_per_sm = attribute(82);
  size_t bytes = 0;
  if (mem != nullptr && mem(&bytes, device) == 0) spec.hbm_bytes = bytes;
  // Bandwidth: memory clock (kHz) x bus width (bits) x 2 (DDR) / 8.
  spec.hbm_bandwidth_bytes_per_second =
      2.0 * attribute(36) * 1e3 * attribute(37) / 8;
  // The installed cuDNN, if any.
  void* cudnn = dlopen("libcudnn.so.9", RTLD_NOW | RTLD_LOCAL);
  if (cudnn != nullptr) {
    using VersionFn = size_t (*)();
    auto version = reinterpret_cast<VersionFn>(dlsym(cudnn, "cudnnGetVersion"));
    if (version != nullptr) {
      const size_t v = version();
      spec.cudnn = {static_cast<int>(v / 10000),
                    static_cast<int>(v % 10000 / 100),
                    static_cast<int>(v % 100)};
    }
  }
  return spec;
}

}  // namespace xlite::gpu
