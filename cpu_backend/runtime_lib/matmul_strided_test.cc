// xlite_cpu_matmul_strided against xlite_cpu_matmul on the same matrices
// stored densely: bit for bit (same GEMM, same split over threads), with
// odd sizes, leading dimensions above the extents, every transpose, 0 to 2
// batch dimensions outside or between the matrix dimensions, and calls
// large enough to split; the elements between the matrices stay untouched.
// Then the arguments it refuses.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cpu_backend/runtime_lib/parallel_for.h"
#include "cpu_backend/runtime_lib/runtime_lib.h"

namespace xlite::cpu {
namespace {

constexpr float kUntouched = -777.0f;

// A batch of rows x cols matrices stored in place: each matrix row-major
// or, `transposed`, column-major, its minor dimension padded by `pad`
// elements, the batch dimensions outside the matrix or (`batch_inner`)
// between its major and minor dimensions.
struct StridedOperand {
  std::vector<float> data;
  int64_t row_stride = 0, col_stride = 0;
  std::vector<int64_t> batch_strides;

  // Offset of matrix `b` (row-major over `sizes`).
  int64_t Offset(const std::vector<int64_t>& sizes, int64_t b) const {
    int64_t at = 0;
    for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
      at += (b % sizes[d]) * batch_strides[d];
      b /= sizes[d];
    }
    return at;
  }
};

int64_t Count(const std::vector<int64_t>& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

// `logical` ([batch][rows][cols], row-major) stored as StridedOperand says;
// every other element kUntouched.
StridedOperand Store(const std::vector<float>& logical,
                     const std::vector<int64_t>& sizes, int64_t rows,
                     int64_t cols, bool transposed, int64_t pad,
                     bool batch_inner) {
  const int64_t major = transposed ? cols : rows;
  const int64_t minor = (transposed ? rows : cols) + pad;
  StridedOperand x;
  // Physical axes, most major first: the batch dimensions, then the
  // matrix's; or the matrix's major one, the batch ones, its minor one.
  int64_t stride = minor;
  int64_t major_stride = 0;
  x.batch_strides.assign(sizes.size(), 0);
  if (batch_inner) {
    for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
      x.batch_strides[d] = stride;
      stride *= sizes[d];
    }
    major_stride = stride;
    stride *= major;
  } else {
    major_stride = stride;
    stride *= major;
    for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
      x.batch_strides[d] = stride;
      stride *= sizes[d];
    }
  }
  x.row_stride = transposed ? 1 : major_stride;
  x.col_stride = transposed ? major_stride : 1;
  x.data.assign(stride, kUntouched);
  for (int64_t b = 0; b < Count(sizes); ++b) {
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) {
        x.data[x.Offset(sizes, b) + i * x.row_stride + j * x.col_stride] =
            logical[(b * rows + i) * cols + j];
      }
    }
  }
  return x;
}

// `logical` ([batch][rows][cols]) densely, or with each matrix transposed.
std::vector<float> Dense(const std::vector<float>& logical, int64_t batch,
                         int64_t rows, int64_t cols, bool transposed) {
  if (!transposed) return logical;
  std::vector<float> out(logical.size());
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) {
        out[(b * cols + j) * rows + i] = logical[(b * rows + i) * cols + j];
      }
    }
  }
  return out;
}

