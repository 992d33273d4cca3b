#include "runtime/block_scaled_dot.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "hlo/ir/primitive_type.h"

namespace xlite::runtime {
namespace {

using PT = PrimitiveType;

absl::Status Invalid(absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("__cudnn$blockScaledDot: ", what));
}

bool DefaultLayout(const Shape& s) {
  if (!s.has_layout()) return true;
  const auto& minor_to_major = s.layout().minor_to_major();
  for (size_t i = 0; i < minor_to_major.size(); ++i) {
    if (minor_to_major[i] !=
        static_cast<int64_t>(minor_to_major.size() - 1 - i))
      return false;
  }
  return true;
}

bool IsF8(PT t) { return t == PT::kF8E4M3FN || t == PT::kF8E5M2; }

// The block size of a data/scale type pair, or 0 when cuDNN has no such
// pair.
int64_t BlockSizeOf(PT lhs, PT rhs, PT lhs_scale, PT rhs_scale) {
  if (IsF8(lhs) && IsF8(rhs) && !(lhs == PT::kF8E5M2 && rhs == PT::kF8E5M2) &&
      lhs_scale == PT::kF8E8M0FNU && rhs_scale == PT::kF8E8M0FNU) {
    return 32;  // MXFP8
  }
  if (lhs == PT::kF4E2M1FN && rhs == PT::kF4E2M1FN &&
      lhs_scale == PT::kF8E4M3FN && rhs_scale == PT::kF8E4M3FN) {
    return 16;  // NVFP4
  }
  return 0;
}

int64_t Dim(const Shape& s, int64_t from_end) {
  return s.dimensions(s.rank() - 1 - from_end);
}

}  // namespace

absl::StatusOr<BlockScaledDotDescription> DescribeBlockScaledDot(
    std::vector<Shape> operands, Shape result) {
  BlockScaledDotDescription d;
  if (operands.size() != 4 && operands.size() != 5) {
    return Invalid("takes 4 or 5 operands");
  }
  if (!result.IsTuple() || result.tuple_shapes_size() != 2 ||
      !result.tuple_shapes(0).IsArray() ||
      result.tuple_shapes(1).element_type() != PT::kU8 ||
      result.tuple_shapes(1).rank() != 1) {
    return Invalid("returns (result, u8[workspace])");
  }
  for (const Shape& s : operands) {
    if (!s.IsArray() || !DefaultLayout(s)) {
      return Invalid("operands are arrays in the default layout");
    }
  }
  const Shape& out = result.tuple_shapes(0);
  if (!DefaultLayout(out)) return Invalid("the result has the default layout");
  const Shape &lhs = operands[0], &rhs = operands[1];
  const Shape &ls = operands[2], &rs = operands[3];
  const int64_t rank = lhs.rank();
  if ((rank != 2 && rank != 3) || rhs.rank() != rank || ls.rank() != rank ||
      rs.rank() != rank || out.rank() != rank) {
    return Invalid("operands and result are all of rank 2 or all of rank 3");
  }
  d.block_size = BlockSizeOf(lhs.element_type(), rhs.element_type(),
                             ls.element_type(), rs.element_type());
  if (d.block_size == 0) {
    return Invalid(absl::StrCat(
        "no cuDNN block-scaled dot for ", PrimitiveTypeName(lhs.element_type()),
        " x ", PrimitiveTypeName(rhs.element_type()), " with ",
        PrimitiveTypeName(ls.element_type()), " / ",
        PrimitiveTypeName(rs.element_type()), " scales"));
  }
  const PT out_type = out.element_type();
  if (out_type != PT::kF32 && out_type != PT::kF16 && out_type != PT::kBF16) {
    return Invalid("the result is f32, f16 or bf16");
  }
  d.batch = rank == 3 ? lhs.dimensions(0) : 1;
  d.m = Dim(lhs, 1);
  d.n = Dim(rhs, 1);
  d.k = Dim(lhs, 0);
  d.scale_k = Dim(ls, 0);
  d.lhs_scale_rows = Dim(ls, 1);
  d.rhs_scale_rows = Dim(rs, 1);
  for (const Shape* s : {&rhs, &ls, &rs, &out}) {
    if (rank == 3 && s->dimensions(0) != d.batch) {
      return Invalid("batch sizes differ");
    }
  }
  if (Dim(rhs, 0) != d.k || d.k % d.block_size != 0) {
    return Invalid(absl::StrCat("K (", d.k, ") is the same on both sides, ",
                                "a multiple of the block size ", d.block_size));
  }
  if (Dim(rs, 0) != d.scale_k || d.scale_k < d.k / d.block_size ||
      d.scale_k % 4 != 0 || d.lhs_scale_rows % 128 != 0 ||
      d.rhs_scale_rows % 128 != 0 || d.lhs_scale_rows < d.m ||
      d.rhs_scale_rows < d.n) {
    return Invalid(
        "scales are padded to [rows % 128 == 0, K / block % 4 == 0] and "
        "cover their data");
  }
  if (Dim(out, 1) != d.m || Dim(out, 0) != d.n) {
    return Invalid("the result is [B?, M, N]");
  }
  if (operands.size() == 5 &&
      (operands[4].rank() != 0 || operands[4].element_type() != out_type)) {
    return Invalid("the global scale is a scalar of the result type");
  }
  d.workspace_bytes = result.tuple_shapes(1).dimensions(0);
  d.operands = std::move(operands);
  d.result = std::move(result);
  return d;
}

std::string BlockScaledDotToString(const BlockScaledDotDescription& dot) {
  return absl::StrCat(
      dot.block_size == 16 ? "NVFP4 " : "MXFP8 ",
      dot.operands[0].ToString(false), " x ", dot.operands[1].ToString(false),
      " blocks of ", dot.block_size,
      dot.has_global_scale() ? " * global scale" : "", " -> ",
      dot.out().ToString(false), " workspace ", dot.workspace_bytes);
}

}  // namespace xlite::runtime
