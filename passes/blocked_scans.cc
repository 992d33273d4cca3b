#include "passes/blocked_scans.h"

#include <optional>
#include <vector>

#include "hlo/ir/opcode.h"
#include "passes/hlo_util.h"

namespace xlite {
namespace {

// XLA:CPU's `xla_reduce_window_rewrite_base_length`.
constexpr int64_t kBase = 16;

struct ScanSpec {
  int64_t dim;
  int64_t length;
  bool forward;    // padding low (prefix scan), else high (suffix scan)
  bool exclusive;  // padding of the whole length: one more output
};

bool IsTrivial(const WindowDimension& w) {
  return w.size == 1 && w.stride == 1 && w.padding_low == 0 &&
         w.padding_high == 0 && w.base_dilation == 1 &&
         w.window_dilation == 1 && !w.window_reversal;
}

const Shape& ResultShape(const HloInstruction* hlo, int64_t i) {
  return hlo->shape().IsTuple() ? hlo->shape().tuple_shapes(i) : hlo->shape();
}

// The reduce-windows XLA's rewriter matches (the evaluator's MatchScan).
std::optional<ScanSpec> Match(const HloInstruction* hlo) {
  if (hlo->opcode() != HloOpcode::kReduceWindow ||
      !hlo->attrs().window.has_value()) {
    return std::nullopt;
  }
  const Window& window = *hlo->attrs().window;
  const int64_t k = hlo->operand_count() / 2;
  const Shape& input = hlo->operand(0)->shape();
  if (static_cast<int64_t>(window.dimensions.size()) != input.rank()) {
    return std::nullopt;
  }
  int64_t dim = -1;
  for (int64_t d = 0; d < input.rank(); ++d) {
    if (IsTrivial(window.dimensions[d])) continue;
    if (dim >= 0) return std::nullopt;
    dim = d;
  }
  if (dim < 0 || input.dimensions(dim) <= kBase) return std::nullopt;
  const int64_t n = input.dimensions(dim);
  const HloInstruction* root = hlo->to_apply()->root_instruction();
  if (root->shape().IsTuple() && root->opcode() != HloOpcode::kTuple) {
    return std::nullopt;
  }
  const WindowDimension& w = window.dimensions[dim];
  const int64_t lo = w.padding_low, hi = w.padding_high;
  const bool forward = (lo == n - 1 || lo == n) && hi == 0;
  const bool reverse = (hi == n - 1 || hi == n) && lo == 0;
  if (w.stride != 1 || w.size != n || (!forward && !reverse) ||
      w.window_reversal || w.base_dilation != 1 || w.window_dilation != 1) {
    return std::nullopt;
  }
  const bool exclusive = forward ? lo == n : hi == n;
  for (int64_t i = 0; i < k; ++i) {
    const PrimitiveType t = hlo->operand(k + i)->shape().element_type();
    const Shape& out = ResultShape(hlo, i);
    if (hlo->operand(i)->shape().element_type() != t ||
        out.element_type() != t ||
        out.dimensions(dim) != n + (exclusive ? 1 : 0)) {
      return std::nullopt;
    }
  }
  return ScanSpec{dim, n, forward, exclusive};
}

// Builds the blocked form of one reduce-window in its computation.
class Rewriter {
 public:
  Rewriter(HloComputation& c, const HloInstruction* scan)
      : c_(c), module_(*c.parent()), reducer_(scan->to_apply()) {
    const int64_t k = scan->operand_count() / 2;
    for (int64_t i = 0; i < k; ++i) {
      inits_.push_back(scan->mutable_operand(k + i));
    }
  }

  // The k results (forward or reverse, exclusive or not) of scanning
  // `xs` along `dim`: blocked when longer than the base length, else one
  // reduce-window.
  std::vector<HloInstruction*> Scan(const std::vector<HloInstruction*>& xs,
                                    int64_t dim, bool forward,
                                    bool exclusive) {
    const int64_t n = xs[0]->shape().dimensions(dim);
    if (n <= kBase) {
      WindowDimension w = Unit();
      w.size = n;
      (forward ? w.padding_low : w.padding_high) = exclusive ? n : n - 1;
      return ReduceWindow(xs, dim, w);
    }
    return Blocked(xs, dim, forward, exclusive);
  }

 private:
  static WindowDimension Unit() { return WindowDimension(); }

  HloInstruction* Add(HloOpcode opcode, const Shape& shape,
                      std::vector<HloInstruction*> operands) {
    auto h = HloInstruction::Create(opcode, shape, operands);
    h->set_name(module_.NewInstructionName(HloOpcodeString(opcode)));
    return c_.AddInstruction(std::move(h));
  }

