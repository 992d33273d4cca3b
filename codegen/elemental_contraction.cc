// Elemental dot and convolution: each output element is a sum of products
// over the contracted dimensions (and the kernel window), accumulated as
// the evaluator and XLA:CPU do — real floats in f32 (f64 when any side is
// wider), everything else in the result type — and rounded once.

#include <algorithm>

#include "codegen/elemental.h"
#include "codegen/loops.h"
#include "codegen/scalar_ops.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"

namespace xlite::codegen {

namespace {

bool IsRealFloatType(PrimitiveType t) {
  return IsFloatingPoint(t) && !IsComplex(t);
}

PrimitiveType Accumulation(PrimitiveType lhs, PrimitiveType rhs,
                           PrimitiveType result) {
  if (!IsRealFloatType(lhs) || !IsRealFloatType(rhs) ||
      !IsRealFloatType(result)) {
    return result;
  }
  const int widest = std::max({BitWidth(lhs), BitWidth(rhs), BitWidth(result)});
  return widest > 32 ? PrimitiveType::kF64 : PrimitiveType::kF32;
}

// acc + x * y in the accumulation type.
llvm::Value* MultiplyAdd(llvm::IRBuilderBase& b, PrimitiveType type,
                         llvm::Value* acc, llvm::Value* x, llvm::Value* y) {
  if (IsComplex(type)) {
    llvm::Value* xr = b.CreateExtractValue(x, 0);
    llvm::Value* xi = b.CreateExtractValue(x, 1);
    llvm::Value* yr = b.CreateExtractValue(y, 0);
    llvm::Value* yi = b.CreateExtractValue(y, 1);
    llvm::Value* re = b.CreateFSub(b.CreateFMul(xr, yr), b.CreateFMul(xi, yi));
    llvm::Value* im = b.CreateFAdd(b.CreateFMul(xr, yi), b.CreateFMul(xi, yr));
    llvm::Value* out = b.CreateInsertValue(
        acc, b.CreateFAdd(b.CreateExtractValue(acc, 0), re), 0);
    return b.CreateInsertValue(
        out, b.CreateFAdd(b.CreateExtractValue(acc, 1), im), 1);
  }
  if (type == PrimitiveType::kF32 || type == PrimitiveType::kF64) {
    return b.CreateFAdd(acc, b.CreateFMul(x, y));
  }
  if (type == PrimitiveType::kPred) {
    return b.CreateOr(acc, b.CreateAnd(x, y));
  }
  return b.CreateAdd(acc, b.CreateMul(x, y));
}

// A dot's accumulator before its first product: zero, which is +0 for
// floats, so that a sum of -0 products is +0 as in XLA:CPU; but -0 when
// one element is contracted, since XLA makes such a dot a multiply (-0
// plus the product is the product, signed zero included).
llvm::Constant* AccumulatorStart(PrimitiveType type, llvm::Type* llvm_type,
                                 absl::Span<const int64_t> contracted) {
  int64_t count = 1;
  for (int64_t n : contracted) count *= n;
  if (count != 1 || (!IsFloatingPoint(type) && !IsComplex(type))) {
    return llvm::Constant::getNullValue(llvm_type);
  }
  if (auto* pair = llvm::dyn_cast<llvm::StructType>(llvm_type)) {
    llvm::Constant* part =
        llvm::ConstantFP::getNegativeZero(pair->getElementType(0));
    return llvm::ConstantStruct::get(pair, {part, part});
  }
  return llvm::ConstantFP::getNegativeZero(llvm_type);
}

// The final rounding of an accumulated value to the result type (narrow
// 8-bit floats from 16-bit operands go through f16, as XLA:CPU does).
absl::StatusOr<llvm::Value*> RoundResult(llvm::IRBuilderBase& b,
                                         PrimitiveType acc, PrimitiveType lhs,
                                         PrimitiveType rhs,
                                         PrimitiveType result,
                                         llvm::Value* value) {
  if (acc == result) return value;
  if (IsFloatingPoint(result) && BitWidth(result) <= 8 &&
      result != PrimitiveType::kF8E8M0FNU && BitWidth(lhs) <= 16 &&
      BitWidth(rhs) <= 16) {
    absl::StatusOr<llvm::Value*> half =
        EmitConvert(b, acc, PrimitiveType::kF16, value);
    if (!half.ok()) return half.status();
    return EmitConvert(b, PrimitiveType::kF16, result, *half);
  }
  return EmitConvert(b, acc, result, value);
}

}  // namespace

absl::StatusOr<Generator> ElementalEmitter::Dot(const HloInstruction* hlo) {
  return [this, hlo](const Index& index) -> absl::StatusOr<llvm::Value*> {
    absl::StatusOr<std::vector<llvm::Value*>> v = DotLanes(hlo, {index}, 0);
    if (!v.ok()) return v.status();
    return (*v)[0];
  };
}

absl::StatusOr<std::vector<llvm::Value*>> ElementalEmitter::DotLanes(
    const HloInstruction* hlo, absl::Span<const Index> lanes, int64_t dim) {
  const DotDimensionNumbers& d = hlo->attrs().dot->dnums;
  const HloInstruction* lhs = hlo->operand(0);
  const HloInstruction* rhs = hlo->operand(1);
  const PrimitiveType lt = lhs->shape().element_type();
  const PrimitiveType rt = rhs->shape().element_type();
  const PrimitiveType out_type = hlo->shape().element_type();
  const PrimitiveType acc_type = Accumulation(lt, rt, out_type);
  const auto lfree =
      DotFreeDimensions(lhs->shape().rank(), d.lhs_batch_dimensions,
                        d.lhs_contracting_dimensions);
  const auto rfree =
      DotFreeDimensions(rhs->shape().rank(), d.rhs_batch_dimensions,
                        d.rhs_contracting_dimensions);
  const size_t width = lanes.size();
  // Each lane's operand indices; ldim / rdim: the operand dimension the
  // lanes move along (-1: the lanes share that operand's elements).
  std::vector<Index> li(width, Index(lhs->shape().rank(), nullptr));
  std::vector<Index> ri(width, Index(rhs->shape().rank(), nullptr));
  int64_t ldim = -1, rdim = -1;
  for (size_t k = 0; k < width; ++k) {
    size_t o = 0;
    for (size_t i = 0; i < d.lhs_batch_dimensions.size(); ++i, ++o) {
      li[k][d.lhs_batch_dimensions[i]] = lanes[k][o];
      ri[k][d.rhs_batch_dimensions[i]] = lanes[k][o];
      if (width > 1 && static_cast<int64_t>(o) == dim) {
        ldim = d.lhs_batch_dimensions[i];
        rdim = d.rhs_batch_dimensions[i];
      }
    }
    for (int64_t f : lfree) {
      if (width > 1 && static_cast<int64_t>(o) == dim) ldim = f;
      li[k][f] = lanes[k][o++];
    }
    for (int64_t f : rfree) {
      if (width > 1 && static_cast<int64_t>(o) == dim) rdim = f;
      ri[k][f] = lanes[k][o++];
    }
  }
  std::vector<int64_t> bounds;
  for (int64_t c : d.lhs_contracting_dimensions) {
    bounds.push_back(lhs->shape().dimensions(c));
  }
  llvm::Type* acc_llvm = ValueType(acc_type, b_.getContext());
  llvm::Constant* start = AccumulatorStart(acc_type, acc_llvm, bounds);
  std::vector<llvm::AllocaInst*> accs;
  for (size_t k = 0; k < width; ++k) {
    accs.push_back(EntryAlloca(b_, acc_llvm));
    b_.CreateStore(start, accs.back());
  }
  // An operand's elements at the lanes' indices, converted to the
  // accumulation type: read jointly when the lanes move through it, once
  // when they share it.
  auto read =
      [&](const HloInstruction* operand, std::vector<Index>& at, int64_t along,
          PrimitiveType type) -> absl::StatusOr<std::vector<llvm::Value*>> {
    std::vector<llvm::Value*> values;
    if (along >= 0) {
      absl::StatusOr<std::vector<llvm::Value*>> v =
          ValuesAt(operand, -1, at, along);
      if (!v.ok()) return v.status();
      values = *std::move(v);
    } else {
      absl::StatusOr<llvm::Value*> v = ValueAt(operand, -1, at[0]);
      if (!v.ok()) return v.status();
      values.assign(width, *v);
    }
    for (llvm::Value*& v : values) {
      absl::StatusOr<llvm::Value*> c = EmitConvert(b_, type, acc_type, v);
      if (!c.ok()) return c.status();
      v = *c;
    }
    return values;
  };
  Scope scope(*this);
  absl::Status status =
      EmitLoopNestOverBounds(b_, bounds, [&](const Index& c) -> absl::Status {
        Scope inner(*this);
        for (size_t k = 0; k < width; ++k) {
          for (size_t i = 0; i < c.size(); ++i) {
            li[k][d.lhs_contracting_dimensions[i]] = c[i];
            ri[k][d.rhs_contracting_dimensions[i]] = c[i];
          }
        }
        absl::StatusOr<std::vector<llvm::Value*>> x = read(lhs, li, ldim, lt);
        if (!x.ok()) return x.status();
        absl::StatusOr<std::vector<llvm::Value*>> y = read(rhs, ri, rdim, rt);
        if (!y.ok()) return y.status();
        for (size_t k = 0; k < width; ++k) {
          b_.CreateStore(
              MultiplyAdd(b_, acc_type, b_.CreateLoad(acc_llvm, accs[k]),
                          (*x)[k], (*y)[k]),
              accs[k]);
        }
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  std::vector<llvm::Value*> results;
  for (size_t k = 0; k < width; ++k) {
    absl::StatusOr<llvm::Value*> v = RoundResult(
        b_, acc_type, lt, rt, out_type, b_.CreateLoad(acc_llvm, accs[k]));
    if (!v.ok()) return v.status();
    results.push_back(*v);
  }
  return results;
}

absl::StatusOr<Generator> ElementalEmitter::Convolution(
    const HloInstruction* hlo) {
  if (!hlo->attrs().conv->dnums.has_value()) {
    return Unsupported(hlo, "convolution without dim_labels");
  }
  return [this, hlo](const Index& index) -> absl::StatusOr<llvm::Value*> {
    const ConvolutionDimensionNumbers& dn = *hlo->attrs().conv->dnums;
    const HloInstruction* lhs = hlo->operand(0);
    const HloInstruction* rhs = hlo->operand(1);
    const Shape& ls = lhs->shape();
    const Shape& rs = rhs->shape();
    const PrimitiveType lt = ls.element_type();
    const PrimitiveType rt = rs.element_type();
    const PrimitiveType out_type = hlo->shape().element_type();
    const PrimitiveType acc_type = Accumulation(lt, rt, out_type);
    const int64_t groups = hlo->attrs().conv->feature_group_count;
    const int64_t batch_groups = hlo->attrs().conv->batch_group_count;
    const int64_t spatial = dn.input_spatial_dimensions.size();
    const int64_t in_features = ls.dimensions(dn.input_feature_dimension);
    const int64_t per_group_in = in_features / groups;
    const int64_t out_features =
        hlo->shape().dimensions(dn.output_feature_dimension);
    const int64_t out_batch =
        hlo->shape().dimensions(dn.output_batch_dimension);
    llvm::Value* f = index[dn.output_feature_dimension];
    llvm::Value* batch = index[dn.output_batch_dimension];
    llvm::Value* group = b_.CreateSDiv(
        f, b_.getInt64(std::max<int64_t>(out_features / groups, 1)));
    llvm::Value* bgroup = b_.CreateSDiv(
        f, b_.getInt64(std::max<int64_t>(out_features / batch_groups, 1)));
    llvm::Value* in_batch =
        b_.CreateAdd(b_.CreateMul(bgroup, b_.getInt64(out_batch)), batch);
    std::vector<WindowDimension> window(spatial);
    if (hlo->attrs().window.has_value()) {
      for (int64_t i = 0; i < spatial; ++i) {
        window[i] = hlo->attrs().window->dimensions[i];
      }
    }
    std::vector<int64_t> bounds;
    for (int64_t i = 0; i < spatial; ++i) {
      bounds.push_back(rs.dimensions(dn.kernel_spatial_dimensions[i]));
    }
    bounds.push_back(per_group_in);
    llvm::Type* acc_llvm = ValueType(acc_type, b_.getContext());
    llvm::AllocaInst* acc = EntryAlloca(b_, acc_llvm);
    b_.CreateStore(llvm::Constant::getNullValue(acc_llvm), acc);
    Scope scope(*this);
    absl::Status status =
        EmitLoopNestOverBounds(b_, bounds, [&](const Index& k) -> absl::Status {
          Index li(ls.rank(), nullptr), ri(rs.rank(), nullptr);
          llvm::Value* c = k[spatial];
          li[dn.input_batch_dimension] = in_batch;
          li[dn.input_feature_dimension] =
              b_.CreateAdd(b_.CreateMul(group, b_.getInt64(per_group_in)), c);
          ri[dn.kernel_input_feature_dimension] = c;
          ri[dn.kernel_output_feature_dimension] = f;
          llvm::Value* inside = b_.getTrue();
          for (int64_t i = 0; i < spatial; ++i) {
            const WindowDimension& w = window[i];
            const int64_t size = rs.dimensions(dn.kernel_spatial_dimensions[i]);
            ri[dn.kernel_spatial_dimensions[i]] =
                w.window_reversal ? b_.CreateSub(b_.getInt64(size - 1), k[i])
                                  : k[i];
            const int64_t ldil = std::max<int64_t>(w.base_dilation, 1);
            llvm::Value* pos = b_.CreateSub(
                b_.CreateAdd(
                    b_.CreateMul(index[dn.output_spatial_dimensions[i]],
                                 b_.getInt64(std::max<int64_t>(w.stride, 1))),
                    b_.CreateMul(k[i], b_.getInt64(std::max<int64_t>(
                                           w.window_dilation, 1)))),
                b_.getInt64(w.padding_low));
            llvm::Value* q = b_.CreateSDiv(pos, b_.getInt64(ldil));
            const int64_t in_dim =
                ls.dimensions(dn.input_spatial_dimensions[i]);
            inside =
                b_.CreateAnd(inside, b_.CreateICmpSGE(pos, b_.getInt64(0)));
            inside = b_.CreateAnd(
                inside, b_.CreateICmpEQ(b_.CreateSRem(pos, b_.getInt64(ldil)),
                                        b_.getInt64(0)));
            inside =
                b_.CreateAnd(inside, b_.CreateICmpSLT(q, b_.getInt64(in_dim)));
            li[dn.input_spatial_dimensions[i]] = q;
          }
          llvm::Function* fn = b_.GetInsertBlock()->getParent();
          auto* body = llvm::BasicBlock::Create(b_.getContext(), "conv.in", fn);
          auto* skip =
              llvm::BasicBlock::Create(b_.getContext(), "conv.skip", fn);
          b_.CreateCondBr(inside, body, skip);
          b_.SetInsertPoint(body);
          {
            Scope inner(*this);
            absl::StatusOr<llvm::Value*> x = ValueAt(lhs, -1, li);
            if (!x.ok()) return x.status();
            absl::StatusOr<llvm::Value*> y = ValueAt(rhs, -1, ri);
            if (!y.ok()) return y.status();
            absl::StatusOr<llvm::Value*> xc = EmitConvert(b_, lt, acc_type, *x);
            if (!xc.ok()) return xc.status();
            absl::StatusOr<llvm::Value*> yc = EmitConvert(b_, rt, acc_type, *y);
            if (!yc.ok()) return yc.status();
            b_.CreateStore(MultiplyAdd(b_, acc_type,
                                       b_.CreateLoad(acc_llvm, acc), *xc, *yc),
                           acc);
          }
          b_.CreateBr(skip);
          b_.SetInsertPoint(skip);
          return absl::OkStatus();
        });
    if (!status.ok()) return status;
    return RoundResult(b_, acc_type, lt, rt, out_type,
                       b_.CreateLoad(acc_llvm, acc));
  };
}

}  // namespace xlite::codegen
