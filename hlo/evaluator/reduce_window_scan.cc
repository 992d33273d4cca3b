// XLA:CPU's blocked evaluation of scan-like reduce-windows (see
// reduce_window_scan.h). For a scan of length n > 16 along one dimension,
// XLA pads the input with the init value to a multiple of 16, scans each
// block of 16 on its own (init folded first, then the block's elements in
// window order), scans the block totals exclusively (recursively blocked
// when there are more than 16 blocks), and combines each element's block
// scan with the exclusive total of the blocks before it (after it for a
// reverse scan): f(block_scan, carry). The init value is thus folded in at
// every level, as XLA does for any init.

#include "hlo/evaluator/reduce_window_scan.h"

#include <cstring>
#include <optional>

#include "hlo/evaluator/accumulation.h"

namespace xlite::eval {
namespace {

// XLA:CPU's `xla_reduce_window_rewrite_base_length`.
constexpr int64_t kBaseLength = 16;

struct ScanSpec {
  int64_t dim;
  int64_t length;
  bool forward;    // padding low (prefix scan), else high (suffix scan)
  bool exclusive;  // padding of the full length: one more output
};

bool IsTrivial(const WindowDimension& wd) {
  return wd.size == 1 && wd.stride == 1 && wd.padding_low == 0 &&
         wd.padding_high == 0 && wd.window_dilation == 1 &&
         wd.base_dilation == 1;
}

// The reduce-windows XLA's rewriter matches: exactly one non-trivial window
// dimension, longer than the base length, whose window covers the whole
// input with stride 1, no dilation or reversal, and padding n-1 (inclusive)
// or n (exclusive) on one side only. A reducer returning a tuple must end in
// a tuple instruction.
std::optional<ScanSpec> MatchScan(const HloInstruction& hlo,
                                  const Window& window, Operands operands,
                                  const std::vector<Literal>& outs) {
  const Shape& input = operands[0]->shape();
  if (static_cast<int64_t>(window.dimensions.size()) != input.rank()) {
    return std::nullopt;
  }
  int64_t dim = -1;
  for (int64_t d = 0; d < input.rank(); ++d) {
    if (IsTrivial(window.dimensions[d])) continue;
    if (dim >= 0) return std::nullopt;
    dim = d;
  }
  if (dim < 0) return std::nullopt;
  const int64_t n = input.dimensions(dim);
  if (n <= kBaseLength) return std::nullopt;
  const HloInstruction* root = hlo.to_apply()->root_instruction();
  if (root->shape().IsTuple() && root->opcode() != HloOpcode::kTuple) {
    return std::nullopt;
  }
  const WindowDimension& wd = window.dimensions[dim];
  const int64_t lo = wd.padding_low, hi = wd.padding_high;
  const bool forward = (lo == n - 1 || lo == n) && hi == 0;
  const bool reverse = (hi == n - 1 || hi == n) && lo == 0;
  if (wd.stride != 1 || wd.size != n || (!forward && !reverse) ||
      wd.window_reversal || wd.base_dilation != 1 ||
      wd.window_dilation != 1) {
    return std::nullopt;
  }
  // The blocks are padded with the init value, so inputs and results must
  // share the init's element type (the verifier's rule too).
  const size_t k = outs.size();
  for (size_t i = 0; i < k; ++i) {
    const PrimitiveType t = operands[k + i]->shape().element_type();
    if (operands[i]->shape().element_type() != t ||
        outs[i].shape().element_type() != t ||
        outs[i].shape().dimensions(dim) != (lo == n || hi == n ? n + 1 : n)) {
      return std::nullopt;
    }
  }
  return ScanSpec{dim, n, forward, forward ? lo == n : hi == n};
}

// k parallel rank-1 arrays: the inputs or results of a variadic window.
using Lines = std::vector<Literal>;

void CopyElement(Lines& dst, int64_t d, const Lines& src, int64_t s) {
  for (size_t i = 0; i < dst.size(); ++i) {
    const int64_t w = ElementBytes(dst[i].shape());
    std::memcpy(dst[i].mutable_data().data() + d * w,
                src[i].data().data() + s * w, w);
  }
}

class BlockedScan {
 public:
  BlockedScan(Combiner& combiner, Operands inits)
      : combiner_(combiner), inits_(inits.begin(), inits.end()) {}

  // The (exclusive: one longer) forward or reverse scan of `x`.
  absl::StatusOr<Lines> Scan(const Lines& x, bool forward, bool exclusive) {
    const int64_t n = x[0].element_count();
    if (n <= kBaseLength) {
      Lines out = Make(n + (exclusive ? 1 : 0));
      absl::Status s = Direct(x, 0, n, forward, exclusive, out, 0);
      if (!s.ok()) return s;
      return out;
    }
    return Blocked(x, forward, exclusive);
  }

