// The registered StableHLO -> HloModuleProto converter (see the header).

#include "api/pjrt/stablehlo_converter.h"

#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "api/pjrt/objects.h"

namespace xlite::pjrt {
namespace {

struct ConverterResult {
  std::string bytes;
  bool error = true;
  bool set = false;
};

struct Registry {
  absl::Mutex mu;
  XlitePjrtStableHloConverter converter = nullptr;
  std::vector<int64_t> version = {1, 0, 0};
};

Registry& GetRegistry() {
  static Registry* registry = new Registry();
  return *registry;
}

}  // namespace

std::vector<int64_t> StableHloVersion() {
  Registry& r = GetRegistry();
  absl::MutexLock lock(&r.mu);
  return r.version;
}

absl::Status ConvertStableHlo(absl::string_view artifact, std::string& proto) {
  Registry& r = GetRegistry();
  XlitePjrtStableHloConverter converter;
  {
    absl::MutexLock lock(&r.mu);
    converter = r.converter;
  }
  if (converter == nullptr) {
    return absl::FailedPreconditionError(
        "xlite compiles HLO; a StableHLO program needs the converter that "
        "jax_plugins.xlite registers (load the plugin through jax_plugins, "
        "not PJRT_NAMES_AND_LIBRARY_PATHS alone)");
  }
  ConverterResult result;
  const int rc = converter(artifact.data(), artifact.size(), &result);
  if (rc != 0 || !result.set || result.error) {
    return absl::InvalidArgumentError(
        "converting StableHLO to HLO failed: " +
        (result.set ? result.bytes : std::string("no result")));
  }
  proto = std::move(result.bytes);
  return absl::OkStatus();
}

}  // namespace xlite::pjrt

extern "C" {

__attribute__((visibility("default"))) void xlite_pjrt_set_stablehlo_converter(
    XlitePjrtStableHloConverter converter, const int64_t* version,
    size_t version_size) {
  auto& r = xlite::pjrt::GetRegistry();
  absl::MutexLock lock(&r.mu);
  r.converter = converter;
  if (version != nullptr && version_size == 3) {
    r.version.assign(version, version + 3);
  }
}

__attribute__((visibility("default"))) void xlite_pjrt_converter_result(
    void* result, const char* bytes, size_t size, int is_error) {
  auto* r = static_cast<xlite::pjrt::ConverterResult*>(result);
  if (r == nullptr) return;
  r->bytes.assign(bytes == nullptr ? "" : bytes, bytes == nullptr ? 0 : size);
  r->error = is_error != 0;
  r->set = true;
}

}  // extern "C"
