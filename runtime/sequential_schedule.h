#ifndef XLITE_RUNTIME_SEQUENTIAL_SCHEDULE_H_
#define XLITE_RUNTIME_SEQUENTIAL_SCHEDULE_H_

// The order in which the instructions of one sequential computation run.

#include <vector>

#include "runtime/alias_analysis.h"

namespace xlite::runtime {

/// Every instruction of `computation` once, operands and control
/// predecessors first. With `keep_module_order`, a scheduled module's
/// instruction order is kept when it is such an order; otherwise a list
/// scheduler picks, among the ready
/// instructions, the one that frees the most bytes net of what it defines
/// (ties: the earlier in instruction order), so few arrays are live at
/// once. Deterministic.
std::vector<const HloInstruction*> ScheduleComputation(
    const HloComputation& computation, const AliasAnalysis& analysis,
    bool keep_module_order);

/// True if `order` lists every instruction of `computation` exactly once
/// with operands and control predecessors first.
bool IsValidSchedule(const HloComputation& computation,
                     const std::vector<const HloInstruction*>& order);

}  // namespace xlite::runtime

#endif  // XLITE_RUNTIME_SEQUENTIAL_SCHEDULE_H_
