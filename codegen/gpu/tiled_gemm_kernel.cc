// The tiled GEMM kernel: a fusion marked as a tiled GEMM
// (hlo/ir/tiled_gemm_config.h) whose root reaches one dot through
// elementwise instructions of the dot's dimensions (its epilogue).
//
// Block g computes one block_m x block_n tile of one batch element
// (tiled_gemm.h). Per step of block_k the block stages the lhs tile and
// the rhs tile through shared memory, each element through the fused
// producers and converted to what the main loop multiplies, then
// multiplies them:
//   - on CUDA cores (tiled_gemm_simt.cc), in the accumulation type with
//     the same products in the same K order as the evaluator;
//   - on tensor cores (tiled_gemm_mma.cc), with warp-wide mma.sync;
//   - on Hopper's warpgroup tensor cores (tiled_gemm_wgmma.cc), with
//     wgmma.mma_async reading both tiles from shared memory.
// Finally each accumulator, rounded to the dot's type, goes through the
// epilogue (bias, activation, convert) to the output at in-range indices.
//
// Missing, for later slices: tcgen05, TMA, warp specialization, swizzled
// layouts, vectorized loads.

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "codegen/contraction_arithmetic.h"
#include "codegen/gpu/kernels.h"
#include "codegen/gpu/tiled_gemm.h"
#include "codegen/gpu/wgmma_layout.h"
#include "codegen/loops.h"
#include "codegen/scalar_ops.h"
#include "hlo/ir/opcode.h"

