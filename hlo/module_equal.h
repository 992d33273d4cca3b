#ifndef XLITE_HLO_MODULE_EQUAL_H_
#define XLITE_HLO_MODULE_EQUAL_H_

#include <string>

#include "hlo/module.h"

namespace xlite {

/// Structural equality of two modules: same configuration, same computations
/// (by name), and in each the same instructions (by name) with equal opcode,
/// shape with layout, attributes, metadata, operands, control predecessors,
/// called computations and root. Instruction order does not matter.
/// On inequality, `difference` (if given) says where.
bool ModulesEqual(const HloModule& a, const HloModule& b,
                  std::string* difference = nullptr);

}  // namespace xlite

#endif  // XLITE_HLO_MODULE_EQUAL_H_
