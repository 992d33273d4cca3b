// Elemental ragged-dot(lhs, rhs, group_sizes): the rows of lhs's ragged
// dimension fall into consecutive groups (group g holds the next
// max(0, group_sizes[g]) rows); an output element of a row in group g is
// the dot of that lhs row with slice g of rhs's group dimension (with no
// group dimension, a ragged batch dimension: rhs as it is). Rows past the
// groups, or in a group rhs has no slice for, are zero. Each element is
// one sum of products over the contracting dimensions, accumulated as the
// dot's (contraction_arithmetic.h). A ragged contracting dimension is
// refused, as the evaluator refuses it.

#include <algorithm>

#include "codegen/contraction_arithmetic.h"
#include "codegen/elemental.h"
#include "codegen/loops.h"
#include "codegen/scalar_ops.h"
#include "llvm/IR/Function.h"

namespace xlite::codegen {

namespace {

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// The dimensions of a rank-`rank` operand that are none of `skip`.
std::vector<int64_t> Others(
    int64_t rank, std::initializer_list<const std::vector<int64_t>*> skip) {
  std::vector<int64_t> out;
  for (int64_t d = 0; d < rank; ++d) {
    bool skipped = false;
    for (const std::vector<int64_t>* s : skip) skipped |= Contains(*s, d);
    if (!skipped) out.push_back(d);
  }
  return out;
}

}  // namespace

absl::StatusOr<Generator> ElementalEmitter::RaggedDot(
    const HloInstruction* hlo) {
  const DotAttributes& a = *hlo->attrs().dot;
  const DotDimensionNumbers& d = a.dnums;
  if (a.lhs_ragged_dims.size() != 1 || a.rhs_group_dims.size() > 1 ||
      Contains(d.lhs_contracting_dimensions, a.lhs_ragged_dims[0])) {
    return Unsupported(hlo,
                       "ragged-dot needs one ragged lhs dimension that is "
                       "not contracting, and at most one rhs group dimension");
  }
  const HloInstruction* lhs = hlo->operand(0);
  const HloInstruction* rhs = hlo->operand(1);
  const HloInstruction* sizes = hlo->operand(2);
  const int64_t ragged = a.lhs_ragged_dims[0];
  const std::vector<int64_t> group_dims = a.rhs_group_dims;
  const std::vector<int64_t> lfree =
      Others(lhs->shape().rank(),
             {&d.lhs_batch_dimensions, &d.lhs_contracting_dimensions});
  const std::vector<int64_t> rfree = Others(
      rhs->shape().rank(),
      {&d.rhs_batch_dimensions, &d.rhs_contracting_dimensions, &group_dims});
  // Where the ragged dimension's index sits in the output.
  int64_t ragged_out = 0;
  if (Contains(d.lhs_batch_dimensions, ragged)) {
    ragged_out = std::find(d.lhs_batch_dimensions.begin(),
                           d.lhs_batch_dimensions.end(), ragged) -
                 d.lhs_batch_dimensions.begin();
  } else {
    ragged_out =
        d.lhs_batch_dimensions.size() +
        (std::find(lfree.begin(), lfree.end(), ragged) - lfree.begin());
  }
  const int64_t groups = sizes->shape().ElementCount();
  const int64_t slices =
      group_dims.empty() ? groups : rhs->shape().dimensions(group_dims[0]);
  return [=, this](const Index& index) -> absl::StatusOr<llvm::Value*> {
    const PrimitiveType lt = lhs->shape().element_type();
    const PrimitiveType rt = rhs->shape().element_type();
    const PrimitiveType out_type = hlo->shape().element_type();
    const PrimitiveType acc_type =
        ContractionAccumulationType(lt, rt, out_type);
    llvm::Type* i64 = b_.getInt64Ty();
    // The row's group: the first whose cumulative end passes the row.
    llvm::Value* row = index[ragged_out];
    llvm::AllocaInst* end = EntryAlloca(b_, i64);
    llvm::AllocaInst* group = EntryAlloca(b_, i64);
    b_.CreateStore(b_.getInt64(0), end);
    b_.CreateStore(b_.getInt64(-1), group);
    const Shape& ss = sizes->shape();
    absl::Status found = EmitForLoop(
        b_, b_.getInt64(0), b_.getInt64(groups), "group",
        [&](llvm::Value* g) -> absl::Status {
          Scope scope(*this);
          // The row-major multi-index of group g in group_sizes.
          Index at(ss.rank(), nullptr);
          llvm::Value* rest = g;
          for (int64_t k = ss.rank() - 1; k >= 0; --k) {
            const int64_t n = std::max<int64_t>(ss.dimensions(k), 1);
            at[k] = b_.CreateURem(rest, b_.getInt64(n));
            rest = b_.CreateUDiv(rest, b_.getInt64(n));
          }
          absl::StatusOr<llvm::Value*> size = ValueAt(sizes, -1, at);
          if (!size.ok()) return size.status();
          llvm::Value* n = IndexToInt64(b_, ss.element_type(), *size);
          n = b_.CreateSelect(b_.CreateICmpSGT(n, b_.getInt64(0)), n,
                              b_.getInt64(0));
          llvm::Value* next = b_.CreateAdd(b_.CreateLoad(i64, end), n);
          b_.CreateStore(next, end);
          llvm::Value* unset =
              b_.CreateICmpSLT(b_.CreateLoad(i64, group), b_.getInt64(0));
          llvm::Value* here = b_.CreateAnd(unset, b_.CreateICmpSLT(row, next));
          b_.CreateStore(b_.CreateSelect(here, g, b_.CreateLoad(i64, group)),
                         group);
          return absl::OkStatus();
        });
    if (!found.ok()) return found;
    llvm::Value* g = b_.CreateLoad(i64, group);
    llvm::Value* valid = b_.CreateAnd(b_.CreateICmpSGE(g, b_.getInt64(0)),
                                      b_.CreateICmpSLT(g, b_.getInt64(slices)));
    llvm::Type* acc_llvm = ValueType(acc_type, b_.getContext());
    llvm::AllocaInst* acc = EntryAlloca(b_, acc_llvm);
    b_.CreateStore(llvm::Constant::getNullValue(acc_llvm), acc);
    llvm::Function* fn = b_.GetInsertBlock()->getParent();
    auto* sum = llvm::BasicBlock::Create(b_.getContext(), "ragged.sum", fn);
    auto* done = llvm::BasicBlock::Create(b_.getContext(), "ragged.done", fn);
    b_.CreateCondBr(valid, sum, done);
    b_.SetInsertPoint(sum);
    {
      Scope scope(*this);
      Index li(lhs->shape().rank(), nullptr), ri(rhs->shape().rank(), nullptr);
      size_t o = 0;
      for (size_t k = 0; k < d.lhs_batch_dimensions.size(); ++k, ++o) {
        li[d.lhs_batch_dimensions[k]] = index[o];
        ri[d.rhs_batch_dimensions[k]] = index[o];
      }
      for (int64_t dim : lfree) li[dim] = index[o++];
      for (int64_t dim : rfree) ri[dim] = index[o++];
      if (!group_dims.empty()) ri[group_dims[0]] = g;
      std::vector<int64_t> bounds;
      for (int64_t dim : d.lhs_contracting_dimensions) {
        bounds.push_back(lhs->shape().dimensions(dim));
      }
      absl::Status s = EmitLoopNestOverBounds(
          b_, bounds, [&](const Index& c) -> absl::Status {
            Scope inner(*this);
            for (size_t k = 0; k < c.size(); ++k) {
              li[d.lhs_contracting_dimensions[k]] = c[k];
              ri[d.rhs_contracting_dimensions[k]] = c[k];
            }
            absl::StatusOr<llvm::Value*> x = ValueAt(lhs, -1, li);
            if (!x.ok()) return x.status();
            absl::StatusOr<llvm::Value*> y = ValueAt(rhs, -1, ri);
            if (!y.ok()) return y.status();
            absl::StatusOr<llvm::Value*> xc = EmitConvert(b_, lt, acc_type, *x);
            if (!xc.ok()) return xc.status();
            absl::StatusOr<llvm::Value*> yc = EmitConvert(b_, rt, acc_type, *y);
            if (!yc.ok()) return yc.status();
            b_.CreateStore(
                EmitMultiplyAccumulate(b_, acc_type,
                                       b_.CreateLoad(acc_llvm, acc), *xc, *yc),
                acc);
            return absl::OkStatus();
          });
      if (!s.ok()) return s;
    }
    b_.CreateBr(done);
    b_.SetInsertPoint(done);
    return EmitRoundAccumulated(b_, acc_type, lt, rt, out_type,
                                b_.CreateLoad(acc_llvm, acc));
  };
}

}  // namespace xlite::codegen
