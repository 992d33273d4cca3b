#include "hlo/sharding.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xlite {
namespace {

absl::string_view SubgroupTypeName(HloSharding::SubgroupType t) {
  switch (t) {
    case HloSharding::SubgroupType::kReplicated:
      return "replicated";
    case HloSharding::SubgroupType::kMaximal:
      return "maximal";
    case HloSharding::SubgroupType::kTuple:
      return "tuple";
    case HloSharding::SubgroupType::kOther:
      return "other";
    case HloSharding::SubgroupType::kManual:
      return "manual";
    case HloSharding::SubgroupType::kUnknown:
      return "unknown";
    case HloSharding::SubgroupType::kUnreduced:
      return "unreduced";
  }
  return "other";
}

}  // namespace

int64_t HloSharding::TileAssignmentSize() const {
  int64_t n = 1;
  for (int64_t d : tile_dimensions) n *= d;
  return n;
}

std::string HloSharding::ToString() const {
  if (type == Type::kRaw) return raw;
  if (type == Type::kTuple) {
    return absl::StrCat(
        "{",
        absl::StrJoin(tuple_elements, ", ",
                      [](std::string* out, const HloSharding& s) {
                        absl::StrAppend(out, s.ToString());
                      }),
        "}");
  }
  std::string out = "{";
  switch (type) {
    case Type::kReplicated:
      out += "replicated";
      break;
    case Type::kManual:
      out += "manual";
      break;
    case Type::kUnknown:
      out += "unknown";
      break;
    case Type::kUnreduced:
      out += "unreduced";
      break;
    case Type::kMaximal:
      absl::StrAppend(&out, "maximal device=", device);
      break;
    case Type::kTiled:
      absl::StrAppend(&out, "devices=[", absl::StrJoin(tile_dimensions, ","),
                      "]");
      if (iota) {
        absl::StrAppend(&out, "<=[", absl::StrJoin(iota_reshape_dims, ","),
                        "]");
        if (!iota_transpose_perm.empty()) {
          absl::StrAppend(&out, "T(", absl::StrJoin(iota_transpose_perm, ","),
                          ")");
        }
      } else {
        absl::StrAppend(&out, absl::StrJoin(devices, ","));
      }
      if (last_tile_dim_replicate) out += " last_tile_dim_replicate";
      if (!last_tile_dims.empty()) {
        absl::StrAppend(&out, " last_tile_dims={",
                        absl::StrJoin(last_tile_dims, ", ",
                                      [](std::string* o, SubgroupType t) {
                                        absl::StrAppend(o, SubgroupTypeName(t));
                                      }),
                        "}");
      }
      break;
    default:
      break;
  }
  if (shard_group == ShardGroup::kAs) {
    absl::StrAppend(&out, " shard_as ", shard_group_id);
  } else if (shard_group == ShardGroup::kLike) {
    absl::StrAppend(&out, " shard_like ", shard_group_id);
  }
  if (metadata.size() == 1) {
    absl::StrAppend(&out, " metadata=", metadata[0].ToString());
  } else if (metadata.size() > 1) {
    absl::StrAppend(&out, " metadata={",
                    absl::StrJoin(metadata, ", ",
                                  [](std::string* o, const OpMetadata& m) {
                                    absl::StrAppend(o, m.ToString());
                                  }),
                    "}");
  }
  out += "}";
  return out;
}

}  // namespace xlite
