#ifndef XLITE_HLO_TEXT_MODULE_EQUAL_H_
#define XLITE_HLO_TEXT_MODULE_EQUAL_H_

#include <string>

#include "hlo/ir/module.h"

namespace xlite {

/// Structural equality of two modules: same configuration, same computations
/// (by name), and in each the same instructions (by name) with equal opcode,
/// shape with layout, attributes, metadata, operands, control predecessors,
/// called computations and root. Instruction order does not matter.
/// On inequality, `difference` (if given) says where.
bool ModulesEqual(const HloModule& a, const HloModule& b,
                  std::string* difference = nullptr);

/// The module's text (PrintModule) with the computations it prints moved
/// after everything else, in name order. XLA's computation order is not
/// kept across a reparse, so round-trip properties compare this form: it
/// is equal for modules that print the same up to the order of their
/// computations, whatever order the printer picks.
std::string PrintModuleComputationsByName(const HloModule& module);

/// True if `a` and `b` print identically up to the order of their
/// computations. On inequality, `difference` (if given) quotes the first
/// line that differs.
bool PrintsEqualUpToComputationOrder(const HloModule& a, const HloModule& b,
                                     std::string* difference = nullptr);

}  // namespace xlite

#endif  // XLITE_HLO_TEXT_MODULE_EQUAL_H_
