// Kernels that write every element of their result from an elemental
// generator: single instructions and fusions (loop, input, output, custom
// kinds alike: a fusion is its fused computation). Multi-output fusions
// write every leaf. A dynamic-update-slice whose result shares its
// operand's buffer writes only the updated window.

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "codegen/elemental.h"
#include "codegen/loops.h"
#include "codegen/tiled_loops.h"
#include "cpu_backend/column_reduction.h"
#include "cpu_backend/emitter_context.h"
#include "cpu_backend/kernel_loop_plan.h"
#include "cpu_backend/streaming_stores.h"
#include "cpu_backend/tile_staging.h"
#include "hlo/ir/opcode.h"

namespace xlite::cpu {

using codegen::ElementalEmitter;
using codegen::Index;
using codegen::IrArray;

absl::Status BindOperands(EmitterContext& ctx, llvm::IRBuilderBase& b,
                          ElementalEmitter& emitter,
                          const HloInstruction* instruction) {
  const bool fusion = instruction->opcode() == HloOpcode::kFusion;
  // A fusion may have operands past its parameters (XLA allows it): they
  // are not read.
  const int64_t count = fusion
                            ? std::min<int64_t>(instruction->operand_count(),
                                                instruction->fused_computation()
                                                    ->parameter_instructions()
                                                    .size())
                            : instruction->operand_count();
  for (int64_t i = 0; i < count; ++i) {
    const HloInstruction* operand = instruction->operand(i);
    const HloInstruction* target =
        fusion ? instruction->fused_computation()->parameter_instructions()[i]
               : operand;
    const Shape& shape = operand->shape();
    if (shape.IsTuple()) {
      for (int64_t l = 0; l < shape.tuple_shapes_size(); ++l) {
        if (!shape.tuple_shapes(l).IsArray()) continue;
        absl::StatusOr<IrArray> array = ctx.ArrayFor(b, operand, {l});
        if (!array.ok()) return array.status();
        emitter.BindArray(target, l, *array);
      }
      continue;
    }
    if (!shape.IsArray()) continue;
    absl::StatusOr<IrArray> array = ctx.ArrayFor(b, operand);
    if (!array.ok()) return array.status();
    emitter.BindArray(target, -1, *array);
  }
  return absl::OkStatus();
}

absl::Status EmitArrayCopy(llvm::IRBuilderBase& b, const IrArray& from,
                           const IrArray& to) {
  return codegen::EmitLoopNest(b, to.shape(), [&](const Index& index) {
    to.EmitWrite(b, index, from.EmitRead(b, index));
    return absl::OkStatus();
  });
}

namespace {

// The instruction whose elements the kernel computes: the fused root for
// fusions.
const HloInstruction* Root(const HloInstruction* hlo) {
  return hlo->opcode() == HloOpcode::kFusion
             ? hlo->fused_computation()->root_instruction()
             : hlo;
}

// In place: out already holds the operand; write the update window only.
absl::Status EmitInPlaceUpdate(llvm::IRBuilderBase& b,
                               ElementalEmitter& emitter,
                               const HloInstruction* dus, const IrArray& out) {
  const Shape& update = dus->operand(1)->shape();
  Index starts;
  for (int64_t d = 0; d < update.rank(); ++d) {
    const HloInstruction* s = dus->operand(2 + d);
    absl::StatusOr<llvm::Value*> v = emitter.ValueAt(s, -1, {});
    if (!v.ok()) return v.status();
    const int64_t hi = out.shape().dimensions(d) - update.dimensions(d);
    llvm::Value* x = codegen::ClampIndex(
        b, codegen::IndexToInt64(b, s->shape().element_type(), *v), 0, hi);
    starts.push_back(x);
  }
  return codegen::EmitLoopNest(b, update, [&](const Index& u) -> absl::Status {
    ElementalEmitter::Scope scope(emitter);
    absl::StatusOr<llvm::Value*> v = emitter.ValueAt(dus->operand(1), -1, u);
    if (!v.ok()) return v.status();
    Index at;
    for (size_t d = 0; d < u.size(); ++d)
      at.push_back(b.CreateAdd(starts[d], u[d]));
    out.EmitWrite(b, at, *v);
    return absl::OkStatus();
  });
}

// True when `hlo` (a DUS, or a fusion whose root is a DUS on a parameter)
// got its operand's buffer.
absl::StatusOr<bool> UpdatesInPlace(EmitterContext& ctx,
                                    const HloInstruction* hlo) {
  const HloInstruction* root = Root(hlo);
  if (root->opcode() != HloOpcode::kDynamicUpdateSlice) return false;
  const HloInstruction* operand = root->operand(0);
  if (hlo->opcode() == HloOpcode::kFusion) {
    if (operand->opcode() != HloOpcode::kParameter) return false;
    // The parameter must be read by nothing but the update.
    if (operand->user_count() != 1) return false;
    operand = hlo->operand(operand->parameter_number());
  }
  absl::StatusOr<runtime::Slice> out = ctx.assignment().GetSlice(hlo, {});
  if (!out.ok()) return out.status();
  absl::StatusOr<runtime::Slice> in = ctx.assignment().GetSlice(operand, {});
  if (!in.ok()) return in.status();
  return *out == *in;
}

// Results computed in joint lanes: reductions, and dots (emitted ones: a
// dot the library computes is not an elemental kernel's root).
bool IsReduction(const HloInstruction* hlo) {
  return hlo->opcode() == HloOpcode::kReduce ||
         hlo->opcode() == HloOpcode::kReduceWindow ||
         hlo->opcode() == HloOpcode::kDot;
}

// The reduction among the results `leaves` of `root` (of dimensions
// `shape`; the first such of a tuple root's), or null: those are computed
// in joint lanes. A tuple's reduction of other dimensions belongs to
// another group of leaves and is walked there.
const HloInstruction* LaneReduction(const HloInstruction* root,
                                    const std::vector<int64_t>& leaves,
                                    const Shape& shape) {
  if (root->opcode() != HloOpcode::kTuple) {
    return IsReduction(root) ? root : nullptr;
  }
  for (int64_t l : leaves) {
    if (l < 0 || l >= root->operand_count()) continue;
    const HloInstruction* value = root->operand(l);
    if (IsReduction(value) && value->shape().IsArray() &&
        value->shape().dimensions() == shape.dimensions()) {
      return value;
    }
  }
  return nullptr;
}

// Whether joint lanes along result dimension `dim` of `dot` read its
// operands in memory order: the operand the lanes move through keeps that
// dimension physically minor (a strided one would be gathered element by
// element, over and over for every row of the other operand).
bool DotLanesAreContiguous(const HloInstruction* dot, int64_t dim) {
  const DotDimensionNumbers& d = dot->attrs().dot->dnums;
  const int64_t batch = static_cast<int64_t>(d.lhs_batch_dimensions.size());
  if (dim < batch) return false;
  const HloInstruction* lhs = dot->operand(0);
  const int64_t lhs_free =
      lhs->shape().rank() - batch -
      static_cast<int64_t>(d.lhs_contracting_dimensions.size());
  const bool in_lhs = dim - batch < lhs_free;
  const HloInstruction* operand = in_lhs ? lhs : dot->operand(1);
  const auto& skip_batch =
      in_lhs ? d.lhs_batch_dimensions : d.rhs_batch_dimensions;
  const auto& skip_contracting =
      in_lhs ? d.lhs_contracting_dimensions : d.rhs_contracting_dimensions;
  int64_t free_index = in_lhs ? dim - batch : dim - batch - lhs_free;
  for (int64_t i = 0; i < operand->shape().rank(); ++i) {
    if (std::find(skip_batch.begin(), skip_batch.end(), i) !=
            skip_batch.end() ||
        std::find(skip_contracting.begin(), skip_contracting.end(), i) !=
            skip_contracting.end()) {
      continue;
    }
    if (free_index-- == 0) {
      return codegen::MajorToMinor(operand->shape()).back() == i;
    }
  }
  return false;
}

// Lanes per group. When the lanes of `reduction`'s result dimension `dim`
// are adjacent in its operand's memory (a column sum), four 64-byte lines
// of them (a 4096-row f32 column sum: 10 ms with two lines, 8 with four);
// otherwise each lane is a stream of its own, and one line's worth keeps
// them few (a row sum: 6 ms with 16 lanes, 8 with 32).
int64_t LaneWidth(const HloInstruction* reduction, const Shape& out,
                  int64_t dim) {
  const int64_t bytes = std::max<int64_t>(BitWidth(out.element_type()) / 8, 1);
  // A dot's lanes are independent sums, a 64-byte line of them.
  if (reduction->opcode() == HloOpcode::kDot) {
    return std::clamp<int64_t>(64 / bytes, 8, 64);
  }
  const Shape& in = reduction->operand(0)->shape();
  int64_t in_dim = dim;
  if (reduction->opcode() == HloOpcode::kReduce) {
    std::vector<int64_t> kept;
    for (int64_t d = 0; d < in.rank(); ++d) {
      if (std::find(reduction->dimensions().begin(),
                    reduction->dimensions().end(),
                    d) == reduction->dimensions().end()) {
        kept.push_back(d);
      }
    }
    in_dim = kept[dim];
  }
  const bool adjacent = codegen::MajorToMinor(in).back() == in_dim;
  return std::clamp<int64_t>((adjacent ? 256 : 64) / bytes, 8, 64);
}

// How one group of leaves (of one shape) is walked: row by row when the
// result is a column reduction, in joint lanes when a result is another
// reduction, else in tiles or in the result's layout order.
struct Walk {
  std::optional<ColumnReduction> columns;
  const HloInstruction* reduction = nullptr;
  int64_t width = 0;
  std::optional<codegen::Tiling> tiling;
  // Operands of a tiled walk copied tile by tile, and their arrays.
  std::vector<StagedOperand> staged;
  std::vector<IrArray> sources;

