#ifndef XLITE_HLO_TEXT_ATTRIBUTE_TEXT_H_
#define XLITE_HLO_TEXT_ATTRIBUTE_TEXT_H_

// Internal to the text room: printing the opcode-specific attributes of an
// instruction from its row in the opcode schema (hlo/ir/opcode_schema.h),
// one small printer per attribute (attribute_printers.cc). The parser's
// counterpart is Parser::ParseAttributeValue (attribute_parsers.cc).

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "hlo/ir/instruction.h"

namespace xlite {
namespace text_internal {

/// Appends ", key=value" pieces to a line being printed.
class AttributeList {
 public:
  explicit AttributeList(std::string* out) : out_(out) {}
  void Add(absl::string_view key, absl::string_view value) {
    absl::StrAppend(out_, ", ", key, "=", value);
  }

 private:
  std::string* out_;
};

/// `"text"` with C escapes, as XLA quotes strings.
std::string Quoted(absl::string_view s);
/// `%name`.
std::string ComputationName(const HloComputation* computation);

/// Appends the opcode-specific attributes of `hlo` in the order of its
/// schema row, each only where it differs from XLA's default (required
/// ones always). `print_callees` false leaves out the attributes naming
/// called computations (sugared async ops inherit them).
void PrintOpcodeAttributes(const HloInstruction& hlo, bool print_callees,
                           AttributeList& out);

/// True if every attribute of the opcode schema has a printer
/// (attribute_printers.cc) and a parser (attribute_parsers.cc).
bool AllAttributesHavePrinters();
bool AllAttributesHaveParsers();

}  // namespace text_internal
}  // namespace xlite

#endif  // XLITE_HLO_TEXT_ATTRIBUTE_TEXT_H_
