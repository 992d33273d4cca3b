// Reductions: reduce-window, select-and-scatter, map and scan (reduce is in
// reduce_tree.cc), with the Combiner that applies their computations
// (native loops for a single binary op, the interpreter for anything else:
// argmax pairs, custom combiners).

#include <cstring>

#include "hlo/evaluator/accumulation.h"
#include "hlo/evaluator/element_types.h"
#include "hlo/evaluator/internal.h"
#include "hlo/evaluator/reduce_window_scan.h"

namespace xlite::eval {

// ---------------------------------------------------------------- combiner

Combiner::Combiner(Evaluator& evaluator, const HloComputation& computation,
                   int arity)
    : evaluator_(evaluator), computation_(computation), arity_(arity) {
  const HloInstruction* root = computation.root_instruction();
  if (arity == 1 && computation.num_parameters() == 2 &&
      computation.instruction_count() == 3 && root->operand_count() == 2 &&
      IsElementwiseBinary(root->opcode()) &&
      root->opcode() != HloOpcode::kCompare &&
      root->opcode() != HloOpcode::kComplex) {
    const HloInstruction* p0 = computation.parameter_instruction(0);
    const HloInstruction* p1 = computation.parameter_instruction(1);
    const bool in_order = root->operand(0) == p0 && root->operand(1) == p1;
    const bool swapped = root->operand(0) == p1 && root->operand(1) == p0;
    const HloOpcode op = root->opcode();
    const bool commutative =
        op == HloOpcode::kAdd || op == HloOpcode::kMultiply ||
        op == HloOpcode::kMaximum || op == HloOpcode::kMinimum ||
        op == HloOpcode::kAnd || op == HloOpcode::kOr || op == HloOpcode::kXor;
    if ((in_order || (swapped && commutative)) &&
        root->shape().element_type() == p0->shape().element_type()) {
      binary_op_ = op;
    }
  }
}

absl::Status Combiner::Combine(absl::Span<Literal* const> accumulators,
                               int64_t a,
                               absl::Span<const Literal* const> values,
                               int64_t v) {
  const PrimitiveType type = accumulators[0]->shape().element_type();
  if (binary_op_.has_value() && values[0]->shape().element_type() == type) {
    const bool done = DispatchArrayType(type, [&](auto tr) {
      using Tr = decltype(tr);
      return ApplyBinary<Tr>(*binary_op_, MutableData<Tr>(*accumulators[0])[a],
                             Data<Tr>(*values[0])[v]);
    });
    if (done) return absl::OkStatus();
  }
  scratch_.resize(2 * arity_);
  std::vector<const Literal*> args(2 * arity_);
  for (int k = 0; k < arity_; ++k) {
    scratch_[k] = ScalarAt(*accumulators[k], a);
    scratch_[arity_ + k] = ScalarAt(*values[k], v);
  }
  for (int k = 0; k < 2 * arity_; ++k) args[k] = &scratch_[k];
  absl::StatusOr<Literal> result = evaluator_.Call(computation_, args);
  if (!result.ok()) return result.status();
  if (arity_ == 1 && !result->shape().IsTuple()) {
    SetScalarAt(*accumulators[0], a, *result);
  } else {
    for (int k = 0; k < arity_; ++k) {
      SetScalarAt(*accumulators[k], a, result->tuple_elements()[k]);
    }
  }
  return absl::OkStatus();
}

namespace {

// Iterates the input positions of the window of output `out_index`: calls
// f(input_linear_index) for each position inside the (unpadded, undilated)
// input.
template <typename F>
void ForEachWindowElement(const Shape& input, const Window& window,
                          absl::Span<const int64_t> out_index,
                          const std::vector<int64_t>& in_strides, F&& f) {
  const int64_t rank = input.rank();
  std::vector<int64_t> sizes(rank);
  for (int64_t d = 0; d < rank; ++d) sizes[d] = window.dimensions[d].size;
  ForEachIndex(sizes, [&](absl::Span<const int64_t> w) {
    int64_t linear = 0;
    for (int64_t d = 0; d < rank; ++d) {
      const WindowDimension& wd = window.dimensions[d];
      const int64_t reversed = wd.window_reversal ? (wd.size - 1 - w[d]) : w[d];
      const int64_t pos = out_index[d] * wd.stride - wd.padding_low +
                          reversed * wd.window_dilation;
      if (pos < 0 || pos % wd.base_dilation != 0) return;
      const int64_t i = pos / wd.base_dilation;
      if (i >= input.dimensions(d)) return;
      linear += i * in_strides[d];
    }
    f(linear);
  });
}

Window DefaultWindow(const HloInstruction& hlo, int64_t rank) {
  if (hlo.attrs().window.has_value()) return *hlo.attrs().window;
  Window w;
  w.dimensions.resize(rank);
  return w;
}

absl::StatusOr<Literal> EvalReduceWindow(Evaluator& evaluator,
                                         const HloInstruction& hlo,
                                         Operands operands) {
  const int k = static_cast<int>(operands.size() / 2);
  const Shape& input = operands[0]->shape();
  const Window window = DefaultWindow(hlo, input.rank());
  std::vector<Literal> outs;
  for (int i = 0; i < k; ++i) {
    outs.emplace_back(hlo.shape().IsTuple() ? hlo.shape().tuple_shapes(i)
                                            : hlo.shape());
    FillWith(outs.back(), *operands[k + i]);
  }
  const Shape& out_shape = outs[0].shape();
  const std::vector<int64_t> in_strides = Strides(input.dimensions());
  Combiner combiner(evaluator, *hlo.to_apply(), k);
  absl::StatusOr<bool> scanned =
      EvalBlockedScanWindow(combiner, hlo, window, operands, outs);
  if (!scanned.ok()) return scanned.status();
  if (*scanned) {
    if (hlo.shape().IsTuple()) return Literal::Tuple(std::move(outs));
    return std::move(outs[0]);
  }
  std::vector<Literal*> accs;
  for (Literal& o : outs) accs.push_back(&o);
  std::vector<const Literal*> values(operands.begin(), operands.begin() + k);
  absl::Status status = absl::OkStatus();
  if (combiner.binary_op().has_value()) {
    const HloOpcode op = *combiner.binary_op();
    bool ok = true;
    DispatchArrayType(input.element_type(), [&](auto tr) {
      using Tr = decltype(tr);
      const auto* x = Data<Tr>(*operands[0]);
      auto* acc = MutableData<Tr>(outs[0]);
      int64_t o = 0;
      ForEachIndex(out_shape.dimensions(), [&](absl::Span<const int64_t> idx) {
        ForEachWindowElement(input, window, idx, in_strides, [&](int64_t i) {
          ok &= ApplyBinary<Tr>(op, acc[o], x[i]);
        });
        ++o;
      });
      return 0;
    });
    if (ok) {
      if (hlo.shape().IsTuple()) return Literal::Tuple(std::move(outs));
      return std::move(outs[0]);
    }
    for (int i = 0; i < k; ++i) FillWith(outs[i], *operands[k + i]);
  }
  int64_t o = 0;
  ForEachIndex(out_shape.dimensions(), [&](absl::Span<const int64_t> idx) {
    ForEachWindowElement(input, window, idx, in_strides, [&](int64_t i) {
      if (status.ok()) status = combiner.Combine(accs, o, values, i);
    });
    ++o;
  });
  if (!status.ok()) return status;
  if (hlo.shape().IsTuple()) return Literal::Tuple(std::move(outs));
  return std::move(outs[0]);
}

absl::StatusOr<Literal> EvalSelectAndScatter(Evaluator& evaluator,
                                             const HloInstruction& hlo,
                                             Operands operands) {
  const Literal& operand = *operands[0];
  const Literal& source = *operands[1];
  const Literal& init = *operands[2];
  const Shape& input = operand.shape();
  const Window window = DefaultWindow(hlo, input.rank());
  const HloComputation& select = *hlo.called_computations()[0];
  const HloComputation& scatter = *hlo.called_computations()[1];
  Literal out(hlo.shape());
  FillWith(out, init);
  const std::vector<int64_t> in_strides = Strides(input.dimensions());
  Combiner scatter_combiner(evaluator, scatter, 1);
  absl::Status status = absl::OkStatus();
  int64_t s = 0;
  ForEachIndex(source.shape().dimensions(), [&](absl::Span<const int64_t> idx) {
    if (!status.ok()) return;
    int64_t selected = -1;
    ForEachWindowElement(input, window, idx, in_strides, [&](int64_t i) {
      if (!status.ok()) return;
      if (selected < 0) {
        selected = i;
        return;
      }
      const Literal current = ScalarAt(operand, selected);
      const Literal candidate = ScalarAt(operand, i);
      const Literal* args[] = {&current, &candidate};
      absl::StatusOr<Literal> keep = evaluator.Call(select, args);
      if (!keep.ok()) {
        status = keep.status();
        return;
      }
      if (keep->GetBits(0) == 0) selected = i;
    });
    if (selected >= 0) {
      Literal* accs[] = {&out};
      const Literal* vals[] = {&source};
      status = scatter_combiner.Combine(accs, selected, vals, s);
    }
    ++s;
  });
  if (!status.ok()) return status;
  return out;
}

absl::StatusOr<Literal> EvalMap(Evaluator& evaluator, const HloInstruction& hlo,
                                Operands operands) {
  Literal out(hlo.shape());
  const int64_t n = out.element_count();
  std::vector<Literal> scalars(operands.size());
  std::vector<const Literal*> args(operands.size());
  for (int64_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < operands.size(); ++k) {
      scalars[k] = ScalarAt(*operands[k], i);
      args[k] = &scalars[k];
    }
    absl::StatusOr<Literal> r = evaluator.Call(*hlo.to_apply(), args);
    if (!r.ok()) return r.status();
    SetScalarAt(out, i, *r);
  }
  return out;
}

// The slab of `array` at `index` along `dim`, without that dimension.
Literal Slab(const Literal& array, int64_t dim, int64_t index) {
  const Shape& s = array.shape();
  std::vector<int64_t> dims;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < s.rank(); ++d) {
    if (d != dim) dims.push_back(s.dimensions(d));
    if (d < dim) outer *= s.dimensions(d);
    if (d > dim) inner *= s.dimensions(d);
  }
  Literal out(Shape(s.element_type(), dims));
  const int64_t w = ElementBytes(s);
  const int64_t n = s.dimensions(dim);
  for (int64_t o = 0; o < outer; ++o) {
    std::memcpy(out.mutable_data().data() + o * inner * w,
                array.data().data() + (o * n + index) * inner * w, inner * w);
  }
  return out;
}

