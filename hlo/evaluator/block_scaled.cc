// Reference implementations of the block-scaled custom calls
// (../shared/specs/block-scaling.md), so rewritten modules stay evaluable:
//   __op$block_scaled_dot(lhs, rhs, lhs_scale[, rhs_scale[, global_scale]])
//   __op$quantize(x) -> (data, scale), __op$dequantize(data, scale)
//   __cudnn$blockScaledDot(lhs, rhs, lhs_scale, rhs_scale[, global_scale])
//       with scales swizzled into 128x4 tiles; returns (result, u8[0]).

#include <cmath>

#include "hlo/evaluator/block_scaled_call.h"
#include "hlo/evaluator/internal.h"
#include "hlo/ir/block_scaled_config.h"
#include "hlo/ir/float_types.h"

namespace xlite::eval {
namespace {

absl::Status Invalid(absl::string_view what) {
  return absl::InvalidArgumentError(what);
}

// The explicit block size of a call (the rewriter reads it the same way).
absl::StatusOr<std::optional<int64_t>> ConfiguredBlockSize(
    const HloInstruction& call) {
  absl::StatusOr<std::optional<int64_t>> block =
      BlockSizeFromBackendConfig(call.backend_config());
  if (!block.ok()) return Invalid(block.status().message());
  return block;
}

int64_t Last(const Shape& s) { return s.dimensions(s.rank() - 1); }

// The dequantized operand in double: data[.., r, k] * scale[.., r, k / B]
// (scale rows/blocks beyond the data's are padding and ignored).
std::vector<double> Dequantize(const Literal& data, const Literal& scale,
                               int64_t block, bool round_to_result,
                               PrimitiveType result) {
  const Shape& ds = data.shape();
  const Shape& ss = scale.shape();
  const int64_t k = Last(ds);
  const int64_t rows = ds.ElementCount() / std::max<int64_t>(k, 1);
  const int64_t scale_k = Last(ss);
  const int64_t scale_rows_per_batch = ss.dimensions(ss.rank() - 2);
  const int64_t rows_per_batch = ds.dimensions(ds.rank() - 2);
  std::vector<double> out(ds.ElementCount());
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t b = r / rows_per_batch, rr = r % rows_per_batch;
    for (int64_t c = 0; c < k; ++c) {
      const int64_t s = (b * scale_rows_per_batch + rr) * scale_k + c / block;
      double v = data.GetAsDouble(r * k + c);
      double f = scale.GetAsDouble(s);
      if (round_to_result) {
        // convert(data) * convert(scale), each in the result type.
        v = DecodeToF64(result, EncodeFromF64(result, v));
        f = DecodeToF64(result, EncodeFromF64(result, f));
        v = DecodeToF64(result, EncodeFromF64(result, v * f));
      } else {
        v *= f;
      }
      out[r * k + c] = v;
    }
  }
  return out;
}

// out[b, m, n] = sum_k lhs[b, m, k] * rhs[b, n, k], then * global, rounded
// to the result type.
Literal ContractLast(const std::vector<double>& lhs, const Shape& ls,
                     const std::vector<double>& rhs, const Shape& rs,
                     const Shape& out_shape, std::optional<double> global,
                     bool accumulate_in_f32) {
  const int64_t k = Last(ls);
  const int64_t m = ls.dimensions(ls.rank() - 2);
  const int64_t n = rs.dimensions(rs.rank() - 2);
  const int64_t batches = ls.rank() == 3 ? ls.dimensions(0) : 1;
  Literal out(out_shape);
  for (int64_t b = 0; b < batches; ++b) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        float acc32 = 0;
        for (int64_t c = 0; c < k; ++c) {
          const double p = lhs[(b * m + i) * k + c] * rhs[(b * n + j) * k + c];
          acc += p;
          acc32 += static_cast<float>(p);
        }
        double v = accumulate_in_f32 ? acc32 : acc;
        if (global.has_value()) v *= *global;
        out.SetFromDouble((b * m + i) * n + j, v);
      }
    }
  }
  return out;
}

