// reduce, in the order XLA:CPU reduces (README "Numerics").
//
// XLA:CPU's pipeline rewrites every single-output reduce outside fusions
// whose reduced dimensions are not all <= 32 long (its tree reduction
// rewriter): first a reduce-window with windows of min(size, 32) along the
// reduced dimensions (stride = window, SAME padding, the padding skipped),
// then the reduce of that, again rewritten while a reduced dimension is
// longer than 32. Each step of the reducer rounds to the element type (for
// bf16, float normalization converts the reducer's result back to bf16 after
// every step), so the order decides the result: a long bf16 sum drifts far
// less in a tree of 32-element runs than in one running sum. The evaluator
// reproduces that order; variadic reduces and reduces inside fusions stay
// sequential, as XLA leaves them.

#include <cstring>
#include <optional>

#include "hlo/evaluator/accumulation.h"
#include "hlo/evaluator/element_types.h"
#include "hlo/evaluator/internal.h"

namespace xlite::eval {
namespace {

// XLA:CPU's tree reduction window (TreeReductionRewriter's default).
constexpr int64_t kTreeWindow = 32;

// Where each input element goes: along dimension d, input index i lands at
// output index (i + pad[d]) / window[d], and the output offset is that
// times out_stride[d] (0 for dimensions the pass removes).
struct Mapping {
  std::vector<int64_t> window, pad, out_stride;
};

// One pass over the input in row-major order: every element is combined
// into its output element. For each output element this visits its inputs
// in row-major order, which is the order of XLA's reduce and reduce-window
// loops.
absl::Status Accumulate(Combiner& combiner, const Literal& input,
                        const Mapping& map, Literal& out) {
  const Shape& shape = input.shape();
  const int64_t rank = shape.rank();
  const int64_t inner = rank == 0 ? 1 : shape.dimensions(rank - 1);
  // Output offset of each position along the innermost dimension.
  std::vector<int64_t> inner_offset(inner, 0);
  if (rank > 0) {
    for (int64_t i = 0; i < inner; ++i) {
      inner_offset[i] = (i + map.pad[rank - 1]) / map.window[rank - 1] *
                        map.out_stride[rank - 1];
    }
  }
  std::vector<int64_t> outer(shape.dimensions().begin(),
                             shape.dimensions().end());
  if (rank > 0) outer.pop_back();
  auto base_of = [&](absl::Span<const int64_t> index) {
    int64_t o = 0;
    for (size_t d = 0; d < index.size(); ++d) {
      o += (index[d] + map.pad[d]) / map.window[d] * map.out_stride[d];
    }
    return o;
  };
  if (input.element_count() == 0) return absl::OkStatus();
  if (combiner.binary_op().has_value() &&
      out.shape().element_type() == shape.element_type()) {
    const HloOpcode op = *combiner.binary_op();
    const bool native = DispatchArrayType(shape.element_type(), [&](auto tr) {
      using Tr = decltype(tr);
      const auto* x = Data<Tr>(input);
      auto* acc = MutableData<Tr>(out);
      auto probe = x[0];
      if (!ApplyBinary<Tr>(op, probe, x[0])) return false;
      int64_t linear = 0;
      ForEachIndex(outer, [&](absl::Span<const int64_t> index) {
        const int64_t base = base_of(index);
        for (int64_t i = 0; i < inner; ++i) {
          ApplyBinary<Tr>(op, acc[base + inner_offset[i]], x[linear + i]);
        }
        linear += inner;
      });
      return true;
    });
    if (native) return absl::OkStatus();
  }
  Literal* accs[] = {&out};
  const Literal* values[] = {&input};
  absl::Status status = absl::OkStatus();
  int64_t linear = 0;
  ForEachIndex(outer, [&](absl::Span<const int64_t> index) {
    const int64_t base = base_of(index);
    for (int64_t i = 0; i < inner && status.ok(); ++i) {
      status = combiner.Combine(accs, base + inner_offset[i], values,
                                linear + i);
    }
    linear += inner;
  });
  return status;
}

bool IsReduced(absl::Span<const int64_t> reduced, int64_t d) {
  return std::find(reduced.begin(), reduced.end(), d) != reduced.end();
}

// The mapping of the final (sequential) reduce: reduced dimensions vanish.
Mapping FinalMapping(const Shape& input, absl::Span<const int64_t> reduced) {
  const int64_t rank = input.rank();
  Mapping map{std::vector<int64_t>(rank, 1), std::vector<int64_t>(rank, 0),
              std::vector<int64_t>(rank, 0)};
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < rank; ++d) {
    if (!IsReduced(reduced, d)) kept.push_back(input.dimensions(d));
  }
  const std::vector<int64_t> strides = Strides(kept);
  int64_t k = 0;
  for (int64_t d = 0; d < rank; ++d) {
    if (!IsReduced(reduced, d)) map.out_stride[d] = strides[k++];
  }
  return map;
}

// One level of the tree: the reduce-window XLA:CPU inserts, or nothing
// when every reduced dimension is short enough to reduce directly.
std::optional<std::pair<Shape, Mapping>> TreeLevel(
    const Shape& input, absl::Span<const int64_t> reduced) {
  bool long_dim = false;
  for (int64_t d : reduced) long_dim |= input.dimensions(d) > kTreeWindow;
  // Nothing to reduce (the result is the init value): no level, whose
  // windows would be 0 long.
  if (!long_dim || input.ElementCount() == 0) return std::nullopt;
  const int64_t rank = input.rank();
  Mapping map{std::vector<int64_t>(rank, 1), std::vector<int64_t>(rank, 0),
              {}};
  std::vector<int64_t> dims(input.dimensions().begin(),
                            input.dimensions().end());
  for (int64_t d : reduced) {
    const int64_t n = input.dimensions(d);
    const int64_t w = std::min(n, kTreeWindow);
    const int64_t windows = (n + w - 1) / w;
    map.window[d] = w;
    // SAME padding: the shortfall split with the smaller half low.
    map.pad[d] = (windows * w - n) / 2;
    dims[d] = windows;
  }
  map.out_stride = Strides(dims);
  return std::make_pair(Shape(input.element_type(), dims), std::move(map));
}

}  // namespace

