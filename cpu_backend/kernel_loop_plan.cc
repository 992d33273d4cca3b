#include "cpu_backend/kernel_loop_plan.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "codegen/ir_array.h"
#include "codegen/loops.h"
#include "hlo/ir/computation.h"
#include "hlo/ir/opcode.h"

namespace xlite::cpu {
namespace {

// An array the kernel reads, and how its dimensions follow the result's.
struct Read {
  const Shape* shape;
  DimensionMap to_out;
};

// The dimensions of `s` longer than 1, in logical or physical
// (major-to-minor) order.
std::vector<int64_t> LongDimensions(const Shape& s, bool physical) {
  std::vector<int64_t> order;
  if (physical) {
    const llvm::SmallVector<int64_t, 6> m = codegen::MajorToMinor(s);
    order.assign(m.begin(), m.end());
  } else {
    for (int64_t d = 0; d < s.rank(); ++d) order.push_back(d);
  }
  std::vector<int64_t> dims;
  for (int64_t d : order) {
    if (s.dimensions(d) > 1) dims.push_back(d);
  }
  return dims;
}

}  // namespace

std::optional<DimensionMap> OperandMap(const HloInstruction* h, int64_t k,
                                       const DimensionMap& to_out) {
  const Shape& in = h->operand(k)->shape();
  if (!in.IsArray() || in.rank() == 0) return std::nullopt;
  switch (h->opcode()) {
    case HloOpcode::kTranspose: {
      DimensionMap m(in.rank(), -1);
      for (int64_t i = 0; i < h->shape().rank(); ++i) {
        m[h->dimensions()[i]] = to_out[i];
      }
      return m;
    }
    case HloOpcode::kBroadcast: {
      DimensionMap m(in.rank(), -1);
      for (int64_t j = 0; j < in.rank(); ++j) {
        m[j] = to_out[h->dimensions()[j]];
      }
      return m;
    }
    case HloOpcode::kBitcast:
    case HloOpcode::kReshape: {
      // Only those that add or drop dimensions of 1, or (bitcasts) relabel
      // dimensions in memory order: logical order for a reshape, physical
      // for a bitcast.
      const bool physical = h->opcode() == HloOpcode::kBitcast;
      const std::vector<int64_t> a = LongDimensions(in, physical);
      const std::vector<int64_t> b = LongDimensions(h->shape(), physical);
      if (a.size() != b.size()) return std::nullopt;
      DimensionMap m(in.rank(), -1);
      for (size_t i = 0; i < a.size(); ++i) {
        if (in.dimensions(a[i]) != h->shape().dimensions(b[i])) {
          return std::nullopt;
        }
        m[a[i]] = to_out[b[i]];
      }
      return m;
    }
    case HloOpcode::kCopy:
    case HloOpcode::kSlice:
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kPad:
    case HloOpcode::kReverse:
    case HloOpcode::kConcatenate:
      if (in.rank() != h->shape().rank()) return std::nullopt;
      return to_out;
    default:
      if (IsElementwiseOpcode(h->opcode()) && in.rank() == h->shape().rank()) {
        return to_out;
      }
      return std::nullopt;
  }
}

namespace {

// Collects the arrays read through `h` (a fused instruction when `fused`,
// else an operand of an unfused kernel), each once.
void CollectReads(const HloInstruction* h, const DimensionMap& to_out,
                  bool fused, absl::flat_hash_set<const HloInstruction*>& seen,
                  std::vector<Read>& reads) {
  if (!seen.insert(h).second) return;
  if (!fused || h->opcode() == HloOpcode::kParameter) {
    if (h->shape().IsArray()) reads.push_back({&h->shape(), to_out});
    return;
  }
  for (int64_t k = 0; k < h->operand_count(); ++k) {
    std::optional<DimensionMap> m = OperandMap(h, k, to_out);
    if (m) CollectReads(h->operand(k), *m, fused, seen, reads);
  }
}

}  // namespace

std::optional<codegen::Tiling> ChooseTiling(
    const HloInstruction* kernel,
    const std::vector<const HloInstruction*>& values, const Shape& out) {
  const int64_t minor = codegen::LaneDimension(out);
  if (minor < 0) return std::nullopt;
  const bool fused = kernel->opcode() == HloOpcode::kFusion;
  absl::flat_hash_set<const HloInstruction*> seen;
  std::vector<Read> reads;
  DimensionMap identity(out.rank());
  for (int64_t d = 0; d < out.rank(); ++d) identity[d] = d;
  for (const HloInstruction* value : values) {
    if (value->shape().rank() != out.rank()) continue;
    if (fused) {
      CollectReads(value, identity, true, seen, reads);
      continue;
    }
    for (int64_t k = 0; k < value->operand_count(); ++k) {
      std::optional<DimensionMap> m = OperandMap(value, k, identity);
      if (m) CollectReads(value->operand(k), *m, false, seen, reads);
    }
  }
  // The largest operand read across the result's layout decides.
  std::optional<codegen::Tiling> best;
  int64_t best_bytes = kMinTiledOperandBytes - 1;
  for (const Read& read : reads) {
    const int64_t bytes = read.shape->ByteSizeOfElements();
    const int64_t read_minor = codegen::LaneDimension(*read.shape);
    if (bytes <= best_bytes || read_minor < 0) continue;
    const int64_t other = read.to_out[read_minor];
    if (other < 0 || other == minor || out.dimensions(other) <= 1) continue;
    best = codegen::Tiling{minor, other, kTileSize};
    best_bytes = bytes;
  }
  return best;
}

namespace {

// Bytes of every array leaf of `shape`.
int64_t ArrayBytes(const Shape& shape) {
  if (shape.IsArray()) return shape.ByteSizeOfElements();
  int64_t bytes = 0;
  for (const Shape& leaf : shape.tuple_shapes()) bytes += ArrayBytes(leaf);
  return bytes;
}

// Element operations of one instruction: its result's elements, or the
// operand's for those that combine many operand elements into one.
int64_t ElementOps(const HloInstruction* h) {
  switch (h->opcode()) {
    case HloOpcode::kParameter:
    case HloOpcode::kConstant:
    case HloOpcode::kTuple:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kBitcast:
      return 0;
    case HloOpcode::kReduce:
    case HloOpcode::kReduceWindow:
    case HloOpcode::kDot:
    case HloOpcode::kConvolution: {
      int64_t n = 0;
      for (const HloInstruction* o : h->operands()) {
        if (o->shape().IsArray()) n = std::max(n, o->shape().ElementCount());
      }
      return std::max(n, h->shape().IsArray() ? h->shape().ElementCount() : 0);
    }
    default:
      return h->shape().IsArray() ? h->shape().ElementCount() : 0;
  }
}

}  // namespace

int64_t MaxTasks(const HloInstruction* kernel) {
  std::vector<const HloInstruction*> body = {kernel};
  if (kernel->opcode() == HloOpcode::kFusion) {
    const std::vector<HloInstruction*> fused =
        kernel->fused_computation()->instructions();
    body.assign(fused.begin(), fused.end());
  }
  int64_t ops = 0;
  for (const HloInstruction* h : body) {
    if (h->HasSideEffect() || h->opcode() == HloOpcode::kCustomCall ||
        h->opcode() == HloOpcode::kRngBitGenerator) {
      return 1;
    }
    ops += ElementOps(h);
  }
  int64_t bytes = ArrayBytes(kernel->shape());
  for (const HloInstruction* o : kernel->operands()) {
    bytes += ArrayBytes(o->shape());
  }
  return std::max<int64_t>(
      1, std::max(bytes / kBytesPerTask, ops / kElementOpsPerTask));
}

}  // namespace xlite::cpu
