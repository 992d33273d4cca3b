// Joint lanes: the values of W adjacent indices of one instruction (along
// one dimension), emitted together. A reduction that keeps that dimension
// runs one loop nest over its reduced (or window) positions with one
// accumulator per lane; each lane still folds its elements in exactly the
// order ValueAt would, so every result bit is unchanged, but the W operand
// elements of one step are read together: from one cache line and one page
// when the dimension is physically minor (a column sum), or as W
// independent dependency chains when it is not (a row sum).

#include <algorithm>

#include "codegen/elemental.h"
#include "codegen/loops.h"
#include "codegen/scalar_ops.h"
#include "codegen/window_position.h"
#include "hlo/ir/opcode.h"
#include "llvm/IR/Function.h"

namespace xlite::codegen {

namespace {

using Lanes = std::vector<llvm::Value*>;

// `lanes` moved to another index space: lane k is `base` with `dim` set to
// lane k's index in dimension `from_dim`.
std::vector<Index> MoveLanes(absl::Span<const Index> lanes, int64_t from_dim,
                             const Index& base, int64_t dim) {
  std::vector<Index> moved(lanes.size(), base);
  for (size_t k = 0; k < lanes.size(); ++k) moved[k][dim] = lanes[k][from_dim];
  return moved;
}

}  // namespace

llvm::Value* ElementalEmitter::Memoized(const HloInstruction* instruction,
                                        int64_t leaf, const Index& index) {
  CacheKey key{instruction, leaf, {index.begin(), index.end()}};
  for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope) {
    auto it = scope->find(key);
    if (it != scope->end()) return it->second;
  }
  return nullptr;
}

void ElementalEmitter::MemoizeLanes(const HloInstruction* hlo, int64_t leaf,
                                    absl::Span<const Index> lanes,
                                    absl::Span<llvm::Value* const> values) {
  for (size_t k = 0; k < lanes.size(); ++k) {
    scopes_.back()[CacheKey{hlo, leaf, {lanes[k].begin(), lanes[k].end()}}] =
        values[k];
  }
}

absl::StatusOr<Lanes> ElementalEmitter::ValuesAt(
    const HloInstruction* instruction, int64_t leaf,
    absl::Span<const Index> lanes, int64_t dim) {
  Lanes known;
  for (const Index& lane : lanes) {
    llvm::Value* v = Memoized(instruction, leaf, lane);
    if (v == nullptr) break;
    known.push_back(v);
  }
  if (known.size() == lanes.size()) return known;
  if (lanes.size() > 1) {
    absl::StatusOr<Lanes> joint = JointValues(instruction, leaf, lanes, dim);
    if (!joint.ok()) return joint.status();
    if (!joint->empty()) {
      MemoizeLanes(instruction, leaf, lanes, *joint);
      return *joint;
    }
  }
  Lanes values;
  for (const Index& lane : lanes) {
    absl::StatusOr<llvm::Value*> v = ValueAt(instruction, leaf, lane);
    if (!v.ok()) return v.status();
    values.push_back(*v);
  }
  return values;
}

absl::StatusOr<Lanes> ElementalEmitter::JointValues(
    const HloInstruction* hlo, int64_t leaf, absl::Span<const Index> lanes,
    int64_t dim) {
  // Bound values (memory, given scalars) are read lane by lane.
  if (bound_.contains({hlo, leaf})) return Lanes();
  switch (hlo->opcode()) {
    case HloOpcode::kReduce:
      return JointReduce(hlo, leaf, lanes, dim);
    case HloOpcode::kReduceWindow:
      return JointReduceWindow(hlo, leaf, lanes, dim);
    case HloOpcode::kDot:
      return DotLanes(hlo, lanes, dim);
    case HloOpcode::kCopy:
      if (leaf >= 0) break;
      return ValuesAt(hlo->operand(0), -1, lanes, dim);
    case HloOpcode::kTuple:
      if (leaf < 0) break;
      return ValuesAt(hlo->operand(leaf), -1, lanes, dim);
    case HloOpcode::kGetTupleElement:
      if (leaf >= 0) break;
      return ValuesAt(hlo->operand(0), hlo->tuple_index(), lanes, dim);
    default:
      if (leaf < 0 && hlo->shape().IsArray() &&
          (HloOpcodeFamily(hlo->opcode()) == OpcodeFamily::kElementwise ||
           HloOpcodeFamily(hlo->opcode()) == OpcodeFamily::kConversion)) {
        return JointElementwise(hlo, lanes, dim);
      }
      break;
  }
  return Lanes();
}