absl::StatusOr<Literal> BlockScaledDot(const HloInstruction& call,
                                       absl::Span<const Literal* const> ops) {
  if (ops.size() < 3 || ops.size() > 5) {
    return Invalid("__op$block_scaled_dot takes 3 to 5 operands");
  }
  const Shape& out = call.shape();
  const PrimitiveType type = out.element_type();
  const Shape& ls = ops[0]->shape();
  const Shape& rs = ops[1]->shape();
  if (ls.rank() != rs.rank() || (ls.rank() != 2 && ls.rank() != 3) ||
      Last(ls) != Last(rs)) {
    return Invalid("block-scaled dot operands must be [B?,M,K] x [B?,N,K]");
  }
  const int64_t k = Last(ls);
  const Shape& lss = ops[2]->shape();
  absl::StatusOr<std::optional<int64_t>> configured = ConfiguredBlockSize(call);
  if (!configured.ok()) return configured.status();
  std::optional<int64_t> block = *configured;
  if (!block.has_value()) {
    if (Last(lss) == 0 || k % Last(lss) != 0) {
      return Invalid("the block size K / scale_K does not divide K");
    }
    block = k / Last(lss);
  }
  if (*block <= 0) return Invalid("block size must be positive");
  const int64_t blocks = (k + *block - 1) / *block;
  auto check_scale = [&](const Shape& data,
                         const Shape& scale) -> absl::Status {
    if (scale.rank() != data.rank() || Last(scale) < blocks ||
        scale.dimensions(scale.rank() - 2) < data.dimensions(data.rank() - 2)) {
      return Invalid("a scale is smaller than its data needs");
    }
    return absl::OkStatus();
  };
  absl::Status s = check_scale(ls, lss);
  if (!s.ok()) return s;
  const std::vector<double> lhs =
      Dequantize(*ops[0], *ops[2], *block, true, type);
  std::vector<double> rhs;
  if (ops.size() >= 4) {
    // Each side's block size comes from its own scale unless configured
    // (MXFP8 data can meet NVFP4 data: blocks of 32 and 16).
    int64_t rhs_block = *block;
    const Shape& rss = ops[3]->shape();
    if (!configured->has_value()) {
      if (Last(rss) == 0 || k % Last(rss) != 0) {
        return Invalid("the block size K / scale_K does not divide K");
      }
      rhs_block = k / Last(rss);
    }
    if (rss.rank() != rs.rank() ||
        Last(rss) < (k + rhs_block - 1) / rhs_block ||
        rss.dimensions(rss.rank() - 2) < rs.dimensions(rs.rank() - 2)) {
      return Invalid("a scale is smaller than its data needs");
    }
    rhs = Dequantize(*ops[1], *ops[3], rhs_block, true, type);
  } else {
    rhs.resize(rs.ElementCount());
    for (int64_t i = 0; i < rs.ElementCount(); ++i) {
      rhs[i] = DecodeToF64(type, EncodeFromF64(type, ops[1]->GetAsDouble(i)));
    }
  }
  std::optional<double> global;
  if (ops.size() == 5) {
    if (ops[4]->shape().rank() != 0 || ops[4]->shape().element_type() != type) {
      return Invalid("global_scale must be a scalar of the result type");
    }
    global = ops[4]->GetAsDouble(0);
  }
  // dot(...) in the result type (accumulated in f32 as XLA's CPU backend
  // does for narrow types), then the global-scale multiply.
  Literal dot = ContractLast(lhs, ls, rhs, rs, out, std::nullopt,
                             type != PrimitiveType::kF64);
  if (global.has_value()) {
    for (int64_t i = 0; i < dot.element_count(); ++i) {
      dot.SetFromDouble(i, dot.GetAsDouble(i) * *global);
    }
  }
  return dot;
}

