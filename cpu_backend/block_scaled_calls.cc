// The block-scaled custom calls (../shared/specs/block-scaling.md), as the
// evaluator's block_scaled.cc computes them:
//   __op$block_scaled_dot(lhs, rhs, lhs_scale[, rhs_scale[, global_scale]])
//   __cudnn$blockScaledDot(lhs, rhs, lhs_scale, rhs_scale[, global_scale])
//       (scales swizzled into 128x4 tiles; returns (result, workspace))
//   __op$dequantize(data, scale), __op$quantize(x) -> (data, scale)
// The dots dequantize each side into an f64 scratch array in generated
// code (data * scale, rounded to the result type for the op form, exact
// for cuDNN's), sum with the runtime library's xlite_cpu_block_scaled_dot,
// and round the sums (times the global scale) to the result. Quantize and
// dequantize are loops in generated code. Every rounding is the
// evaluator's (double arithmetic, one rounding per SetFromDouble), so the
// results are its bit for bit. Malformed calls fail at compile time.

#include <cmath>
#include <limits>
#include <optional>

#include "absl/strings/str_cat.h"
#include "codegen/elemental.h"
#include "codegen/loops.h"
#include "codegen/scalar_ops.h"
#include "cpu_backend/library_calls.h"
#include "hlo/ir/block_scaled_config.h"
#include "hlo/ir/float_types.h"

