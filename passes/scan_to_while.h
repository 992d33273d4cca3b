#ifndef XLITE_PASSES_SCAN_TO_WHILE_H_
#define XLITE_PASSES_SCAN_TO_WHILE_H_

// `scan` becomes a while loop (the CPU backend runs it natively, the GPU
// backend as a while thunk):
//
//   scan(inputs..., inits...), dimensions={d}, num_carries=C, to_apply=f
//
// loops t over the d extent of the inputs (from the end when is_reverse);
// each step calls f on the inputs' slices at t (dimension d dropped) and
// the carries, writes f's first results into the stacked outputs at t and
// keeps the rest as the next carries. The result is (stacked outputs...,
// final carries...), outputs zero where no step wrote, as the evaluator
// computes it. f runs unchanged, so the values are the evaluator's bit for
// bit. Carries may be tuples; scans that slice or stack tuple-shaped values
// stay (and are refused at emission).

#include "absl/status/statusor.h"
#include "hlo/ir/module.h"

namespace xlite {

absl::StatusOr<bool> ConvertScanToWhile(HloModule& module);

}  // namespace xlite

#endif  // XLITE_PASSES_SCAN_TO_WHILE_H_
