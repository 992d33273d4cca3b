#include "cpu_backend/column_reduction.h"

#include <algorithm>
#include <set>
#include <string>
#include <thread>

#include "codegen/scalar_ops.h"
#include "hlo/ir/opcode.h"
#include "hlo/ir/primitive_type.h"
#include "llvm/IR/Function.h"

namespace xlite::cpu {

namespace {

using codegen::Index;
using codegen::IrArray;

// Running values of one row of a block of columns wider than this many
// bytes no longer sit in the first-level cache beside the rows streaming
// through (a 4096 x 4096 f32 column sum: 1.8 ms with 4 KiB, 1.6 with 8).
constexpr int64_t kBlockBytes = 8192;
// Fewer columns than a cache line's worth are better walked in lanes.
constexpr int64_t kMinRowBytes = 64;
// Blocks are narrowed to give every core one, but not below this: a
// narrower row is a short burst the prefetchers hardly follow (the same
// sum: 2.5 ms in 1 KiB blocks, 1.6 in 8 KiB ones).
constexpr int64_t kMinBlockBytes = 1024;

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// Whether reduce-window `rw` folds non-overlapping windows along `row_dim`
// and nothing along any other dimension.
bool TilesRowsOnly(const HloInstruction* rw, int64_t row_dim) {
  if (!rw->attrs().window.has_value()) return false;
  const std::vector<WindowDimension>& dims = rw->attrs().window->dimensions;
  if (static_cast<int64_t>(dims.size()) != rw->shape().rank()) return false;
  for (int64_t d = 0; d < static_cast<int64_t>(dims.size()); ++d) {
    const WindowDimension& wd = dims[d];
    if (std::max<int64_t>(wd.window_dilation, 1) != 1 ||
        std::max<int64_t>(wd.base_dilation, 1) != 1 || wd.window_reversal) {
      return false;
    }
    const int64_t stride = std::max<int64_t>(wd.stride, 1);
    if (d == row_dim) {
      if (wd.size < 1 || stride != wd.size || wd.padding_low < 0 ||
          wd.padding_high < 0) {
        return false;
      }
    } else if (wd.size != 1 || stride != 1 || wd.padding_low != 0 ||
               wd.padding_high != 0) {
      return false;
    }
  }
  return true;
}

// The reduced dimension of `source` longer than 1, when there is exactly
// one; else -1.
int64_t RowDimension(const HloInstruction* reduce, const Shape& source) {
  int64_t row_dim = -1;
  for (int64_t d : reduce->dimensions()) {
    if (source.dimensions(d) <= 1) continue;
    if (row_dim >= 0) return -1;
    row_dim = d;
  }
  return row_dim;
}

// The positions (i64) of `linear` in dimensions `sizes`, most major first.
std::vector<llvm::Value*> Delinearize(llvm::IRBuilderBase& b,
                                      llvm::Value* linear,
                                      const std::vector<int64_t>& sizes) {
  std::vector<llvm::Value*> at(sizes.size(), b.getInt64(0));
  int64_t nontrivial = 0;
  for (int64_t s : sizes) nontrivial += s > 1;
  for (int64_t i = static_cast<int64_t>(sizes.size()) - 1; i >= 0; --i) {
    if (sizes[i] <= 1) continue;
    if (nontrivial-- == 1) {
      at[i] = linear;  // the most major one left takes the rest
      break;
    }
    at[i] = b.CreateURem(linear, b.getInt64(sizes[i]));
    linear = b.CreateUDiv(linear, b.getInt64(sizes[i]));
  }
  return at;
}

// Emits the walk of one plan; its members are the state shared by the
// levels of the recursion.
class RowWalk {
 public:
  RowWalk(llvm::IRBuilderBase& b, codegen::ElementalEmitter& emitter,
          const ColumnReduction& plan)
      : b_(b), e_(emitter), plan_(plan) {}

