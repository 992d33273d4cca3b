#include "cpu_backend/row_locality.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "hlo/ir/computation.h"
#include "hlo/ir/opcode.h"

namespace xlite::cpu {

namespace {

// The dimensions longer than 1 of `shape`.
std::vector<int64_t> LongDimensions(const Shape& shape) {
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    if (shape.dimensions(d) > 1) dims.push_back(d);
  }
  return dims;
}

// The dimension of `x`'s operand `i` that `x`'s row dimension `r` reads it
// at, or -1 when a row of `x` may read other rows of it.
int64_t OperandRow(const HloInstruction* x, int64_t i, int64_t r) {
  const HloInstruction* o = x->operand(i);
  if (!o->shape().IsArray() || !x->shape().IsArray()) return -1;
  const Shape& in = o->shape();
  const Shape& out = x->shape();
  auto whole_along = [&](const WindowDimension& wd) {
    return wd.size == 1 && std::max<int64_t>(wd.stride, 1) == 1 &&
           wd.padding_low == 0 && wd.padding_high == 0 &&
           std::max<int64_t>(wd.base_dilation, 1) == 1;
  };
  if (IsElementwiseOpcode(x->opcode()) || x->opcode() == HloOpcode::kMap) {
    return in.dimensions() == out.dimensions() ? r : -1;
  }
  switch (x->opcode()) {
    case HloOpcode::kBroadcast: {
      const auto& dims = x->dimensions();
      auto it = std::find(dims.begin(), dims.end(), r);
      return it == dims.end() ? -1 : it - dims.begin();
    }
    case HloOpcode::kTranspose:
      return x->dimensions()[r];
    case HloOpcode::kReshape:
    case HloOpcode::kBitcast: {
      // Only dimensions of 1 come or go.
      const std::vector<int64_t> a = LongDimensions(in);
      const std::vector<int64_t> b = LongDimensions(out);
      if (a.size() != b.size()) return -1;
      for (size_t k = 0; k < a.size(); ++k) {
        if (in.dimensions(a[k]) != out.dimensions(b[k])) return -1;
      }
      auto it = std::find(b.begin(), b.end(), r);
      return it == b.end() ? -1 : a[it - b.begin()];
    }
    case HloOpcode::kReduce: {
      const int64_t n = x->operand_count() / 2;
      if (i >= n) return -1;  // an init value, read by every row
      const auto& reduced = x->dimensions();
      int64_t kept = 0;
      for (int64_t d = 0; d < in.rank(); ++d) {
        if (std::find(reduced.begin(), reduced.end(), d) != reduced.end()) {
          continue;
        }
        if (kept++ == r) return d;
      }
      return -1;
    }
    case HloOpcode::kReduceWindow: {
      const int64_t n = x->operand_count() / 2;
      if (i >= n || !x->attrs().window.has_value()) return -1;
      return whole_along(x->attrs().window->dimensions[r]) ? r : -1;
    }
    case HloOpcode::kSlice: {
      if (static_cast<int64_t>(x->attrs().slice.size()) <= r) return -1;
      const SliceDimension& sd = x->attrs().slice[r];
      return sd.start == 0 && sd.limit == in.dimensions(r) &&
                     std::max<int64_t>(sd.stride, 1) == 1
                 ? r
                 : -1;
    }
    case HloOpcode::kConcatenate:
      return x->dimensions()[0] == r ? -1 : r;
    case HloOpcode::kReverse: {
      const auto& dims = x->dimensions();
      return std::find(dims.begin(), dims.end(), r) == dims.end() ? r : -1;
    }
    case HloOpcode::kPad: {
      const auto& dims = x->attrs().padding.dimensions;
      if (i != 0 || static_cast<int64_t>(dims.size()) <= r) return -1;
      const PaddingDimension& pd = dims[r];
      return pd.edge_padding_low == 0 && pd.edge_padding_high == 0 &&
                     pd.interior_padding == 0
                 ? r
                 : -1;
    }
    default:
      return -1;
  }
}

}  // namespace

std::vector<int64_t> OperandRowDimensions(const HloInstruction* kernel,
                                          int64_t row_dim) {
  std::vector<int64_t> rows(kernel->operand_count(), -1);
  if (kernel->opcode() != HloOpcode::kFusion) {
    for (int64_t i = 0; i < kernel->operand_count(); ++i) {
      rows[i] = OperandRow(kernel, i, row_dim);
    }
    return rows;
  }
  const HloComputation* body = kernel->fused_computation();
  // Each instruction's row dimension, users before operands; -1 once two
  // users read it at different dimensions, or one at any row.
  absl::flat_hash_map<const HloInstruction*, int64_t> row;
  row[body->root_instruction()] = row_dim;
  std::vector<HloInstruction*> order = body->MakeInstructionPostOrder();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const HloInstruction* x = *it;
    auto found = row.find(x);
    if (found == row.end()) continue;  // not read
    const int64_t r = found->second;
    for (int64_t i = 0; i < x->operand_count(); ++i) {
      const int64_t k = r < 0 ? -1 : OperandRow(x, i, r);
      auto [slot, inserted] = row.try_emplace(x->operand(i), k);
      if (!inserted && slot->second != k) slot->second = -1;
    }
  }
  const auto& params = body->parameter_instructions();
  for (size_t i = 0; i < params.size() && i < rows.size(); ++i) {
    auto found = row.find(params[i]);
    if (found != row.end()) rows[i] = found->second;
  }
  return rows;
}

}  // namespace xlite::cpu
