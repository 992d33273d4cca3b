// Proto functions of the collective, channel and feed attributes.

#include <optional>
#include <utility>

#include "hlo/proto/attribute_proto.h"
#include "hlo/proto/proto_convert.h"

namespace xlite::attribute_proto {
namespace {

using A = AttributeId;
using Hlo = HloInstruction;
using Proto = xla::HloInstructionProto;

absl::Status WriteReplicaGroups(const Hlo& h, Proto* p) {
  const ReplicaGroups& g = h.attrs().collective->replica_groups;
  auto* list = p->mutable_collective_device_list();
  if (!g.iota) {
    for (const auto& group : g.groups) {
      auto* rg = list->add_replica_groups();
      for (int64_t id : group) rg->add_replica_ids(id);
    }
    return absl::OkStatus();
  }
  // Both where XLA's schema puts it and where newer XLA looks for it.
  auto* iota = list->mutable_iota_replica_group_list();
  iota->set_num_replica_groups(g.num_groups);
  iota->set_num_devices_per_group(g.group_size);
  for (int64_t d : g.reshape_dims) iota->add_iota_reshape_dims(d);
  for (int64_t d : g.transpose_perm) {
    iota->add_iota_transpose_perm(static_cast<int32_t>(d));
  }
  *p->mutable_iota_collective_device_list() = *iota;
  return absl::OkStatus();
}

absl::Status ReadReplicaGroups(const Proto& p, Hlo* h) {
  ReplicaGroups& g = h->mutable_attrs().collective->replica_groups;
  // Iota groups: newer XLA writes iota_collective_device_list, older XLA
  // (and XLA's published schema) collective_device_list.
  const xla::IotaReplicaGroupListProto* iota = nullptr;
  if (p.has_iota_collective_device_list()) {
    iota = &p.iota_collective_device_list();
  } else if (p.collective_device_list().has_iota_replica_group_list()) {
    iota = &p.collective_device_list().iota_replica_group_list();
  }
  if (iota == nullptr) {
    const auto& groups = p.collective_device_list().replica_groups_size() > 0
                             ? p.collective_device_list().replica_groups()
                             : p.replica_groups();
    for (const auto& rg : groups) {
      g.groups.emplace_back(rg.replica_ids().begin(), rg.replica_ids().end());
    }
    return absl::OkStatus();
  }
  g.iota = true;
  g.num_groups = iota->num_replica_groups();
  g.group_size = iota->num_devices_per_group();
  AssignTo(iota->iota_reshape_dims(), &g.reshape_dims);
  bool identity = true;
  for (int i = 0; i < iota->iota_transpose_perm_size(); ++i) {
    identity &= iota->iota_transpose_perm(i) == i;
  }
  if (!identity) {
    g.transpose_perm.assign(iota->iota_transpose_perm().begin(),
                            iota->iota_transpose_perm().end());
  }
  return absl::OkStatus();
}

// collective-permute's slice_sizes share the dynamic_slice_sizes field,
// one operand rank's worth per pair; only the form with four operands has
// them.
absl::Status ReadPermuteSliceSizes(const Proto& p, Hlo* h) {
  if (p.dynamic_slice_sizes_size() == 0 || h->operand_count() != 4) {
    return absl::OkStatus();
  }
  const int64_t rank = h->operand(0)->shape().rank();
  for (int i = 0; rank > 0 && i + rank <= p.dynamic_slice_sizes_size();
       i += rank) {
    h->mutable_attrs().collective->permute_slice_sizes.emplace_back(
        p.dynamic_slice_sizes().begin() + i,
        p.dynamic_slice_sizes().begin() + i + rank);
  }
  return absl::OkStatus();
}

void AddCollectiveGroupAttributes(FunctionTable* t) {
  t->Set(
      A::kChannelId,
      [](const Hlo& h, Proto* p) {
        if (h.attrs().channel_id.has_value()) {
          p->set_channel_id(*h.attrs().channel_id);
        }
        return absl::OkStatus();
      },
      [](const Proto& p, Hlo* h) {
        if (p.channel_id() > 0) h->mutable_attrs().channel_id = p.channel_id();
        return absl::OkStatus();
      });
  t->Set(A::kReplicaGroups, WriteReplicaGroups, ReadReplicaGroups);
  t->Set(
      A::kConstrainLayout,
      [](const Hlo& h, Proto* p) {
        p->set_constrain_layout(h.attrs().collective->constrain_layout);
        return absl::OkStatus();
      },
      [](const Proto& p, Hlo* h) {
        h->mutable_attrs().collective->constrain_layout = p.constrain_layout();
        return absl::OkStatus();
      });
  t->Set(
      A::kUseGlobalDeviceIds,
      [](const Hlo& h, Proto* p) {
        p->set_use_global_device_ids(
            h.attrs().collective->use_global_device_ids);
        return absl::OkStatus();
      },
      [](const Proto& p, Hlo* h) {
        h->mutable_attrs().collective->use_global_device_ids =
            p.use_global_device_ids();
        return absl::OkStatus();
      });
  t->Set(A::kMode, WriteNothing, ReadNothing);
  t->Set(
      A::kSourceTargetPairs,
      [](const Hlo& h, Proto* p) {
        for (const auto& [source, target] :
             h.attrs().collective->source_target_pairs) {
          auto* st = p->add_source_target_pairs();
          st->set_source(source);
          st->set_target(target);
        }
        return absl::OkStatus();
      },
      [](const Proto& p, Hlo* h) {
        for (const auto& st : p.source_target_pairs()) {
          h->mutable_attrs().collective->source_target_pairs.push_back(
              {st.source(), st.target()});
        }
        return absl::OkStatus();
      });
  t->Set(
      A::kPermuteSliceSizes,
      [](const Hlo& h, Proto* p) {
        for (const auto& sizes : h.attrs().collective->permute_slice_sizes) {
          AddAll(sizes, p->mutable_dynamic_slice_sizes());
        }
        return absl::OkStatus();
      },
      ReadPermuteSliceSizes);
}

void AddFeedAttributes(FunctionTable* t) {
  t->Set(
      A::kInfeedConfig,
      [](const Hlo& h, Proto* p) {
        p->set_infeed_config(h.attrs().feed->infeed_config);
        return absl::OkStatus();
      },
      [](const Proto& p, Hlo* h) {
        if (!p.infeed_config().empty()) {
          h->mutable_attrs().feed->infeed_config = p.infeed_config();
        }
        return absl::OkStatus();
      });
  t->Set(
      A::kOutfeedConfig,
      [](const Hlo& h, Proto* p) {
        p->set_outfeed_config(h.attrs().feed->outfeed_config);
        return absl::OkStatus();
      },
      [](const Proto& p, Hlo* h) {
        if (!p.outfeed_config().empty()) {
          h->mutable_attrs().feed->outfeed_config = p.outfeed_config();
        }
        return absl::OkStatus();
      });
  t->Set(
      A::kOutfeedShape,
      [](const Hlo& h, Proto* p) {
        const std::optional<Shape>& shape = h.attrs().feed->outfeed_shape;
        if (shape.has_value())
          *p->mutable_outfeed_shape() = ShapeToProto(*shape);
        return absl::OkStatus();
      },
      [](const Proto& p, Hlo* h) {
        if (!p.has_outfeed_shape()) return absl::OkStatus();
        absl::StatusOr<Shape> shape = ShapeFromProto(p.outfeed_shape());
        if (!shape.ok()) return shape.status();
        h->mutable_attrs().feed->outfeed_shape = *std::move(shape);
        return absl::OkStatus();
      });
}

}  // namespace

void AddCollectiveAttributes(FunctionTable* table) {
  AddCollectiveGroupAttributes(table);
  AddFeedAttributes(table);
}

}  // namespace xlite::attribute_proto