std::vector<float> Random(int64_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

struct StridedCase {
  int64_t m, k, n;
  bool tl, tr, tout;
  std::vector<int64_t> batch;
  bool batch_inner;
  int64_t pad_lhs, pad_rhs, pad_out;
};

void CheckStrided(const StridedCase& c, std::mt19937_64& rng) {
  const int64_t nb = Count(c.batch);
  const std::vector<float> lhs = Random(nb * c.m * c.k, rng);
  const std::vector<float> rhs = Random(nb * c.k * c.n, rng);
  // The dense call: out, or out^T = rhs^T lhs^T when out is transposed (as
  // the emitter swaps a dense transposed result).
  const std::vector<float> dl = Dense(lhs, nb, c.m, c.k, c.tl);
  const std::vector<float> dr = Dense(rhs, nb, c.k, c.n, c.tr);
  std::vector<float> want(nb * c.m * c.n, NAN);
  ASSERT_EQ(c.tout
                ? xlite_cpu_matmul(kTypeF32, dr.data(), dl.data(), want.data(),
                                   nb, c.n, c.k, c.m, !c.tr, !c.tl)
                : xlite_cpu_matmul(kTypeF32, dl.data(), dr.data(), want.data(),
                                   nb, c.m, c.k, c.n, c.tl, c.tr),
            kStatusOk);
  if (c.tout) want = Dense(want, nb, c.n, c.m, true);

  const StridedOperand x =
      Store(lhs, c.batch, c.m, c.k, c.tl, c.pad_lhs, c.batch_inner);
  const StridedOperand y =
      Store(rhs, c.batch, c.k, c.n, c.tr, c.pad_rhs, c.batch_inner);
  StridedOperand z = Store(std::vector<float>(want.size(), NAN), c.batch, c.m,
                           c.n, c.tout, c.pad_out, !c.batch_inner);
  const std::vector<int64_t> strides = {x.row_stride, x.col_stride,
                                        y.row_stride, y.col_stride,
                                        z.row_stride, z.col_stride};
  std::vector<int64_t> batch;
  for (size_t d = 0; d < c.batch.size(); ++d) {
    batch.insert(batch.end(), {c.batch[d], x.batch_strides[d],
                               y.batch_strides[d], z.batch_strides[d]});
  }
  ASSERT_EQ(xlite_cpu_matmul_strided(
                kTypeF32, x.data.data(), y.data.data(), z.data.data(), c.m, c.k,
                c.n, strides.data(), c.batch.size(), batch.data()),
            kStatusOk);
  int64_t written = 0;
  for (int64_t b = 0; b < nb; ++b) {
    for (int64_t i = 0; i < c.m; ++i) {
      for (int64_t j = 0; j < c.n; ++j) {
        const float got =
            z.data[z.Offset(c.batch, b) + i * z.row_stride + j * z.col_stride];
        const float w = want[(b * c.m + i) * c.n + j];
        ASSERT_EQ(std::memcmp(&got, &w, sizeof(float)), 0)
            << "matrix " << b << " (" << i << ", " << j << "): " << got
            << " vs " << w;
        ++written;
      }
    }
  }
  EXPECT_EQ(std::count(z.data.begin(), z.data.end(), kUntouched),
            static_cast<int64_t>(z.data.size()) - written);
}

TEST(MatMulStrided, BitForBitTheDenseCall) {
  std::mt19937_64 rng(7);
  const std::vector<StridedCase> cases = {
      {1, 1, 1, false, false, false, {}, false, 0, 0, 0},
      {5, 7, 3, true, false, false, {3}, false, 2, 1, 3},
      {33, 65, 17, false, true, true, {2, 3}, true, 3, 0, 5},
      {17, 40, 9, true, true, true, {4}, true, 1, 2, 0},
      {9, 23, 31, false, false, true, {2, 1, 3}, false, 4, 4, 4},
      {64, 33, 1, false, false, false, {2}, true, 3, 2, 1},
      {1, 48, 40, true, false, true, {}, false, 5, 0, 2},
      {4, 0, 5, false, true, true, {2}, true, 1, 1, 1},
      // Large enough to split over threads: by batch, then by rows.
      {130, 257, 70, true, false, true, {2, 4}, true, 3, 1, 2},
      {300, 300, 200, false, true, false, {}, false, 7, 3, 1},
  };
  for (const StridedCase& c : cases) {
    SCOPED_TRACE(std::to_string(c.m) + "x" + std::to_string(c.k) + "x" +
                 std::to_string(c.n) + " tl " + std::to_string(c.tl) + " tr " +
                 std::to_string(c.tr) + " tout " + std::to_string(c.tout) +
                 " batch rank " + std::to_string(c.batch.size()));
    CheckStrided(c, rng);
  }
  ASSERT_GE(8 * 130 * 257 * 70, 2 * kMinMultiplyAddsPerTask);
  ASSERT_GE(300 * 300 * 200, 2 * kMinMultiplyAddsPerTask);
}

TEST(MatMulStrided, RefusesBadArguments) {
  float a[64] = {}, b[64] = {}, c[64] = {};
  const int64_t dense[6] = {4, 1, 4, 1, 4, 1};
  auto call = [&](int32_t type, const int64_t* strides, int64_t rank,
                  const int64_t* batch, int64_t m = 4) {
    return xlite_cpu_matmul_strided(type, a, b, c, m, 4, 4, strides, rank,
                                    batch);
  };
  EXPECT_EQ(call(kTypeF32, dense, 0, nullptr), kStatusOk);
  EXPECT_EQ(call(kTypeS32, dense, 0, nullptr), kStatusUnsupportedType);
  EXPECT_EQ(call(kTypeF32, dense, 0, nullptr, -1), kStatusInvalidArgument);
  EXPECT_EQ(call(kTypeF32, nullptr, 0, nullptr), kStatusInvalidArgument);
  EXPECT_EQ(call(kTypeF32, dense, 1, nullptr), kStatusInvalidArgument);
  EXPECT_EQ(call(kTypeF32, dense, 5, nullptr), kStatusInvalidArgument);
  EXPECT_EQ(call(kTypeF32, dense, -1, nullptr), kStatusInvalidArgument);
  // Neither stride 1; a leading dimension below the extent; negative.
  for (const auto& s : std::vector<std::vector<int64_t>>{{4, 2, 4, 1, 4, 1},
                                                         {4, 1, 3, 1, 4, 1},
                                                         {4, 1, 4, 1, 1, 3},
                                                         {-4, 1, 4, 1, 4, 1},
                                                         {4, 1, 4, 1, 4, 0}}) {
    EXPECT_EQ(call(kTypeF32, s.data(), 0, nullptr), kStatusInvalidArgument);
  }
  // Column-major operands and result are fine.
  const int64_t columns[6] = {1, 4, 1, 4, 1, 4};
  EXPECT_EQ(call(kTypeF32, columns, 0, nullptr), kStatusOk);
  // A batch: a negative size or stride, an output matrix repeated.
  const int64_t neg_size[4] = {-1, 0, 0, 0};
  const int64_t neg_stride[4] = {1, -16, 0, 0};
  const int64_t repeated_out[4] = {2, 0, 0, 0};
  const int64_t repeated_in[4] = {2, 0, 0, 16};
  EXPECT_EQ(call(kTypeF32, dense, 1, neg_size), kStatusInvalidArgument);
  EXPECT_EQ(call(kTypeF32, dense, 1, neg_stride), kStatusInvalidArgument);
  EXPECT_EQ(call(kTypeF32, dense, 1, repeated_out), kStatusInvalidArgument);
  EXPECT_EQ(call(kTypeF32, dense, 1, repeated_in), kStatusOk);
  // Null operands, unless nothing is read or written.
  EXPECT_EQ(xlite_cpu_matmul_strided(kTypeF32, nullptr, b, c, 4, 4, 4, dense, 0,
                                     nullptr),
            kStatusInvalidArgument);
  EXPECT_EQ(xlite_cpu_matmul_strided(kTypeF32, nullptr, nullptr, nullptr, 0, 4,
                                     4, dense, 0, nullptr),
            kStatusOk);
}

}  // namespace
}  // namespace xlite::cpu
