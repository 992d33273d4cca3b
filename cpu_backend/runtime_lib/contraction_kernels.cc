// The choice among the contraction kernel variants (contraction_kernels.h):
// the last of baseline, AVX2+FMA, AVX-512 whose instructions the CPU (and
// the OS, which must save the wider registers) supports, as GCC's and
// Clang's __builtin_cpu_supports report it. XLITE_CPU_ISA=baseline|avx2
// caps the choice (to compare variants; an unknown name means no cap).

#include "cpu_backend/runtime_lib/contraction_kernels.h"

#include <cstdlib>
#include <cstring>

extern "C" const xlite::cpu::ContractionKernels
    xlite_contraction_kernels_baseline;
extern "C" const xlite::cpu::ContractionKernels xlite_contraction_kernels_avx2;
extern "C" const xlite::cpu::ContractionKernels
    xlite_contraction_kernels_avx512;

namespace xlite::cpu {
namespace {

bool HostHasAvx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

bool HostHasAvx512() {
  __builtin_cpu_init();
  return HostHasAvx2() && __builtin_cpu_supports("avx512f") &&
         __builtin_cpu_supports("avx512dq");
}

}  // namespace

std::vector<const ContractionKernels*> SupportedContractionKernels() {
  std::vector<const ContractionKernels*> all = {
      &xlite_contraction_kernels_baseline};
  if (HostHasAvx2()) all.push_back(&xlite_contraction_kernels_avx2);
  if (HostHasAvx512()) all.push_back(&xlite_contraction_kernels_avx512);
  return all;
}

const ContractionKernels& ChooseContractionKernels(const char* cap) {
  const std::vector<const ContractionKernels*> all =
      SupportedContractionKernels();
  if (cap != nullptr) {
    for (const ContractionKernels* k : all) {
      if (std::strcmp(k->isa, cap) == 0) return *k;
    }
  }
  return *all.back();
}

const ContractionKernels& BestContractionKernels() {
  static const ContractionKernels& chosen =
      ChooseContractionKernels(std::getenv("XLITE_CPU_ISA"));
  return chosen;
}

}  // namespace xlite::cpu
