#ifndef XLITE_HLO_IR_NAME_UNIQUER_H_
#define XLITE_HLO_IR_NAME_UNIQUER_H_

#include <cstdint>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"

namespace xlite {

/// Hands out unique names the way XLA does, so modules xlite reads print
/// with XLA's names: a name splits into a root and an optional numeric
/// suffix after the last '.', and a taken suffix is replaced by the
/// smallest free one counting up from 0 ("add.1" taken -> "add.0", "add"
/// taken -> "add.1"). One uniquer serves the instructions of a module and
/// another its computations.
class NameUniquer {
 public:
  NameUniquer() = default;

  /// A name not handed out before, derived from `prefix` ("name" if empty).
  std::string GetUniqueName(absl::string_view prefix);

  /// Makes `name` a valid HLO identifier as XLA does: [a-zA-Z_] first,
  /// then [a-zA-Z0-9_.-]; a primitive type name (other than "tuple") gets
  /// a trailing '_'; a leading "__" (other than "__xla_") becomes "a_".
  static std::string Sanitize(absl::string_view name);

 private:
  // The suffixes taken for one root, and where to look for a free one.
  struct Suffixes {
    int64_t next = 0;
    absl::flat_hash_set<int64_t> taken;
    int64_t Take(int64_t wanted);
  };
  absl::flat_hash_map<std::string, Suffixes> roots_;
};

}  // namespace xlite

#endif  // XLITE_HLO_IR_NAME_UNIQUER_H_