// Undoes the 128x4 tile swizzle: S'[b, r, k] holds S at the position the
// forward reshape [R/128,4,32,Ks/4,4] -> transpose {0,1,4,3,2,5} moved it to.
Literal Unswizzle(const Literal& swizzled) {
  const Shape& s = swizzled.shape();
  const int64_t rows = s.dimensions(s.rank() - 2);
  const int64_t ks = Last(s);
  const int64_t batches = s.rank() == 3 ? s.dimensions(0) : 1;
  Literal out(s);
  // Forward: [R/128 (a), 4 (b), 32 (c), Ks/4 (d), 4 (e)] -> [a, d, c, b, e].
  for (int64_t batch = 0; batch < batches; ++batch) {
    for (int64_t a = 0; a < rows / 128; ++a) {
      for (int64_t b = 0; b < 4; ++b) {
        for (int64_t c = 0; c < 32; ++c) {
          for (int64_t d = 0; d < ks / 4; ++d) {
            for (int64_t e = 0; e < 4; ++e) {
              const int64_t original =
                  (((a * 4 + b) * 32 + c) * (ks / 4) + d) * 4 + e;
              const int64_t moved =
                  (((a * (ks / 4) + d) * 32 + c) * 4 + b) * 4 + e;
              out.SetBits(batch * rows * ks + original,
                          swizzled.GetBits(batch * rows * ks + moved));
            }
          }
        }
      }
    }
  }
  return out;
}

absl::StatusOr<Literal> CudnnBlockScaledDot(
    const HloInstruction& call, absl::Span<const Literal* const> ops) {
  return EvaluateCudnnBlockScaledDot(ops, call.shape());
}

// The largest power of two not above the type's maximum (256 for e4m3fn).
double OverflowPower(PrimitiveType type) {
  const FloatFormat* f = GetFloatFormat(type);
  double max = 0;
  for (uint64_t bits = 0;
       f != nullptr && bits < (uint64_t{1} << f->total_bits()); ++bits) {
    const double v = DecodeToF64(type, bits);
    if (std::isfinite(v)) max = std::max(max, v);
  }
  return max > 0 ? std::exp2(std::floor(std::log2(max))) : 1.0;
}

absl::StatusOr<Literal> Quantize(const HloInstruction& call,
                                 absl::Span<const Literal* const> ops) {
  if (ops.size() != 1 || !call.shape().IsTuple() ||
      call.shape().tuple_shapes_size() != 2) {
    return Invalid("__op$quantize takes x and returns (data, scale)");
  }
  const Shape& ds = call.shape().tuple_shapes(0);
  const Shape& ss = call.shape().tuple_shapes(1);
  const Literal& x = *ops[0];
  const int64_t k = Last(x.shape());
  absl::StatusOr<std::optional<int64_t>> configured = ConfiguredBlockSize(call);
  if (!configured.ok()) return configured.status();
  std::optional<int64_t> block = *configured;
  if (!block.has_value()) {
    if (Last(ss) == 0 || k % Last(ss) != 0) {
      return Invalid("the block size K / scale_K does not divide K");
    }
    block = k / Last(ss);
  }
  const int64_t rows = x.element_count() / std::max<int64_t>(k, 1);
  const int64_t blocks = Last(ss);
  const double overflow = OverflowPower(ds.element_type());
  Literal data(ds), scale(ss);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t b = 0; b < blocks; ++b) {
      double absmax = 0;
      for (int64_t c = b * *block; c < std::min(k, (b + 1) * *block); ++c) {
        absmax = std::max(absmax, std::fabs(x.GetAsDouble(r * k + c)));
      }
      scale.SetFromDouble(r * blocks + b, absmax / overflow);
      const double stored = scale.GetAsDouble(r * blocks + b);
      for (int64_t c = b * *block; c < std::min(k, (b + 1) * *block); ++c) {
        data.SetFromDouble(r * k + c, x.GetAsDouble(r * k + c) / stored);
      }
    }
  }
  std::vector<Literal> elements;
  elements.push_back(std::move(data));
  elements.push_back(std::move(scale));
  return Literal::Tuple(std::move(elements));
}

