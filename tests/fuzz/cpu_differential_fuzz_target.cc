// libFuzzer entry point for the differential fuzzing of a backend: the
// input's bytes choose a random module (tests/fuzz/random_module.h,
// ByteChoices), which must run on the backend as on the interpreter or be
// refused at compile time with a located error. Anything else prints the
// module and aborts, so libFuzzer keeps the input. Built twice: for the
// cpu (cpu_differential_fuzzer) and, with XLITE_FUZZ_GPU_EMULATOR
// defined, for the gpu backend on its host emulator
// (gpu_emulator_differential_fuzzer). XLITE_FUZZ_RUN_PASSES=0 skips the
// backend's pipeline.
#include <cstdint>
#include <cstdlib>
#include <iostream>

#include "tests/fuzz/differential.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  xlite::fuzz::ByteChoices choices(data, size);
  xlite::fuzz::DifferentialOptions options;
#ifdef XLITE_FUZZ_GPU_EMULATOR
  options.backend = xlite::fuzz::Backend::kGpuEmulator;
#endif
  const char* passes = std::getenv("XLITE_FUZZ_RUN_PASSES");
  options.run_passes = passes == nullptr || std::string(passes) != "0";
  const xlite::fuzz::DifferentialResult r =
      xlite::fuzz::RunDifferential(choices, options);
  if (xlite::fuzz::IsFailure(r.outcome)) {
    std::cerr << xlite::fuzz::OutcomeName(r.outcome) << ": " << r.message
              << "\n"
              << r.text << "\n";
    std::abort();
  }
  return 0;
}
