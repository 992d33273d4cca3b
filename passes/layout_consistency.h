#ifndef XLITE_PASSES_LAYOUT_CONSISTENCY_H_
#define XLITE_PASSES_LAYOUT_CONSISTENCY_H_

// Makes every view of one buffer agree on its layout. Modules dumped before
// XLA's layout assignment may give a while's init, its body parameter and
// its body root (or a tuple and the get-tuple-element reading it) different
// layouts; the evaluator does not care, but generated code indexes the
// physical layout each instruction declares. This pass makes the forwarding
// positions (tuple, get-tuple-element, while/conditional/call parameters and
// results, opt-barrier, add-dependency, domain) take the layout of the data
// that flows into them, and where two sources meet (a loop's init and its
// body root, conditional branches) converts the later one with a `copy`.

#include "absl/status/statusor.h"
#include "hlo/ir/module.h"

namespace xlite {

absl::StatusOr<bool> MakeLayoutsConsistent(HloModule& module);

}  // namespace xlite

#endif  // XLITE_PASSES_LAYOUT_CONSISTENCY_H_
