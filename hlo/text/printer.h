#ifndef XLITE_HLO_TEXT_PRINTER_H_
#define XLITE_HLO_TEXT_PRINTER_H_

#include <string>

#include "hlo/ir/module.h"

namespace xlite {

/// What the text printer includes. Defaults print everything, in XLA's
/// format, so that XLA and xlite both read the result back unchanged.
struct PrintOptions {
  bool print_operand_shapes = false;  // "add(f32[2]{0} %a, ...)"
  bool print_metadata = true;
  bool print_backend_config = true;
  bool print_large_constants = true;  // false: "{...}" above 10 elements
};

/// The module in XLA's text format.
std::string PrintModule(const HloModule& module,
                        const PrintOptions& options = {});
/// One computation (header, instructions, closing brace).
std::string PrintComputation(const HloComputation& computation,
                             const PrintOptions& options = {});
/// One instruction line, without indentation or "ROOT".
std::string PrintInstruction(const HloInstruction& instruction,
                             const PrintOptions& options = {});

}  // namespace xlite

#endif  // XLITE_HLO_TEXT_PRINTER_H_