  absl::Status Emit(const IrArray& out, const codegen::SplitRange* range) {
    const int64_t k = static_cast<int64_t>(plan_.levels.size());
    type_ = codegen::ValueType(plan_.reduce->shape().element_type(),
                               b_.getContext());
    row_type_ = llvm::ArrayType::get(type_, plan_.block);
    // Stage s < k: levels[s]; stage k: the reduce.
    for (int64_t s = 0; s <= k; ++s) {
      const HloInstruction* stage = s < k ? plan_.levels[s] : plan_.reduce;
      absl::StatusOr<llvm::Value*> init = e_.ValueAt(stage->operand(1), -1, {});
      if (!init.ok()) return init.status();
      inits_.push_back(*init);
      accs_.push_back(codegen::EntryAlloca(b_, row_type_));
      accs_.back()->setAlignment(llvm::Align(64));  // whole vectors
    }
    return codegen::EmitSplittableLoop(
        b_, plan_.SplitTripCount(), range, "col.blocks",
        [&](llvm::Value* t) -> absl::Status {
          codegen::ElementalEmitter::Scope scope(e_);
          llvm::Value* blocks = b_.getInt64(plan_.blocks);
          std::vector<int64_t> outer_sizes;
          for (int64_t d : plan_.outer) {
            outer_sizes.push_back(plan_.source->shape().dimensions(d));
          }
          outer_at_ = Delinearize(b_, b_.CreateUDiv(t, blocks), outer_sizes);
          first_ =
              b_.CreateMul(b_.CreateURem(t, blocks), b_.getInt64(plan_.block));
          width_ = b_.CreateBinaryIntrinsic(
              llvm::Intrinsic::smin, b_.getInt64(plan_.block),
              b_.CreateSub(b_.getInt64(plan_.columns), first_));
          if (absl::Status s = Fill(k); !s.ok()) return s;
          const int64_t rows =
              plan_.reduce->operand(0)->shape().dimensions(plan_.row_dim);
          absl::Status status = codegen::EmitForLoop(
              b_, b_.getInt64(0), b_.getInt64(rows), "col.rows",
              [&](llvm::Value* q) {
                codegen::ElementalEmitter::Scope rows_scope(e_);
                return FoldRow(k - 1, q, k, *plan_.reduce->to_apply());
              });
          if (!status.ok()) return status;
          return WriteOut(out, k);
        });
  }

 private:
  // Accumulator `s`'s column `c`.
  llvm::Value* Slot(int64_t s, llvm::Value* c) {
    return b_.CreateInBoundsGEP(row_type_, accs_[s], {b_.getInt64(0), c});
  }

  // for c in [0, width): body(c), in a memoization scope of its own.
  absl::Status Columns(const std::function<absl::Status(llvm::Value*)>& body) {
    return codegen::EmitForLoop(b_, b_.getInt64(0), width_, "col.c",
                                [&](llvm::Value* c) {
                                  codegen::ElementalEmitter::Scope scope(e_);
                                  return body(c);
                                });
  }

  absl::Status Fill(int64_t s) {
    return Columns([&](llvm::Value* c) {
      b_.CreateStore(inits_[s], Slot(s, c));
      return absl::OkStatus();
    });
  }

  // Folds row `q` of level `level`'s result (-1: of the source) into
  // accumulator `into` with `reducer`.
  absl::Status FoldRow(int64_t level, llvm::Value* q, int64_t into,
                       const HloComputation& reducer) {
    if (level < 0) {
      return Columns([&](llvm::Value* c) -> absl::Status {
        absl::StatusOr<llvm::Value*> v =
            e_.ValueAt(plan_.source, -1, SourceIndex(q, c));
        if (!v.ok()) return v.status();
        return Combine(into, c, reducer, *v);
      });
    }
    // The window of level `level` at row q, folded into its accumulator
    // from its init value; rows on the padding are skipped.
    const HloInstruction* rw = plan_.levels[level];
    const WindowDimension& wd = rw->attrs().window->dimensions[plan_.row_dim];
    const int64_t below = rw->operand(0)->shape().dimensions(plan_.row_dim);
    if (absl::Status s = Fill(level); !s.ok()) return s;
    llvm::Value* start = b_.CreateSub(b_.CreateMul(q, b_.getInt64(wd.size)),
                                      b_.getInt64(wd.padding_low));
    absl::Status status = codegen::EmitForLoop(
        b_, b_.getInt64(0), b_.getInt64(wd.size),
        "col.w" + std::to_string(level), [&](llvm::Value* w) -> absl::Status {
          codegen::ElementalEmitter::Scope scope(e_);
          llvm::Value* p = b_.CreateAdd(start, w);
          // Unsigned: a position before the start wraps past the end.
          llvm::Value* inside = b_.CreateICmpULT(p, b_.getInt64(below));
          llvm::Function* f = b_.GetInsertBlock()->getParent();
          auto* body = llvm::BasicBlock::Create(b_.getContext(), "col.in", f);
          auto* skip = llvm::BasicBlock::Create(b_.getContext(), "col.skip", f);
          b_.CreateCondBr(inside, body, skip);
          b_.SetInsertPoint(body);
          if (absl::Status s = FoldRow(level - 1, p, level, *rw->to_apply());
              !s.ok()) {
            return s;
          }
          b_.CreateBr(skip);
          b_.SetInsertPoint(skip);
          return absl::OkStatus();
        });
    if (!status.ok()) return status;
    return Columns([&](llvm::Value* c) {
      llvm::Value* v = b_.CreateLoad(type_, Slot(level, c));
      return Combine(into, c, reducer, v);
    });
  }