  static Shape WithDim(const Shape& s, int64_t dim, int64_t size) {
    std::vector<int64_t> dims(s.dimensions().begin(), s.dimensions().end());
    dims[dim] = size;
    return Shape::WithDefaultLayout(s.element_type(), dims);
  }

  // A reduce-window of `xs` (same dimensions) with window `w` along `dim`
  // and trivial windows elsewhere.
  std::vector<HloInstruction*> ReduceWindow(
      const std::vector<HloInstruction*>& xs, int64_t dim,
      const WindowDimension& w) {
    const Shape& in = xs[0]->shape();
    Window window;
    window.dimensions.assign(in.rank(), Unit());
    window.dimensions[dim] = w;
    const int64_t padded = in.dimensions(dim) + w.padding_low + w.padding_high;
    const int64_t size = padded < w.size ? 0 : padded - w.size + 1;
    std::vector<Shape> shapes;
    std::vector<HloInstruction*> operands = xs;
    for (size_t i = 0; i < xs.size(); ++i) {
      shapes.push_back(WithDim(xs[i]->shape(), dim, size));
      operands.push_back(inits_[i]);
    }
    const Shape shape = shapes.size() == 1 ? shapes[0] : Shape::Tuple(shapes);
    HloInstruction* rw = Add(HloOpcode::kReduceWindow, shape, operands);
    rw->mutable_attrs().window = window;
    rw->AppendCalledComputation(reducer_);
    return Elements(rw);
  }

  std::vector<HloInstruction*> Elements(HloInstruction* h) {
    if (!h->shape().IsTuple()) return {h};
    std::vector<HloInstruction*> out;
    for (int64_t i = 0; i < h->shape().tuple_shapes_size(); ++i) {
      HloInstruction* g =
          Add(HloOpcode::kGetTupleElement, h->shape().tuple_shapes(i), {h});
      g->set_index(i);
      out.push_back(g);
    }
    return out;
  }

  HloInstruction* Pad(HloInstruction* x, HloInstruction* value, int64_t dim,
                      int64_t lo, int64_t hi) {
    const Shape& s = x->shape();
    HloInstruction* pad = Add(HloOpcode::kPad,
                              WithDim(s, dim, s.dimensions(dim) + lo + hi),
                              {x, value});
    pad->mutable_attrs().padding.dimensions.assign(s.rank(),
                                                   PaddingDimension());
    pad->mutable_attrs().padding.dimensions[dim].edge_padding_low = lo;
    pad->mutable_attrs().padding.dimensions[dim].edge_padding_high = hi;
    return pad;
  }

  HloInstruction* Slice(HloInstruction* x, int64_t dim, int64_t start,
                        int64_t limit) {
    const Shape& s = x->shape();
    HloInstruction* slice =
        Add(HloOpcode::kSlice, WithDim(s, dim, limit - start), {x});
    auto& ranges = slice->mutable_attrs().slice;
    for (int64_t d = 0; d < s.rank(); ++d) {
      ranges.push_back({0, s.dimensions(d), 1});
    }
    ranges[dim] = {start, limit, 1};
    return slice;
  }

  HloInstruction* Reshape(HloInstruction* x, std::vector<int64_t> dims) {
    return Add(HloOpcode::kReshape,
               Shape::WithDefaultLayout(x->shape().element_type(), dims), {x});
  }

  // Output i of the reducer as a computation of its own (for map).
  HloComputation* ReducerOutput(int64_t i) {
    const HloInstruction* root = reducer_->root_instruction();
    if (!root->shape().IsTuple()) return reducer_;
    HloComputation* clone = CloneComputation(
        module_, *reducer_, reducer_->name() + ".output");
    clone->set_root_instruction(
        clone->root_instruction()->mutable_operand(i));
    return clone;
  }

  std::vector<HloInstruction*> Blocked(const std::vector<HloInstruction*>& xs,
                                       int64_t dim, bool forward,
                                       bool exclusive);

