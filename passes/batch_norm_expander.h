#ifndef XLITE_PASSES_BATCH_NORM_EXPANDER_H_
#define XLITE_PASSES_BATCH_NORM_EXPANDER_H_

// batch-norm-training, -inference and -grad become reductions, broadcasts
// and elementwise HLO, as XLA's BatchNormExpander rewrites them (feature
// dimension f; N = elements per feature; sums over every dimension but f;
// eps = the instruction's epsilon; per-feature vectors broadcast along f):
//
//   training(x, scale, offset):
//     mean = sum(x) / N
//     var  = sum((x - mean)^2) / N
//     y    = (x - mean) / sqrt(var + eps) * scale + offset
//     -> (y, mean, var)
//   inference(x, scale, offset, mean, var):
//     y    = (x - mean) / sqrt(var + eps) * scale + offset
//   grad(x, scale, mean, var, dy):
//     inv  = 1 / sqrt(var + eps)
//     grad_offset = sum(dy)
//     grad_scale  = sum(dy * (x - mean)) * inv
//     grad_x = scale * inv * (dy - grad_offset / N
//                             - (x - mean) * inv^2 * sum(dy * (x - mean)) / N)
//     -> (grad_x, grad_scale, grad_offset)
//
// The formulas are XLA's (its grad_x is the same expression over N); the
// arithmetic differs where XLA's would not match this project's reference
// interpreter: the variance is the two-pass mean of squared deviations
// (XLA's E[x^2] - E[x]^2 cancels badly when the mean is large against the
// spread), x - mean is divided by sqrt(var + eps) (XLA multiplies by
// rsqrt), and everything is computed in f64 with eps widened from its f32
// attribute (XLA rounds eps to the element type and computes in it), each
// result rounded once to its type: what the interpreter and the CPU
// backend's library call compute. Instructions that are not over real
// arrays with a valid feature dimension stay as they are.

#include "absl/status/statusor.h"
#include "hlo/ir/module.h"

namespace xlite {

absl::StatusOr<bool> ExpandBatchNorms(HloModule& module);

}  // namespace xlite

#endif  // XLITE_PASSES_BATCH_NORM_EXPANDER_H_