absl::StatusOr<Literal> EvalReduce(Evaluator& evaluator,
                                   const HloInstruction& hlo,
                                   Operands operands) {
  const int k = static_cast<int>(operands.size() / 2);
  const auto& reduced = hlo.dimensions();
  std::vector<Literal> outs;
  for (int i = 0; i < k; ++i) {
    outs.emplace_back(hlo.shape().IsTuple() ? hlo.shape().tuple_shapes(i)
                                            : hlo.shape());
    FillWith(outs.back(), *operands[k + i]);
  }
  Combiner combiner(evaluator, *hlo.to_apply(), k);
  if (k == 1 && !hlo.shape().IsTuple()) {
    const Literal* input = operands[0];
    Literal staged;
    while (!evaluator.in_fusion()) {
      auto level = TreeLevel(input->shape(), reduced);
      if (!level.has_value()) break;
      Literal partial(level->first);
      FillWith(partial, *operands[1]);
      absl::Status status =
          Accumulate(combiner, *input, level->second, partial);
      if (!status.ok()) return status;
      staged = std::move(partial);
      input = &staged;
    }
    absl::Status status = Accumulate(
        combiner, *input, FinalMapping(input->shape(), reduced), outs[0]);
    if (!status.ok()) return status;
    outs[0].mutable_shape_for_layout() = hlo.shape();
    return std::move(outs[0]);
  }
  // Variadic (argmax-style) reduces: sequential, through the interpreter.
  const Shape& input = operands[0]->shape();
  const Mapping map = FinalMapping(input, reduced);
  std::vector<Literal*> accs;
  for (Literal& o : outs) accs.push_back(&o);
  std::vector<const Literal*> values(operands.begin(), operands.begin() + k);
  int64_t linear = 0;
  absl::Status status = absl::OkStatus();
  ForEachIndex(input.dimensions(), [&](absl::Span<const int64_t> index) {
    if (!status.ok()) return;
    int64_t o = 0;
    for (size_t d = 0; d < index.size(); ++d) o += index[d] * map.out_stride[d];
    status = combiner.Combine(accs, o, values, linear);
    ++linear;
  });
  if (!status.ok()) return status;
  return Literal::Tuple(std::move(outs));
}

}  // namespace xlite::eval
