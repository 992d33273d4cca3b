// xlite_cpu_sort and xlite_cpu_topk against the evaluator's sort, topk and
// TopK custom call, with C++ comparators that match the HLO ones.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cpu_backend/runtime_lib/runtime_lib.h"
#include "cpu_backend/runtime_lib/test_support.h"

namespace xlite {
namespace {

using rtlib_test::EvaluateHlo;
using rtlib_test::FromBytes;
using rtlib_test::Near;
using rtlib_test::RandomLiteral;

template <typename T>
T At(void* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

// compare(p0, p1), direction=LT on f32.
int32_t LessF32(void** e) { return At<float>(e[0]) < At<float>(e[1]); }

// compare(p0, p1), direction=LT, type=TOTALORDER on f32.
int32_t TotalLessF32(void** e) {
  auto key = [](float f) {
    int32_t bits;
    std::memcpy(&bits, &f, 4);
    return bits < 0 ? bits ^ 0x7fffffff : bits;
  };
  return key(At<float>(e[0])) < key(At<float>(e[1]));
}

// compare(p0, p1), direction=LT on s32 (operand 1 ignored).
int32_t LessS32(void** e) { return At<int32_t>(e[0]) < At<int32_t>(e[1]); }

// Keys s32 ascending, ties by operand 1 (f32) descending.
int32_t LessS32ThenGreaterF32(void** e) {
  const int32_t a = At<int32_t>(e[0]), b = At<int32_t>(e[1]);
  return a < b || (a == b && At<float>(e[2]) > At<float>(e[3]));
}

// compare(p2, p3), direction=GT on f64: operand 1 decides.
int32_t GreaterOperand1F64(void** e) {
  return At<double>(e[2]) > At<double>(e[3]);
}

std::string Param(const Shape& s, int i) {
  return absl::StrCat("  p", i, " = ", s.ToString(false), " parameter(", i,
                      ")\n");
}

// Sorts `operands` (all of one shape) along `dim` with the library and with
// the evaluator running `comparator` (a computation named "cmp") and
// compares every operand.
void CheckSort(std::vector<Literal> operands, int64_t dim,
               const std::string& comparator, XliteCpuSortComparator less,
               bool stable) {
  const Shape& shape = operands[0].shape();
  std::vector<std::string> params, names, shapes;
  for (size_t i = 0; i < operands.size(); ++i) {
    params.push_back(Param(operands[i].shape(), i));
    names.push_back(absl::StrCat("p", i));
    shapes.push_back(operands[i].shape().ToString(false));
  }
  const std::string result =
      operands.size() == 1
          ? shapes[0]
          : absl::StrCat("(", absl::StrJoin(shapes, ", "), ")");
  const std::string hlo = absl::StrCat(
      "HloModule m\n", comparator, "\nENTRY e {\n", absl::StrJoin(params, ""),
      "  ROOT s = ", result, " sort(", absl::StrJoin(names, ", "),
      "), dimensions={", dim, "}, is_stable=", stable ? "true" : "false",
      ", to_apply=cmp\n}\n");
  absl::StatusOr<Literal> want = EvaluateHlo(hlo, operands);
  ASSERT_TRUE(want.ok()) << want.status() << "\n" << hlo;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= shape.dimensions(d);
  for (int64_t d = dim + 1; d < shape.rank(); ++d) inner *= shape.dimensions(d);
  std::vector<void*> buffers;
  std::vector<int64_t> bytes;
  for (Literal& o : operands) {
    buffers.push_back(o.mutable_data().data());
    bytes.push_back(StorageBytes(o.shape().element_type()));
  }
  ASSERT_EQ(xlite_cpu_sort(operands.size(), buffers.data(), bytes.data(), outer,
                           shape.dimensions(dim), inner, stable, less),
            xlite::cpu::kStatusOk);
  for (size_t i = 0; i < operands.size(); ++i) {
    const Literal& w = operands.size() == 1 ? *want : want->tuple_elements()[i];
    EXPECT_TRUE(Near(w, operands[i])) << "operand " << i << "\n" << hlo;
  }
}

constexpr char kLessF32[] = R"(cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=LT
})";

TEST(Sort, OneF32OperandAlongEachDimension) {
  std::mt19937_64 rng(1);
  for (int64_t dim = 0; dim < 3; ++dim) {
    for (bool stable : {false, true}) {
      std::vector<Literal> ops;
      ops.push_back(RandomLiteral(Shape(PrimitiveType::kF32, {3, 7, 4}), rng));
      CheckSort(std::move(ops), dim, kLessF32, LessF32, stable);
    }
  }
}

TEST(Sort, LongRowsAndDegenerateShapes) {
  std::mt19937_64 rng(2);
  for (const std::vector<int64_t>& dims :
       std::vector<std::vector<int64_t>>{{1000}, {1}, {0}, {2, 0, 3}, {5, 1}}) {
    std::vector<Literal> ops;
    ops.push_back(RandomLiteral(Shape(PrimitiveType::kF32, dims), rng));
    CheckSort(std::move(ops), dims.size() == 2 ? 1 : 0, kLessF32, LessF32,
              true);
  }
}

TEST(Sort, TotalOrderPutsNaNsAndSignedZerosInPlace) {
  std::vector<Literal> ops;
  Literal l(Shape(PrimitiveType::kF32, {8}));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const float values[] = {nan, 1, -inf, -0.0f, 0.0f, -nan, inf, -1};
  std::memcpy(l.mutable_data().data(), values, sizeof(values));
  ops.push_back(std::move(l));
  CheckSort(std::move(ops), 0, R"(cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=LT, type=TOTALORDER
})",
            TotalLessF32, true);
}