namespace xlite::codegen::gpu {
namespace tiled_gemm {

GemmView ViewOf(const HloInstruction* dot) {
  GemmView v;
  v.dot = dot;
  const DotDimensionNumbers& d = dot->attrs().dot->dnums;
  const Shape& ls = dot->operand(0)->shape();
  const Shape& rs = dot->operand(1)->shape();
  v.lhs_batch = d.lhs_batch_dimensions;
  v.rhs_batch = d.rhs_batch_dimensions;
  v.lhs_k = d.lhs_contracting_dimensions;
  v.rhs_k = d.rhs_contracting_dimensions;
  v.lhs_free = DotFreeDimensions(ls.rank(), v.lhs_batch, v.lhs_k);
  v.rhs_free = DotFreeDimensions(rs.rank(), v.rhs_batch, v.rhs_k);
  int64_t o = 0;
  for (size_t i = 0; i < v.lhs_batch.size(); ++i) v.out_batch.push_back(o++);
  for (size_t i = 0; i < v.lhs_free.size(); ++i) v.out_m.push_back(o++);
  for (size_t i = 0; i < v.rhs_free.size(); ++i) v.out_n.push_back(o++);
  v.batch = ProductOf(ls, v.lhs_batch);
  v.m = ProductOf(ls, v.lhs_free);
  v.n = ProductOf(rs, v.rhs_free);
  v.k = ProductOf(ls, v.lhs_k);
  v.acc = ContractionAccumulationType(ls.element_type(), rs.element_type(),
                                      dot->shape().element_type());
  return v;
}

Side SideOf(const GemmView& v, bool lhs, int64_t tile) {
  Side s;
  s.operand = v.dot->operand(lhs ? 0 : 1);
  s.batch = lhs ? &v.lhs_batch : &v.rhs_batch;
  s.free = lhs ? &v.lhs_free : &v.rhs_free;
  s.k = lhs ? &v.lhs_k : &v.rhs_k;
  s.free_size = lhs ? v.m : v.n;
  s.tile = tile;
  return s;
}

PrimitiveType TensorCoreStorageType(TensorCoreInput input) {
  switch (input) {
    case TensorCoreInput::kF16:
      return PrimitiveType::kF16;
    case TensorCoreInput::kBF16:
      return PrimitiveType::kBF16;
    case TensorCoreInput::kTF32:
      return PrimitiveType::kF32;
    case TensorCoreInput::kS8:
      return PrimitiveType::kS8;
  }
  return PrimitiveType::kF32;
}

PrimitiveType TileStorageType(const HloInstruction& dot, bool lhs,
                              TensorCoreInput input, const TiledGemmConfig& c) {
  return TiledGemmTakesF8(dot, c)
             ? dot.operand(lhs ? 0 : 1)->shape().element_type()
             : TensorCoreStorageType(input);
}

llvm::Value* Side::Offset(llvm::IRBuilderBase& b, llvm::Value* f,
                          llvm::Value* kk) const {
  if (core_sbo == 0) {
    return b.CreateAdd(b.CreateMul(kk, b.getInt64(k_stride)),
                       b.CreateMul(f, b.getInt64(f_stride)));
  }
  const int64_t bytes = type->getPrimitiveSizeInBits() / 8;
  llvm::Value* per = b.getInt64(16 / bytes);  // elements in a core row
  llvm::Value* eight = b.getInt64(8);
  // K-major: 8 rows along M/N of `per` along K; MN-major: 8 rows along K
  // of `per` along M/N.
  llvm::Value* row = mn_major ? kk : f;
  llvm::Value* col = mn_major ? f : kk;
  llvm::Value* f_group = b.CreateUDiv(f, mn_major ? per : eight);
  llvm::Value* k_group = b.CreateUDiv(kk, mn_major ? eight : per);
  llvm::Value* groups =
      b.CreateAdd(b.CreateMul(f_group, b.getInt64(core_sbo / bytes)),
                  b.CreateMul(k_group, b.getInt64(core_lbo / bytes)));
  llvm::Value* in_core = b.CreateAdd(b.CreateMul(b.CreateURem(row, eight), per),
                                     b.CreateURem(col, per));
  return b.CreateAdd(groups, in_core);
}

TileLayout TileLayoutOf(const GemmView& v, const TiledGemmConfig& c) {
  TileLayout t;
  auto align16 = [](int64_t bytes) { return (bytes + 15) / 16 * 16; };
  if (!c.tensor_cores()) {
    t.element_bytes = StorageBytes(v.acc);
    t.lhs_bytes = align16(c.block_k * c.block_m * t.element_bytes);
    t.rhs_bytes = align16(c.block_k * c.block_n * t.element_bytes);
    return t;
  }
  const std::optional<TensorCoreInput> input = TensorCoreInputOf(*v.dot);
  t.element_bytes = StorageBytes(TileStorageType(
      *v.dot, /*lhs=*/true, input.value_or(TensorCoreInput::kTF32), c));
  if (c.warpgroups()) {  // core matrices, unpadded
    t.lhs_bytes = c.block_m * c.block_k * t.element_bytes;
    t.rhs_bytes = c.block_n * c.block_k * t.element_bytes;
    return t;
  }
  t.k_major_stride = c.block_k + 16 / t.element_bytes;
  t.lhs_bytes = align16(c.block_m * t.k_major_stride * t.element_bytes);
  t.rhs_bytes = align16(c.block_n * t.k_major_stride * t.element_bytes);
  return t;
}

llvm::Value* TileArray(KernelScope& k, int64_t bytes, int64_t total,
                       const char* name, int64_t alignment) {
  return total > kMaxStaticSharedBytes
             ? k.target.DynamicSharedArray(k.b, bytes, alignment, name)
             : k.target.SharedArray(k.b, bytes, alignment, name);
}

namespace {

// Whether the operand's physically minor dimension (ignoring size 1) is a
// contracting one: then threads walk K fastest while loading.
bool KIsMinor(const Side& s) {
  const Shape& shape = s.operand->shape();
  const llvm::SmallVector<int64_t, 6> order = MajorToMinor(shape);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    if (shape.dimensions(*it) == 1) continue;
    return std::find(s.k->begin(), s.k->end(), *it) != s.k->end();
  }
  return false;
}

}  // namespace

bool WarpgroupTileIsMnMajor(const HloInstruction* operand,
                            const std::vector<int64_t>& k,
                            PrimitiveType storage) {
  if (StorageBytes(storage) != 2) return false;
  Side s;
  s.operand = operand;
  s.k = &k;
  return !KIsMinor(s);
}

absl::StatusOr<TileFetch> FetchTile(KernelScope& k, const GemmView& v,
                                    const Side& s, int64_t block_k,
                                    int64_t threads, llvm::Value* tid,
                                    llvm::Value* batch, llvm::Value* f0,
                                    llvm::Value* k0) {
  llvm::IRBuilderBase& b = k.b;
  const int64_t elements = s.tile * block_k;
  const bool k_minor = KIsMinor(s);
  const Shape& shape = s.operand->shape();
  TileFetch fetch;
  for (int64_t r = 0; r * threads < elements; ++r) {
    llvm::Value* e = b.CreateAdd(tid, b.getInt64(r * threads));
    TileFetch::Element out;
    if ((r + 1) * threads > elements) {
      out.valid = b.CreateICmpULT(e, b.getInt64(elements));
    }
    llvm::Value* kk = k_minor ? b.CreateURem(e, b.getInt64(block_k))
                              : b.CreateUDiv(e, b.getInt64(s.tile));
    llvm::Value* f = k_minor ? b.CreateUDiv(e, b.getInt64(block_k))
                             : b.CreateURem(e, b.getInt64(s.tile));
    out.offset = s.Offset(b, f, kk);
    out.value = EntryAlloca(b, s.type);
    b.CreateStore(llvm::Constant::getNullValue(s.type), out.value);
    llvm::Value* fg = b.CreateAdd(f0, f);
    llvm::Value* kg = b.CreateAdd(k0, kk);
    llvm::Value* in_range =
        b.CreateAnd(b.CreateICmpULT(fg, b.getInt64(s.free_size)),
                    b.CreateICmpULT(kg, b.getInt64(v.k)));
    if (out.valid != nullptr) in_range = b.CreateAnd(in_range, out.valid);
    absl::Status status = EmitIf(k, in_range, [&]() -> absl::Status {
      Index index(shape.rank(), nullptr);
      DelinearizeInto(b, batch, shape, *s.batch, index);
      DelinearizeInto(b, fg, shape, *s.free, index);
      DelinearizeInto(b, kg, shape, *s.k, index);
      absl::StatusOr<llvm::Value*> x = k.emitter.ValueAt(s.operand, -1, index);
      if (!x.ok()) return x.status();
      absl::StatusOr<llvm::Value*> converted = s.convert(*x);
      if (!converted.ok()) return converted.status();
      b.CreateStore(*converted, out.value);
      return absl::OkStatus();
    });
    if (!status.ok()) return status;
    fetch.elements.push_back(out);
  }
  return fetch;
}

void StoreTile(KernelScope& k, const Side& s, const TileFetch& fetch,
               llvm::Value* buffer) {
  llvm::IRBuilderBase& b = k.b;
  for (const TileFetch::Element& e : fetch.elements) {
    auto store = [&]() -> absl::Status {
      b.CreateStore(b.CreateLoad(s.type, e.value),
                    b.CreateGEP(s.type, buffer, {e.offset}));
      return absl::OkStatus();
    };
    if (e.valid == nullptr) {
      (void)store();
    } else {
      (void)EmitIf(k, e.valid, store);
    }
  }
}

namespace {

// Both sides' tiles of K step `kt`: fetched into registers, or copied
// asynchronously into the buffers `lhs_buffer` / `rhs_buffer` for a side
// that copies (tiled_gemm_async.cc).
absl::StatusOr<std::pair<TileFetch, TileFetch>> FetchStep(
    KernelScope& k, const GemmView& v, const TiledGemmConfig& c,
    const Side& lhs, const Side& rhs, const BlockOrigin& origin,
    llvm::Value* tid, llvm::Value* kt, llvm::Value* lhs_buffer,
    llvm::Value* rhs_buffer) {
  llvm::Value* k0 = k.b.CreateMul(kt, k.b.getInt64(c.block_k));
  std::pair<TileFetch, TileFetch> out;
  for (const Side* s : {&lhs, &rhs}) {
    const bool is_lhs = s == &lhs;
    llvm::Value* f0 = is_lhs ? origin.m0 : origin.n0;
    TileFetch& fetch = is_lhs ? out.first : out.second;
    if (s->async.has_value()) {
      if (absl::Status st = IssueAsyncTile(k, v, *s, c.block_k, c.threads(),
                                           tid, origin.batch, f0, k0,
                                           is_lhs ? lhs_buffer : rhs_buffer);
          !st.ok()) {
        return st;
      }
      continue;
    }
    absl::StatusOr<TileFetch> f =
        FetchTile(k, v, *s, c.block_k, c.threads(), tid, origin.batch, f0, k0);
    if (!f.ok()) return f.status();
    fetch = *std::move(f);
  }
  return out;
}

// Buffer `stage` (an i64 value) of a side.
llvm::Value* Buffer(llvm::IRBuilderBase& b, const Side& s, int64_t bytes,
                    llvm::Value* stage) {
  return b.CreateGEP(b.getInt8Ty(), s.shared,
                     {b.CreateMul(stage, b.getInt64(bytes))});
}

// Stores the fetched tiles and waits for the copied ones (this thread's;
// the barrier after shows them to the block).
void Land(KernelScope& k, const TiledGemmConfig& c, const Side& lhs,
          const Side& rhs, const std::pair<TileFetch, TileFetch>& f,
          llvm::Value* lhs_buffer, llvm::Value* rhs_buffer) {
  StoreTile(k, lhs, f.first, lhs_buffer);
  StoreTile(k, rhs, f.second, rhs_buffer);
  if (lhs.async.has_value() || rhs.async.has_value()) {
    k.target.AsyncCopyWait(k.b);
  }
  // wgmma reads through the async proxy.
  if (c.warpgroups()) k.target.FenceProxyAsyncShared(k.b);
}

}  // namespace

bool PipelinesTiles(const TiledGemmConfig& c, const Side& lhs,
                    const Side& rhs) {
  return c.stages > 2 && lhs.async.has_value() && rhs.async.has_value();
}

absl::Status EmitMainLoop(KernelScope& k, const GemmView& v,
                          const TiledGemmConfig& c, const Side& lhs,
                          const Side& rhs, int64_t lhs_bytes, int64_t rhs_bytes,
                          const BlockOrigin& origin, llvm::Value* tid,
                          int64_t in_flight, const MultiplyStep& multiply) {
  llvm::IRBuilderBase& b = k.b;
  const int64_t k_tiles = (v.k + c.block_k - 1) / c.block_k;
  // More stages only where both tiles arrive by cp.async; otherwise (an
  // operand whose buffer proved less than 16-byte aligned when the kernel
  // was emitted, after the tiling was chosen) the two-stage loop below
  // runs in the first two buffers.
  if (PipelinesTiles(c, lhs, rhs)) {
    return EmitPipelinedLoop(k, v, c, lhs, rhs, lhs_bytes, rhs_bytes, origin,
                             tid, in_flight, multiply);
  }
  if (in_flight != 0) {
    return absl::InternalError(
        "a multiply left in flight outside the pipelined loop");
  }
  auto stage_step = [&](llvm::Value* kt, llvm::Value* stage) -> absl::Status {
    llvm::Value* a = Buffer(b, lhs, lhs_bytes, stage);
    llvm::Value* x = Buffer(b, rhs, rhs_bytes, stage);
    absl::StatusOr<std::pair<TileFetch, TileFetch>> f =
        FetchStep(k, v, c, lhs, rhs, origin, tid, kt, a, x);
    if (!f.ok()) return f.status();
    Land(k, c, lhs, rhs, *f, a, x);
    return absl::OkStatus();
  };
  if (c.stages == 1 || k_tiles <= 1) {
    return EmitForLoop(b, b.getInt64(0), b.getInt64(k_tiles), "k_tile",
                       [&](llvm::Value* kt) -> absl::Status {
                         ElementalEmitter::Scope scope(k.emitter);
                         if (absl::Status s = stage_step(kt, b.getInt64(0));
                             !s.ok())
                           return s;
                         k.target.Barrier(b);
                         multiply(lhs.shared, rhs.shared);
                         k.target.Barrier(b);
                         return absl::OkStatus();
                       });
  }
  {
    ElementalEmitter::Scope scope(k.emitter);
    if (absl::Status s = stage_step(b.getInt64(0), b.getInt64(0)); !s.ok()) {
      return s;
    }
  }
  k.target.Barrier(b);
  absl::Status s = EmitForLoop(
      b, b.getInt64(0), b.getInt64(k_tiles - 1), "k_tile",
      [&](llvm::Value* kt) -> absl::Status {
        ElementalEmitter::Scope scope(k.emitter);
        llvm::Value* next = b.CreateAdd(kt, b.getInt64(1));
        llvm::Value* later = b.CreateURem(next, b.getInt64(2));
        llvm::Value* a_later = Buffer(b, lhs, lhs_bytes, later);
        llvm::Value* x_later = Buffer(b, rhs, rhs_bytes, later);
        absl::StatusOr<std::pair<TileFetch, TileFetch>> f =
            FetchStep(k, v, c, lhs, rhs, origin, tid, next, a_later, x_later);
        if (!f.ok()) return f.status();
        llvm::Value* now = b.CreateURem(kt, b.getInt64(2));
        multiply(Buffer(b, lhs, lhs_bytes, now),
                 Buffer(b, rhs, rhs_bytes, now));
        Land(k, c, lhs, rhs, *f, a_later, x_later);
        k.target.Barrier(b);
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  llvm::Value* last = b.getInt64((k_tiles - 1) % 2);
  multiply(Buffer(b, lhs, lhs_bytes, last), Buffer(b, rhs, rhs_bytes, last));
  return absl::OkStatus();
}

absl::Status StoreResult(KernelScope& k, const GemmView& v,
                         const HloInstruction* root, llvm::Value* batch,
                         llvm::Value* m, llvm::Value* n, llvm::Value* acc) {
  llvm::IRBuilderBase& b = k.b;
  const Shape& out = v.dot->shape();
  const PrimitiveType lt = v.dot->operand(0)->shape().element_type();
  const PrimitiveType rt = v.dot->operand(1)->shape().element_type();
  return EmitIf(k,
                b.CreateAnd(b.CreateICmpULT(m, b.getInt64(v.m)),
                            b.CreateICmpULT(n, b.getInt64(v.n))),
                [&]() -> absl::Status {
                  Index index(out.rank(), nullptr);
                  DelinearizeInto(b, batch, out, v.out_batch, index);
                  DelinearizeInto(b, m, out, v.out_m, index);
                  DelinearizeInto(b, n, out, v.out_n, index);
                  absl::StatusOr<llvm::Value*> value = EmitRoundAccumulated(
                      b, v.acc, lt, rt, out.element_type(), acc);
                  if (!value.ok()) return value.status();
                  k.emitter.Provide(v.dot, -1, index, *value);
                  absl::StatusOr<llvm::Value*> result =
                      k.emitter.ValueAt(root, -1, index);
                  if (!result.ok()) return result.status();
                  k.outputs[0].EmitWrite(b, index, *result);
                  return absl::OkStatus();
                });
}

}  // namespace tiled_gemm

using tiled_gemm::GemmView;

bool IsTiledGemmKernel(const HloInstruction* hlo) {
  return IsTiledGemmFusion(*hlo);
}

namespace {

// The dot the fusion's root reaches through elementwise instructions.
std::optional<const HloInstruction*> FusedDot(const HloInstruction* hlo) {
  if (!hlo->shape().IsArray()) return std::nullopt;
  return FindElementwiseHero(ComputedRoot(hlo), [](const HloInstruction* i) {
    return i->opcode() == HloOpcode::kDot;
  });
}

}  // namespace

TiledGemmSizes TiledGemmSizesOf(const HloInstruction& dot) {
  const GemmView v = tiled_gemm::ViewOf(&dot);
  return {v.batch, v.m, v.n, v.k};
}

int64_t TiledGemmSharedBytes(const HloInstruction& fusion) {
  const std::optional<TiledGemmConfig> config = TiledGemmConfigOf(fusion);
  const std::optional<const HloInstruction*> dot = FusedDot(&fusion);
  if (!config.has_value() || !dot.has_value()) return 0;
  const tiled_gemm::TileLayout t =
      tiled_gemm::TileLayoutOf(tiled_gemm::ViewOf(*dot), *config);
  // TMA tilings: 1024-byte multiples, then the mbarriers.
  const int64_t barriers = tiled_gemm::WarpgroupExtraBytes(
      *config, TiledGemmTakesTensorMaps(**dot, *config));
  return config->stages * (t.lhs_bytes + t.rhs_bytes) + barriers;
}

bool TiledGemmTakesTensorMaps(const HloInstruction& dot,
                              const TiledGemmConfig& c) {
  return tiled_gemm::PlanTensorMap(dot, /*lhs=*/true, c, 0, 16).has_value() &&
         tiled_gemm::PlanTensorMap(dot, /*lhs=*/false, c, 0, 16).has_value();
}

bool TiledGemmTakesF8(const HloInstruction& dot,
                      const TiledGemmConfig& config) {
  auto f8 = [&](int64_t i) {
    const PrimitiveType t = dot.operand(i)->shape().element_type();
    return t == PrimitiveType::kF8E4M3FN || t == PrimitiveType::kF8E5M2;
  };
  if (!config.warpgroups() || dot.opcode() != HloOpcode::kDot ||
      dot.operand_count() != 2 || !f8(0) || !f8(1) ||
      !TensorCoreInputOf(dot).has_value()) {
    return false;
  }
  // wgmma's f8 kinds accumulate in less than f32 (cuBLASLt's "fast
  // accumulation"), which XLA allows at DEFAULT precision with no
  // algorithm, or by the algorithm that says so.
  const std::string& algorithm = dot.attrs().dot->algorithm;
  if (algorithm == "dot_any_f8_any_f8_f32_fast_accum") return true;
  if (!algorithm.empty() && algorithm != "unset") return false;
  for (Precision p : dot.attrs().operand_precision) {
    if (p != Precision::kDefault) return false;
  }
  return true;
}

bool TiledGemmCopiesTilesAsync(const HloInstruction& dot,
                               const TiledGemmConfig& config) {
  const std::optional<TensorCoreInput> input = TensorCoreInputOf(dot);
  if (!input.has_value() || !config.tensor_cores()) return false;
  const GemmView v = tiled_gemm::ViewOf(&dot);
  auto copyable = [&](bool lhs, const std::vector<int64_t>& k,
                      const std::vector<int64_t>& free) {
    const HloInstruction* operand = dot.operand(lhs ? 0 : 1);
    const PrimitiveType storage =
        tiled_gemm::TileStorageType(dot, lhs, *input, config);
    if (config.warpgroups() &&
        tiled_gemm::WarpgroupTileIsMnMajor(operand, k, storage)) {
      return tiled_gemm::AsyncCopyableMnOperand(operand, free, storage, config);
    }
    return tiled_gemm::AsyncCopyableOperand(operand, k, storage, config);
  };
  return copyable(true, v.lhs_k, v.lhs_free) &&
         copyable(false, v.rhs_k, v.rhs_free);
}

absl::StatusOr<LaunchDims> EmitTiledGemmKernel(
    KernelTarget& target, llvm::Module& module, const HloInstruction* hlo,
    const std::string& name, const std::vector<KernelParam>& params) {
  const std::optional<TiledGemmConfig> config = TiledGemmConfigOf(*hlo);
  if (!config.has_value()) return Unsupported(hlo, "an invalid GEMM tiling");
  const TiledGemmConfig& c = *config;
  const std::optional<const HloInstruction*> dot = FusedDot(hlo);
  if (!dot.has_value()) {
    return Unsupported(hlo,
                       "a tiled GEMM fusion that is not one dot followed "
                       "by elementwise instructions");
  }
  const GemmView v = tiled_gemm::ViewOf(*dot);
  if (IsComplex(v.acc) || v.acc == PrimitiveType::kPred) {
    return Unsupported(*dot, "a tiled GEMM of this element type");
  }
  const std::optional<TensorCoreInput> input = TensorCoreInputOf(**dot);
  if (c.tensor_cores()) {
    if (!input.has_value()) {
      return Unsupported(*dot, "a tensor-core tiling for this dot's types");
    }
    if (c.block_k % TensorCoreK(*input) != 0) {
      return Unsupported(*dot, "a block_k that is not a multiple of the mma K");
    }
  }
  const int64_t tiles_m = (v.m + c.block_m - 1) / c.block_m;
  const int64_t tiles_n = (v.n + c.block_n - 1) / c.block_n;
  const int64_t grid = v.batch * tiles_m * tiles_n;
  // TMA: a tensor map per side after the pointer parameters, when both
  // sides' parameters allow one.
  std::vector<TensorMapParam> maps;
  std::vector<KernelParam> all_params = params;
  if (c.tma == 1) {
    const std::vector<KernelArgument> args = KernelArguments(hlo);
    for (bool lhs : {true, false}) {
      const HloInstruction* parameter =
          tiled_gemm::ViewedFusionParameter((*dot)->operand(lhs ? 0 : 1));
      const int64_t a =
          parameter == nullptr
              ? -1
              : KernelArgumentIndex(args, false, parameter->parameter_number(),
                                    -1);
      std::optional<TensorMapParam> map;
      if (a >= 0 && a < static_cast<int64_t>(params.size())) {
        map = tiled_gemm::PlanTensorMap(**dot, lhs, c, a, params[a].alignment);
      }
      if (map.has_value()) maps.push_back(*map);
    }
    if (maps.size() != 2) maps.clear();
    for (size_t i = 0; i < maps.size(); ++i) {
      KernelParam p;
      p.tensor_map = true;
      all_params.push_back(p);
    }
  }
  // A warp-specialized tiling's producer warp needs the maps.
  const int64_t threads = c.launch_threads(!maps.empty());
  llvm::IRBuilder<> b(module.getContext());
  ElementalEmitter emitter(b, module);
  KernelScope k{target, module, nullptr, b, emitter, {}};
  if (absl::Status s = BeginKernel(k, hlo, name, all_params, threads);
      !s.ok()) {
    return s;
  }
  std::vector<llvm::Value*> map_params;
  for (size_t i = params.size(); i < all_params.size(); ++i) {
    map_params.push_back(k.function->getArg(i));
  }
  llvm::Value* block = BlockIndex64(k);
  tiled_gemm::BlockOrigin origin;
  origin.n0 = b.CreateMul(b.CreateURem(block, b.getInt64(tiles_n)),
                          b.getInt64(c.block_n));
  llvm::Value* rest = b.CreateUDiv(block, b.getInt64(tiles_n));
  origin.m0 = b.CreateMul(b.CreateURem(rest, b.getInt64(tiles_m)),
                          b.getInt64(c.block_m));
  origin.batch = b.CreateUDiv(rest, b.getInt64(tiles_m));
  const HloInstruction* root = ComputedRoot(hlo);
  absl::Status s =
      c.blackwell_mma() ? tiled_gemm::EmitTcgen05Gemm(k, v, c, *input, root,
                                                      origin, maps, map_params)
      : c.warpgroups()  ? tiled_gemm::EmitWgmmaGemm(k, v, c, *input, root,
                                                    origin, maps, map_params)
      : c.tensor_cores()
          ? tiled_gemm::EmitMmaGemm(k, v, c, *input, root, origin)
          : tiled_gemm::EmitSimtGemm(k, v, c, root, origin);
  if (!s.ok()) return s;
  LaunchDims dims = EndKernel(k, grid, threads, /*cooperative=*/true);
  dims.tensor_maps = maps;
  return dims;
}

}  // namespace xlite::codegen::gpu