  HloComputation& c_;
  HloModule& module_;
  HloComputation* reducer_;
  std::vector<HloInstruction*> inits_;
};

std::vector<HloInstruction*> Rewriter::Blocked(
    const std::vector<HloInstruction*>& xs, int64_t dim, bool forward,
    bool exclusive) {
  const Shape& in = xs[0]->shape();
  const int64_t n = in.dimensions(dim);
  const int64_t blocks = (n + kBase - 1) / kBase;
  // [.., blocks, 16, ..]: the input padded with the init value.
  std::vector<int64_t> split(in.dimensions().begin(), in.dimensions().end());
  split[dim] = blocks;
  split.insert(split.begin() + dim + 1, kBase);
  std::vector<int64_t> merged = split;
  merged.erase(merged.begin() + dim + 1);
  std::vector<HloInstruction*> grid;
  for (size_t i = 0; i < xs.size(); ++i) {
    HloInstruction* x = xs[i];
    if (blocks * kBase != n) x = Pad(x, inits_[i], dim, 0, blocks * kBase - n);
    grid.push_back(Reshape(x, split));
  }
  // Each block's inclusive scan, and its total.
  WindowDimension w = Unit();
  w.size = kBase;
  (forward ? w.padding_low : w.padding_high) = kBase - 1;
  const std::vector<HloInstruction*> scans = ReduceWindow(grid, dim + 1, w);
  std::vector<HloInstruction*> totals;
  for (HloInstruction* s : scans) {
    const int64_t last = forward ? kBase - 1 : 0;
    totals.push_back(Reshape(Slice(s, dim + 1, last, last + 1), merged));
  }
  // The blocks before each block (after it, reversed), exclusively.
  const std::vector<HloInstruction*> carries =
      Scan(totals, dim, forward, /*exclusive=*/true);
  std::vector<HloInstruction*> operands = scans;
  for (HloInstruction* carry : carries) {
    HloInstruction* own =
        forward ? Slice(carry, dim, 0, blocks) : Slice(carry, dim, 1, blocks + 1);
    std::vector<int64_t> kept;
    for (int64_t d = 0; d < static_cast<int64_t>(split.size()); ++d) {
      if (d != dim + 1) kept.push_back(d);
    }
    HloInstruction* wide = Add(
        HloOpcode::kBroadcast,
        Shape::WithDefaultLayout(own->shape().element_type(), split), {own});
    *wide->mutable_dimensions() = kept;
    wide->set_has_dimensions(true);
    operands.push_back(wide);
  }
  std::vector<int64_t> all(split.size());
  for (size_t d = 0; d < split.size(); ++d) all[d] = static_cast<int64_t>(d);
  std::vector<HloInstruction*> out;
  for (size_t i = 0; i < xs.size(); ++i) {
    // reducer(block scan, carry), element by element.
    HloInstruction* combined = Add(
        HloOpcode::kMap,
        Shape::WithDefaultLayout(xs[i]->shape().element_type(), split),
        operands);
    *combined->mutable_dimensions() = all;
    combined->set_has_dimensions(true);
    combined->AppendCalledComputation(ReducerOutput(i));
    std::vector<int64_t> flat = merged;
    flat[dim] = blocks * kBase;
    HloInstruction* result = Reshape(combined, flat);
    if (blocks * kBase != n) result = Slice(result, dim, 0, n);
    if (exclusive) {
      result = forward ? Pad(result, inits_[i], dim, 1, 0)
                       : Pad(result, inits_[i], dim, 0, 1);
    }
    out.push_back(result);
  }
  return out;
}

}  // namespace

absl::StatusOr<bool> RewriteScansAsBlocks(HloModule& module) {
  bool changed = false;
  for (HloComputation* c : module.computations()) {
    for (HloInstruction* hlo : c->MakeInstructionPostOrder()) {
      const std::optional<ScanSpec> spec = Match(hlo);
      if (!spec.has_value()) continue;
      const int64_t k = hlo->operand_count() / 2;
      std::vector<HloInstruction*> xs;
      for (int64_t i = 0; i < k; ++i) xs.push_back(hlo->mutable_operand(i));
      Rewriter rewriter(*c, hlo);
      std::vector<HloInstruction*> results =
          rewriter.Scan(xs, spec->dim, spec->forward, spec->exclusive);
      // The results keep the reduce-window's layouts.
      HloInstruction* replacement = nullptr;
      if (!hlo->shape().IsTuple()) {
        replacement = c->AddInstruction(HloInstruction::Create(
            HloOpcode::kCopy, hlo->shape(), {results[0]}));
      } else {
        std::vector<HloInstruction*> copies;
        for (int64_t i = 0; i < k; ++i) {
          copies.push_back(c->AddInstruction(HloInstruction::Create(
              HloOpcode::kCopy, hlo->shape().tuple_shapes(i), {results[i]})));
          copies.back()->set_name(module.NewInstructionName("copy"));
        }
        replacement = c->AddInstruction(
            HloInstruction::Create(HloOpcode::kTuple, hlo->shape(), copies));
      }
      replacement->set_name(module.NewInstructionName(hlo->name()));
      if (absl::Status s = ReplaceInstruction(hlo, replacement); !s.ok()) {
        return s;
      }
      changed = true;
    }
  }
  return changed;
}

}  // namespace xlite