namespace xlite::cpu {

using codegen::Index;
using codegen::IrArray;

namespace {

constexpr PrimitiveType kF64 = PrimitiveType::kF64;

int64_t Last(const Shape& s) { return s.dimensions(s.rank() - 1); }

// x (f64) stored into `type` and read back (SetFromDouble, GetAsDouble).
absl::StatusOr<llvm::Value*> RoundThrough(llvm::IRBuilderBase& b,
                                          llvm::Value* x, PrimitiveType type) {
  if (type == kF64) return x;
  absl::StatusOr<llvm::Value*> narrow = codegen::EmitConvert(b, kF64, type, x);
  if (!narrow.ok()) return narrow.status();
  return codegen::EmitConvert(b, type, kF64, *narrow);
}

absl::StatusOr<llvm::Value*> ReadF64(llvm::IRBuilderBase& b, const IrArray& a,
                                     const Index& at) {
  return codegen::EmitConvert(b, a.shape().element_type(), kF64,
                              a.EmitRead(b, at));
}

// The row-major position of `at` in `shape`.
llvm::Value* Linear(llvm::IRBuilderBase& b, const Index& at,
                    const Shape& shape) {
  return codegen::LinearizeRowMajor(b, at, shape);
}

// The block size of a call: its backend config's, else K / scale_K.
absl::StatusOr<int64_t> BlockSize(const HloInstruction* hlo, int64_t k,
                                  const Shape& scale) {
  absl::StatusOr<std::optional<int64_t>> configured =
      BlockSizeFromBackendConfig(hlo->backend_config());
  if (!configured.ok()) {
    return codegen::Unsupported(hlo, configured.status().message());
  }
  if (configured->has_value()) return **configured;
  if (scale.rank() == 0 || Last(scale) == 0 || k % Last(scale) != 0) {
    return codegen::Unsupported(hlo,
                                "the block size K / scale_K does not divide K");
  }
  return k / Last(scale);
}

// How one side is dequantized: data[.., r, c] * scale[.., r, c / block]
// (the evaluator's Dequantize), data, scale and product each rounded to the
// result type (the op form) or exact (cuDNN's, whose scale is read through
// the 128x4 swizzle).
struct Side {
  const HloInstruction* data;
  const HloInstruction* scale = nullptr;  // null: data only, rounded
  int64_t block = 1;
  bool swizzled = false;
  bool round = true;
};

// Checks that every scale position `side` reads exists.
absl::Status CheckScale(const HloInstruction* hlo, const Side& side) {
  const Shape& ds = side.data->shape();
  if (ds.rank() < 2) {
    return codegen::Unsupported(hlo, "block-scaled data needs rank >= 2");
  }
  if (side.scale == nullptr) return absl::OkStatus();
  if (side.block <= 0) {
    return codegen::Unsupported(hlo, "block size must be positive");
  }
  const Shape& ss = side.scale->shape();
  const int64_t k = Last(ds);
  const int64_t blocks = (k + side.block - 1) / side.block;
  // Batches index the scale's leading dimensions row-major, as the data's.
  const bool fits =
      ss.rank() == ds.rank() && Last(ss) >= blocks &&
      ss.dimensions(ss.rank() - 2) >= ds.dimensions(ds.rank() - 2) &&
      DimensionProduct(ss, 0, ss.rank() - 2) >=
          DimensionProduct(ds, 0, ds.rank() - 2);
  if (!fits) {
    return codegen::Unsupported(hlo, "a scale is smaller than its data needs");
  }
  if (side.swizzled &&
      (ss.dimensions(ss.rank() - 2) % 128 != 0 || Last(ss) % 4 != 0)) {
    return codegen::Unsupported(
        hlo, "swizzled scales must be [rows % 128 == 0, K % 4 == 0]");
  }
  return absl::OkStatus();
}

// The position in the swizzled scale of the unswizzled (row, col): the
// forward reshape [R/128, 4, 32, Ks/4, 4] -> transpose {0,1,4,3,2,5}.
llvm::Value* Swizzled(llvm::IRBuilderBase& b, llvm::Value* row,
                      llvm::Value* col, int64_t ks) {
  auto c = [&](int64_t v) { return b.getInt64(v); };
  llvm::Value* a = b.CreateUDiv(row, c(128));
  llvm::Value* bb = b.CreateUDiv(b.CreateURem(row, c(128)), c(32));
  llvm::Value* cc = b.CreateURem(row, c(32));
  llvm::Value* d = b.CreateUDiv(col, c(4));
  llvm::Value* e = b.CreateURem(col, c(4));
  llvm::Value* moved = b.CreateAdd(b.CreateMul(a, c(ks / 4)), d);
  moved = b.CreateAdd(b.CreateMul(moved, c(32)), cc);
  moved = b.CreateAdd(b.CreateMul(moved, c(4)), bb);
  return b.CreateAdd(b.CreateMul(moved, c(4)), e);
}

// The dequantized element of `side` at data index `at`, as a double.
absl::StatusOr<llvm::Value*> Dequantized(llvm::IRBuilderBase& b,
                                         const Side& side, const IrArray& data,
                                         const IrArray* scale, const Index& at,
                                         PrimitiveType type) {
  absl::StatusOr<llvm::Value*> v = ReadF64(b, data, at);
  if (!v.ok()) return v.status();
  if (side.round) v = RoundThrough(b, *v, type);
  if (!v.ok() || scale == nullptr) return v;
  const Shape& ds = data.shape();
  const Shape& ss = scale->shape();
  const int64_t rank = ds.rank();
  // The batch: the leading dimensions, row-major.
  llvm::Value* batch = b.getInt64(0);
  for (int64_t d = 0; d + 2 < rank; ++d) {
    batch =
        b.CreateAdd(b.CreateMul(batch, b.getInt64(ds.dimensions(d))), at[d]);
  }
  const int64_t scale_rows = ss.dimensions(rank - 2);
  const int64_t scale_k = Last(ss);
  llvm::Value* row = at[rank - 2];
  llvm::Value* col = b.CreateUDiv(at[rank - 1], b.getInt64(side.block));
  llvm::Value* within =
      side.swizzled ? Swizzled(b, row, col, scale_k)
                    : b.CreateAdd(b.CreateMul(row, b.getInt64(scale_k)), col);
  llvm::Value* s =
      b.CreateAdd(b.CreateMul(batch, b.getInt64(scale_rows * scale_k)), within);
  absl::StatusOr<llvm::Value*> f =
      ReadF64(b, *scale, codegen::DelinearizeRowMajor(b, s, ss));
  if (!f.ok()) return f.status();
  if (side.round) f = RoundThrough(b, *f, type);
  if (!f.ok()) return f;
  llvm::Value* product = b.CreateFMul(*v, *f);
  return side.round ? RoundThrough(b, product, type) : product;
}

llvm::Value* Alloc(EmitterContext& ctx, llvm::IRBuilderBase& b, int64_t bytes) {
  auto* type = llvm::FunctionType::get(b.getPtrTy(), {b.getInt64Ty()}, false);
  return b.CreateCall(ctx.Runtime("xlite_cpu_alloc", type),
                      {b.getInt64(bytes)});
}

void Free(EmitterContext& ctx, llvm::IRBuilderBase& b, llvm::Value* block) {
  auto* type = llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy()}, false);
  b.CreateCall(ctx.Runtime("xlite_cpu_free", type), {block});
}

