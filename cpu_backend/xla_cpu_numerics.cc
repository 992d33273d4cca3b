#include "cpu_backend/xla_cpu_numerics.h"

#include "cpu_backend/logistic_expansion.h"
#include "cpu_backend/widening_converts.h"
#include "passes/contraction_type_caster.h"

namespace xlite::cpu {

absl::StatusOr<bool> RewriteForXlaCpuNumerics(HloModule& module) {
  bool changed = false;
  for (auto* pass :
       {&CastContractionTypes, &FoldWideningConverts, &ExpandLogisticsInF16}) {
    absl::StatusOr<bool> rewritten = (*pass)(module);
    if (!rewritten.ok()) return rewritten.status();
    changed |= *rewritten;
  }
  return changed;
}

}  // namespace xlite::cpu
