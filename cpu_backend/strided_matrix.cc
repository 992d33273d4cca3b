#include "cpu_backend/strided_matrix.h"

#include <algorithm>

#include "cpu_backend/runtime_lib/runtime_lib.h"

namespace xlite::cpu {
namespace {

// Elements between consecutive indices of each dimension of `shape` in its
// layout (row-major when it has none).
std::vector<int64_t> ElementStrides(const Shape& shape) {
  std::vector<int64_t> minor_to_major;
  if (shape.has_layout() &&
      static_cast<int64_t>(shape.layout().minor_to_major().size()) ==
          shape.rank()) {
    const auto& m2m = shape.layout().minor_to_major();
    minor_to_major.assign(m2m.begin(), m2m.end());
  } else {
    for (int64_t d = shape.rank() - 1; d >= 0; --d) {
      minor_to_major.push_back(d);
    }
  }
  std::vector<int64_t> strides(shape.rank(), 1);
  int64_t stride = 1;
  for (int64_t d : minor_to_major) {
    strides[d] = stride;
    stride *= shape.dimensions(d);
  }
  return strides;
}

int64_t Extent(const Shape& shape, absl::Span<const int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims) p *= shape.dimensions(d);
  return p;
}

// As xlite_cpu_matmul_strided accepts a rows x cols matrix at (rs, cs):
// row-major or column-major with a leading dimension at least the extent;
// the stride of an extent of at most 1 does not matter.
bool Acceptable(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  const bool row_major =
      (cs == 1 || cols <= 1) && (rows <= 1 || rs >= std::max<int64_t>(cols, 1));
  const bool col_major =
      (rs == 1 || rows <= 1) && (cols <= 1 || cs >= std::max<int64_t>(rows, 1));
  return row_major || col_major;
}

// Row and column strides of `x`'s matrices, when each is one stride and
// the runtime accepts them.
std::optional<std::pair<int64_t, int64_t>> MatrixStrides(const MatrixArray& x) {
  const std::optional<int64_t> rs = GroupStride(*x.shape, x.rows);
  const std::optional<int64_t> cs = GroupStride(*x.shape, x.cols);
  if (!rs || !cs ||
      !Acceptable(Extent(*x.shape, x.rows), Extent(*x.shape, x.cols), *rs,
                  *cs)) {
    return std::nullopt;
  }
  return std::make_pair(*rs, *cs);
}

// {size, lhs, rhs, out stride} per batch dimension but those of size 1, merged
// where one stride covers two neighbours in all three arrays; nullopt when
// more than the runtime takes remain.
std::optional<std::vector<int64_t>> BatchStrides(const MatrixArray& lhs,
                                                 const MatrixArray& rhs,
                                                 const MatrixArray& out) {
  const MatrixArray* arrays[3] = {&lhs, &rhs, &out};
  std::vector<int64_t> strides[3];
  for (int a = 0; a < 3; ++a) strides[a] = ElementStrides(*arrays[a]->shape);
  std::vector<int64_t> batch;
  for (size_t i = 0; i < lhs.batch.size(); ++i) {
    const int64_t size = lhs.shape->dimensions(lhs.batch[i]);
    if (size == 1) continue;  // (size 0 stays: the call does nothing)
    int64_t s[3];
    for (int a = 0; a < 3; ++a) s[a] = strides[a][arrays[a]->batch[i]];
    if (!batch.empty()) {
      int64_t* prev = &batch[batch.size() - 4];
      if (prev[1] == s[0] * size && prev[2] == s[1] * size &&
          prev[3] == s[2] * size) {
        prev[0] *= size;
        for (int a = 0; a < 3; ++a) prev[1 + a] = s[a];
        continue;
      }
    }
    batch.insert(batch.end(), {size, s[0], s[1], s[2]});
  }
  if (static_cast<int64_t>(batch.size()) > 4 * kMatMulStridedMaxBatchRank) {
    return std::nullopt;
  }
  return batch;
}

}  // namespace

std::optional<int64_t> GroupStride(const Shape& shape,
                                   absl::Span<const int64_t> dims) {
  const std::vector<int64_t> strides = ElementStrides(shape);
  std::optional<int64_t> stride;
  int64_t next = 0;  // the stride the next, more major, dimension needs
  for (auto it = dims.rbegin(); it != dims.rend(); ++it) {
    const int64_t size = shape.dimensions(*it);
    if (size <= 1) continue;
    if (stride && strides[*it] != next) return std::nullopt;
    if (!stride) stride = strides[*it];
    next = strides[*it] * size;
  }
  return stride.value_or(1);
}

std::optional<StridedGemm> DescribeStridedGemm(const MatrixArray& lhs,
                                               const MatrixArray& rhs,
                                               const MatrixArray& out) {
  if (lhs.batch.size() != rhs.batch.size() ||
      lhs.batch.size() != out.batch.size()) {
    return std::nullopt;
  }
  const auto l = MatrixStrides(lhs);
  const auto r = MatrixStrides(rhs);
  const auto o = MatrixStrides(out);
  std::optional<std::vector<int64_t>> batch = BatchStrides(lhs, rhs, out);
  if (!l || !r || !o || !batch) return std::nullopt;
  StridedGemm g;
  g.m = Extent(*lhs.shape, lhs.rows);
  g.k = Extent(*lhs.shape, lhs.cols);
  g.n = Extent(*rhs.shape, rhs.cols);
  g.matrix_strides = {l->first,  l->second, r->first,
                      r->second, o->first,  o->second};
  g.batch = *std::move(batch);
  return g;
}

}  // namespace xlite::cpu
