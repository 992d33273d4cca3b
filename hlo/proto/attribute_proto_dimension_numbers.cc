// Proto functions of the dot, ragged-dot, gather and scatter dimension
// numbers.
//
// Each of these messages holds several attributes; each attribute's writer
// creates the message, so it is present whenever the opcode has the
// attribute, as XLA writes it, even with every list empty.

#include "hlo/proto/attribute_proto.h"

namespace xlite::attribute_proto {
namespace {

using A = AttributeId;
using Hlo = HloInstruction;
using Proto = xla::HloInstructionProto;

// ---- dot dimension numbers

// Ragged-dot nests its dot dimension numbers.
xla::DotDimensionNumbers* MutableDotNumbers(const Hlo& h, Proto* p) {
  return h.opcode() == HloOpcode::kRaggedDot
             ? p->mutable_ragged_dot_dimension_numbers()
                   ->mutable_dot_dimension_numbers()
             : p->mutable_dot_dimension_numbers();
}

// The dot dimension numbers read, on any dot: nested ragged ones win.
const xla::DotDimensionNumbers* DotNumbers(const Proto& p) {
  if (p.has_ragged_dot_dimension_numbers()) {
    return &p.ragged_dot_dimension_numbers().dot_dimension_numbers();
  }
  return p.has_dot_dimension_numbers() ? &p.dot_dimension_numbers() : nullptr;
}

DotDimensionNumbers& MutableDnums(Hlo* h) {
  return h->mutable_attrs().dot->dnums;
}

void AddDotAttributes(FunctionTable* t) {
  t->Set(
      A::kLhsBatchDims,
      [](const Hlo& h, Proto* p) {
        AddAll(h.attrs().dot->dnums.lhs_batch_dimensions,
               MutableDotNumbers(h, p)->mutable_lhs_batch_dimensions());
        return absl::OkStatus();
      },
      [](const Proto& p, Hlo* h) {
        if (const auto* d = DotNumbers(p)) {
          AssignTo(d->lhs_batch_dimensions(),
                   &MutableDnums(h).lhs_batch_dimensions);
        }
        return absl::OkStatus();
      });
  t->Set(
      A::kLhsContractingDims,
      [](const Hlo& h, Proto* p) {
        AddAll(h.attrs().dot->dnums.lhs_contracting_dimensions,
               MutableDotNumbers(h, p)->mutable_lhs_contracting_dimensions());
        return absl::OkStatus();
      },
      [](const Proto& p, Hlo* h) {
        if (const auto* d = DotNumbers(p)) {
          AssignTo(d->lhs_contracting_dimensions(),
                   &MutableDnums(h).lhs_contracting_dimensions);
        }
        return absl::OkStatus();
      });
  t->Set(
      A::kRhsBatchDims,
      [](const Hlo& h, Proto* p) {
        AddAll(h.attrs().dot->dnums.rhs_batch_dimensions,
               MutableDotNumbers(h, p)->mutable_rhs_batch_dimensions());
        return absl::OkStatus();
      },
      [](const Proto& p, Hlo* h) {
        if (const auto* d = DotNumbers(p)) {
          AssignTo(d->rhs_batch_dimensions(),
                   &MutableDnums(h).rhs_batch_dimensions);
        }
        return absl::OkStatus();
      });
  t->Set(
      A::kRhsContractingDims,
      [](const Hlo& h, Proto* p) {
        AddAll(h.attrs().dot->dnums.rhs_contracting_dimensions,
               MutableDotNumbers(h, p)->mutable_rhs_contracting_dimensions());
        return absl::OkStatus();
      },
      [](const Proto& p, Hlo* h) {
        if (const auto* d = DotNumbers(p)) {
          AssignTo(d->rhs_contracting_dimensions(),
                   &MutableDnums(h).rhs_contracting_dimensions);
        }
        return absl::OkStatus();
      });
  t->Set(
      A::kLhsRaggedDims,
      [](const Hlo& h, Proto* p) {
        AddAll(h.attrs().dot->lhs_ragged_dims,
               p->mutable_ragged_dot_dimension_numbers()
                   ->mutable_lhs_ragged_dimensions());
        return absl::OkStatus();
      },
      [](const Proto& p, Hlo* h) {
        if (p.has_ragged_dot_dimension_numbers()) {
          AssignTo(p.ragged_dot_dimension_numbers().lhs_ragged_dimensions(),
                   &h->mutable_attrs().dot->lhs_ragged_dims);
        }
        return absl::OkStatus();
      });
  t->Set(
      A::kRhsGroupDims,
      [](const Hlo& h, Proto* p) {
        AddAll(h.attrs().dot->rhs_group_dims,
               p->mutable_ragged_dot_dimension_numbers()
                   ->mutable_rhs_group_dimensions());
        return absl::OkStatus();
      },
      [](const Proto& p, Hlo* h) {
        if (p.has_ragged_dot_dimension_numbers()) {
          AssignTo(p.ragged_dot_dimension_numbers().rhs_group_dimensions(),
                   &h->mutable_attrs().dot->rhs_group_dims);
        }
        return absl::OkStatus();
      });
}

// ---- gather and scatter dimension numbers

const GatherDimensionNumbers& Gather(const Hlo& h) {
  return h.attrs().gather_scatter->gather;
}
GatherDimensionNumbers& MutableGather(Hlo* h) {
  return h->mutable_attrs().gather_scatter->gather;
}
const ScatterDimensionNumbers& Scatter(const Hlo& h) {
  return h.attrs().gather_scatter->scatter;
}
ScatterDimensionNumbers& MutableScatter(Hlo* h) {
  return h->mutable_attrs().gather_scatter->scatter;
}

// One list of the gather (or scatter) dimension numbers; read only when the
// proto has the message.
#define XLITE_GATHER_LIST(id, field)                                      \
  t->Set(                                                                 \
      A::id,                                                              \
      [](const Hlo& h, Proto* p) {                                        \
        AddAll(Gather(h).field,                                           \
               p->mutable_gather_dimension_numbers()->mutable_##field()); \
        return absl::OkStatus();                                          \
      },                                                                  \
      [](const Proto& p, Hlo* h) {                                        \
        if (p.has_gather_dimension_numbers()) {                           \
          AssignTo(p.gather_dimension_numbers().field(),                  \
                   &MutableGather(h).field);                              \
        }                                                                 \
        return absl::OkStatus();                                          \
      })
#define XLITE_SCATTER_LIST(id, field)                                      \
  t->Set(                                                                  \
      A::id,                                                               \
      [](const Hlo& h, Proto* p) {                                         \
        AddAll(Scatter(h).field,                                           \
               p->mutable_scatter_dimension_numbers()->mutable_##field()); \
        return absl::OkStatus();                                           \
      },                                                                   \
      [](const Proto& p, Hlo* h) {                                         \
        if (p.has_scatter_dimension_numbers()) {                           \
          AssignTo(p.scatter_dimension_numbers().field(),                  \
                   &MutableScatter(h).field);                              \
        }                                                                  \
        return absl::OkStatus();                                           \
      })

void AddGatherScatterAttributes(FunctionTable* t) {
  XLITE_GATHER_LIST(kOffsetDims, offset_dims);
  XLITE_GATHER_LIST(kCollapsedSliceDims, collapsed_slice_dims);
  XLITE_GATHER_LIST(kStartIndexMap, start_index_map);
  XLITE_GATHER_LIST(kOperandBatchingDims, operand_batching_dims);
  XLITE_GATHER_LIST(kStartIndicesBatchingDims, start_indices_batching_dims);
  t->Set(
      A::kGatherIndexVectorDim,
      [](const Hlo& h, Proto* p) {
        p->mutable_gather_dimension_numbers()->set_index_vector_dim(
            Gather(h).index_vector_dim);
        return absl::OkStatus();
      },
      [](const Proto& p, Hlo* h) {
        if (p.has_gather_dimension_numbers()) {
          MutableGather(h).index_vector_dim =
              p.gather_dimension_numbers().index_vector_dim();
        }
        return absl::OkStatus();
      });
  // slice_sizes sits beside the message but has always been read with it.
  t->Set(
      A::kGatherSliceSizes,
      [](const Hlo& h, Proto* p) {
        AddAll(h.attrs().gather_scatter->slice_sizes,
               p->mutable_gather_slice_sizes());
        return absl::OkStatus();
      },
      [](const Proto& p, Hlo* h) {
        if (p.has_gather_dimension_numbers()) {
          AssignTo(p.gather_slice_sizes(),
                   &h->mutable_attrs().gather_scatter->slice_sizes);
        }
        return absl::OkStatus();
      });
  XLITE_SCATTER_LIST(kUpdateWindowDims, update_window_dims);
  XLITE_SCATTER_LIST(kInsertedWindowDims, inserted_window_dims);
  XLITE_SCATTER_LIST(kScatterDimsToOperandDims, scatter_dims_to_operand_dims);
  XLITE_SCATTER_LIST(kInputBatchingDims, input_batching_dims);
  XLITE_SCATTER_LIST(kScatterIndicesBatchingDims,
                     scatter_indices_batching_dims);
  t->Set(
      A::kScatterIndexVectorDim,
      [](const Hlo& h, Proto* p) {
        p->mutable_scatter_dimension_numbers()->set_index_vector_dim(
            Scatter(h).index_vector_dim);
        return absl::OkStatus();
      },
      [](const Proto& p, Hlo* h) {
        if (p.has_scatter_dimension_numbers()) {
          MutableScatter(h).index_vector_dim =
              p.scatter_dimension_numbers().index_vector_dim();
        }
        return absl::OkStatus();
      });
  t->Set(
      A::kIndicesAreSorted,
      [](const Hlo& h, Proto* p) {
        p->set_indices_are_sorted(h.attrs().gather_scatter->indices_are_sorted);
        return absl::OkStatus();
      },
      [](const Proto& p, Hlo* h) {
        if (p.indices_are_sorted()) {
          h->mutable_attrs().gather_scatter->indices_are_sorted = true;
        }
        return absl::OkStatus();
      });
  t->Set(
      A::kUniqueIndices,
      [](const Hlo& h, Proto* p) {
        p->set_unique_indices(h.attrs().gather_scatter->unique_indices);
        return absl::OkStatus();
      },
      [](const Proto& p, Hlo* h) {
        if (p.unique_indices()) {
          h->mutable_attrs().gather_scatter->unique_indices = true;
        }
        return absl::OkStatus();
      });
}

#undef XLITE_GATHER_LIST
#undef XLITE_SCATTER_LIST

}  // namespace

void AddDimensionNumberAttributes(FunctionTable* table) {
  AddDotAttributes(table);
  AddGatherScatterAttributes(table);
}

}  // namespace xlite::attribute_proto