absl::StatusOr<Lanes> ElementalEmitter::JointElementwise(
    const HloInstruction* hlo, absl::Span<const Index> lanes, int64_t dim) {
  // A bitcast-convert between widths is not one element to one element.
  if (hlo->opcode() == HloOpcode::kBitcastConvert &&
      BitWidth(hlo->operand(0)->shape().element_type()) !=
          BitWidth(hlo->shape().element_type())) {
    return Lanes();
  }
  std::vector<Lanes> operands;
  for (const HloInstruction* operand : hlo->operands()) {
    if (operand->shape().rank() == 0) {
      // Scalar operands broadcast implicitly.
      absl::StatusOr<llvm::Value*> v = ValueAt(operand, -1, {});
      if (!v.ok()) return v.status();
      operands.push_back(Lanes(lanes.size(), *v));
      continue;
    }
    absl::StatusOr<Lanes> v = ValuesAt(operand, -1, lanes, dim);
    if (!v.ok()) return v.status();
    operands.push_back(*std::move(v));
  }
  Lanes out;
  for (size_t k = 0; k < lanes.size(); ++k) {
    std::vector<llvm::Value*> args;
    for (const Lanes& operand : operands) args.push_back(operand[k]);
    absl::StatusOr<llvm::Value*> v = EmitElementwise(b_, *hlo, args);
    if (!v.ok()) return v.status();
    out.push_back(*v);
  }
  return out;
}

absl::StatusOr<std::vector<std::vector<llvm::AllocaInst*>>>
ElementalEmitter::LaneAccumulators(const HloInstruction* hlo, size_t width) {
  const int64_t n = hlo->operand_count() / 2;
  std::vector<std::vector<llvm::AllocaInst*>> accs(n);
  for (int64_t i = 0; i < n; ++i) {
    const HloInstruction* init = hlo->operand(n + i);
    absl::StatusOr<llvm::Value*> v = ValueAt(init, -1, {});
    if (!v.ok()) return v.status();
    for (size_t k = 0; k < width; ++k) {
      accs[i].push_back(EntryAlloca(
          b_, ValueType(init->shape().element_type(), b_.getContext())));
      b_.CreateStore(*v, accs[i].back());
    }
  }
  return accs;
}

absl::Status ElementalEmitter::AccumulateLanes(
    const HloInstruction* hlo,
    const std::vector<std::vector<llvm::AllocaInst*>>& accs,
    const std::vector<Lanes>& values) {
  const size_t n = accs.size();
  for (size_t k = 0; k < accs[0].size(); ++k) {
    std::vector<llvm::Value*> args;
    for (size_t i = 0; i < n; ++i) {
      args.push_back(b_.CreateLoad(accs[i][k]->getAllocatedType(), accs[i][k]));
    }
    for (size_t i = 0; i < n; ++i) args.push_back(values[i][k]);
    absl::StatusOr<std::vector<llvm::Value*>> next =
        EmitApplied(*hlo->to_apply(), args);
    if (!next.ok()) return next.status();
    for (size_t i = 0; i < n; ++i) b_.CreateStore((*next)[i], accs[i][k]);
  }
  return absl::OkStatus();
}

Lanes ElementalEmitter::LaneResults(
    const HloInstruction* hlo, int64_t leaf, absl::Span<const Index> lanes,
    const std::vector<std::vector<llvm::AllocaInst*>>& accs) {
  std::vector<Lanes> results(accs.size());
  for (size_t i = 0; i < accs.size(); ++i) {
    for (llvm::AllocaInst* acc : accs[i]) {
      results[i].push_back(b_.CreateLoad(acc->getAllocatedType(), acc));
    }
  }
  if (leaf < 0) return results[0];
  // Memoize the sibling results of a variadic reduction.
  for (size_t i = 0; i < results.size(); ++i) {
    MemoizeLanes(hlo, static_cast<int64_t>(i), lanes, results[i]);
  }
  return results[leaf];
}

