// The contraction kernel variants (contraction_kernels.h): the choice, and
// every variant this CPU runs against the baseline one, whole and in
// blocks, and the threaded xlite_cpu_matmul / xlite_cpu_conv against one
// unsplit baseline call.

#include "cpu_backend/runtime_lib/contraction_kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cpu_backend/runtime_lib/parallel_for.h"
#include "cpu_backend/runtime_lib/runtime_lib.h"

namespace xlite::cpu {
namespace {

std::vector<float> Random(int64_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

// Within float rounding of sums of `depth` products of numbers in [-1, 1].
void ExpectNear(const std::vector<float>& want, const std::vector<float>& got,
                int64_t depth) {
  ASSERT_EQ(want.size(), got.size());
  const float tolerance = 1e-6f * depth;
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_NEAR(want[i], got[i], tolerance) << "element " << i;
  }
}

TEST(ContractionKernels, ChoosesTheBestSupportedVariant) {
  const std::vector<const ContractionKernels*> all =
      SupportedContractionKernels();
  ASSERT_FALSE(all.empty());
  EXPECT_STREQ(all.front()->isa, "baseline");
  if (std::getenv("XLITE_CPU_ISA") == nullptr) {
    EXPECT_EQ(&BestContractionKernels(), all.back());
  }
  EXPECT_EQ(&ChooseContractionKernels(nullptr), all.back());
  EXPECT_EQ(&ChooseContractionKernels("no-such-isa"), all.back());
  EXPECT_EQ(&ChooseContractionKernels("baseline"), all.front());
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    EXPECT_STREQ(ChooseContractionKernels("avx2").isa, "avx2");
  }
  for (const ContractionKernels* k : all) {
    std::printf("contraction kernels supported: %s\n", k->isa);
  }
}

struct MatMulCase {
  int64_t batch, m, k, n;
  bool tl, tr;
};

TEST(ContractionKernels, EveryVariantMatchesBaselineMatMul) {
  std::mt19937_64 rng(1);
  const ContractionKernels& base = ChooseContractionKernels("baseline");
  for (const MatMulCase& c :
       std::vector<MatMulCase>{{1, 1, 1, 1, false, false},
                               {3, 5, 7, 2, true, false},
                               {2, 33, 65, 17, false, true},
                               {1, 130, 300, 70, true, true},
                               {4, 64, 64, 64, false, false}}) {
    const std::vector<float> lhs = Random(c.batch * c.m * c.k, rng);
    const std::vector<float> rhs = Random(c.batch * c.k * c.n, rng);
    MatMulBlock whole =
        DenseMatMulBlock(kTypeF32, lhs.data(), rhs.data(), nullptr, c.batch,
                         c.m, c.k, c.n, c.tl, c.tr);
    std::vector<float> want(c.batch * c.m * c.n);
    whole.out = want.data();
    base.matmul(whole);
    for (const ContractionKernels* k : SupportedContractionKernels()) {
      SCOPED_TRACE(std::string(k->isa) + " " + std::to_string(c.m) + "x" +
                   std::to_string(c.k) + "x" + std::to_string(c.n));
      std::vector<float> got(want.size(), NAN);
      MatMulBlock block = whole;
      block.out = got.data();
      k->matmul(block);
      ExpectNear(want, got, c.k);
      // The same product as four blocks (rows x columns halves).
      std::fill(got.begin(), got.end(), NAN);
      for (int q = 0; q < 4; ++q) {
        block.row_begin = q < 2 ? 0 : c.m / 2;
        block.row_end = q < 2 ? c.m / 2 : c.m;
        block.col_begin = q % 2 == 0 ? 0 : c.n / 2;
        block.col_end = q % 2 == 0 ? c.n / 2 : c.n;
        k->matmul(block);
      }
      ExpectNear(want, got, c.k);
    }
  }
}

// A 3x3 "same" convolution, stride 1, of [batch, h, w, in] by
// [3, 3, in, out].
ConvGeometry Conv3x3(int64_t batch, int64_t hw, int64_t in, int64_t out) {
  ConvGeometry g;
  g.rank = 2;
  g.batch = batch;
  g.in_features = in;
  g.out_features = out;
  for (int s = 0; s < 2; ++s) {
    g.dims[s] = {hw, hw, 3, 1, 1, 1, 1, false};
    g.in_positions *= hw;
    g.out_positions *= hw;
    g.window_positions *= 3;
  }
  return g;
}

TEST(ContractionKernels, EveryVariantMatchesBaselineConv) {
  std::mt19937_64 rng(2);
  const ContractionKernels& base = ChooseContractionKernels("baseline");
  for (const ConvGeometry& g : {Conv3x3(1, 5, 3, 4), Conv3x3(2, 16, 16, 32)}) {
    const std::vector<float> in =
        Random(g.batch * g.in_positions * g.in_features, rng);
    const std::vector<float> kernel = Random(g.depth() * g.out_features, rng);
    std::vector<float> want(g.rows() * g.out_features);
    base.conv(g, false, in.data(), kernel.data(), want.data(), 0, g.rows());
    for (const ContractionKernels* k : SupportedContractionKernels()) {
      SCOPED_TRACE(k->isa);
      std::vector<float> got(want.size(), NAN);
      const int64_t half = g.rows() / 2;
      k->conv(g, false, in.data(), kernel.data(), got.data(), 0, half);
      k->conv(g, false, in.data(), kernel.data(), got.data(), half, g.rows());
      ExpectNear(want, got, g.depth());
    }
  }
}

TEST(ContractionKernels, ThreadedCallsMatchOneBaselineCall) {
  std::mt19937_64 rng(3);
  const ContractionKernels& base = ChooseContractionKernels("baseline");
  // Large enough to split at least two ways (by rows, then by batch) where
  // there are two threads or more.
  for (const MatMulCase& c : std::vector<MatMulCase>{
           {1, 512, 256, 384, false, true}, {8, 128, 256, 128, true, false}}) {
    ASSERT_GE(c.batch * c.m * c.k * c.n, 2 * kMinMultiplyAddsPerTask);
    const std::vector<float> lhs = Random(c.batch * c.m * c.k, rng);
    const std::vector<float> rhs = Random(c.batch * c.k * c.n, rng);
    std::vector<float> want(c.batch * c.m * c.n), got(want.size(), NAN);
    base.matmul(DenseMatMulBlock(kTypeF32, lhs.data(), rhs.data(), want.data(),
                                 c.batch, c.m, c.k, c.n, c.tl, c.tr));
    ASSERT_EQ(xlite_cpu_matmul(kTypeF32, lhs.data(), rhs.data(), got.data(),
                               c.batch, c.m, c.k, c.n, c.tl, c.tr),
              kStatusOk);
    ExpectNear(want, got, c.k);
  }
  const ConvGeometry g = Conv3x3(4, 32, 32, 64);
  const std::vector<float> in =
      Random(g.batch * g.in_positions * g.in_features, rng);
  const std::vector<float> kernel = Random(g.depth() * g.out_features, rng);
  std::vector<float> want(g.rows() * g.out_features), got(want.size(), NAN);
  base.conv(g, false, in.data(), kernel.data(), want.data(), 0, g.rows());
  std::vector<int64_t> spatial;
  for (int s = 0; s < 2; ++s) {
    const ConvSpatialDim& d = g.dims[s];
    spatial.insert(spatial.end(), {d.in, d.out, d.window, d.stride, d.pad_low,
                                   d.base_dilation, d.window_dilation, 0});
  }
  ASSERT_EQ(
      xlite_cpu_conv(kTypeF32, in.data(), kernel.data(), got.data(), 2, g.batch,
                     g.in_features, g.out_features, spatial.data()),
      kStatusOk);
  ExpectNear(want, got, g.depth());
}

TEST(ParallelFor, RunsEveryTaskOnce) {
  std::vector<int> hits(7, 0);
  ParallelFor(7, [&](int64_t t) { ++hits[t]; });
  EXPECT_EQ(hits, std::vector<int>(7, 1));
  EXPECT_EQ(TasksFor(kMinMultiplyAddsPerTask - 1, 100), 1);
  EXPECT_EQ(TasksFor(kMinMultiplyAddsPerTask * 1000, 1), 1);
  EXPECT_EQ(TasksFor(kMinMultiplyAddsPerTask * 1000, 1000),
            ContractionThreads());
}

}  // namespace
}  // namespace xlite::cpu
