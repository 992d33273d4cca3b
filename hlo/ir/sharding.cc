#include "hlo/ir/sharding.h"

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
  return CheckedProduct(tile_dimensions);
}

absl::Status HloSharding::Validate() const {
  auto invalid = [](auto... parts) {
    return absl::InvalidArgumentError(absl::StrCat("sharding: ", parts...));
  };
  switch (type) {
    case Type::kTuple:
      for (const HloSharding& element : tuple_elements) {
        absl::Status status = element.Validate();
        if (!status.ok()) return status;
      }
      return absl::OkStatus();
    case Type::kMaximal:
      if (device < 0) return invalid("maximal device ", device);
      return absl::OkStatus();
    case Type::kTiled: {
      if (tile_dimensions.empty()) return invalid("no tile dimensions");
      for (int64_t d : tile_dimensions) {
        if (d < 1) return invalid("tile dimension ", d, " is not >= 1");
      }
      const int64_t n = TileAssignmentSize();
      if (n < 0) return invalid("too many tiles");
      if (last_tile_dims.size() + (last_tile_dim_replicate ? 1 : 0) >
          tile_dimensions.size()) {
        return invalid("more subgroup dimensions than tile dimensions");
      }
      if (iota) {
        return ValidateIota(iota_reshape_dims, iota_transpose_perm, n,
                            "sharding");
      }
      if (static_cast<int64_t>(devices.size()) != n) {
        return absl::InvalidArgumentError(
            absl::StrCat("sharding lists ", devices.size(),
                         " devices, tile assignment needs ", n));
      }
      for (int64_t d : devices) {
        if (d < 0) return invalid("device ", d);
      }
      return absl::OkStatus();
    }
    default:
      return absl::OkStatus();
  }
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