  absl::Status Combine(int64_t into, llvm::Value* c,
                       const HloComputation& reducer, llvm::Value* v) {
    llvm::Value* slot = Slot(into, c);
    llvm::Value* acc = b_.CreateLoad(type_, slot);
    absl::StatusOr<std::vector<llvm::Value*>> next =
        e_.EmitApplied(reducer, {acc, v});
    if (!next.ok()) return next.status();
    b_.CreateStore((*next)[0], slot);
    return absl::OkStatus();
  }

  // The source's index at row q, column first + c.
  Index SourceIndex(llvm::Value* q, llvm::Value* c) {
    const Shape& in = plan_.source->shape();
    Index full(in.rank(), b_.getInt64(0));
    for (size_t i = 0; i < plan_.outer.size(); ++i) {
      full[plan_.outer[i]] = outer_at_[i];
    }
    full[plan_.row_dim] = q;
    std::vector<int64_t> inner_sizes;
    for (int64_t d : plan_.inner) inner_sizes.push_back(in.dimensions(d));
    const std::vector<llvm::Value*> inner =
        Delinearize(b_, b_.CreateAdd(first_, c), inner_sizes);
    for (size_t i = 0; i < plan_.inner.size(); ++i) {
      full[plan_.inner[i]] = inner[i];
    }
    return full;
  }

  absl::Status WriteOut(const IrArray& out, int64_t k) {
    const std::vector<int64_t> reduced(plan_.reduce->dimensions().begin(),
                                       plan_.reduce->dimensions().end());
    return Columns([&](llvm::Value* c) {
      const Index full = SourceIndex(b_.getInt64(0), c);
      Index at;
      for (int64_t d = 0; d < static_cast<int64_t>(full.size()); ++d) {
        if (!Contains(reduced, d)) at.push_back(full[d]);
      }
      llvm::Value* v = b_.CreateLoad(type_, Slot(k, c));
      if (plan_.root != plan_.reduce) {
        e_.Provide(plan_.reduce, -1, at, v);
        absl::StatusOr<llvm::Value*> result = e_.ValueAt(plan_.root, -1, at);
        if (!result.ok()) return result.status();
        v = *result;
      }
      out.EmitWrite(b_, at, v);
      return absl::OkStatus();
    });
  }