  // The iterations of the walk's split loop.
  int64_t SplitTripCount(const Shape& shape) const {
    if (columns) return columns->SplitTripCount();
    if (reduction != nullptr) return codegen::LaneSplitTripCount(shape, width);
    if (tiling) return codegen::TiledSplitTripCount(shape, *tiling);
    return codegen::SplitTripCount(shape);
  }
};

Walk WalkFor(const HloInstruction* hlo, const HloInstruction* root,
             const std::vector<int64_t>& leaves, const Shape& shape) {
  Walk walk;
  if (leaves.size() == 1 && leaves[0] < 0) {
    walk.columns = MatchColumnReduction(hlo, root, MaxTasks(hlo));
    if (walk.columns) return walk;
  }
  const HloInstruction* reduction = LaneReduction(root, leaves, shape);
  const int64_t lane_dim = codegen::LaneDimension(shape);
  if (reduction != nullptr && lane_dim >= 0 &&
      codegen::StripWidth(reduction) == 0 &&
      (reduction->opcode() != HloOpcode::kDot ||
       DotLanesAreContiguous(reduction, lane_dim))) {
    walk.reduction = reduction;
    walk.width = LaneWidth(reduction, shape, lane_dim);
    return walk;
  }
  std::vector<const HloInstruction*> values;
  for (int64_t l : leaves) {
    values.push_back(l < 0                                 ? root
                     : root->opcode() == HloOpcode::kTuple ? root->operand(l)
                                                           : nullptr);
  }
  if (std::find(values.begin(), values.end(), nullptr) == values.end()) {
    walk.tiling = ChooseTiling(hlo, values, shape);
    if (walk.tiling)
      walk.staged = PlanStaging(hlo, values, *walk.tiling, shape);
    if (!walk.staged.empty()) WidenForStaging(*walk.tiling, shape);
  }
  return walk;
}

// Writes leaves `leaves` (-1: an array-shaped root) of `root` to `outs`
// (arrays of one shape) as `walk` says; with `range`, only that part.
absl::Status WriteLeaves(llvm::IRBuilderBase& b, ElementalEmitter& emitter,
                         const HloInstruction* root,
                         const std::vector<int64_t>& leaves,
                         const std::vector<IrArray>& outs, const Walk& walk,
                         const codegen::SplitRange* range) {
  const Shape& shape = outs[0].shape();
  if (walk.columns) {
    return EmitColumnReduction(b, emitter, *walk.columns, outs[0], range);
  }
  if (walk.reduction != nullptr) {
    return codegen::EmitLaneLoopNest(
        b, shape, walk.width,
        [&](absl::Span<const Index> lanes, int64_t dim) -> absl::Status {
          ElementalEmitter::Scope scope(emitter);
          for (size_t l = 0; l < leaves.size(); ++l) {
            absl::StatusOr<std::vector<llvm::Value*>> v =
                emitter.ValuesAt(root, leaves[l], lanes, dim);
            if (!v.ok()) return v.status();
            for (size_t k = 0; k < lanes.size(); ++k) {
              outs[l].EmitWrite(b, lanes[k], (*v)[k]);
            }
          }
          return absl::OkStatus();
        },
        range);
  }
  auto element = [&](const Index& index) {
    ElementalEmitter::Scope scope(emitter);
    for (size_t l = 0; l < leaves.size(); ++l) {
      absl::StatusOr<llvm::Value*> v = emitter.ValueAt(root, leaves[l], index);
      if (!v.ok()) return v.status();
      outs[l].EmitWrite(b, index, *v);
    }
    return absl::OkStatus();
  };
  if (walk.tiling && walk.staged.empty()) {
    return codegen::EmitTiledLoopNest(b, shape, *walk.tiling, element, range);
  }
  if (walk.tiling) {
    const codegen::TileHook hook =
        StagingHook(b, emitter, walk.staged, walk.sources, *walk.tiling);
    absl::Status status = codegen::EmitTiledLoopNest(b, shape, *walk.tiling,
                                                     element, range, &hook);
    for (size_t i = 0; i < walk.staged.size(); ++i) {
      emitter.BindArray(walk.staged[i].parameter, -1, walk.sources[i]);
    }
    return status;
  }
  return codegen::EmitLoopNest(b, shape, element, nullptr, range);
}

// The leaves of `hlo`'s result, grouped by dimensions: one loop nest per
// group ({-1} for an array result).
absl::StatusOr<std::vector<std::vector<int64_t>>> LeafGroups(
    const HloInstruction* hlo) {
  if (!hlo->shape().IsTuple()) return std::vector<std::vector<int64_t>>{{-1}};
  std::map<std::vector<int64_t>, std::vector<int64_t>> groups;
  for (int64_t l = 0; l < hlo->shape().tuple_shapes_size(); ++l) {
    const Shape& leaf = hlo->shape().tuple_shapes(l);
    if (!leaf.IsArray()) {
      return codegen::Unsupported(hlo, "nested tuple results");
    }
    groups[{leaf.dimensions().begin(), leaf.dimensions().end()}].push_back(l);
  }
  std::vector<std::vector<int64_t>> result;
  for (auto& [dims, leaves] : groups) result.push_back(std::move(leaves));
  return result;
}

const Shape& LeafShape(const HloInstruction* hlo, int64_t leaf) {
  return leaf < 0 ? hlo->shape() : hlo->shape().tuple_shapes(leaf);
}

bool OverlapsOperand(EmitterContext& ctx, const HloInstruction* hlo);

// The arrays of the operands `walk` stages (tile_staging.h); none staged
// when a result shares memory with an operand (the tiles keep WalkFor's
// sizes, so the split loop's trip count is unchanged).
absl::Status PlanStagedOperands(EmitterContext& ctx, llvm::IRBuilderBase& b,
                                const HloInstruction* hlo, Walk& walk) {
  if (walk.staged.empty()) return absl::OkStatus();
  if (OverlapsOperand(ctx, hlo)) {
    walk.staged.clear();
    return absl::OkStatus();
  }
  for (const StagedOperand& s : walk.staged) {
    absl::StatusOr<IrArray> array = ctx.ArrayFor(b, hlo->operand(s.operand));
    if (!array.ok()) return array.status();
    walk.sources.push_back(*array);
  }
  return absl::OkStatus();
}

// Writes every group of leaves, in the current kernel (part); with
// `streaming`, the one array result through streaming stores.
absl::Status WriteGroups(EmitterContext& ctx, llvm::IRBuilderBase& b,
                         ElementalEmitter& emitter, const HloInstruction* hlo,
                         const std::vector<std::vector<int64_t>>& groups,
                         const codegen::SplitRange* range, bool streaming) {
  const HloInstruction* root = Root(hlo);
  for (const std::vector<int64_t>& leaves : groups) {
    std::vector<IrArray> outs;
    for (int64_t l : leaves) {
      absl::StatusOr<IrArray> out =
          l < 0 ? ctx.ArrayFor(b, hlo) : ctx.ArrayFor(b, hlo, {l});
      if (!out.ok()) return out.status();
      if (streaming) AssumeStreamingAlignment(b, *out);
      outs.push_back(*out);
    }
    Walk walk = WalkFor(hlo, root, leaves, LeafShape(hlo, leaves[0]));
    if (absl::Status s = PlanStagedOperands(ctx, b, hlo, walk); !s.ok()) {
      return s;
    }
    absl::Status status =
        WriteLeaves(b, emitter, root, leaves, outs, walk, range);
    if (!status.ok()) return status;
  }
  if (streaming) EmitStreamingFence(b);
  return absl::OkStatus();
}

// The slices of every array leaf of `hlo`'s result.
absl::StatusOr<std::vector<runtime::Slice>> LeafSlices(
    EmitterContext& ctx, const HloInstruction* hlo) {
  std::vector<runtime::Slice> slices;
  const Shape& shape = hlo->shape();
  const int64_t n = shape.IsTuple() ? shape.tuple_shapes_size() : 1;
  for (int64_t l = 0; l < n; ++l) {
    const Shape& leaf = shape.IsTuple() ? shape.tuple_shapes(l) : shape;
    if (!leaf.IsArray()) continue;
    absl::StatusOr<runtime::Slice> slice =
        shape.IsTuple() ? ctx.assignment().GetSlice(hlo, {l})
                        : ctx.assignment().GetSlice(hlo, {});
    if (!slice.ok()) return slice.status();
    slices.push_back(*slice);
  }
  return slices;
}

bool SameArrayShape(const Shape& a, const Shape& b) {
  return a.IsArray() && b.IsArray() && a.dimensions() == b.dimensions() &&
         codegen::MajorToMinor(a) == codegen::MajorToMinor(b);
}

// True when each element of `hlo`'s (array) result reads operand `i` at
// that element alone: through elementwise operations of the result's
// dimensions and layout only. Then a result in the operand's own buffer
// may be written in any order, by any number of tasks.
bool ReadsOperandInPlace(const HloInstruction* hlo, int64_t i) {
  const Shape& out = hlo->shape();
  auto elementwise = [&](const HloInstruction* x) {
    const OpcodeFamily family = HloOpcodeFamily(x->opcode());
    return (family == OpcodeFamily::kElementwise ||
            family == OpcodeFamily::kConversion) &&
           SameArrayShape(x->shape(), out);
  };
  if (!SameArrayShape(hlo->operand(i)->shape(), out)) return false;
  if (hlo->opcode() != HloOpcode::kFusion) return elementwise(hlo);
  const HloComputation* body = hlo->fused_computation();
  if (i >= static_cast<int64_t>(body->parameter_instructions().size())) {
    return true;  // never read
  }
  std::vector<const HloInstruction*> work = {body->parameter_instruction(i)};
  std::set<const HloInstruction*> seen(work.begin(), work.end());
  while (!work.empty()) {
    const HloInstruction* x = work.back();
    work.pop_back();
    for (const HloInstruction* user : x->users()) {
      if (!elementwise(user)) return false;
      if (seen.insert(user).second) work.push_back(user);
    }
  }
  return true;
}

// True when a result of `hlo` shares memory with an operand (or either's
// memory is not known) other than in place, element for element
// (ReadsOperandInPlace): then only the one-task walk is known to be safe.
bool OverlapsOperand(EmitterContext& ctx, const HloInstruction* hlo) {
  absl::StatusOr<std::vector<runtime::Slice>> outs = LeafSlices(ctx, hlo);
  if (!outs.ok()) return true;
  for (int64_t k = 0; k < hlo->operand_count(); ++k) {
    absl::StatusOr<std::vector<runtime::Slice>> ins =
        LeafSlices(ctx, hlo->operand(k));
    if (!ins.ok()) return true;
    for (const runtime::Slice& o : *outs) {
      for (const runtime::Slice& i : *ins) {
        if (o.allocation != i.allocation || o.offset >= i.offset + i.size ||
            i.offset >= o.offset + o.size) {
          continue;
        }
        if (o == i && !hlo->shape().IsTuple() && ReadsOperandInPlace(hlo, k)) {
          continue;
        }
        return true;
      }
    }
  }
  return false;
}

// The iterations to split `hlo`'s kernel over, and into how many tasks at
// most; 1 task: not split.
std::pair<int64_t, int64_t> SplitOf(
    EmitterContext& ctx, const HloInstruction* hlo,
    const std::vector<std::vector<int64_t>>& groups) {
  const std::pair<int64_t, int64_t> whole = {1, 1};
  if (groups.size() != 1) return whole;
  const int64_t max_tasks = MaxTasks(hlo);
  if (max_tasks <= 1) return whole;
  if (OverlapsOperand(ctx, hlo)) return whole;
  const Shape& shape = LeafShape(hlo, groups[0][0]);
  const int64_t trip =
      WalkFor(hlo, Root(hlo), groups[0], shape).SplitTripCount(shape);
  if (trip <= 1) return whole;
  return std::pair<int64_t, int64_t>{trip, std::min(trip, max_tasks)};
}

llvm::Function* NewCode(EmitterContext& ctx, llvm::IRBuilderBase& b,
                        const std::string& name, bool split) {
  return split ? ctx.NewKernelPart(b, name + ".part") : ctx.NewKernel(b, name);
}

// One version of EmitKernelCode's function: with `streaming`, the one
// that assumes an aligned result and streams it.
absl::StatusOr<llvm::Function*> EmitKernelVersion(
    EmitterContext& ctx, llvm::IRBuilderBase& b, const HloInstruction* hlo,
    const std::vector<std::vector<int64_t>>& groups, bool split,
    bool streaming) {
  llvm::Function* code =
      NewCode(ctx, b, hlo->name() + (streaming ? ".streaming" : ""), split);
  if (streaming) MarkStreamingVersion(*code);
  ElementalEmitter emitter(b, ctx.llvm_module());
  if (absl::Status s = BindOperands(ctx, b, emitter, hlo); !s.ok()) return s;
  codegen::SplitRange range{nullptr, nullptr};
  if (split) range = {code->getArg(2), code->getArg(3)};
  if (split && streaming) {
    const Walk walk = WalkFor(hlo, Root(hlo), groups[0], hlo->shape());
    range = AlignStreamingRange(b, range, hlo->shape(), walk.tiling);
  }
  absl::Status status = WriteGroups(ctx, b, emitter, hlo, groups,
                                    split ? &range : nullptr, streaming);
  if (!status.ok()) return status;
  b.CreateRetVoid();
  return code;
}

// True when `hlo`'s result streams (streaming_stores.h): one array,
// written in layout order or in tiles, not a reduction's lanes.
bool StreamsKernelResult(const HloInstruction* hlo,
                         const std::vector<std::vector<int64_t>>& groups) {
  if (groups.size() != 1 || groups[0] != std::vector<int64_t>{-1}) {
    return false;
  }
  const Walk walk = WalkFor(hlo, Root(hlo), groups[0], hlo->shape());
  if (walk.columns || walk.reduction != nullptr) return false;
  return StreamsResult(hlo->shape(), walk.tiling);
}

// Emits the part of `hlo`'s kernel that runs [begin, end) of its split
// loop (or, `split` false, the whole kernel); the builder is left in it.
// With `may_stream` and a result that streams, that is a dispatcher over
// a streaming and a plain version.
absl::StatusOr<llvm::Function*> EmitKernelCode(
    EmitterContext& ctx, llvm::IRBuilderBase& b, const HloInstruction* hlo,
    const std::vector<std::vector<int64_t>>& groups, bool split,
    bool may_stream) {
  if (!may_stream || !StreamsKernelResult(hlo, groups)) {
    return EmitKernelVersion(ctx, b, hlo, groups, split, false);
  }
  absl::StatusOr<llvm::Function*> streaming =
      EmitKernelVersion(ctx, b, hlo, groups, split, true);
  if (!streaming.ok()) return streaming.status();
  absl::StatusOr<llvm::Function*> plain =
      EmitKernelVersion(ctx, b, hlo, groups, split, false);
  if (!plain.ok()) return plain.status();
  llvm::Function* dispatcher =
      NewCode(ctx, b, hlo->name() + ".dispatch", split);
  absl::StatusOr<IrArray> out = ctx.ArrayFor(b, hlo);
  if (!out.ok()) return out.status();
  EmitAlignmentDispatch(b, dispatcher, out->base(), *streaming, *plain);
  return dispatcher;
}

}  // namespace

std::optional<RowSplit> ElementalRowSplit(EmitterContext& ctx,
                                          const HloInstruction* hlo) {
  const Shape& shape = hlo->shape();
  if (!shape.IsArray() || shape.ElementCount() == 0) return std::nullopt;
  absl::StatusOr<bool> in_place = UpdatesInPlace(ctx, hlo);
  if (!in_place.ok() || *in_place || OverlapsOperand(ctx, hlo)) {
    return std::nullopt;
  }
  RowSplit split;
  split.row_dim = -1;
  for (int64_t d : codegen::MajorToMinor(shape)) {
    if (shape.dimensions(d) > 1) {
      split.row_dim = d;
      break;
    }
  }
  if (split.row_dim < 0) return std::nullopt;
  split.rows = shape.dimensions(split.row_dim);
  const Walk walk = WalkFor(hlo, Root(hlo), {-1}, shape);
  if (walk.columns || walk.tiling) return std::nullopt;
  if (walk.reduction != nullptr &&
      codegen::LaneDimension(shape) == split.row_dim) {
    split.rows_per_iteration = walk.width;
  }
  split.trip = walk.SplitTripCount(shape);
  const int64_t per = split.rows_per_iteration;
  if (split.trip != (split.rows + per - 1) / per) return std::nullopt;
  split.max_tasks = MaxTasks(hlo);
  return split;
}

absl::StatusOr<llvm::Function*> EmitElementalKernelPart(
    EmitterContext& ctx, llvm::IRBuilderBase& b, const HloInstruction* hlo,
    bool may_stream) {
  llvm::BasicBlock* caller = b.GetInsertBlock();
  absl::StatusOr<llvm::Function*> part =
      EmitKernelCode(ctx, b, hlo, {{-1}}, /*split=*/true, may_stream);
  b.SetInsertPoint(caller);
  return part;
}

absl::Status EmitElementalKernel(EmitterContext& ctx, llvm::IRBuilderBase& b,
                                 const HloInstruction* hlo) {
  llvm::BasicBlock* caller = b.GetInsertBlock();
  absl::StatusOr<bool> in_place = UpdatesInPlace(ctx, hlo);
  if (!in_place.ok()) return in_place.status();
  if (*in_place) {
    llvm::Function* kernel = ctx.NewKernel(b, hlo->name());
    ElementalEmitter emitter(b, ctx.llvm_module());
    if (absl::Status s = BindOperands(ctx, b, emitter, hlo); !s.ok()) return s;
    absl::StatusOr<IrArray> out = ctx.ArrayFor(b, hlo);
    if (!out.ok()) return out.status();
    absl::Status status = EmitInPlaceUpdate(b, emitter, Root(hlo), *out);
    if (!status.ok()) return status;
    b.CreateRetVoid();
    b.SetInsertPoint(caller);
    ctx.CallKernel(b, kernel);
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<std::vector<int64_t>>> groups = LeafGroups(hlo);
  if (!groups.ok()) return groups.status();
  const auto [trip, max_tasks] = SplitOf(ctx, hlo, *groups);
  absl::StatusOr<llvm::Function*> code =
      EmitKernelCode(ctx, b, hlo, *groups, max_tasks > 1, /*may_stream=*/true);
  if (!code.ok()) return code.status();
  llvm::Function* kernel = *code;
  if (max_tasks > 1) {
    kernel = ctx.NewKernel(b, hlo->name());
    ctx.CallKernelParts(b, *code, trip, max_tasks);
    b.CreateRetVoid();
  }
  b.SetInsertPoint(caller);
  ctx.CallKernel(b, kernel);
  return absl::OkStatus();
}

}  // namespace xlite::cpu