// Writes `side` dequantized into the row-major f64 array at `to`.
absl::Status EmitDequantizeInto(EmitterContext& ctx, llvm::IRBuilderBase& b,
                                const Side& side, PrimitiveType type,
                                llvm::Value* to) {
  absl::StatusOr<IrArray> data = ctx.ArrayFor(b, side.data);
  if (!data.ok()) return data.status();
  std::optional<IrArray> scale;
  if (side.scale != nullptr) {
    absl::StatusOr<IrArray> s = ctx.ArrayFor(b, side.scale);
    if (!s.ok()) return s.status();
    scale = *s;
  }
  const Shape& ds = side.data->shape();
  return codegen::EmitLoopNest(b, ds, [&](const Index& at) -> absl::Status {
    absl::StatusOr<llvm::Value*> v =
        Dequantized(b, side, *data, scale ? &*scale : nullptr, at, type);
    if (!v.ok()) return v.status();
    b.CreateStore(*v,
                  b.CreateInBoundsGEP(b.getDoubleTy(), to, Linear(b, at, ds)));
    return absl::OkStatus();
  });
}

// The sides of a block-scaled dot call.
absl::StatusOr<std::pair<Side, Side>> DotSides(const HloInstruction* hlo,
                                               bool cudnn) {
  const int64_t n = hlo->operand_count();
  Side lhs{hlo->operand(0), hlo->operand(2)};
  Side rhs{hlo->operand(1), n >= 4 ? hlo->operand(3) : nullptr};
  const int64_t k = Last(lhs.data->shape());
  if (cudnn) {
    const int64_t block =
        lhs.data->shape().element_type() == PrimitiveType::kF4E2M1FN ? 16 : 32;
    for (Side* s : {&lhs, &rhs}) {
      s->block = block;
      s->swizzled = true;
      s->round = false;
    }
  } else {
    for (Side* s : {&lhs, &rhs}) {
      if (s->scale == nullptr) continue;
      absl::StatusOr<int64_t> block = BlockSize(hlo, k, s->scale->shape());
      if (!block.ok()) return block.status();
      s->block = *block;
    }
  }
  for (const Side* s : {&lhs, &rhs}) {
    if (absl::Status st = CheckScale(hlo, *s); !st.ok()) return st;
  }
  return std::make_pair(lhs, rhs);
}

}  // namespace