constexpr char kLessS32[] = R"(cmp {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  c = f32[] parameter(2)
  d = f32[] parameter(3)
  ROOT r = pred[] compare(a, b), direction=LT
})";

TEST(Sort, StableSortKeepsTiesInOrderAcrossOperands) {
  std::mt19937_64 rng(3);
  // Keys in [0, 3]: many ties, which a stable sort keeps in input order.
  std::vector<Literal> ops;
  ops.push_back(RandomLiteral(Shape(PrimitiveType::kS32, {4, 50}), rng, 0, 3));
  ops.push_back(RandomLiteral(Shape(PrimitiveType::kF32, {4, 50}), rng));
  CheckSort(std::move(ops), 1, kLessS32, LessS32, true);
}

TEST(Sort, StableTiesByHand) {
  Literal keys =
      Literal::FromInts(Shape(PrimitiveType::kS32, {5}), {1, 0, 1, 0, 1});
  Literal vals =
      Literal::FromDoubles(Shape(PrimitiveType::kF32, {5}), {0, 1, 2, 3, 4});
  void* buffers[] = {keys.mutable_data().data(), vals.mutable_data().data()};
  const int64_t bytes[] = {4, 4};
  ASSERT_EQ(xlite_cpu_sort(2, buffers, bytes, 1, 5, 1, 1, LessS32), 0);
  EXPECT_EQ(vals.ValueToString(), "{1, 3, 0, 2, 4}");
  EXPECT_EQ(keys.ValueToString(), "{0, 0, 1, 1, 1}");
}

TEST(Sort, ComparatorOverTwoOperands) {
  std::mt19937_64 rng(4);
  std::vector<Literal> ops;
  ops.push_back(RandomLiteral(Shape(PrimitiveType::kS32, {6, 40}), rng, 0, 4));
  ops.push_back(RandomLiteral(Shape(PrimitiveType::kF32, {6, 40}), rng));
  CheckSort(std::move(ops), 1, R"(cmp {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  c = f32[] parameter(2)
  d = f32[] parameter(3)
  lt = pred[] compare(a, b), direction=LT
  eq = pred[] compare(a, b), direction=EQ
  gt = pred[] compare(c, d), direction=GT
  tie = pred[] and(eq, gt)
  ROOT r = pred[] or(lt, tie)
})",
            LessS32ThenGreaterF32, false);
}

