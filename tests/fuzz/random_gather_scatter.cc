// Gather and scatter for the random module generator: random dimension
// numbers that satisfy XLA's rules (sorted offset/window dimensions,
// collapsed and inserted dimensions of size one, windows within the
// operand), index arrays with the index vector at any position or
// implicit, indices from the pool or edge-case constants (out-of-range
// starts are clamped for gather and skipped for scatter).

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tests/fuzz/random_module_internal.h"

namespace xlite::fuzz {
namespace {

// The indices array: `batch` dimensions with the index vector (of
// `vector_size` entries) at `*index_vector_dim`, or implicit at the end
// when the vector has one entry and the draw says so.
std::vector<int64_t> IndexDims(Generator& g, const std::vector<int64_t>& batch,
                               int64_t vector_size,
                               int64_t* index_vector_dim) {
  ChoiceSource& ch = g.ch();
  const int64_t rank = static_cast<int64_t>(batch.size());
  std::vector<int64_t> dims = batch;
  if (vector_size == 1 && ch.Chance(30)) {
    *index_vector_dim = rank;
    return dims;
  }
  *index_vector_dim = ch.Range(0, rank);
  dims.insert(dims.begin() + *index_vector_dim, vector_size);
  return dims;
}

// `count` sorted positions among `rank`.
std::vector<int64_t> SortedPositions(ChoiceSource& ch, int64_t rank,
                                     int64_t count) {
  std::vector<int64_t> p = Permutation(ch, rank);
  p.resize(count);
  std::sort(p.begin(), p.end());
  return p;
}

}  // namespace

bool Generator::Gather(Comp& c) {
  const Value x = Any(c);
  const int64_t r = x.shape.rank();
  if (r == 0) return false;
  std::vector<int64_t> start_index_map = Permutation(ch_, r);
  start_index_map.resize(ch_.Chance(10) ? 0 : ch_.Range(1, r));
  std::vector<int64_t> slice_sizes, collapsed, offset_sizes;
  for (int64_t d = 0; d < r; ++d) {
    if (x.shape.dims[d] >= 1 && ch_.Chance(40)) {
      slice_sizes.push_back(1);
      collapsed.push_back(d);
    } else {
      slice_sizes.push_back(ch_.Range(0, x.shape.dims[d]));
      offset_sizes.push_back(slice_sizes.back());
    }
  }
  const std::vector<int64_t> batch = RandomDims(0, 2);
  int64_t index_vector_dim;
  const std::vector<int64_t> index_dims =
      IndexDims(*this, batch, start_index_map.size(), &index_vector_dim);
  const int64_t out_rank = batch.size() + offset_sizes.size();
  if (out_rank > 4 || index_dims.size() > 4) return false;
  const std::vector<int64_t> offset_dims =
      SortedPositions(ch_, out_rank, offset_sizes.size());
  std::vector<int64_t> dims;
  size_t next_offset = 0, next_batch = 0;
  for (int64_t i = 0; i < out_rank; ++i) {
    if (std::binary_search(offset_dims.begin(), offset_dims.end(), i)) {
      dims.push_back(offset_sizes[next_offset++]);
    } else {
      dims.push_back(batch[next_batch++]);
    }
  }
  if (Product(dims) > options_.max_elements) return false;
  const Value indices = Get(c, RandomType(kIntClass), index_dims);
  Use(c, x);
  Use(c, indices);
  Emit(c, WithLayout(x.shape.type, dims),
       absl::StrCat("gather(", x.name, ", ", indices.name,
                    "), offset_dims=", ListText(offset_dims),
                    ", collapsed_slice_dims=", ListText(collapsed),
                    ", start_index_map=", ListText(start_index_map),
                    ", index_vector_dim=", index_vector_dim,
                    ", slice_sizes=", ListText(slice_sizes)),
       Of(x));
  return true;
}

bool Generator::Scatter(Comp& c) {
  const Value x = Any(c);
  const int64_t r = x.shape.rank();
  if (r == 0) return false;
  std::vector<Value> inputs = {x};
  if (ch_.Chance(20)) {
    inputs.push_back(Get(c, RandomType(kAnyClass), x.shape.dims));
  }
  std::vector<int64_t> to_operand = Permutation(ch_, r);
  to_operand.resize(ch_.Chance(10) ? 0 : ch_.Range(1, r));
  std::vector<int64_t> inserted, window_sizes;
  for (int64_t d = 0; d < r; ++d) {
    if (x.shape.dims[d] >= 1 && ch_.Chance(40)) {
      inserted.push_back(d);
    } else {
      window_sizes.push_back(ch_.Range(0, x.shape.dims[d]));
    }
  }
  const std::vector<int64_t> batch = RandomDims(0, 2);
  int64_t index_vector_dim;
  const std::vector<int64_t> index_dims =
      IndexDims(*this, batch, to_operand.size(), &index_vector_dim);
  const int64_t update_rank = batch.size() + window_sizes.size();
  if (update_rank > 4 || index_dims.size() > 4) return false;
  const std::vector<int64_t> window_dims =
      SortedPositions(ch_, update_rank, window_sizes.size());
  std::vector<int64_t> update_dims;
  size_t next_window = 0, next_batch = 0;
  for (int64_t i = 0; i < update_rank; ++i) {
    if (std::binary_search(window_dims.begin(), window_dims.end(), i)) {
      update_dims.push_back(window_sizes[next_window++]);
    } else {
      update_dims.push_back(batch[next_batch++]);
    }
  }
  if (Product(update_dims) > options_.max_elements) return false;
  const Value indices = Get(c, RandomType(kIntClass), index_dims);
  std::vector<std::string> operands;
  std::vector<std::string> updates;
  std::vector<PrimitiveType> types;
  for (const Value& in : inputs) {
    operands.push_back(in.name);
    types.push_back(in.shape.type);
    const Value u = Get(c, in.shape.type, update_dims);
    Use(c, u);
    updates.push_back(u.name);
  }
  for (const Value& in : inputs) Use(c, in);
  Use(c, indices);
  operands.push_back(indices.name);
  operands.insert(operands.end(), updates.begin(), updates.end());
  // Updates combine in an order XLA leaves open: only monoids, unless
  // arbitrary reducers are asked for (their identities are not needed).
  std::vector<std::string> identities;
  const std::string reducer = Reducer(types, &identities);
  const std::string attributes = absl::StrCat(
      "), update_window_dims=", ListText(window_dims),
      ", inserted_window_dims=", ListText(inserted),
      ", scatter_dims_to_operand_dims=", ListText(to_operand),
      ", index_vector_dim=", index_vector_dim, ", to_apply=", reducer);
  const std::string rhs =
      absl::StrCat("scatter(", absl::StrJoin(operands, ", "), attributes);
  if (inputs.size() == 1) {
    Emit(c, WithLayout(x.shape.type, x.shape.dims), rhs);
    return true;
  }
  std::vector<ArrayShape> shapes;
  std::vector<std::string> texts;
  for (const Value& in : inputs) {
    shapes.push_back(WithLayout(in.shape.type, in.shape.dims));
    texts.push_back(ShapeText(shapes.back()));
  }
  const std::string tuple =
      EmitRaw(c, absl::StrCat("(", absl::StrJoin(texts, ", "), ")"), rhs);
  for (size_t i = 0; i < shapes.size(); ++i) {
    GetTupleElement(c, tuple, shapes[i], i, false);
  }
  return true;
}

}  // namespace xlite::fuzz