void SetSlab(Literal& array, int64_t dim, int64_t index, const Literal& slab) {
  const Shape& s = array.shape();
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < s.rank(); ++d) {
    if (d < dim) outer *= s.dimensions(d);
    if (d > dim) inner *= s.dimensions(d);
  }
  const int64_t w = ElementBytes(s);
  const int64_t n = s.dimensions(dim);
  for (int64_t o = 0; o < outer; ++o) {
    std::memcpy(array.mutable_data().data() + (o * n + index) * inner * w,
                slab.data().data() + o * inner * w, inner * w);
  }
}

// scan(inputs..., inits...): to_apply(input slices..., carries...) returns
// (outputs..., new carries...) at each step along the dimension (from the
// end when is_reverse); the result is (stacked outputs..., final carries...).
absl::StatusOr<Literal> EvalScan(Evaluator& evaluator,
                                 const HloInstruction& hlo, Operands operands) {
  const int64_t carries = hlo.attrs().num_carries;
  const int64_t inputs = static_cast<int64_t>(operands.size()) - carries;
  const int64_t outputs = hlo.shape().tuple_shapes_size() - carries;
  if (inputs < 1 || outputs < 0 || hlo.dimensions().empty()) {
    return InstructionError(hlo,
                            "scan needs inputs, a dimension and "
                            "num_carries <= its operands");
  }
  const int64_t dim = hlo.dimensions()[0];
  const int64_t steps = operands[0]->shape().dimensions(dim);
  std::vector<Literal> carry;
  for (int64_t c = 0; c < carries; ++c) carry.push_back(*operands[inputs + c]);
  std::vector<Literal> stacked;
  for (int64_t o = 0; o < outputs; ++o) {
    stacked.emplace_back(hlo.shape().tuple_shapes(o));
  }
  for (int64_t t = 0; t < steps; ++t) {
    const int64_t at = hlo.attrs().is_reverse ? steps - 1 - t : t;
    std::vector<Literal> slabs;
    for (int64_t i = 0; i < inputs; ++i) {
      slabs.push_back(Slab(*operands[i], dim, at));
    }
    std::vector<const Literal*> args;
    for (const Literal& l : slabs) args.push_back(&l);
    for (const Literal& l : carry) args.push_back(&l);
    absl::StatusOr<Literal> r = evaluator.Call(*hlo.to_apply(), args);
    if (!r.ok()) return r.status();
    const std::vector<Literal>& parts = r->tuple_elements();
    if (static_cast<int64_t>(parts.size()) != outputs + carries) {
      return InstructionError(hlo,
                              "scan's computation returns the wrong "
                              "number of values");
    }
    for (int64_t o = 0; o < outputs; ++o)
      SetSlab(stacked[o], dim, at, parts[o]);
    for (int64_t c = 0; c < carries; ++c) carry[c] = parts[outputs + c];
  }
  for (Literal& c : carry) stacked.push_back(std::move(c));
  return Literal::Tuple(std::move(stacked));
}

}  // namespace

absl::StatusOr<Literal> EvalReduction(Evaluator& evaluator,
                                      const HloInstruction& hlo,
                                      Operands operands) {
  switch (hlo.opcode()) {
    case HloOpcode::kReduce:
      return EvalReduce(evaluator, hlo, operands);
    case HloOpcode::kReduceWindow:
      return EvalReduceWindow(evaluator, hlo, operands);
    case HloOpcode::kSelectAndScatter:
      return EvalSelectAndScatter(evaluator, hlo, operands);
    case HloOpcode::kMap:
      return EvalMap(evaluator, hlo, operands);
    case HloOpcode::kScan:
      return EvalScan(evaluator, hlo, operands);
    default:
      return NotImplemented(hlo);
  }
}

}  // namespace xlite::eval