absl::Status EmitBlockScaledDotCall(EmitterContext& ctx, llvm::IRBuilderBase& b,
                                    const HloInstruction* hlo) {
  const bool cudnn =
      hlo->attrs().custom_call->target == "__cudnn$blockScaledDot";
  const int64_t n = hlo->operand_count();
  if (cudnn ? (n != 4 && n != 5 || !hlo->shape().IsTuple() ||
               hlo->shape().tuple_shapes_size() != 2)
            : (n < 3 || n > 5 || !hlo->shape().IsArray())) {
    return codegen::Unsupported(
        hlo, cudnn ? "__cudnn$blockScaledDot takes 4 or 5 operands and "
                     "returns (result, workspace)"
                   : "__op$block_scaled_dot takes 3 to 5 operands");
  }
  const Shape& out = cudnn ? hlo->shape().tuple_shapes(0) : hlo->shape();
  const Shape& ls = hlo->operand(0)->shape();
  const Shape& rs = hlo->operand(1)->shape();
  if (ls.rank() != rs.rank() || (ls.rank() != 2 && ls.rank() != 3) ||
      Last(ls) != Last(rs) || out.rank() != ls.rank()) {
    return codegen::Unsupported(
        hlo, "block-scaled dot operands must be [B?,M,K] x [B?,N,K]");
  }
  const PrimitiveType type = out.element_type();
  if (n == 5 && (hlo->operand(4)->shape().rank() != 0 ||
                 (!cudnn && hlo->operand(4)->shape().element_type() != type))) {
    return codegen::Unsupported(
        hlo, "global_scale must be a scalar of the result type");
  }
  absl::StatusOr<std::pair<Side, Side>> sides = DotSides(hlo, cudnn);
  if (!sides.ok()) return sides.status();
  const int64_t batch = ls.rank() == 3 ? ls.dimensions(0) : 1;
  const int64_t m = ls.dimensions(ls.rank() - 2);
  const int64_t cols = rs.dimensions(rs.rank() - 2);
  const int64_t k = Last(ls);
  std::vector<int64_t> want = {m, cols};
  if (ls.rank() == 3) want.insert(want.begin(), batch);
  if (std::vector<int64_t>(out.dimensions().begin(), out.dimensions().end()) !=
          want ||
      (ls.rank() == 3 && rs.dimensions(0) != batch)) {
    return codegen::Unsupported(
        hlo,
        "the result of a [B?,M,K] x [B?,N,K] block-scaled dot is [B?,M,N]");
  }
  llvm::Value* lhs = Alloc(ctx, b, batch * m * k * 8);
  llvm::Value* rhs = Alloc(ctx, b, batch * cols * k * 8);
  llvm::Value* sums = Alloc(ctx, b, batch * m * cols * 8);
  for (auto [side, to] : {std::make_pair(&sides->first, lhs),
                          std::make_pair(&sides->second, rhs)}) {
    if (absl::Status s = EmitDequantizeInto(ctx, b, *side, type, to); !s.ok()) {
      return s;
    }
  }
  LibraryCallArrays arrays(ctx, b);
  // XLA's CPU backend accumulates everything but f64 in f32.
  arrays.Call(
      "xlite_cpu_block_scaled_dot",
      {lhs, rhs, sums, b.getInt64(batch), b.getInt64(m), b.getInt64(cols),
       b.getInt64(k), b.getInt32(type != PrimitiveType::kF64)});
  llvm::Value* global = nullptr;
  if (n == 5) {
    absl::StatusOr<IrArray> g = ctx.ArrayFor(b, hlo->operand(4));
    if (!g.ok()) return g.status();
    absl::StatusOr<llvm::Value*> v = ReadF64(b, *g, {});
    if (!v.ok()) return v.status();
    global = *v;
  }
  absl::StatusOr<IrArray> result =
      ctx.ArrayFor(b, hlo, cudnn ? ShapeIndex{0} : ShapeIndex{});
  if (!result.ok()) return result.status();
  absl::Status s =
      codegen::EmitLoopNest(b, out, [&](const Index& at) -> absl::Status {
        absl::StatusOr<llvm::Value*> v = b.CreateLoad(
            b.getDoubleTy(),
            b.CreateInBoundsGEP(b.getDoubleTy(), sums, Linear(b, at, out)));
        // cuDNN scales the f32 sum before its one rounding; the op form
        // rounds the dot, then the product with the global scale.
        if (global != nullptr && cudnn) v = b.CreateFMul(*v, global);
        if (global != nullptr && !cudnn) {
          v = RoundThrough(b, *v, type);
          if (!v.ok()) return v.status();
          v = b.CreateFMul(*v, global);
        }
        absl::StatusOr<llvm::Value*> r =
            codegen::EmitConvert(b, kF64, type, *v);
        if (!r.ok()) return r.status();
        result->EmitWrite(b, at, *r);
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  if (cudnn) {
    // The workspace: zeros, as the evaluator returns it.
    absl::StatusOr<IrArray> workspace = ctx.ArrayFor(b, hlo, {1});
    if (!workspace.ok()) return workspace.status();
    llvm::Value* zero = llvm::Constant::getNullValue(
        codegen::ValueType(workspace->shape().element_type(), ctx.context()));
    s = codegen::EmitLoopNest(b, workspace->shape(), [&](const Index& at) {
      workspace->EmitWrite(b, at, zero);
      return absl::OkStatus();
    });
    if (!s.ok()) return s;
  }
  for (llvm::Value* block : {lhs, rhs, sums}) Free(ctx, b, block);
  return arrays.Finish();
}

absl::Status EmitDequantizeCall(EmitterContext& ctx, llvm::IRBuilderBase& b,
                                const HloInstruction* hlo) {
  if (hlo->operand_count() != 2 || !hlo->shape().IsArray()) {
    return codegen::Unsupported(hlo, "__op$dequantize takes (data, scale)");
  }
  Side side{hlo->operand(0), hlo->operand(1)};
  if (side.data->shape().rank() < 2) {
    return codegen::Unsupported(hlo, "block-scaled data needs rank >= 2");
  }
  absl::StatusOr<int64_t> block =
      BlockSize(hlo, Last(side.data->shape()), side.scale->shape());
  if (!block.ok()) return block.status();
  side.block = *block;
  if (absl::Status s = CheckScale(hlo, side); !s.ok()) return s;
  absl::StatusOr<IrArray> data = ctx.ArrayFor(b, side.data);
  if (!data.ok()) return data.status();
  absl::StatusOr<IrArray> scale = ctx.ArrayFor(b, side.scale);
  if (!scale.ok()) return scale.status();
  absl::StatusOr<IrArray> out = ctx.ArrayFor(b, hlo);
  if (!out.ok()) return out.status();
  const PrimitiveType type = hlo->shape().element_type();
  if (hlo->shape().dimensions() != side.data->shape().dimensions()) {
    return codegen::Unsupported(hlo, "the result must have the data's shape");
  }
  return codegen::EmitLoopNest(
      b, hlo->shape(), [&](const Index& at) -> absl::Status {
        absl::StatusOr<llvm::Value*> v =
            Dequantized(b, side, *data, &*scale, at, type);
        if (!v.ok()) return v.status();
        absl::StatusOr<llvm::Value*> r =
            codegen::EmitConvert(b, kF64, type, *v);
        if (!r.ok()) return r.status();
        out->EmitWrite(b, at, *r);
        return absl::OkStatus();
      });
}

namespace {

// The largest power of two not above `type`'s largest finite value (256
// for f8e4m3fn): the quantization grid's top.
double OverflowPower(PrimitiveType type) {
  const FloatFormat* f = GetFloatFormat(type);
  double max = 0;
  if (f != nullptr && f->total_bits() <= 16) {
    for (uint64_t bits = 0; bits < (uint64_t{1} << f->total_bits()); ++bits) {
      const double v = DecodeToF64(type, bits);
      if (std::isfinite(v)) max = std::max(max, v);
    }
  } else if (type == PrimitiveType::kF32) {
    max = std::numeric_limits<float>::max();
  } else if (type == PrimitiveType::kF64) {
    max = std::numeric_limits<double>::max();
  }
  return max > 0 ? std::exp2(std::floor(std::log2(max))) : 1.0;
}

}  // namespace

absl::Status EmitQuantizeCall(EmitterContext& ctx, llvm::IRBuilderBase& b,
                              const HloInstruction* hlo) {
  const HloInstruction* x = hlo->operand(0);
  if (hlo->operand_count() != 1 || !hlo->shape().IsTuple() ||
      hlo->shape().tuple_shapes_size() != 2 || x->shape().rank() < 1 ||
      !hlo->shape().tuple_shapes(0).IsArray() ||
      hlo->shape().tuple_shapes(0).dimensions() != x->shape().dimensions()) {
    return codegen::Unsupported(
        hlo, "__op$quantize takes x and returns (data of x's shape, scale)");
  }
  const Shape& xs = x->shape();
  const Shape& ss = hlo->shape().tuple_shapes(1);
  const int64_t k = Last(xs);
  absl::StatusOr<int64_t> block = BlockSize(hlo, k, ss);
  if (!block.ok()) return block.status();
  const int64_t rows = xs.ElementCount() / std::max<int64_t>(k, 1);
  const int64_t blocks = Last(ss);
  if (*block <= 0 || ss.ElementCount() < rows * blocks) {
    return codegen::Unsupported(hlo, "the scale is smaller than x needs");
  }
  absl::StatusOr<IrArray> in = ctx.ArrayFor(b, x);
  if (!in.ok()) return in.status();
  absl::StatusOr<IrArray> data = ctx.ArrayFor(b, hlo, {0});
  if (!data.ok()) return data.status();
  absl::StatusOr<IrArray> scale = ctx.ArrayFor(b, hlo, {1});
  if (!scale.ok()) return scale.status();
  const PrimitiveType dt = data->shape().element_type();
  const PrimitiveType st = ss.element_type();
  // Elements past the last block keep the zeros they start with.
  auto zeros = [&](const IrArray& a) {
    llvm::Value* zero = llvm::Constant::getNullValue(
        codegen::ValueType(a.shape().element_type(), ctx.context()));
    return codegen::EmitLoopNest(b, a.shape(), [&](const Index& at) {
      a.EmitWrite(b, at, zero);
      return absl::OkStatus();
    });
  };
  for (const IrArray* a : {&*data, &*scale}) {
    if (absl::Status s = zeros(*a); !s.ok()) return s;
  }
  llvm::Value* overflow =
      llvm::ConstantFP::get(b.getDoubleTy(), OverflowPower(dt));
  llvm::AllocaInst* absmax = codegen::EntryAlloca(b, b.getDoubleTy());
  auto at = [&](const Shape& shape, llvm::Value* linear) {
    return codegen::DelinearizeRowMajor(b, linear, shape);
  };
  return codegen::EmitForLoop(
      b, b.getInt64(0), b.getInt64(rows), "row",
      [&](llvm::Value* r) -> absl::Status {
        return codegen::EmitForLoop(
            b, b.getInt64(0), b.getInt64(blocks), "block",
            [&](llvm::Value* blk) -> absl::Status {
              llvm::Value* lo = b.CreateMul(blk, b.getInt64(*block));
              llvm::Value* hi = b.CreateAdd(lo, b.getInt64(*block));
              hi = b.CreateSelect(b.CreateICmpSLT(hi, b.getInt64(k)), hi,
                                  b.getInt64(k));
              llvm::Value* row = b.CreateMul(r, b.getInt64(k));
              b.CreateStore(llvm::ConstantFP::get(b.getDoubleTy(), 0.0),
                            absmax);
              absl::Status s = codegen::EmitForLoop(
                  b, lo, hi, "max", [&](llvm::Value* c) -> absl::Status {
                    absl::StatusOr<llvm::Value*> v =
                        ReadF64(b, *in, at(xs, b.CreateAdd(row, c)));
                    if (!v.ok()) return v.status();
                    llvm::Value* a =
                        b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, *v);
                    llvm::Value* m = b.CreateLoad(b.getDoubleTy(), absmax);
                    // std::max(m, a): NaNs never replace m.
                    b.CreateStore(b.CreateSelect(b.CreateFCmpOLT(m, a), a, m),
                                  absmax);
                    return absl::OkStatus();
                  });
              if (!s.ok()) return s;
              llvm::Value* q =
                  b.CreateFDiv(b.CreateLoad(b.getDoubleTy(), absmax), overflow);
              absl::StatusOr<llvm::Value*> stored_bits =
                  codegen::EmitConvert(b, kF64, st, q);
              if (!stored_bits.ok()) return stored_bits.status();
              llvm::Value* s_at =
                  b.CreateAdd(b.CreateMul(r, b.getInt64(blocks)), blk);
              scale->EmitWrite(b, at(ss, s_at), *stored_bits);
              absl::StatusOr<llvm::Value*> stored =
                  codegen::EmitConvert(b, st, kF64, *stored_bits);
              if (!stored.ok()) return stored.status();
              return codegen::EmitForLoop(
                  b, lo, hi, "quantize", [&](llvm::Value* c) -> absl::Status {
                    llvm::Value* linear = b.CreateAdd(row, c);
                    absl::StatusOr<llvm::Value*> v =
                        ReadF64(b, *in, at(xs, linear));
                    if (!v.ok()) return v.status();
                    absl::StatusOr<llvm::Value*> d = codegen::EmitConvert(
                        b, kF64, dt, b.CreateFDiv(*v, *stored));
                    if (!d.ok()) return d.status();
                    data->EmitWrite(b, at(data->shape(), linear), *d);
                    return absl::OkStatus();
                  });
            });
      });
}

}  // namespace xlite::cpu