TEST(Sort, ThreeOperandsOrderedByTheMiddleOne) {
  std::mt19937_64 rng(5);
  for (bool stable : {true, false}) {
    std::vector<Literal> ops;
    ops.push_back(
        RandomLiteral(Shape(PrimitiveType::kU8, {3, 9, 5}), rng, 0, 255));
    ops.push_back(RandomLiteral(Shape(PrimitiveType::kF64, {3, 9, 5}), rng));
    ops.push_back(RandomLiteral(Shape(PrimitiveType::kC64, {3, 9, 5}), rng));
    CheckSort(std::move(ops), 1, R"(cmp {
  a = u8[] parameter(0)
  b = u8[] parameter(1)
  c = f64[] parameter(2)
  d = f64[] parameter(3)
  e = c64[] parameter(4)
  f = c64[] parameter(5)
  ROOT r = pred[] compare(c, d), direction=GT
})",
              GreaterOperand1F64, stable);
  }
}

TEST(Sort, RejectsBadArguments) {
  int32_t x = 0;
  void* buffers[] = {&x};
  const int64_t bytes[] = {4};
  EXPECT_EQ(xlite_cpu_sort(0, buffers, bytes, 1, 1, 1, 1, LessS32),
            xlite::cpu::kStatusInvalidArgument);
  EXPECT_EQ(xlite_cpu_sort(1, buffers, bytes, 1, -1, 1, 1, LessS32),
            xlite::cpu::kStatusInvalidArgument);
  EXPECT_EQ(xlite_cpu_sort(1, buffers, bytes, 1, 1, 1, 1, nullptr),
            xlite::cpu::kStatusInvalidArgument);
}

// ----------------------------------------------------------------------------
// Top-k

// Runs top-k of `input` ([rows, n] or [n]) with the library and compares it
// with the evaluator running `hlo`.
void CheckTopK(const std::string& hlo, const Literal& input, int64_t k,
               bool largest) {
  absl::StatusOr<Literal> want = EvaluateHlo(hlo, {&input, 1});
  ASSERT_TRUE(want.ok()) << want.status() << "\n" << hlo;
  const Shape& s = input.shape();
  const int64_t n = s.dimensions(s.rank() - 1);
  const int64_t rows = n == 0 ? 0 : s.ElementCount() / n;
  const Shape& values_shape = want->tuple_elements()[0].shape();
  const Shape& indices_shape = want->tuple_elements()[1].shape();
  Literal values(values_shape), indices(indices_shape);
  ASSERT_EQ(xlite_cpu_topk(static_cast<int32_t>(s.element_type()),
                           input.data().data(), rows, n, k, largest,
                           values.mutable_data().data(),
                           static_cast<int32_t>(indices_shape.element_type()),
                           indices.mutable_data().data()),
            xlite::cpu::kStatusOk);
  // Values are copied elements: bit-exact whatever their type.
  EXPECT_EQ(values.data(), want->tuple_elements()[0].data()) << hlo;
  EXPECT_TRUE(Near(want->tuple_elements()[1], indices)) << hlo;
  // The same indices written as s64 (the opcode's result is s32).
  Shape wide = indices_shape;
  wide.set_element_type(PrimitiveType::kS64);
  Literal wide_indices(wide);
  ASSERT_EQ(xlite_cpu_topk(static_cast<int32_t>(s.element_type()),
                           input.data().data(), rows, n, k, largest,
                           values.mutable_data().data(), xlite::cpu::kTypeS64,
                           wide_indices.mutable_data().data()),
            xlite::cpu::kStatusOk);
  for (int64_t i = 0; i < indices.element_count(); ++i) {
    ASSERT_EQ(wide_indices.GetAsInt64(i), indices.GetAsInt64(i)) << i;
  }
}

std::string TopKOpcode(const Shape& in, int64_t k, bool largest) {
  Shape values = in;
  values.set_dimension(in.rank() - 1, k);
  Shape indices = values;
  indices.set_element_type(PrimitiveType::kS32);
  return absl::StrCat("HloModule m\nENTRY e {\n  p = ", in.ToString(false),
                      " parameter(0)\n  ROOT t = (", values.ToString(false),
                      ", ", indices.ToString(false), ") topk(p), k=", k,
                      ", largest=", largest ? "true" : "false", "\n}\n");
}

