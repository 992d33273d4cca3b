#ifndef XLITE_CPU_BACKEND_STRIDED_MATRIX_H_
#define XLITE_CPU_BACKEND_STRIDED_MATRIX_H_

// Whether a batched matrix product's arrays can be read and written where
// they are, as xlite_cpu_matmul_strided (runtime_lib.h) takes them: each
// array's matrix rows and columns one stride apiece (row-major or
// column-major, with a leading dimension), and its batch dimensions up to
// kMatMulStridedMaxBatchRank strides. Internal to cpu_backend.

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/types/span.h"
#include "hlo/ir/shape.h"

namespace xlite::cpu {

/// One array of a batched product, its dimensions grouped: `batch` (paired
/// in order with the other arrays' batch dimensions), `rows` and `cols`,
/// each group indexed row-major over its dimensions in the order given.
struct MatrixArray {
  const Shape* shape;
  std::vector<int64_t> batch, rows, cols;
};

/// The elements between consecutive values of the index that `dims` of
/// `shape` form together (dims[0] most major) in its buffer, when that is
/// one stride: each dimension of size above 1 steps by the next such one's
/// stride times that one's size. 1 when no dimension is above 1.
std::optional<int64_t> GroupStride(const Shape& shape,
                                   absl::Span<const int64_t> dims);

/// The arguments of an xlite_cpu_matmul_strided call, after its pointers.
struct StridedGemm {
  int64_t m = 0, k = 0, n = 0;
  /// Row and column strides of lhs (m x k), rhs (k x n), out (m x n).
  std::array<int64_t, 6> matrix_strides{};
  /// {size, lhs stride, rhs stride, out stride} per batch dimension
  /// (dimensions of size 1 left out, neighbours that one stride covers in
  /// all three arrays merged).
  std::vector<int64_t> batch;
  int64_t batch_rank() const { return batch.size() / 4; }
};

/// out = lhs * rhs over the batch as xlite_cpu_matmul_strided reads and
/// writes the arrays in place, or nullopt when one of them is not
/// described so (a group without one stride, neither matrix stride 1 or a
/// leading dimension below its extent, too many batch dimensions). The
/// element types are not looked at.
std::optional<StridedGemm> DescribeStridedGemm(const MatrixArray& lhs,
                                               const MatrixArray& rhs,
                                               const MatrixArray& out);

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_STRIDED_MATRIX_H_
