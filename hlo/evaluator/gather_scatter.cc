// gather and scatter with every form of dimension numbers (collapsed /
// inserted dims, batching dims, any index_vector_dim). Gather clamps start
// indices into range; scatter skips a window that does not fit, as XLA's
// CPU backend does.

#include <algorithm>
#include <cstring>

#include "hlo/evaluator/internal.h"

namespace xlite::eval {
namespace {

// Reads the index vector at batch position `batch` (indices of the
// batch dimensions of `indices`, i.e. all but index_vector_dim).
void IndexVector(const Literal& indices, int64_t index_vector_dim,
                 absl::Span<const int64_t> batch,
                 const std::vector<int64_t>& strides,
                 std::vector<int64_t>* out) {
  const int64_t rank = indices.shape().rank();
  int64_t base = 0;
  int64_t b = 0;
  for (int64_t d = 0; d < rank; ++d) {
    if (d == index_vector_dim) continue;
    base += batch[b++] * strides[d];
  }
  const int64_t count = index_vector_dim < rank
                            ? indices.shape().dimensions(index_vector_dim)
                            : 1;
  out->resize(count);
  for (int64_t k = 0; k < count; ++k) {
    const int64_t at =
        base + (index_vector_dim < rank ? k * strides[index_vector_dim] : 0);
    (*out)[k] = IndexAt(indices, at);
  }
}

// The batch dimension of `indices` that each batch position corresponds
// to (all dims but index_vector_dim, in order).
std::vector<int64_t> BatchDims(int64_t rank, int64_t index_vector_dim) {
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < rank; ++d) {
    if (d != index_vector_dim) dims.push_back(d);
  }
  return dims;
}

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

absl::StatusOr<Literal> EvalGather(const HloInstruction& hlo,
                                   Operands operands) {
  const Literal& operand = *operands[0];
  const Literal& indices = *operands[1];
  const GatherDimensionNumbers& g = hlo.attrs().gather_scatter->gather;
  const std::vector<int64_t>& slice_sizes =
      hlo.attrs().gather_scatter->slice_sizes;
  const Shape& shape = hlo.shape();
  const Shape& in = operand.shape();
  Literal out(shape);
  const int64_t w = ElementBytes(shape);
  const std::vector<int64_t> in_strides = Strides(in.dimensions());
  const std::vector<int64_t> index_strides =
      Strides(indices.shape().dimensions());
  const std::vector<int64_t> batch_dims =
      BatchDims(indices.shape().rank(), g.index_vector_dim);
  // Operand dims the offset dims of the output walk, in order.
  std::vector<int64_t> window_dims;
  for (int64_t d = 0; d < in.rank(); ++d) {
    if (!Contains(g.collapsed_slice_dims, d) &&
        !Contains(g.operand_batching_dims, d)) {
      window_dims.push_back(d);
    }
  }
  std::vector<int64_t> batch(batch_dims.size());
  std::vector<int64_t> vec;
  std::vector<int64_t> start(in.rank());
  int64_t linear = 0;
  ForEachIndex(shape.dimensions(), [&](absl::Span<const int64_t> index) {
    int64_t b = 0, o = 0;
    std::vector<int64_t> offsets(in.rank(), 0);
    for (int64_t d = 0; d < shape.rank(); ++d) {
      if (Contains(g.offset_dims, d)) {
        offsets[window_dims[o++]] = index[d];
      } else {
        batch[b++] = index[d];
      }
    }
    IndexVector(indices, g.index_vector_dim, batch, index_strides, &vec);
    std::fill(start.begin(), start.end(), 0);
    for (size_t k = 0; k < g.start_index_map.size() && k < vec.size(); ++k) {
      start[g.start_index_map[k]] = vec[k];
    }
    for (size_t k = 0; k < g.operand_batching_dims.size(); ++k) {
      // The position along the matching batch dimension of the indices.
      const int64_t idx_dim = g.start_indices_batching_dims[k];
      const int64_t pos =
          std::find(batch_dims.begin(), batch_dims.end(), idx_dim) -
          batch_dims.begin();
      start[g.operand_batching_dims[k]] = batch[pos];
    }
    int64_t source = 0;
    for (int64_t d = 0; d < in.rank(); ++d) {
      const int64_t s =
          std::clamp<int64_t>(start[d], 0, in.dimensions(d) - slice_sizes[d]);
      source += (s + offsets[d]) * in_strides[d];
    }
    std::memcpy(out.mutable_data().data() + linear * w,
                operand.data().data() + source * w, w);
    ++linear;
  });
  return out;
}

absl::StatusOr<Literal> EvalScatter(Evaluator& evaluator,
                                    const HloInstruction& hlo,
                                    Operands operands) {
  const int k = static_cast<int>((operands.size() - 1) / 2);
  const Literal& indices = *operands[k];
  const ScatterDimensionNumbers& s = hlo.attrs().gather_scatter->scatter;
  std::vector<Literal> outs;
  for (int i = 0; i < k; ++i) {
    outs.push_back(*operands[i]);
    outs.back().mutable_shape_for_layout() =
        hlo.shape().IsTuple() ? hlo.shape().tuple_shapes(i) : hlo.shape();
  }
  std::vector<const Literal*> updates(operands.begin() + k + 1, operands.end());
  const Shape& in = outs[0].shape();
  const Shape& upd = updates[0]->shape();
  const std::vector<int64_t> in_strides = Strides(in.dimensions());
  const std::vector<int64_t> index_strides =
      Strides(indices.shape().dimensions());
  const std::vector<int64_t> batch_dims =
      BatchDims(indices.shape().rank(), s.index_vector_dim);
  std::vector<int64_t> window_operand_dims;
  for (int64_t d = 0; d < in.rank(); ++d) {
    if (!Contains(s.inserted_window_dims, d) &&
        !Contains(s.input_batching_dims, d)) {
      window_operand_dims.push_back(d);
    }
  }
  // Size of the update window in each operand dimension.
  std::vector<int64_t> window_size(in.rank(), 1);
  for (size_t i = 0;
       i < s.update_window_dims.size() && i < window_operand_dims.size(); ++i) {
    window_size[window_operand_dims[i]] =
        upd.dimensions(s.update_window_dims[i]);
  }
  Combiner combiner(evaluator, *hlo.to_apply(), k);
  std::vector<Literal*> accs;
  for (Literal& o : outs) accs.push_back(&o);
  std::vector<int64_t> batch(batch_dims.size());
  std::vector<int64_t> vec;
  std::vector<int64_t> start(in.rank());
  absl::Status status = absl::OkStatus();
  int64_t linear = 0;
  ForEachIndex(upd.dimensions(), [&](absl::Span<const int64_t> index) {
    if (!status.ok()) return;
    int64_t b = 0, o = 0;
    std::vector<int64_t> offsets(in.rank(), 0);
    for (int64_t d = 0; d < upd.rank(); ++d) {
      if (Contains(s.update_window_dims, d)) {
        offsets[window_operand_dims[o++]] = index[d];
      } else {
        batch[b++] = index[d];
      }
    }
    IndexVector(indices, s.index_vector_dim, batch, index_strides, &vec);
    std::fill(start.begin(), start.end(), 0);
    for (size_t j = 0;
         j < s.scatter_dims_to_operand_dims.size() && j < vec.size(); ++j) {
      start[s.scatter_dims_to_operand_dims[j]] = vec[j];
    }
    for (size_t j = 0; j < s.input_batching_dims.size(); ++j) {
      const int64_t idx_dim = s.scatter_indices_batching_dims[j];
      const int64_t pos =
          std::find(batch_dims.begin(), batch_dims.end(), idx_dim) -
          batch_dims.begin();
      start[s.input_batching_dims[j]] = batch[pos];
    }
    int64_t target = 0;
    for (int64_t d = 0; d < in.rank(); ++d) {
      // The whole window must fit, else this update is dropped.
      // (Compared without adding: a start near INT64_MAX must not wrap.)
      if (start[d] < 0 || start[d] > in.dimensions(d) - window_size[d]) {
        ++linear;
        return;
      }
      target += (start[d] + offsets[d]) * in_strides[d];
    }
    status = combiner.Combine(accs, target, updates, linear);
    ++linear;
  });
  if (!status.ok()) return status;
  if (hlo.shape().IsTuple()) return Literal::Tuple(std::move(outs));
  return std::move(outs[0]);
}

}  // namespace

absl::StatusOr<Literal> EvalGatherScatter(Evaluator& evaluator,
                                          const HloInstruction& hlo,
                                          Operands operands) {
  switch (hlo.opcode()) {
    case HloOpcode::kGather:
      return EvalGather(hlo, operands);
    case HloOpcode::kScatter:
      return EvalScatter(evaluator, hlo, operands);
    default:
      return NotImplemented(hlo);
  }
}

}  // namespace xlite::eval