std::string TopKCustomCall(const Shape& in, int64_t k, bool largest) {
  Shape values = in;
  values.set_dimension(in.rank() - 1, k);
  Shape indices = values;
  indices.set_element_type(PrimitiveType::kS32);
  const std::string t(PrimitiveTypeName(in.element_type()));
  return absl::StrCat(
      "HloModule m\ncmp {\n  a = ", t, "[] parameter(0)\n  b = ", t,
      "[] parameter(1)\n  ROOT r = pred[] compare(a, b), direction=",
      largest ? "GT" : "LT", "\n}\nENTRY e {\n  p = ", in.ToString(false),
      " parameter(0)\n  ROOT t = (", values.ToString(false), ", ",
      indices.ToString(false),
      ") custom-call(p), custom_call_target=\"TopK\", "
      "called_computations={cmp}\n}\n");
}

TEST(TopK, MatchesTheEvaluatorForEveryType) {
  std::mt19937_64 rng(6);
  for (PrimitiveType type :
       {PrimitiveType::kF32, PrimitiveType::kBF16, PrimitiveType::kF16,
        PrimitiveType::kF64, PrimitiveType::kS32, PrimitiveType::kU64,
        PrimitiveType::kS8, PrimitiveType::kU16, PrimitiveType::kPred,
        PrimitiveType::kF8E4M3FN, PrimitiveType::kF8E5M2FNUZ,
        PrimitiveType::kF8E8M0FNU, PrimitiveType::kF4E2M1FN, PrimitiveType::kS4,
        PrimitiveType::kC64}) {
    // Small ranges: ties, which go to the lower index.
    const Literal input = RandomLiteral(Shape(type, {5, 12}), rng, -4, 4);
    for (bool largest : {true, false}) {
      for (int64_t k : {0, 1, 3, 12}) {
        SCOPED_TRACE(absl::StrCat(PrimitiveTypeName(type), " k=", k,
                                  largest ? " largest" : " smallest"));
        CheckTopK(TopKOpcode(input.shape(), k, largest), input, k, largest);
      }
    }
  }
}

TEST(TopK, U64AboveTheSignedRange) {
  Literal input(Shape(PrimitiveType::kU64, {4}));
  const uint64_t v[] = {1, ~uint64_t{0}, uint64_t{1} << 63, 7};
  std::memcpy(input.mutable_data().data(), v, sizeof(v));
  CheckTopK(TopKOpcode(input.shape(), 2, true), input, 2, true);
  CheckTopK(TopKOpcode(input.shape(), 2, false), input, 2, false);
}

TEST(TopK, FloatsWithNaNsInfinitiesAndSignedZeros) {
  Literal input(Shape(PrimitiveType::kF32, {2, 6}));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const float v[] = {nan, 1,  -inf, -0.0f, 0.0f, -nan,
                     inf, -1, 0.0f, -0.0f, 2,    2};
  std::memcpy(input.mutable_data().data(), v, sizeof(v));
  for (bool largest : {true, false}) {
    CheckTopK(TopKOpcode(input.shape(), 4, largest), input, 4, largest);
  }
}

TEST(TopK, TheCustomCallWithGreaterOrLessComparator) {
  std::mt19937_64 rng(7);
  for (bool largest : {true, false}) {
    const Literal input =
        RandomLiteral(Shape(PrimitiveType::kF32, {4, 10}), rng);
    CheckTopK(TopKCustomCall(input.shape(), 3, largest), input, 3, largest);
    const Literal one_d = RandomLiteral(Shape(PrimitiveType::kF32, {17}), rng);
    CheckTopK(TopKCustomCall(one_d.shape(), 5, largest), one_d, 5, largest);
  }
}

TEST(TopK, RejectsBadArguments) {
  float x[2] = {1, 2}, v[2];
  int32_t i[2];
  EXPECT_EQ(xlite_cpu_topk(xlite::cpu::kTypeF32, x, 1, 2, 3, 1, v,
                           xlite::cpu::kTypeS32, i),
            xlite::cpu::kStatusInvalidArgument);
  EXPECT_EQ(xlite_cpu_topk(xlite::cpu::kTypeF32, x, 1, 2, 1, 1, v,
                           xlite::cpu::kTypeF32, i),
            xlite::cpu::kStatusUnsupportedType);
  EXPECT_EQ(
      xlite_cpu_topk(13 /* tuple */, x, 1, 2, 1, 1, v, xlite::cpu::kTypeS32, i),
      xlite::cpu::kStatusUnsupportedType);
}

}  // namespace
}  // namespace xlite
