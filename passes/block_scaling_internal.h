#ifndef XLITE_PASSES_BLOCK_SCALING_INTERNAL_H_
#define XLITE_PASSES_BLOCK_SCALING_INTERNAL_H_

// Shared by the block-scaling rewriter's files (block_scaling.cc: the
// custom calls; block_scaling_scaled_dot.cc: the scaled-dot opcode); not a
// public API.

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "hlo/ir/computation.h"
#include "hlo/ir/instruction.h"
#include "passes/block_scaling.h"
#include "passes/hlo_util.h"

namespace xlite {
namespace block_scaling_internal {

inline int64_t Last(const Shape& s) { return s.dimensions(s.rank() - 1); }
inline int64_t RoundUp(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

/// "NAME (TARGET or opcode): message".
absl::Status Error(const HloInstruction* h, absl::string_view message);

/// No layout, or the default one.
bool DefaultLayout(const Shape& s);

// Builds instructions in one computation, shapes given layouts like `like`.
class Builder {
 public:
  Builder(HloComputation* c, const HloInstruction* like) : c_(c), like_(like) {}
  HloComputation* computation() const { return c_; }

  Shape S(PrimitiveType t, std::vector<int64_t> dims) const {
    return LayoutLike(Shape(t, dims), like_);
  }
  HloInstruction* Convert(HloInstruction* x, PrimitiveType t) {
    if (x->shape().element_type() == t) return x;
    Shape s = x->shape();
    s.set_element_type(t);
    return AddNew(c_, HloOpcode::kConvert, s, {x});
  }
  HloInstruction* Reshape(HloInstruction* x, std::vector<int64_t> dims) {
    if (std::vector<int64_t>(x->shape().dimensions().begin(),
                             x->shape().dimensions().end()) == dims) {
      return x;
    }
    return AddReshape(c_, x, S(x->shape().element_type(), dims));
  }
  HloInstruction* Binary(HloOpcode op, HloInstruction* a, HloInstruction* b) {
    return AddNew(c_, op, a->shape(), {a, b});
  }
  HloInstruction* Slice(HloInstruction* x, std::vector<int64_t> limits) {
    bool whole = true;
    std::vector<SliceDimension> dims;
    for (size_t i = 0; i < limits.size(); ++i) {
      dims.push_back({0, limits[i], 1});
      whole &= limits[i] == x->shape().dimensions(i);
    }
    if (whole) return x;
    HloInstruction* s =
        AddNew(c_, HloOpcode::kSlice, S(x->shape().element_type(), limits), {x});
    s->mutable_attrs().slice = dims;
    return s;
  }
  HloInstruction* Zero(PrimitiveType t) {
    Literal l = Literal::Scalar(t, 0);
    l.mutable_shape_for_layout() = S(t, {});
    return AddConstant(c_, std::move(l));
  }
  // Pads the last two dims at the high end up to `dims`.
  HloInstruction* PadTo(HloInstruction* x, std::vector<int64_t> dims) {
    bool same = true;
    for (size_t i = 0; i < dims.size(); ++i) {
      same &= dims[i] == x->shape().dimensions(i);
    }
    if (same) return x;
    const PrimitiveType t = x->shape().element_type();
    HloInstruction* p = AddNew(c_, HloOpcode::kPad, S(t, dims), {x, Zero(t)});
    PaddingConfig& config = p->mutable_attrs().padding;
    for (size_t i = 0; i < dims.size(); ++i) {
      config.dimensions.push_back({0, dims[i] - x->shape().dimensions(i), 0});
    }
    return p;
  }

 private:
  HloComputation* c_;
  const HloInstruction* like_;
};

/// A block-scaled dot in the custom call's form: [B?, M, K] x [B?, N, K],
/// K contracted, per-row scales over blocks of K.
struct DotParts {
  HloInstruction* lhs;
  HloInstruction* rhs;
  HloInstruction* lhs_scale;
  HloInstruction* rhs_scale = nullptr;
  HloInstruction* global = nullptr;
  int64_t lhs_block = 0;
  int64_t rhs_block = 0;
};

/// Whether the target's cuDNN computes `h` as __cudnn$blockScaledDot.
bool CudnnEligible(HloInstruction* h, const DotParts& p,
                   const BlockScalingTarget& target);

/// Builds the __cudnn$blockScaledDot call for `h` (padding, swizzle, the
/// global scale inside or outside by cuDNN version) beside it; returns the
/// value that replaces `h` (its dimensions, `h` itself untouched).
HloInstruction* BuildCudnnCall(HloInstruction* h, const DotParts& p,
                               const BlockScalingTarget& target);

/// Rewrites one scaled-dot: to __cudnn$blockScaledDot where eligible, else
/// into dequantize + dot as XLA's scaled-dot rewriter does.
absl::Status RewriteScaledDot(HloInstruction* h,
                              const BlockScalingTarget& target);

}  // namespace block_scaling_internal
}  // namespace xlite

#endif  // XLITE_PASSES_BLOCK_SCALING_INTERNAL_H_
