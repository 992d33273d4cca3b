// sort (variadic, any comparator, stable or not) and topk.

#include <algorithm>
#include <cstring>
#include <numeric>

#include "hlo/evaluator/element_types.h"
#include "hlo/evaluator/internal.h"

namespace xlite::eval {
namespace {

// Sorting key: floats in XLA's total order, integers and predicates by
// value.
template <typename Tr>
int64_t OrderKey(typename Tr::Storage s) {
  if constexpr (kIsFloat<Tr>) {
    return TotalOrderKey<Tr>(s);
  } else if constexpr (Tr::kKind == Kind::kPred) {
    return s;
  } else if constexpr (kIsInt<Tr>) {
    return static_cast<int64_t>(Tr::Load(s));
  } else {
    return 0;
  }
}

// The comparator as "compare(lhs, rhs) direction" on the first operand only,
// when it is that simple; nullopt otherwise.
struct SimpleComparator {
  ComparisonDirection direction;
  ComparisonType type;
};
std::optional<SimpleComparator> Simple(const HloComputation& c) {
  const HloInstruction* root = c.root_instruction();
  if (root->opcode() != HloOpcode::kCompare || c.num_parameters() < 2) {
    return std::nullopt;
  }
  if (root->operand(0) != c.parameter_instruction(0) ||
      root->operand(1) != c.parameter_instruction(1)) {
    return std::nullopt;
  }
  const ComparisonDirection d = root->attrs().direction;
  if (d != ComparisonDirection::kLt && d != ComparisonDirection::kGt) {
    return std::nullopt;
  }
  return SimpleComparator{d, root->attrs().comparison_type};
}

// Sorts the permutation `perm` of one slice by the simple comparator on
// `keys` (elements at base + i * stride).
template <typename Tr>
void SortSimple(const Literal& keys, int64_t base, int64_t stride,
                const SimpleComparator& cmp, bool stable,
                std::vector<int64_t>& perm) {
  const auto* data = Data<Tr>(keys);
  const bool total = cmp.type == ComparisonType::kTotalOrder;
  const bool less = cmp.direction == ComparisonDirection::kLt;
  auto before = [&](int64_t i, int64_t j) {
    const auto a = data[base + i * stride];
    const auto b = data[base + j * stride];
    if constexpr (kIsFloat<Tr>) {
      if (!total) {
        const auto x = Tr::Load(a), y = Tr::Load(b);
        return less ? x < y : x > y;
      }
    }
    if constexpr (kIsComplex<Tr>) {
      return false;
    } else if constexpr (kIsInt<Tr> && Tr::kKind == Kind::kUnsigned &&
                         sizeof(typename Tr::Compute) == 8) {
      const auto x = Tr::Load(a), y = Tr::Load(b);
      return less ? x < y : x > y;
    } else {
      const int64_t x = OrderKey<Tr>(a), y = OrderKey<Tr>(b);
      return less ? x < y : x > y;
    }
  };
  if (stable) {
    std::stable_sort(perm.begin(), perm.end(), before);
  } else {
    std::sort(perm.begin(), perm.end(), before);
  }
}

absl::StatusOr<Literal> Sort(Evaluator& evaluator, const HloInstruction& hlo,
                             Operands operands) {
  const Shape& shape = operands[0]->shape();
  const int64_t dim = hlo.dimensions().empty() ? 0 : hlo.dimensions()[0];
  const int64_t length = shape.rank() == 0 ? 1 : shape.dimensions(dim);
  const std::vector<int64_t> strides = Strides(shape.dimensions());
  const int64_t stride = shape.rank() == 0 ? 1 : strides[dim];
  std::vector<int64_t> outer_dims(shape.dimensions().begin(),
                                  shape.dimensions().end());
  if (shape.rank() > 0) outer_dims[dim] = 1;
  const HloComputation& comparator = *hlo.to_apply();
  const std::optional<SimpleComparator> simple = Simple(comparator);
  const bool stable = hlo.attrs().is_stable;
  std::vector<Literal> outs;
  for (const Literal* o : operands) outs.push_back(*o);
  std::vector<int64_t> perm(length);
  absl::Status status = absl::OkStatus();
  // Per-element scalars for general comparators.
  std::vector<Literal> args(2 * operands.size());
  std::vector<const Literal*> arg_ptrs(2 * operands.size());
  ForEachIndex(outer_dims, [&](absl::Span<const int64_t> index) {
    if (!status.ok()) return;
    int64_t base = 0;
    for (size_t d = 0; d < index.size(); ++d) base += index[d] * strides[d];
    std::iota(perm.begin(), perm.end(), 0);
    if (simple.has_value()) {
      DispatchArrayType(shape.element_type(), [&](auto tr) {
        SortSimple<decltype(tr)>(*operands[0], base, stride, *simple, stable,
                                 perm);
        return 0;
      });
    } else {
      auto before = [&](int64_t i, int64_t j) {
        if (!status.ok()) return false;
        for (size_t k = 0; k < operands.size(); ++k) {
          args[2 * k] = ScalarAt(*operands[k], base + i * stride);
          args[2 * k + 1] = ScalarAt(*operands[k], base + j * stride);
          arg_ptrs[2 * k] = &args[2 * k];
          arg_ptrs[2 * k + 1] = &args[2 * k + 1];
        }
        absl::StatusOr<Literal> r = evaluator.Call(comparator, arg_ptrs);
        if (!r.ok()) {
          status = r.status();
          return false;
        }
        return r->GetBits(0) != 0;
      };
      // Always stable: a comparator that is not a strict weak order must
      // still give a deterministic result.
      std::stable_sort(perm.begin(), perm.end(), before);
    }
    for (size_t k = 0; k < operands.size(); ++k) {
      const int64_t w = ElementBytes(operands[k]->shape());
      const uint8_t* src = operands[k]->data().data();
      uint8_t* dst = outs[k].mutable_data().data();
      for (int64_t i = 0; i < length; ++i) {
        std::memcpy(dst + (base + i * stride) * w,
                    src + (base + perm[i] * stride) * w, w);
      }
    }
  });
  if (!status.ok()) return status;
  if (hlo.shape().IsTuple()) {
    for (size_t k = 0; k < outs.size(); ++k) {
      outs[k].mutable_shape_for_layout() = hlo.shape().tuple_shapes(k);
    }
    return Literal::Tuple(std::move(outs));
  }
  outs[0].mutable_shape_for_layout() = hlo.shape();
  return std::move(outs[0]);
}

}  // namespace

absl::StatusOr<Literal> EvalTopK(const HloInstruction& hlo,
                                 const Literal& operand, int64_t k,
                                 bool largest) {
  const Shape& in = operand.shape();
  if (in.rank() < 1 || k < 0 || k > in.dimensions(in.rank() - 1)) {
    return InstructionError(hlo, "topk needs 0 <= k <= the last dimension");
  }
  const int64_t n = in.dimensions(in.rank() - 1);
  const int64_t rows = n == 0 ? 0 : in.ElementCount() / n;
  const Shape& values_shape = hlo.shape().tuple_shapes(0);
  const Shape& indices_shape = hlo.shape().tuple_shapes(1);
  Literal values(values_shape);
  Literal indices(indices_shape);
  const int64_t w = ElementBytes(in);
  std::vector<int64_t> perm(n);
  for (int64_t r = 0; r < rows; ++r) {
    std::iota(perm.begin(), perm.end(), 0);
    DispatchArrayType(in.element_type(), [&](auto tr) {
      using Tr = decltype(tr);
      const auto* data = Data<Tr>(operand) + r * n;
      // Total order; ties keep the lower index first.
      std::stable_sort(perm.begin(), perm.end(), [&](int64_t i, int64_t j) {
        const int64_t a = OrderKey<Tr>(data[i]), b = OrderKey<Tr>(data[j]);
        if constexpr (kIsInt<Tr> && Tr::kKind == Kind::kUnsigned &&
                      sizeof(typename Tr::Compute) == 8) {
          const auto x = Tr::Load(data[i]), y = Tr::Load(data[j]);
          return largest ? x > y : x < y;
        }
        return largest ? a > b : a < b;
      });
      return 0;
    });
    for (int64_t i = 0; i < k; ++i) {
      std::memcpy(values.mutable_data().data() + (r * k + i) * w,
                  operand.data().data() + (r * n + perm[i]) * w, w);
      indices.SetFromInt64(r * k + i, perm[i]);
    }
  }
  std::vector<Literal> elements;
  elements.push_back(std::move(values));
  elements.push_back(std::move(indices));
  return Literal::Tuple(std::move(elements));
}

absl::StatusOr<Literal> EvalSort(Evaluator& evaluator,
                                 const HloInstruction& hlo, Operands operands) {
  switch (hlo.opcode()) {
    case HloOpcode::kSort:
      return Sort(evaluator, hlo, operands);
    case HloOpcode::kTopK:
      return EvalTopK(hlo, *operands[0], hlo.attrs().k, hlo.attrs().largest);
    default:
      return NotImplemented(hlo);
  }
}

}  // namespace xlite::eval