 private:
  // Arrays of length n holding the init values.
  Lines Make(int64_t n) {
    Lines lines;
    for (const Literal* init : inits_) {
      lines.emplace_back(Shape(init->shape().element_type(), {n}));
      FillWith(lines.back(), *init);
    }
    return lines;
  }

  absl::Status Fold(Lines& out, int64_t t, const Lines& x, int64_t begin,
                    int64_t end) {
    std::vector<Literal*> accs;
    for (Literal& l : out) accs.push_back(&l);
    std::vector<const Literal*> values;
    for (const Literal& l : x) values.push_back(&l);
    for (int64_t p = begin; p < end; ++p) {
      absl::Status s = combiner_.Combine(accs, t, values, p);
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }

  // The plain reduce-window scan of x[at, at+n) into out[out_at, ...),
  // which holds the init values: output t folds x[0, t] (exclusive:
  // x[0, t)) forward, x[t, n) in reverse, in increasing position order.
  absl::Status Direct(const Lines& x, int64_t at, int64_t n, bool forward,
                      bool exclusive, Lines& out, int64_t out_at) {
    const int64_t outputs = n + (exclusive ? 1 : 0);
    for (int64_t t = 0; t < outputs; ++t) {
      const int64_t begin = forward ? 0 : t;
      const int64_t end = forward ? (exclusive ? t : t + 1) : n;
      absl::Status s = Fold(out, out_at + t, x, at + begin, at + end);
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }

  absl::StatusOr<Lines> Blocked(const Lines& x, bool forward,
                                bool exclusive) {
    const int64_t n = x[0].element_count();
    const int64_t blocks = (n + kBaseLength - 1) / kBaseLength;
    Lines padded = Make(blocks * kBaseLength);
    for (int64_t p = 0; p < n; ++p) CopyElement(padded, p, x, p);
    Lines scans = Make(blocks * kBaseLength);
    Lines totals = Make(blocks);
    for (int64_t j = 0; j < blocks; ++j) {
      absl::Status s = Direct(padded, j * kBaseLength, kBaseLength, forward,
                              false, scans, j * kBaseLength);
      if (!s.ok()) return s;
      const int64_t last = forward ? kBaseLength - 1 : 0;
      CopyElement(totals, j, scans, j * kBaseLength + last);
    }
    absl::StatusOr<Lines> carries = Scan(totals, forward, true);
    if (!carries.ok()) return carries.status();
    std::vector<Literal*> accs;
    for (Literal& l : scans) accs.push_back(&l);
    std::vector<const Literal*> values;
    for (const Literal& l : *carries) values.push_back(&l);
    Lines out = Make(n + (exclusive ? 1 : 0));
    const int64_t shift = forward && exclusive ? 1 : 0;
    for (int64_t p = 0; p < n; ++p) {
      const int64_t j = p / kBaseLength;
      absl::Status s = combiner_.Combine(accs, p, values, forward ? j : j + 1);
      if (!s.ok()) return s;
      CopyElement(out, p + shift, scans, p);
    }
    return out;
  }

  Combiner& combiner_;
  std::vector<const Literal*> inits_;
};

}  // namespace

absl::StatusOr<bool> EvalBlockedScanWindow(Combiner& combiner,
                                           const HloInstruction& hlo,
                                           const Window& window,
                                           Operands operands,
                                           std::vector<Literal>& outs) {
  const std::optional<ScanSpec> spec = MatchScan(hlo, window, operands, outs);
  if (!spec.has_value()) return false;
  const size_t k = outs.size();
  const Shape& input = operands[0]->shape();
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < input.rank(); ++d) {
    if (d < spec->dim) outer *= input.dimensions(d);
    if (d > spec->dim) inner *= input.dimensions(d);
  }
  const int64_t n = spec->length;
  const int64_t m = n + (spec->exclusive ? 1 : 0);
  BlockedScan scan(combiner, operands.subspan(k));
  Lines x;
  for (size_t i = 0; i < k; ++i) {
    x.emplace_back(Shape(operands[i]->shape().element_type(), {n}));
  }
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      for (size_t i = 0; i < k; ++i) {
        const int64_t w = ElementBytes(x[i].shape());
        for (int64_t p = 0; p < n; ++p) {
          std::memcpy(x[i].mutable_data().data() + p * w,
                      operands[i]->data().data() + ((o * n + p) * inner + in) * w,
                      w);
        }
      }
      absl::StatusOr<Lines> line = scan.Scan(x, spec->forward, spec->exclusive);
      if (!line.ok()) return line.status();
      for (size_t i = 0; i < k; ++i) {
        const int64_t w = ElementBytes(outs[i].shape());
        for (int64_t p = 0; p < m; ++p) {
          std::memcpy(outs[i].mutable_data().data() +
                          ((o * m + p) * inner + in) * w,
                      (*line)[i].data().data() + p * w, w);
        }
      }
    }
  }
  return true;
}

}  // namespace xlite::eval
