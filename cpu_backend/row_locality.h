#ifndef XLITE_CPU_BACKEND_ROW_LOCALITY_H_
#define XLITE_CPU_BACKEND_ROW_LOCALITY_H_

// Row locality of a kernel's reads: for each operand, the dimension along
// which the kernel's result row r reads that operand at its row r only
// (and nowhere else along it), or -1 when some result row may read other
// rows of it (a transpose, a broadcast along the rows, a slice, a
// reduction over them...). Kernel chains (kernel_chain.h) run row blocks
// of several kernels one after the other only through such reads.

#include <cstdint>
#include <vector>

#include "hlo/ir/instruction.h"

namespace xlite::cpu {

/// For each operand of `kernel` (a fusion, or a single instruction
/// computed elementally) whose array result's row dimension is `row_dim`:
/// the operand's dimension read at the result's row, or -1.
std::vector<int64_t> OperandRowDimensions(const HloInstruction* kernel,
                                          int64_t row_dim);

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_ROW_LOCALITY_H_
