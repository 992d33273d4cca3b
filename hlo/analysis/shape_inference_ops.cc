// Shape inference for every non-element-wise opcode.

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/analysis/shape_inference_internal.h"
#include "hlo/ir/computation.h"

namespace xlite {
namespace shape_inference_internal {

absl::StatusOr<int64_t> WindowedOutputSize(int64_t input,
                                           const WindowDimension& w) {
  if (w.size < 0 || w.stride < 1 || w.base_dilation < 1 ||
      w.window_dilation < 1) {
    return Invalid("window size must be >= 0 and strides/dilations >= 1");
  }
  const int64_t dilated_input =
      input == 0 ? 0 : (input - 1) * w.base_dilation + 1;
  const int64_t padded = dilated_input + w.padding_low + w.padding_high;
  const int64_t dilated_window =
      w.size == 0 ? 0 : (w.size - 1) * w.window_dilation + 1;
  if (padded < dilated_window) return 0;
  return (padded - dilated_window) / w.stride + 1;
}

absl::StatusOr<Shape> InferNonElementwiseShape(const HloInstruction& hlo) {
  const HloOpcode op = hlo.opcode();
  const HloAttributes& a = hlo.attrs();
  auto operand = [&](int64_t i) -> const Shape& {
    return hlo.operand(i)->shape();
  };
  switch (op) {
    case HloOpcode::kParameter:
    case HloOpcode::kConstant:
    case HloOpcode::kCustomCall:
    case HloOpcode::kRng:
    case HloOpcode::kRngBitGenerator:
    case HloOpcode::kRngGetAndUpdateState:
    case HloOpcode::kInfeed:
    case HloOpcode::kRecv:
    case HloOpcode::kShuffle:
    case HloOpcode::kCollectiveReduce:
    case HloOpcode::kDynamicReshape:
    case HloOpcode::kCollectivePermuteStart:
    case HloOpcode::kCopyStart:
      return hlo.shape();
    case HloOpcode::kIota:
      if (!hlo.shape().IsArray() || hlo.shape().rank() == 0 ||
          hlo.iota_dimension() < 0 ||
          hlo.iota_dimension() >= hlo.shape().rank()) {
        return Invalid(absl::StrCat("iota_dimension ", hlo.iota_dimension(),
                                    " is out of range for ", S(hlo.shape())));
      }
      return hlo.shape();
    case HloOpcode::kReshape:
    case HloOpcode::kBitcast: {
      const Shape& in = operand(0);
      const Shape& out = hlo.shape();
      XLITE_RETURN_IF_ERROR(ExpectArray(in, HloOpcodeString(op)));
      if (op == HloOpcode::kReshape &&
          (in.element_type() != out.element_type() ||
           in.ElementCount() != out.ElementCount())) {
        return Invalid(
            absl::StrCat("reshape from ", S(in), " to ", S(out),
                         " changes the number of elements (", in.ElementCount(),
                         " vs ", out.ElementCount(), ") or the element type"));
      }
      if (op == HloOpcode::kBitcast &&
          in.ElementCount() * BitWidth(in.element_type()) !=
              out.ElementCount() * BitWidth(out.element_type())) {
        return Invalid(absl::StrCat("bitcast from ", S(in), " to ", S(out),
                                    " changes the number of bits"));
      }
      return out;
    }
    case HloOpcode::kBroadcast: {
      const Shape& in = operand(0);
      const Shape& out = hlo.shape();
      XLITE_RETURN_IF_ERROR(ExpectArray(in, "broadcast operand"));
      const auto& dims = hlo.dimensions();
      if (!out.IsArray() || out.element_type() == PrimitiveType::kInvalid) {
        // Shape omitted: XLA prepends the listed sizes to the operand's.
        Shape inferred(in.element_type(), {});
        for (int64_t d : dims) inferred.add_dimension(d);
        for (int64_t d : in.dimensions()) inferred.add_dimension(d);
        return inferred;
      }
      if (static_cast<int64_t>(dims.size()) != in.rank()) {
        return Invalid(
            absl::StrCat("broadcast dimensions ", BracedList(dims),
                         " must have one entry per operand dimension "
                         "of ",
                         S(in)));
      }
      for (size_t i = 0; i < dims.size(); ++i) {
        if (dims[i] < 0 || dims[i] >= out.rank()) {
          return Invalid(absl::StrCat("broadcast dimension ", dims[i],
                                      " is out of range for ", S(out)));
        }
        if (i > 0 && dims[i] <= dims[i - 1]) {
          return Invalid(absl::StrCat("broadcast dimensions ", BracedList(dims),
                                      " must be strictly increasing"));
        }
        if (in.dimensions(i) != out.dimensions(dims[i]) &&
            in.dimensions(i) != 1) {
          return Invalid(absl::StrCat(
              "broadcast operand dimension ", i, " (", in.dimensions(i),
              ") does not match result "
              "dimension ",
              dims[i], " (", out.dimensions(dims[i]), ")"));
        }
      }
      if (in.element_type() != out.element_type()) {
        return Invalid("broadcast cannot change the element type");
      }
      return out;
    }
    case HloOpcode::kTranspose: {
      const Shape& in = operand(0);
      XLITE_RETURN_IF_ERROR(ExpectArray(in, "transpose operand"));
      const auto& perm = hlo.dimensions();
      if (static_cast<int64_t>(perm.size()) != in.rank()) {
        return Invalid(absl::StrCat("transpose dimensions ", BracedList(perm),
                                    " is not a permutation of ", S(in)));
      }
      XLITE_RETURN_IF_ERROR(
          CheckDimensionIndices(perm, in.rank(), "transpose", true));
      Shape out(in.element_type(), {});
      for (int64_t p : perm)
        out.add_dimension(in.dimensions(p), in.is_dynamic_dimension(p));
      return out;
    }
    case HloOpcode::kReverse:
      XLITE_RETURN_IF_ERROR(ExpectArray(operand(0), "reverse operand"));
      XLITE_RETURN_IF_ERROR(CheckDimensionIndices(
          hlo.dimensions(), operand(0).rank(), "reverse", true));
      return ArrayLike(operand(0), operand(0).element_type());
    case HloOpcode::kSlice: {
      const Shape& in = operand(0);
      XLITE_RETURN_IF_ERROR(ExpectArray(in, "slice operand"));
      if (static_cast<int64_t>(a.slice.size()) != in.rank()) {
        return Invalid(absl::StrCat("slice has ", a.slice.size(),
                                    " ranges for operand ", S(in)));
      }
      Shape out(in.element_type(), {});
      for (int64_t i = 0; i < in.rank(); ++i) {
        const SliceDimension& d = a.slice[i];
        if (d.start < 0 || d.limit < d.start || d.limit > in.dimensions(i) ||
            d.stride < 1) {
          return Invalid(absl::StrCat("slice [", d.start, ":", d.limit, ":",
                                      d.stride, "] is invalid for dimension ",
                                      i, " of ", S(in)));
        }
        out.add_dimension((d.limit - d.start + d.stride - 1) / d.stride);
      }
      return out;
    }
    case HloOpcode::kDynamicSlice: {
      const Shape& in = operand(0);
      XLITE_RETURN_IF_ERROR(ExpectArray(in, "dynamic-slice operand"));
      const int64_t indices = hlo.operand_count() - 1;
      const bool vector_form = indices == 1 && operand(1).rank() == 1;
      if (!vector_form && indices != in.rank()) {
        return Invalid(absl::StrCat("dynamic-slice of ", S(in), " needs ",
                                    in.rank(), " start indices, got ",
                                    indices));
      }
      for (int64_t i = 1; i < hlo.operand_count(); ++i) {
        if (!vector_form)
          XLITE_RETURN_IF_ERROR(ExpectScalar(operand(i), "start index"));
        if (!IsInteger(operand(i).element_type())) {
          return Invalid("dynamic-slice start indices must be integers");
        }
      }
      if (static_cast<int64_t>(a.dynamic_slice_sizes.size()) != in.rank()) {
        return Invalid("dynamic_slice_sizes must have one entry per dimension");
      }
      for (int64_t i = 0; i < in.rank(); ++i) {
        if (a.dynamic_slice_sizes[i] < 0 ||
            a.dynamic_slice_sizes[i] > in.dimensions(i)) {
          return Invalid(absl::StrCat("dynamic slice size ",
                                      a.dynamic_slice_sizes[i],
                                      " exceeds dimension ", i, " of ", S(in)));
        }
      }
      return Shape(in.element_type(), a.dynamic_slice_sizes);
    }
    case HloOpcode::kDynamicUpdateSlice: {
      if (hlo.operand_count() < 2)
        return Invalid("dynamic-update-slice needs 2+ operands");
      const Shape& in = operand(0);
      const Shape& update = operand(1);
      XLITE_RETURN_IF_ERROR(ExpectArray(in, "dynamic-update-slice operand"));
      const int64_t indices = hlo.operand_count() - 2;
      const bool vector_form = indices == 1 && operand(2).rank() == 1;
      if (!vector_form && indices != in.rank()) {
        return Invalid(absl::StrCat("dynamic-update-slice of ", S(in),
                                    " needs ", in.rank(),
                                    " start indices, got ", indices));
      }
      if (update.rank() != in.rank() ||
          update.element_type() != in.element_type()) {
        return Invalid(absl::StrCat("dynamic-update-slice update ", S(update),
                                    " does not fit operand ", S(in)));
      }
      for (int64_t i = 0; i < in.rank(); ++i) {
        if (update.dimensions(i) > in.dimensions(i)) {
          return Invalid(absl::StrCat("dynamic-update-slice update ", S(update),
                                      " is larger than operand ", S(in)));
        }
      }
      return ArrayLike(in, in.element_type());
    }
    case HloOpcode::kConcatenate: {
      if (hlo.operand_count() < 1) return Invalid("concatenate needs operands");
      if (hlo.dimensions().size() != 1)
        return Invalid("concatenate takes one dimension");
      const int64_t dim = hlo.dimensions(0);
      const Shape& first = operand(0);
      XLITE_RETURN_IF_ERROR(ExpectArray(first, "concatenate operand"));
      if (dim < 0 || dim >= first.rank()) {
        return Invalid(absl::StrCat("concatenate dimension ", dim,
                                    " is out of range for ", S(first)));
      }
      Shape out = ArrayLike(first, first.element_type());
      int64_t total = 0;
      for (int64_t i = 0; i < hlo.operand_count(); ++i) {
        const Shape& s = operand(i);
        if (s.rank() != first.rank() ||
            s.element_type() != first.element_type()) {
          return Invalid(absl::StrCat("concatenate operands ", S(first),
                                      " and ", S(s),
                                      " differ in rank or element type"));
        }
        for (int64_t d = 0; d < s.rank(); ++d) {
          if (d != dim && s.dimensions(d) != first.dimensions(d)) {
            return Invalid(absl::StrCat("concatenate operands ", S(first),
                                        " and ", S(s),
                                        " differ outside dimension ", dim));
          }
        }
        total += s.dimensions(dim);
      }
      out.set_dimension(dim, total);
      return out;
    }
    case HloOpcode::kPad: {
      const Shape& in = operand(0);
      XLITE_RETURN_IF_ERROR(ExpectArray(in, "pad operand"));
      XLITE_RETURN_IF_ERROR(ExpectScalar(operand(1), "pad value"));
      if (operand(1).element_type() != in.element_type()) {
        return Invalid("pad value must have the operand's element type");
      }
      if (static_cast<int64_t>(a.padding.dimensions.size()) != in.rank()) {
        return Invalid(absl::StrCat("padding has ", a.padding.dimensions.size(),
                                    " dimensions for operand ", S(in)));
      }
      Shape out(in.element_type(), {});
      for (int64_t i = 0; i < in.rank(); ++i) {
        const PaddingDimension& p = a.padding.dimensions[i];
        if (p.interior_padding < 0)
          return Invalid("interior padding must be >= 0");
        const int64_t d = in.dimensions(i);
        const int64_t size = p.edge_padding_low + p.edge_padding_high + d +
                             std::max<int64_t>(d - 1, 0) * p.interior_padding;
        if (size < 0) {
          return Invalid(absl::StrCat("padding makes dimension ", i,
                                      " negative (", size, ")"));
        }
        out.add_dimension(size);
      }
      return out;
    }
    case HloOpcode::kGetTupleElement: {
      const Shape& in = operand(0);
      if (!in.IsTuple()) {
        return Invalid(
            absl::StrCat("get-tuple-element of a non-tuple ", S(in)));
      }
      if (hlo.tuple_index() < 0 ||
          hlo.tuple_index() >= in.tuple_shapes_size()) {
        return Invalid(absl::StrCat("tuple index ", hlo.tuple_index(),
                                    " is out of range for ", S(in)));
      }
      return in.tuple_shapes(hlo.tuple_index());
    }
    case HloOpcode::kTuple:
      return Shape::Tuple(OperandShapes(hlo));
    case HloOpcode::kAfterAll:
      // XLA orders after any operand, token or not: its verifier checks
      // only that the result is a token.
      return Shape::Token();
    case HloOpcode::kAddDependency:
      return operand(0);
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kDomain:
    case HloOpcode::kCopyDone:
    case HloOpcode::kAllReduceDone:
      if (op == HloOpcode::kCopyDone) {
        if (!operand(0).IsTuple() || operand(0).tuple_shapes_size() < 1) {
          return Invalid("copy-done's operand must be a copy-start");
        }
        return operand(0).tuple_shapes(0);
      }
      return operand(0);
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kCollectivePermuteDone:
      if (!operand(0).IsTuple() || operand(0).tuple_shapes_size() < 2) {
        return hlo.shape();
      }
      return operand(0).tuple_shapes(1);
    case HloOpcode::kReplicaId:
    case HloOpcode::kPartitionId:
      return Shape(PrimitiveType::kU32, {});
    case HloOpcode::kGetDimensionSize:
      if (hlo.dimensions().size() != 1 || hlo.dimensions(0) < 0 ||
          hlo.dimensions(0) >= operand(0).rank()) {
        return Invalid("get-dimension-size dimension out of range");
      }
      return Shape(PrimitiveType::kS32, {});
    case HloOpcode::kSetDimensionSize: {
      if (hlo.dimensions().size() != 1 || hlo.dimensions(0) < 0 ||
          hlo.dimensions(0) >= operand(0).rank()) {
        return Invalid("set-dimension-size dimension out of range");
      }
      Shape out = ArrayLike(operand(0), operand(0).element_type());
      out.set_dynamic_dimension(hlo.dimensions(0), true);
      return out;
    }
    case HloOpcode::kDot:
      return InferDot(operand(0), operand(1), a.dot->dnums,
                      hlo.shape().IsArray() ? hlo.shape().element_type()
                                            : operand(0).element_type());
    case HloOpcode::kScaledDot:
      return InferScaledDot(hlo);
    case HloOpcode::kRaggedDot: {
      // lhs [.., m, k] ragged along lhs_ragged_dims; rhs has a group dim.
      DotDimensionNumbers d = a.dot->dnums;
      const Shape& rhs = operand(1);
      Shape rhs_without_group(rhs.element_type(), {});
      std::vector<int64_t> remap(rhs.rank(), -1);
      for (int64_t i = 0; i < rhs.rank(); ++i) {
        if (std::count(a.dot->rhs_group_dims.begin(),
                       a.dot->rhs_group_dims.end(), i))
          continue;
        remap[i] = rhs_without_group.rank();
        rhs_without_group.add_dimension(rhs.dimensions(i));
      }
      for (auto* v : {&d.rhs_batch_dimensions, &d.rhs_contracting_dimensions}) {
        for (int64_t& x : *v) {
          if (x >= 0 && x < rhs.rank() && remap[x] >= 0) x = remap[x];
        }
      }
      return InferDot(operand(0), rhs_without_group, d,
                      hlo.shape().IsArray() ? hlo.shape().element_type()
                                            : operand(0).element_type());
    }
    case HloOpcode::kConvolution:
      return InferConvolution(hlo);
    case HloOpcode::kGather:
      return InferGather(hlo);
    case HloOpcode::kScatter:
      return InferScatter(hlo);
    case HloOpcode::kReduce:
      return InferReduce(hlo);
    case HloOpcode::kReduceWindow:
      return InferReduceWindow(hlo);
    case HloOpcode::kSelectAndScatter: {
      const Shape& in = operand(0);
      const Shape& source = operand(1);
      XLITE_RETURN_IF_ERROR(
          ExpectScalar(operand(2), "select-and-scatter init"));
      const Window window = a.window.value_or(Window());
      if (static_cast<int64_t>(window.dimensions.size()) != in.rank()) {
        return Invalid(
            "select-and-scatter window rank differs from the operand");
      }
      for (int64_t d = 0; d < in.rank(); ++d) {
        absl::StatusOr<int64_t> size =
            WindowedOutputSize(in.dimensions(d), window.dimensions[d]);
        if (!size.ok()) return size.status();
        if (source.rank() != in.rank() || source.dimensions(d) != *size) {
          return Invalid(absl::StrCat("select-and-scatter source ", S(source),
                                      " does not match the windowed operand"));
        }
      }
      const Shape scalar(in.element_type(), {});
      XLITE_RETURN_IF_ERROR(CheckCallee(hlo.called_computations()[0],
                                        {scalar, scalar}, "select"));
      const Shape sscalar(source.element_type(), {});
      XLITE_RETURN_IF_ERROR(CheckCallee(hlo.called_computations()[1],
                                        {sscalar, sscalar}, "scatter"));
      return ArrayLike(in, in.element_type());
    }
    case HloOpcode::kSort:
      return InferSort(hlo);
    case HloOpcode::kTopK: {
      const Shape& in = operand(0);
      XLITE_RETURN_IF_ERROR(ExpectArray(in, "topk operand"));
      if (in.rank() < 1 || a.k < 0 || a.k > in.dimensions(in.rank() - 1)) {
        return Invalid(absl::StrCat("topk k=", a.k, " is invalid for ", S(in)));
      }
      Shape values = ArrayLike(in, in.element_type());
      values.set_dimension(in.rank() - 1, a.k);
      Shape indices = ArrayLike(values, PrimitiveType::kS32);
      return Shape::Tuple({values, indices});
    }
    case HloOpcode::kFft:
      return InferFft(hlo);
    case HloOpcode::kCholesky: {
      const Shape& in = operand(0);
      if (!in.IsArray() || in.rank() < 2 ||
          in.dimensions(in.rank() - 1) != in.dimensions(in.rank() - 2)) {
        return Invalid(
            absl::StrCat("cholesky needs square matrices, got ", S(in)));
      }
      return ArrayLike(in, in.element_type());
    }
    case HloOpcode::kTriangularSolve: {
      const Shape& lhs = operand(0);
      const Shape& rhs = operand(1);
      if (!lhs.IsArray() || lhs.rank() < 2 ||
          lhs.dimensions(lhs.rank() - 1) != lhs.dimensions(lhs.rank() - 2)) {
        return Invalid(
            absl::StrCat("triangular-solve a must be square, got ", S(lhs)));
      }
      if (rhs.rank() != lhs.rank() ||
          lhs.element_type() != rhs.element_type()) {
        return Invalid(
            "triangular-solve operands must have the same rank and type");
      }
      const int64_t n = lhs.dimensions(lhs.rank() - 1);
      const int64_t solved = a.left_side ? rhs.dimensions(rhs.rank() - 2)
                                         : rhs.dimensions(rhs.rank() - 1);
      if (solved != n) {
        return Invalid(absl::StrCat("triangular-solve b ", S(rhs),
                                    " does not match a ", S(lhs)));
      }
      return ArrayLike(rhs, rhs.element_type());
    }
    case HloOpcode::kBatchNormTraining:
    case HloOpcode::kBatchNormInference:
    case HloOpcode::kBatchNormGrad: {
      const Shape& in = operand(0);
      if (a.feature_index < 0 || a.feature_index >= in.rank()) {
        return Invalid(absl::StrCat("feature_index ", a.feature_index,
                                    " is out of range for ", S(in)));
      }
      const Shape feature(in.element_type(), {in.dimensions(a.feature_index)});
      for (int64_t i = 1; i < hlo.operand_count(); ++i) {
        const Shape& s = operand(i);
        const bool is_grad_output = op == HloOpcode::kBatchNormGrad && i == 4;
        if (is_grad_output ? s.dimensions() != in.dimensions()
                           : s.dimensions() != feature.dimensions()) {
          return Invalid(absl::StrCat(HloOpcodeString(op), " operand ", i, " ",
                                      S(s), " has the wrong shape"));
        }
      }
      const Shape data = ArrayLike(in, in.element_type());
      if (op == HloOpcode::kBatchNormInference) return data;
      return Shape::Tuple({data, feature, feature});
    }
    case HloOpcode::kWhile: {
      const Shape& init = operand(0);
      XLITE_RETURN_IF_ERROR(
          CheckCallee(hlo.while_condition(), {init}, "while condition"));
      XLITE_RETURN_IF_ERROR(
          CheckCallee(hlo.while_body(), {init}, "while body"));
      const Shape cond = ProgramResult(hlo.while_condition());
      if (!(cond.IsArray() && cond.rank() == 0 &&
            cond.element_type() == PrimitiveType::kPred)) {
        return Invalid(absl::StrCat(
            "while condition must return pred[], returns ", S(cond)));
      }
      const Shape body = ProgramResult(hlo.while_body());
      if (!ShapesCompatible(body, init)) {
        return Invalid(absl::StrCat("while body returns ", S(body),
                                    " but the loop state is ", S(init)));
      }
      return init;
    }
    case HloOpcode::kConditional: {
      const Shape& index = operand(0);
      if (!(index.IsArray() && index.rank() == 0 &&
            (index.element_type() == PrimitiveType::kPred ||
             index.element_type() == PrimitiveType::kS32))) {
        return Invalid(
            absl::StrCat("conditional's first operand must be pred[] "
                         "or s32[], got ",
                         S(index)));
      }
      const auto& branches = hlo.called_computations();
      if (branches.empty() ||
          static_cast<int64_t>(branches.size()) + 1 != hlo.operand_count()) {
        return Invalid(absl::StrCat("conditional has ", branches.size(),
                                    " branches but ", hlo.operand_count() - 1,
                                    " branch operands"));
      }
      if (index.element_type() == PrimitiveType::kPred &&
          branches.size() != 2) {
        return Invalid("a pred conditional has exactly two branches");
      }
      Shape result;
      for (size_t i = 0; i < branches.size(); ++i) {
        XLITE_RETURN_IF_ERROR(CheckCallee(branches[i], {operand(i + 1)},
                                          absl::StrCat("branch ", i)));
        const Shape r = ProgramResult(branches[i]);
        if (i == 0) {
          result = r;
        } else if (!ShapesCompatible(r, result)) {
          return Invalid(
              absl::StrCat("conditional branches return different "
                           "shapes: ",
                           S(result), " and ", S(r)));
        }
      }
      return result;
    }
    case HloOpcode::kCall:
    case HloOpcode::kFusion: {
      const HloComputation* callee = hlo.called_computations()[0];
      std::vector<Shape> args = OperandShapes(hlo);
      // XLA's verifier lets a fusion take more operands than its computation
      // has parameters (parameter i still matches operand i); the rest are
      // unused.
      if (op == HloOpcode::kFusion && callee != nullptr &&
          static_cast<int64_t>(args.size()) > callee->num_parameters()) {
        args.resize(callee->num_parameters());
      }
      XLITE_RETURN_IF_ERROR(CheckCallee(
          callee, args,
          op == HloOpcode::kCall ? "to_apply" : "fused computation"));
      return ProgramResult(callee);
    }
    case HloOpcode::kMap: {
      const HloComputation* callee = hlo.called_computations()[0];
      std::vector<Shape> params;
      for (int64_t i = 0; i < hlo.operand_count(); ++i) {
        if (operand(i).dimensions() != operand(0).dimensions()) {
          return Invalid("map operands must have the same dimensions");
        }
        params.push_back(Shape(operand(i).element_type(), {}));
      }
      XLITE_RETURN_IF_ERROR(CheckCallee(callee, params, "map to_apply"));
      const Shape r = ProgramResult(callee);
      if (!r.IsArray() || r.rank() != 0) {
        return Invalid("map to_apply must return a scalar");
      }
      return ArrayLike(operand(0), r.element_type());
    }
    case HloOpcode::kScan: {
      const HloComputation* callee = hlo.called_computations()[0];
      const int64_t carries = a.num_carries;
      const int64_t inputs = hlo.operand_count() - carries;
      if (inputs < 1 || hlo.dimensions().size() != 1) {
        return Invalid("scan needs inputs, num_carries and one dimension");
      }
      const int64_t dim = hlo.dimensions(0);
      if (dim < 0 || dim >= operand(0).rank()) {
        return Invalid("scan dimension out of range");
      }
      if (callee->num_parameters() != hlo.operand_count()) {
        return Invalid("scan to_apply must take one parameter per operand");
      }
      const Shape root = ProgramResult(callee);
      const int64_t size = operand(0).dimensions(dim);
      auto expand = [&](const Shape& s) {
        Shape out(s.element_type(), {});
        for (int64_t i = 0; i <= s.rank(); ++i) {
          if (i == dim) out.add_dimension(size);
          if (i < s.rank()) out.add_dimension(s.dimensions(i));
        }
        return out;
      };
      if (!root.IsTuple()) return carries > 0 ? root : expand(root);
      std::vector<Shape> outs;
      for (int64_t i = 0; i < root.tuple_shapes_size(); ++i) {
        outs.push_back(i + carries < root.tuple_shapes_size()
                           ? expand(root.tuple_shapes(i))
                           : root.tuple_shapes(i));
      }
      return Shape::Tuple(outs);
    }
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kAllToAll:
    case HloOpcode::kCollectiveBroadcast:
      return InferCollective(hlo);
    case HloOpcode::kRaggedAllToAll:
      return operand(1);
    case HloOpcode::kCollectivePermute:
      for (const auto& [source, target] : a.collective->source_target_pairs) {
        if (source < 0 || target < 0) {
          return Invalid("collective-permute ids must be >= 0");
        }
      }
      // slice_sizes marks XLA's in-place form (input, output, input and
      // output offsets), which yields the output buffer; without it every
      // operand is an array permuted alongside the others.
      if (!a.collective->permute_slice_sizes.empty()) {
        if (hlo.operand_count() != 4) {
          return Invalid(absl::StrCat(
              "an in-place collective-permute (with slice_sizes) takes 4 "
              "operands, but has ",
              hlo.operand_count()));
        }
        return operand(1);
      }
      for (int64_t i = 0; i < hlo.operand_count(); ++i) {
        XLITE_RETURN_IF_ERROR(
            ExpectArray(operand(i), "operand of collective-permute"));
      }
      return TupleOrSingle(OperandShapes(hlo));
    case HloOpcode::kSend:
      return Shape::Tuple(
          {operand(0), Shape(PrimitiveType::kU32, {}), Shape::Token()});
    case HloOpcode::kSendDone:
      return Shape::Token();
    case HloOpcode::kRecvDone:
      if (!operand(0).IsTuple() || operand(0).tuple_shapes_size() < 1) {
        return Invalid("recv-done's operand must be a recv");
      }
      return Shape::Tuple({operand(0).tuple_shapes(0), Shape::Token()});
    case HloOpcode::kOutfeed:
      return Shape::Token();
    case HloOpcode::kAsyncStart:
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone:
      return InferAsync(hlo);
    default:
      return hlo.shape();
  }
}

}  // namespace shape_inference_internal
}  // namespace xlite