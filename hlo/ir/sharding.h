#ifndef XLITE_HLO_IR_SHARDING_H_
#define XLITE_HLO_IR_SHARDING_H_

#include <cstdint>
#include <string>
#include <vector>

#include "hlo/ir/attributes.h"

namespace xlite {

/// XLA's HloSharding as written in text: `{replicated}`, `{maximal device=0}`,
/// `{devices=[2,1]0,1}`, `{devices=[4,1,2]<=[8] last_tile_dim_replicate}`,
/// `{devices=[2,2]<=[2,2]T(1,0)}`, `{manual}`, tuples `{{..}, {..}}`, with
/// optional `metadata=`, `last_tile_dims=`, `shard_as N` / `shard_like N`.
/// Named (mesh) shardings are kept verbatim in `raw`.
struct HloSharding {
  enum class Type {
    kReplicated,
    kMaximal,
    kTiled,
    kManual,
    kUnknown,
    kUnreduced,
    kTuple,
    kRaw
  };
  /// OpSharding types used in last_tile_dims.
  enum class SubgroupType {
    kReplicated = 0,
    kMaximal = 1,
    kTuple = 2,
    kOther = 3,
    kManual = 4,
    kUnknown = 5,
    kUnreduced = 6
  };
  enum class ShardGroup { kNone, kAs, kLike };

  Type type = Type::kReplicated;
  int64_t device = 0;                    // kMaximal
  std::vector<int64_t> tile_dimensions;  // kTiled: devices=[...]
  std::vector<int64_t> devices;          // explicit device list
  bool iota = false;                     // devices given as <=[..]T(..)
  std::vector<int64_t> iota_reshape_dims;
  std::vector<int64_t> iota_transpose_perm;
  bool last_tile_dim_replicate = false;
  std::vector<SubgroupType> last_tile_dims;
  std::vector<OpMetadata> metadata;
  std::vector<HloSharding> tuple_elements;  // kTuple
  ShardGroup shard_group = ShardGroup::kNone;
  int64_t shard_group_id = 0;
  std::string raw;  // kRaw, with braces

  bool operator==(const HloSharding&) const = default;
  /// The text form, with the outer braces.
  std::string ToString() const;
  /// Number of devices the tile assignment names (kTiled); -1 when the
  /// dimensions are negative or their product is absurd.
  int64_t TileAssignmentSize() const;
  /// Structural checks (recursively for tuples): tile dimensions >= 1, as
  /// many devices as tiles (explicit ids >= 0, or a valid iota), no more
  /// last_tile_dims than tile dimensions, maximal device >= 0.
  absl::Status Validate() const;
};

}  // namespace xlite

#endif  // XLITE_HLO_IR_SHARDING_H_
