// xlite_cpu_flush_denormals and xlite_cpu_restore_denormals (runtime_lib.h).

#include "hlo/ir/denormal_mode.h"

#include "cpu_backend/runtime_lib/runtime_lib.h"

extern "C" int64_t xlite_cpu_flush_denormals(void) {
  return static_cast<int64_t>(
      xlite::SetDenormalMode(xlite::DenormalMode::kFlushToZero));
}

extern "C" void xlite_cpu_restore_denormals(int64_t saved) {
  xlite::RestoreDenormalMode(static_cast<uint64_t>(saved));
}
