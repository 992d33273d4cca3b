#ifndef XLITE_CPU_BACKEND_AOT_C_INTERFACE_H_
#define XLITE_CPU_BACKEND_AOT_C_INTERFACE_H_

// The C interface of an ahead-of-time library: which arrays its function
// takes and returns, in which order, and how many bytes each is. A C caller
// passes one pointer per array leaf of the entry computation's parameters
// (tuples flattened depth first, tokens left out) and one per array leaf
// of its result; every array is dense and row-major, its elements stored as
// in an xlite Literal (hlo/ir/literal.h: StorageBytes each).

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/ir/module.h"

namespace xlite::cpu {

/// One array the C function takes or returns.
struct CArray {
  /// Entry parameter number (-1 for a result leaf).
  int64_t parameter = -1;
  /// The leaf in the parameter's or the result's shape ({} for an array).
  ShapeIndex index;
  /// The array's shape (dense, row-major).
  Shape shape;
  /// ElementCount() * StorageBytes(element type).
  int64_t bytes = 0;
  /// What the header calls it: "%x", "%x{1}", "result {0}".
  std::string description;
};

struct CInterface {
  /// The C symbol of the function (a C identifier).
  std::string entry_name;
  std::string module_name;
  std::vector<CArray> params;
  std::vector<CArray> results;
};

/// The interface of `module`'s entry computation under `entry_name`.
/// Fails (located at the instruction, "LINE:COL: error: ...") on what a C
/// caller could not pass as a dense row-major array: a parameter or result
/// leaf with another physical layout, dynamic dimensions, an opaque or
/// buffer value.
absl::StatusOr<CInterface> BuildCInterface(const HloModule& module,
                                           const std::string& entry_name);

/// A refusal located at `hlo` when it came from text: "LINE:COL: error: "
/// then `message` (an InvalidArgument status).
absl::Status LocatedError(const HloInstruction* hlo, absl::string_view message);

/// Whether `name` is a C identifier (letters, digits, '_', not starting
/// with a digit) that is no C or C++ keyword.
bool IsCIdentifier(absl::string_view name);

/// `name` made a C identifier: every other character becomes '_', a
/// leading digit or a keyword gets a '_' in front ("jit_f.1" -> "jit_f_1").
std::string SanitizeCIdentifier(absl::string_view name);

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_AOT_C_INTERFACE_H_