absl::StatusOr<Literal> DequantizeCall(const HloInstruction& call,
                                       absl::Span<const Literal* const> ops) {
  if (ops.size() != 2) return Invalid("__op$dequantize takes (data, scale)");
  const int64_t k = Last(ops[0]->shape());
  absl::StatusOr<std::optional<int64_t>> configured = ConfiguredBlockSize(call);
  if (!configured.ok()) return configured.status();
  std::optional<int64_t> block = *configured;
  const int64_t scale_k = Last(ops[1]->shape());
  if (!block.has_value()) {
    if (scale_k == 0 || k % scale_k != 0) {
      return Invalid("the block size K / scale_K does not divide K");
    }
    block = k / scale_k;
  }
  const PrimitiveType type = call.shape().element_type();
  const std::vector<double> values =
      Dequantize(*ops[0], *ops[1], *block, true, type);
  Literal out(call.shape());
  for (size_t i = 0; i < values.size(); ++i) out.SetFromDouble(i, values[i]);
  return out;
}

}  // namespace

absl::StatusOr<Literal> EvaluateCudnnBlockScaledDot(
    absl::Span<const Literal* const> ops, const Shape& shape) {
  if (ops.size() != 4 && ops.size() != 5) {
    return Invalid("__cudnn$blockScaledDot takes 4 or 5 operands");
  }
  if (!shape.IsTuple() || shape.tuple_shapes_size() != 2 ||
      !shape.tuple_shapes(0).IsArray()) {
    return Invalid("__cudnn$blockScaledDot returns (result, workspace)");
  }
  const Shape& out = shape.tuple_shapes(0);
  for (int i : {0, 1, 2, 3}) {
    if (ops[i]->shape().rank() < 2 || ops[i]->shape().rank() != out.rank()) {
      return Invalid("__cudnn$blockScaledDot operands are [B?, rows, K]");
    }
  }
  const Shape& ls = ops[0]->shape();
  const Shape& rs = ops[1]->shape();
  const PrimitiveType data = ls.element_type();
  const int64_t block = data == PrimitiveType::kF4E2M1FN ? 16 : 32;
  for (int i : {2, 3}) {
    const Shape& sc = ops[i]->shape();
    if (sc.dimensions(sc.rank() - 2) % 128 != 0 || Last(sc) % 4 != 0) {
      return Invalid("swizzled scales must be [rows % 128 == 0, K % 4 == 0]");
    }
  }
  const Literal lhs_scale = Unswizzle(*ops[2]);
  const Literal rhs_scale = Unswizzle(*ops[3]);
  const std::vector<double> lhs =
      Dequantize(*ops[0], lhs_scale, block, false, out.element_type());
  const std::vector<double> rhs =
      Dequantize(*ops[1], rhs_scale, block, false, out.element_type());
  std::optional<double> global;
  if (ops.size() == 5) global = ops[4]->GetAsDouble(0);
  // cuDNN: matmul in FLOAT, optional MUL epilogue, output in the result type.
  std::vector<Literal> elements;
  elements.push_back(ContractLast(lhs, ls, rhs, rs, out, global, true));
  elements.push_back(Literal(shape.tuple_shapes(1)));
  return Literal::Tuple(std::move(elements));
}

void RegisterBlockScaledCustomCalls(CustomCallRegistry& registry) {
  registry.Register("__op$block_scaled_dot", BlockScaledDot);
  registry.Register("__cudnn$blockScaledDot", CudnnBlockScaledDot);
  registry.Register("__op$quantize", Quantize);
  registry.Register("__op$dequantize", DequantizeCall);
}

}  // namespace xlite::eval