absl::StatusOr<Lanes> ElementalEmitter::JointReduce(
    const HloInstruction* hlo, int64_t leaf, absl::Span<const Index> lanes,
    int64_t dim) {
  // Folded in strips along the operand's memory, one result at a time.
  if (StripWidth(hlo) > 0) return Lanes();
  const int64_t n = hlo->operand_count() / 2;
  const Shape& in = hlo->operand(0)->shape();
  std::vector<int64_t> reduced(hlo->dimensions().begin(),
                               hlo->dimensions().end());
  std::sort(reduced.begin(), reduced.end());
  // The operand dimension that the lanes' result dimension keeps.
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < in.rank(); ++d) {
    if (!std::binary_search(reduced.begin(), reduced.end(), d)) {
      kept.push_back(d);
    }
  }
  if (dim >= static_cast<int64_t>(kept.size())) return Lanes();
  const int64_t in_dim = kept[dim];
  absl::StatusOr<std::vector<std::vector<llvm::AllocaInst*>>> accs =
      LaneAccumulators(hlo, lanes.size());
  if (!accs.ok()) return accs.status();
  std::vector<int64_t> bounds;
  for (int64_t d : reduced) bounds.push_back(in.dimensions(d));
  absl::Status status;
  {
    Scope scope(*this);
    status = EmitLoopNestOverBounds(b_, bounds, [&](const Index& r) {
      Scope inner(*this);
      Index full(in.rank(), nullptr);
      for (size_t k = 0; k < reduced.size(); ++k) full[reduced[k]] = r[k];
      for (size_t o = 0; o < kept.size(); ++o) full[kept[o]] = lanes[0][o];
      const std::vector<Index> at = MoveLanes(lanes, dim, full, in_dim);
      std::vector<Lanes> values;
      for (int64_t i = 0; i < n; ++i) {
        absl::StatusOr<Lanes> v = ValuesAt(hlo->operand(i), -1, at, in_dim);
        if (!v.ok()) return v.status();
        values.push_back(*std::move(v));
      }
      return AccumulateLanes(hlo, *accs, values);
    });
  }
  if (!status.ok()) return status;
  return LaneResults(hlo, leaf, lanes, *accs);
}

absl::StatusOr<Lanes> ElementalEmitter::JointReduceWindow(
    const HloInstruction* hlo, int64_t leaf, absl::Span<const Index> lanes,
    int64_t dim) {
  const int64_t n = hlo->operand_count() / 2;
  const Shape& in = hlo->operand(0)->shape();
  // The same positions as ReduceWindow reads: unset strides and dilations
  // are 1, a missing window is 1 wide everywhere, no reversal.
  Window window;
  window.dimensions.resize(in.rank());
  if (hlo->attrs().window.has_value()) window = *hlo->attrs().window;
  for (WindowDimension& wd : window.dimensions) {
    wd.stride = std::max<int64_t>(wd.stride, 1);
    wd.window_dilation = std::max<int64_t>(wd.window_dilation, 1);
    wd.base_dilation = std::max<int64_t>(wd.base_dilation, 1);
    wd.window_reversal = false;
  }
  // Lanes stay adjacent in the operand, all inside it, only through a
  // window one wide, unstrided, unpadded along `dim`.
  const WindowDimension& along = window.dimensions[dim];
  if (along.size > 1 || along.stride != 1 || along.base_dilation != 1 ||
      along.padding_low != 0 || along.padding_high != 0) {
    return Lanes();
  }
  absl::StatusOr<std::vector<std::vector<llvm::AllocaInst*>>> accs =
      LaneAccumulators(hlo, lanes.size());
  if (!accs.ok()) return accs.status();
  std::vector<int64_t> bounds;
  for (const WindowDimension& wd : window.dimensions) {
    bounds.push_back(wd.size > 0 ? wd.size : 1);
  }
  absl::Status status;
  {
    Scope scope(*this);
    status =
        EmitLoopNestOverBounds(b_, bounds, [&](const Index& w) -> absl::Status {
          // Lane 0 decides for all: the lanes differ only along `dim`, where
          // every lane is inside.
          auto [pos, inside] = WindowPosition(b_, window, in, lanes[0], w);
          llvm::Function* f = b_.GetInsertBlock()->getParent();
          auto* body = llvm::BasicBlock::Create(b_.getContext(), "rw.in", f);
          auto* skip = llvm::BasicBlock::Create(b_.getContext(), "rw.skip", f);
          b_.CreateCondBr(inside, body, skip);
          b_.SetInsertPoint(body);
          {
            Scope inner(*this);
            const std::vector<Index> at = MoveLanes(lanes, dim, pos, dim);
            std::vector<Lanes> values;
            for (int64_t i = 0; i < n; ++i) {
              absl::StatusOr<Lanes> v = ValuesAt(hlo->operand(i), -1, at, dim);
              if (!v.ok()) return v.status();
              values.push_back(*std::move(v));
            }
            if (absl::Status s = AccumulateLanes(hlo, *accs, values); !s.ok()) {
              return s;
            }
          }
          b_.CreateBr(skip);
          b_.SetInsertPoint(skip);
          return absl::OkStatus();
        });
  }
  if (!status.ok()) return status;
  return LaneResults(hlo, leaf, lanes, *accs);
}

}  // namespace xlite::codegen
