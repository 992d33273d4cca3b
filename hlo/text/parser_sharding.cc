// Shardings: `{devices=[2,1]0,1}`, `{replicated}`, `{maximal device=0}`,
// iota tile assignments, last_tile_dims, tuple shardings, and the named
// (mesh) forms kept verbatim.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "hlo/text/parser_impl.h"

namespace xlite {
namespace parser_internal {

bool Parser::ParseSharding(HloSharding* sharding) {
  TextScanner& s = scanner_;
  const size_t start = s.Position();
  if (!s.Expect('{', "to start a sharding")) return false;
  if (s.Peek() == '{' || s.Peek() == '}') {
    // Tuple sharding (possibly empty).
    sharding->type = HloSharding::Type::kTuple;
    if (!s.Consume('}')) {
      do {
        HloSharding element;
        if (!ParseSingleSharding(&element)) return false;
        sharding->tuple_elements.push_back(std::move(element));
      } while (s.Consume(','));
      if (!s.Expect('}', "to close a tuple sharding")) return false;
    }
    return true;
  }
  const std::string id = s.PeekIdentifier();
  if (id == "mesh" || id == "maximal_mesh") {
    // Named shardings: kept verbatim.
    s.Reset(start);
    sharding->type = HloSharding::Type::kRaw;
    return s.ReadBalancedBraces(&sharding->raw, "for a sharding");
  }
  s.Reset(start);
  return ParseSingleSharding(sharding);
}

namespace {

// Comma-separated integers, at least one.
bool ReadIntList(TextScanner& s, std::vector<int64_t>* out, const What& what) {
  do {
    int64_t v;
    if (!s.ReadInt64(&v, what)) return false;
    out->push_back(v);
  } while (s.Consume(','));
  return true;
}

// After `devices`: `=[dims]` then the device list, or `<=[reshape dims]`
// with an optional `T(perm)` (the iota form).
bool ParseTileAssignment(TextScanner& s, HloSharding* sharding) {
  if (!s.Expect('=', "after devices") ||
      !s.Expect('[', "to start the tile assignment dimensions")) {
    return false;
  }
  if (!ReadIntList(s, &sharding->tile_dimensions,
                   "in the tile assignment dimensions")) {
    return false;
  }
  if (!s.Expect(']', "to close the tile assignment dimensions")) return false;
  if (!s.ConsumeString("<=")) {
    return ReadIntList(s, &sharding->devices, "in the device list");
  }
  sharding->iota = true;
  if (!s.Expect('[', "after '<='")) return false;
  if (!ReadIntList(s, &sharding->iota_reshape_dims, "in iota reshape dims")) {
    return false;
  }
  if (!s.Expect(']', "to close iota reshape dims")) return false;
  if (s.Peek() == 'T' && s.PeekAt(1) == '(') {
    s.Consume('T');
    s.Consume('(');
    if (!ReadIntList(s, &sharding->iota_transpose_perm, "in iota transpose")) {
      return false;
    }
    if (!s.Expect(')', "to close the iota transpose")) return false;
  }
  return true;
}

// After `metadata`: `=` then one metadata, a list of them, or `{}`.
bool ParseShardingMetadata(Parser& parser, HloSharding* sharding) {
  TextScanner& s = parser.scanner();
  if (!s.Expect('=', "after metadata")) return false;
  if (s.Peek() == '{' && s.PeekAt(1) == '{') {
    s.Consume('{');
    do {
      OpMetadata m;
      if (!parser.ParseMetadata(&m)) return false;
      sharding->metadata.push_back(std::move(m));
    } while (s.Consume(','));
    return s.Expect('}', "to close the metadata list");
  }
  if (s.Peek() == '{' && s.PeekAt(1) == '}') {
    s.Consume('{');
    s.Consume('}');
    return true;
  }
  OpMetadata m;
  if (!parser.ParseMetadata(&m)) return false;
  sharding->metadata.push_back(std::move(m));
  return true;
}

// After `last_tile_dims`: `={type, ...}` naming each trailing subgroup.
bool ParseLastTileDims(TextScanner& s, HloSharding* sharding) {
  if (!s.Expect('=', "after last_tile_dims") ||
      !s.Expect('{', "to start last_tile_dims")) {
    return false;
  }
  if (s.Consume('}')) return true;
  using T = HloSharding::SubgroupType;
  static constexpr std::pair<absl::string_view, T> kTypes[] = {
      {"replicated", T::kReplicated}, {"manual", T::kManual},
      {"maximal", T::kMaximal},       {"other", T::kOther},
      {"unknown", T::kUnknown},       {"unreduced", T::kUnreduced},
  };
  do {
    const size_t q = s.Position();
    const std::string t = s.ReadIdentifier();
    const auto* it = std::find_if(std::begin(kTypes), std::end(kTypes),
                                  [&](const auto& e) { return e.first == t; });
    if (it == std::end(kTypes)) {
      return s.ErrorAt(q, absl::StrCat("unknown sharding type '", t, "'"));
    }
    sharding->last_tile_dims.push_back(it->second);
  } while (s.Consume(','));
  return s.Expect('}', "to close last_tile_dims");
}

// The kind words a sharding may hold; the first that is set, in this order,
// decides its type.
struct ShardingKind {
  bool replicated = false, maximal = false, manual = false, unknown = false,
       unreduced = false, tiled = false, have_device = false;
};

bool SetShardingType(TextScanner& s, size_t start, const ShardingKind& kind,
                     HloSharding* sharding) {
  using Type = HloSharding::Type;
  if (kind.replicated) {
    sharding->type = Type::kReplicated;
  } else if (kind.maximal) {
    if (!kind.have_device)
      return s.ErrorAt(start, "maximal sharding needs device=N");
    sharding->type = Type::kMaximal;
  } else if (kind.manual) {
    sharding->type = Type::kManual;
  } else if (kind.unknown) {
    sharding->type = Type::kUnknown;
  } else if (kind.unreduced) {
    sharding->type = Type::kUnreduced;
  } else if (kind.tiled) {
    sharding->type = Type::kTiled;
    absl::Status valid = sharding->Validate();
    if (!valid.ok()) return s.ErrorAt(start, valid.message());
  } else {
    return s.ErrorAt(start,
                     "sharding needs replicated, maximal, manual, unknown "
                     "or devices=");
  }
  return true;
}

}  // namespace

bool Parser::ParseSingleSharding(HloSharding* sharding) {
  TextScanner& s = scanner_;
  const size_t start = s.Position();
  if (!s.Expect('{', "to start a sharding")) return false;
  ShardingKind kind;
  while (s.Peek() != '}' && !s.AtEnd()) {
    const size_t p = s.Position();
    std::string word = s.ReadIdentifier();
    if (word == "replicated") {
      kind.replicated = true;
    } else if (word == "maximal") {
      kind.maximal = true;
    } else if (word == "manual") {
      kind.manual = true;
    } else if (word == "unknown") {
      kind.unknown = true;
    } else if (word == "unreduced") {
      kind.unreduced = true;
    } else if (word == "last_tile_dim_replicate") {
      sharding->last_tile_dim_replicate = true;
    } else if (word == "shard_as" || word == "shard_like") {
      sharding->shard_group = word == "shard_as"
                                  ? HloSharding::ShardGroup::kAs
                                  : HloSharding::ShardGroup::kLike;
      if (!s.ReadInt64(&sharding->shard_group_id,
                       "after shard_as/shard_like")) {
        return false;
      }
    } else if (word == "device") {
      if (!s.Expect('=', "after device") ||
          !s.ReadInt64(&sharding->device, "after device=")) {
        return false;
      }
      kind.have_device = true;
    } else if (word == "devices") {
      kind.tiled = true;
      if (!ParseTileAssignment(s, sharding)) return false;
    } else if (word == "metadata") {
      if (!ParseShardingMetadata(*this, sharding)) return false;
    } else if (word == "last_tile_dims") {
      if (!ParseLastTileDims(s, sharding)) return false;
    } else {
      return s.ErrorAt(
          p, word.empty()
                 ? std::string("unexpected character in a sharding")
                 : absl::StrCat("unknown sharding attribute '", word, "'"));
    }
  }
  if (!s.Expect('}', "to close the sharding")) return false;
  return SetShardingType(s, start, kind, sharding);
}

}  // namespace parser_internal
}  // namespace xlite
