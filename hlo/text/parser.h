#ifndef XLITE_HLO_TEXT_PARSER_H_
#define XLITE_HLO_TEXT_PARSER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/ir/literal.h"
#include "hlo/ir/module.h"

namespace xlite {

struct ParseOptions {
  /// Name used in error locations ("FILE:LINE:COL: error: ...").
  std::string filename = "<input>";
  /// Added to reported line numbers (for pieces of a split file).
  int line_offset = 0;
  /// Give shapes written without a layout the default layout, as XLA does.
  bool fill_missing_layouts = true;
  /// Where warnings (input XLA accepts but that is probably a mistake, such
  /// as an array constant with fewer elements than its shape) go, one
  /// located message each; null writes them to stderr.
  std::vector<std::string>* warnings = nullptr;
};

/// Parses one module in XLA's text format (HloModule::ToString and the
/// dialects real dumps contain). Errors are located, never fatal.
absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModule(
    absl::string_view text, const ParseOptions& options = {});

/// Parses a shape such as "f32[2,3]{1,0}" or "(s32[], f32[4])".
absl::StatusOr<Shape> ParseShape(absl::string_view text,
                                 const ParseOptions& options = {});

/// Parses a literal with its shape: "f32[2] {1, 2}", "(s32[] 1, f32[] 2)",
/// "pred[] true".
absl::StatusOr<Literal> ParseLiteral(absl::string_view text,
                                     const ParseOptions& options = {});

/// One piece of a file split on lines "// -----".
struct SplitPiece {
  std::string text;
  int line_offset = 0;  // lines before this piece in the original file
};
/// Splits `text` on lines consisting of "// -----" (as MLIR/XLA tools do).
std::vector<SplitPiece> SplitInputFile(absl::string_view text);

}  // namespace xlite

#endif  // XLITE_HLO_TEXT_PARSER_H_