  llvm::IRBuilderBase& b_;
  codegen::ElementalEmitter& e_;
  const ColumnReduction& plan_;
  llvm::Type* type_ = nullptr;
  llvm::ArrayType* row_type_ = nullptr;
  std::vector<llvm::Value*> inits_;
  std::vector<llvm::AllocaInst*> accs_;
  // The current block: its outer position, first column and width.
  std::vector<llvm::Value*> outer_at_;
  llvm::Value* first_ = nullptr;
  llvm::Value* width_ = nullptr;
};

bool SameDimensions(const HloInstruction* a, const HloInstruction* b) {
  return a->shape().IsArray() && b->shape().IsArray() &&
         a->shape().dimensions() == b->shape().dimensions();
}

// The one reduce that `root` computes elementwise from (`root` itself
// when it is a reduce): every user of it lies on elementwise paths of
// `root`'s dimensions to `root`, so each result element reads it at its
// own position only. Null when there is no such reduce.
const HloInstruction* EpilogueReduce(const HloInstruction* root) {
  if (root->opcode() == HloOpcode::kReduce) return root;
  std::set<const HloInstruction*> epilogue;
  std::set<const HloInstruction*> reduces;
  std::vector<const HloInstruction*> work = {root};
  while (!work.empty()) {
    const HloInstruction* x = work.back();
    work.pop_back();
    if (!epilogue.insert(x).second) continue;
    for (const HloInstruction* o : x->operands()) {
      if (!SameDimensions(o, root)) continue;
      if (o->opcode() == HloOpcode::kReduce) {
        reduces.insert(o);
        continue;
      }
      const OpcodeFamily family = HloOpcodeFamily(o->opcode());
      if (family == OpcodeFamily::kElementwise ||
          family == OpcodeFamily::kConversion) {
        work.push_back(o);
      }
    }
  }
  if (reduces.size() != 1) return nullptr;
  const HloInstruction* reduce = *reduces.begin();
  for (const HloInstruction* user : reduce->users()) {
    if (!epilogue.contains(user)) return nullptr;
  }
  return reduce;
}

}  // namespace

std::optional<ColumnReduction> MatchColumnReduction(
    const HloInstruction* kernel, const HloInstruction* root,
    int64_t max_tasks) {
  if (!root->shape().IsArray()) return std::nullopt;
  const HloInstruction* reduce =
      kernel->opcode() == HloOpcode::kFusion
          ? EpilogueReduce(root)
          : (root->opcode() == HloOpcode::kReduce ? root : nullptr);
  if (reduce == nullptr || reduce->operand_count() != 2 ||
      !reduce->operand(0)->shape().IsArray()) {
    return std::nullopt;
  }
  ColumnReduction plan;
  plan.root = root;
  plan.reduce = reduce;
  root = reduce;
  const Shape& top = root->operand(0)->shape();
  if (top.ElementCount() == 0) return std::nullopt;
  plan.row_dim = RowDimension(root, top);
  if (plan.row_dim < 0) return std::nullopt;
  // Reduce-windows of the same fusion, tiling the rows alone.
  const HloInstruction* source = root->operand(0);
  while (kernel->opcode() == HloOpcode::kFusion &&
         source->opcode() == HloOpcode::kReduceWindow &&
         source->operand_count() == 2 && source->user_count() == 1 &&
         source->shape().IsArray() && TilesRowsOnly(source, plan.row_dim)) {
    plan.levels.insert(plan.levels.begin(), source);
    source = source->operand(0);
  }
  plan.source = source;
  const Shape& in = source->shape();
  if (in.ElementCount() == 0 || RowDimension(root, in) != plan.row_dim) {
    return std::nullopt;
  }
  const std::vector<int64_t> reduced(root->dimensions().begin(),
                                     root->dimensions().end());
  bool below = false;
  for (int64_t d : codegen::MajorToMinor(in)) {
    if (d == plan.row_dim) {
      below = true;
    } else if (!Contains(reduced, d)) {
      (below ? plan.inner : plan.outer).push_back(d);
      (below ? plan.columns : plan.outer_count) *= in.dimensions(d);
    }
  }
  const int64_t bytes =
      std::max<int64_t>(BitWidth(root->shape().element_type()) / 8, 1);
  if (plan.columns * bytes < kMinRowBytes) return std::nullopt;
  plan.block =
      std::min(plan.columns, std::max<int64_t>(kBlockBytes / bytes, 1));
  auto blocks = [&] { return (plan.columns + plan.block - 1) / plan.block; };
  // Narrower blocks until every core (of the compiling machine: a guess
  // that only costs speed when wrong) has one.
  const int64_t cores = std::max<int64_t>(
      1, std::min<int64_t>(max_tasks, std::thread::hardware_concurrency()));
  while (plan.outer_count * blocks() < cores &&
         plan.block * bytes >= 2 * kMinBlockBytes) {
    plan.block = (plan.block + 1) / 2;
  }
  plan.blocks = blocks();
  return plan;
}

absl::Status EmitColumnReduction(llvm::IRBuilderBase& b,
                                 codegen::ElementalEmitter& emitter,
                                 const ColumnReduction& plan,
                                 const codegen::IrArray& out,
                                 const codegen::SplitRange* range) {
  return RowWalk(b, emitter, plan).Emit(out, range);
}

}  // namespace xlite::cpu
