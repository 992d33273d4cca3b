// A dot as one xlite_cpu_matmul call: out[b] = lhs[b] (m x k) * rhs[b]
// (k x n), where b runs over the batch dimensions (in dimension-number
// order), m over lhs's free dimensions, k over the contracting dimensions
// (paired in dimension-number order) and n over rhs's free dimensions.
// Each operand is passed in place when its layout already stores it as
// [b][m][k] or, transposed, [b][k][m] (rhs likewise); a result stored
// [b][n][m] is computed as out^T = rhs^T lhs^T. Otherwise, when every
// array of the compute type holds its matrices at one row and one column
// stride and its batch at a few strides (strided_matrix.h), as in
// attention's batch dots, xlite_cpu_matmul_strided reads and writes them
// in place. Anything else, and operands of another type than the compute
// type (f16, bf16 widened to f32), goes through a dense scratch copy.

#include <algorithm>
#include <numeric>

#include "codegen/elemental.h"
#include "cpu_backend/contraction_calls.h"
#include "cpu_backend/contraction_strategy.h"
#include "cpu_backend/dense_arrays.h"
#include "cpu_backend/library_calls.h"
#include "cpu_backend/strided_matrix.h"
#include "hlo/ir/opcode.h"

namespace xlite::cpu {

using codegen::IrArray;

namespace {

std::vector<int64_t> Concat(std::initializer_list<std::vector<int64_t>> parts) {
  std::vector<int64_t> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

int64_t Product(const Shape& shape, const std::vector<int64_t>& dims) {
  int64_t p = 1;
  for (int64_t d : dims) p *= shape.dimensions(d);
  return p;
}

// `shape` transposed by `permutation` (result dimension i is operand
// dimension permutation[i]), over the same bytes.
Shape TransposedView(const Shape& shape,
                     const std::vector<int64_t>& permutation) {
  std::vector<int64_t> dims, inverse(permutation.size());
  for (size_t i = 0; i < permutation.size(); ++i) {
    dims.push_back(shape.dimensions(permutation[i]));
    inverse[permutation[i]] = i;
  }
  std::vector<int64_t> major_to_minor;
  for (int64_t d : codegen::MajorToMinor(shape)) {
    major_to_minor.push_back(inverse[d]);
  }
  return WithPhysicalOrder(Shape(shape.element_type(), dims), major_to_minor);
}

// The array a fused dot operand reads: a fusion parameter's buffer, seen
// through the bitcasts, copies and transposes between it and the dot
// (WrappedDot admits no other instruction there).
absl::StatusOr<IrArray> FusedOperandArray(EmitterContext& ctx,
                                          llvm::IRBuilderBase& b,
                                          const HloInstruction* fusion,
                                          const HloInstruction* hlo) {
  if (hlo->opcode() == HloOpcode::kParameter) {
    if (hlo->parameter_number() >= fusion->operand_count()) {
      return codegen::Unsupported(fusion, "a fused parameter without operand");
    }
    return ctx.ArrayFor(b, fusion->operand(hlo->parameter_number()));
  }
  absl::StatusOr<IrArray> inner =
      FusedOperandArray(ctx, b, fusion, hlo->operand(0));
  if (!inner.ok()) return inner.status();
  switch (hlo->opcode()) {
    case HloOpcode::kBitcast:  // directly over a parameter: its bytes
      return IrArray(inner->base(), hlo->shape());
    case HloOpcode::kCopy:  // the same elements
      return inner;
    case HloOpcode::kTranspose:
      return IrArray(inner->base(),
                     TransposedView(inner->shape(), hlo->dimensions()));
    default:
      return codegen::Unsupported(hlo, "not a view of a fusion parameter");
  }
}

// One operand of the GEMM: its array and its dimensions grouped as
// [batch][rows][cols].
struct GemmOperand {
  IrArray array;
  std::vector<int64_t> batch, rows, cols;
};

// The operand's address and whether the call reads it transposed.
absl::StatusOr<std::pair<llvm::Value*, bool>> PassOperand(DenseArrays& arrays,
                                                          const GemmOperand& x,
                                                          PrimitiveType type) {
  const Shape& shape = x.array.shape();
  if (shape.element_type() == type) {
    if (IsDenseIn(shape, Concat({x.batch, x.rows, x.cols}))) {
      return std::make_pair(x.array.base(), false);
    }
    if (IsDenseIn(shape, Concat({x.batch, x.cols, x.rows}))) {
      return std::make_pair(x.array.base(), true);
    }
  }
  absl::StatusOr<llvm::Value*> copy =
      arrays.Input(x.array, Concat({x.batch, x.rows, x.cols}), type);
  if (!copy.ok()) return copy.status();
  return std::make_pair(*copy, false);
}

// True when `x` passes to xlite_cpu_matmul in place (PassOperand).
bool DenseInPlace(const GemmOperand& x, PrimitiveType type) {
  const Shape& shape = x.array.shape();
  return shape.element_type() == type &&
         (IsDenseIn(shape, Concat({x.batch, x.rows, x.cols})) ||
          IsDenseIn(shape, Concat({x.batch, x.cols, x.rows})));
}

// The dot as one xlite_cpu_matmul_strided call on the arrays in place, when
// the dense call would copy one of them and all three are of the compute
// type and described by strides; false (nothing emitted) otherwise. The
// result must not overlap the operands.
bool EmitStridedCall(DenseArrays& arrays, llvm::IRBuilderBase& b,
                     const GemmOperand& lhs, const GemmOperand& rhs,
                     const GemmOperand& out, PrimitiveType type) {
  if (DenseInPlace(lhs, type) && DenseInPlace(rhs, type) &&
      DenseInPlace(out, type)) {
    return false;
  }
  for (const GemmOperand* x : {&lhs, &rhs, &out}) {
    if (x->array.shape().element_type() != type) return false;
  }
  const std::optional<StridedGemm> g =
      DescribeStridedGemm({&lhs.array.shape(), lhs.batch, lhs.rows, lhs.cols},
                          {&rhs.array.shape(), rhs.batch, rhs.rows, rhs.cols},
                          {&out.array.shape(), out.batch, out.rows, out.cols});
  if (!g) return false;
  const std::vector<int64_t> strides(g->matrix_strides.begin(),
                                     g->matrix_strides.end());
  arrays.Call("xlite_cpu_matmul_strided",
              {b.getInt32(static_cast<int32_t>(type)), lhs.array.base(),
               rhs.array.base(), out.array.base(), b.getInt64(g->m),
               b.getInt64(g->k), b.getInt64(g->n), EmitInt64Array(b, strides),
               b.getInt64(g->batch_rank()), EmitInt64Array(b, g->batch)});
  return true;
}

}  // namespace

absl::Status EmitDotLibraryCall(EmitterContext& ctx, llvm::IRBuilderBase& b,
                                const HloInstruction* hlo) {
  const HloInstruction* dot = WrappedDot(*hlo);
  if (dot == nullptr) return codegen::Unsupported(hlo, "not a dot");
  const DotDimensionNumbers& d = dot->attrs().dot->dnums;
  const std::optional<PrimitiveType> type = LibraryComputeType(
      dot->operand(0)->shape().element_type(),
      dot->operand(1)->shape().element_type(), dot->shape().element_type());
  if (!type) return codegen::Unsupported(hlo, "no library type for this dot");
  std::vector<IrArray> operands;
  for (int64_t i = 0; i < 2; ++i) {
    absl::StatusOr<IrArray> a =
        hlo->opcode() == HloOpcode::kFusion
            ? FusedOperandArray(ctx, b, hlo, dot->operand(i))
            : ctx.ArrayFor(b, dot->operand(i));
    if (!a.ok()) return a.status();
    operands.push_back(*a);
  }
  absl::StatusOr<IrArray> out = ctx.ArrayFor(b, hlo);
  if (!out.ok()) return out.status();
  absl::StatusOr<bool> overlap = ResultOverlapsOperands(ctx, hlo);
  if (!overlap.ok()) return overlap.status();

  const Shape& ls = operands[0].shape();
  const Shape& rs = operands[1].shape();
  const std::vector<int64_t> lf = DotFreeDimensions(
      ls.rank(), d.lhs_batch_dimensions, d.lhs_contracting_dimensions);
  const std::vector<int64_t> rf = DotFreeDimensions(
      rs.rank(), d.rhs_batch_dimensions, d.rhs_contracting_dimensions);
  const int64_t nb = d.lhs_batch_dimensions.size();
  std::vector<int64_t> ob(nb), om(lf.size()), on(rf.size());
  std::iota(ob.begin(), ob.end(), 0);
  std::iota(om.begin(), om.end(), nb);
  std::iota(on.begin(), on.end(), nb + static_cast<int64_t>(lf.size()));
  const int64_t batch = Product(ls, d.lhs_batch_dimensions);
  const int64_t m = Product(ls, lf);
  const int64_t k = Product(ls, d.lhs_contracting_dimensions);
  const int64_t n = Product(rs, rf);

  DenseArrays arrays(ctx, b);
  GemmOperand lhs{operands[0], d.lhs_batch_dimensions, lf,
                  d.lhs_contracting_dimensions};
  GemmOperand rhs{operands[1], d.rhs_batch_dimensions,
                  d.rhs_contracting_dimensions, rf};
  if (!*overlap && EmitStridedCall(arrays, b, lhs, rhs,
                                   GemmOperand{*out, ob, om, on}, *type)) {
    return arrays.Finish();
  }
  // A result stored [b][n][m] is the product of the transposes, swapped.
  const bool swap = !*overlap && out->shape().element_type() == *type &&
                    !IsDenseIn(out->shape(), Concat({ob, om, on})) &&
                    IsDenseIn(out->shape(), Concat({ob, on, om}));
  llvm::Value* result =
      swap ? out->base()
           : arrays.Output(*out, Concat({ob, om, on}), *type, !*overlap);
  if (swap) {
    std::swap(lhs.rows, lhs.cols);
    std::swap(rhs.rows, rhs.cols);
    std::swap(lhs, rhs);
  }
  absl::StatusOr<std::pair<llvm::Value*, bool>> left =
      PassOperand(arrays, lhs, *type);
  if (!left.ok()) return left.status();
  absl::StatusOr<std::pair<llvm::Value*, bool>> right =
      PassOperand(arrays, rhs, *type);
  if (!right.ok()) return right.status();
  arrays.Call(
      "xlite_cpu_matmul",
      {b.getInt32(static_cast<int32_t>(*type)), left->first, right->first,
       result, b.getInt64(batch), b.getInt64(swap ? n : m), b.getInt64(k),
       b.getInt64(swap ? m : n), b.getInt32(left->second),
       b.getInt32(right->second)});
  return arrays.Finish();
}

}  // namespace xlite::cpu
