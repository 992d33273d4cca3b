// fft (FFT, IFFT, RFFT, IRFFT over the last 1 to 3 dimensions) as a direct
// DFT, one thread per output element, in double precision:
//   X[k] = s * sum_j x[j] * exp(-+2 pi i sum_d (k_d j_d mod n_d) / n_d)
// with s = 1/prod(n_d) for the inverse ones, which is what the evaluator's
// per-axis transforms (Eigen's, inverse scaled by 1/n) compute, to within
// rounding. The input is read as the evaluator loads it: RFFT's real input
// as complex; IRFFT's n/2+1 stored elements extended by Hermitian symmetry
// (x[j] = conj(x[-j]) over all transformed dimensions) and its output the
// real part. O(prod n_d) per element: a correct fallback; a staged
// radix kernel is the fast path still to come.

#include <numbers>

#include "absl/strings/str_cat.h"
#include "codegen/gpu/kernel_common.h"
#include "codegen/gpu/kernels.h"
#include "codegen/loops.h"
#include "codegen/math_library.h"
#include "codegen/scalar_ops.h"

namespace xlite::codegen::gpu {
namespace {

constexpr int64_t kBlock = 128;

// Input element `j` (full logical index) as (re, im) doubles.
absl::StatusOr<std::pair<llvm::Value*, llvm::Value*>> LoadInput(
    KernelScope& k, const HloInstruction* hlo, const Index& j,
    const std::vector<int64_t>& dims, int64_t fft_rank) {
  llvm::IRBuilderBase& b = k.b;
  const HloInstruction* operand = hlo->operand(0);
  const Shape& in = operand->shape();
  const int64_t rank = in.rank();
  const PrimitiveType type = in.element_type();
  Index at = j;
  llvm::Value* mirrored = b.getFalse();
  if (hlo->attrs().fft_type == FftType::kIrfft) {
    const int64_t last = rank - 1;
    mirrored = b.CreateICmpSGE(j[last], b.getInt64(in.dimensions(last)));
    for (int64_t d = rank - fft_rank; d < rank; ++d) {
      llvm::Value* n = b.getInt64(dims[d]);
      llvm::Value* flipped = b.CreateURem(b.CreateSub(n, j[d]), n);
      at[d] = b.CreateSelect(mirrored, flipped, j[d]);
    }
  }
  absl::StatusOr<llvm::Value*> v = k.emitter.ValueAt(operand, -1, at);
  if (!v.ok()) return v.status();
  llvm::Type* f64 = b.getDoubleTy();
  if (!IsComplex(type)) {
    absl::StatusOr<llvm::Value*> re =
        EmitConvert(b, type, PrimitiveType::kF64, *v);
    if (!re.ok()) return re.status();
    return std::make_pair(*re, llvm::ConstantFP::get(f64, 0.0));
  }
  llvm::Value* re = b.CreateFPExt(b.CreateExtractValue(*v, {0}), f64);
  llvm::Value* im = b.CreateFPExt(b.CreateExtractValue(*v, {1}), f64);
  return std::make_pair(re, b.CreateSelect(mirrored, b.CreateFNeg(im), im));
}

}  // namespace

absl::StatusOr<LaunchDims> EmitFftKernel(
    KernelTarget& target, llvm::Module& module, const HloInstruction* hlo,
    const std::string& name, const std::vector<KernelParam>& params) {
  const Shape& out = hlo->shape();
  const std::vector<int64_t>& lengths = hlo->attrs().fft_length;
  const int64_t rank = out.IsArray() ? out.rank() : 0;
  const int64_t fft_rank = lengths.size();
  if (!out.IsArray() || hlo->operand_count() != 1 || fft_rank < 1 ||
      fft_rank > 3 || fft_rank > rank) {
    return Unsupported(hlo, "fft_length must name 1 to 3 dimensions");
  }
  // The full logical shape the transform runs over.
  std::vector<int64_t> dims(out.dimensions().begin(), out.dimensions().end());
  int64_t count = 1;
  for (int64_t i = 0; i < fft_rank; ++i) {
    dims[rank - fft_rank + i] = lengths[i];
    count *= lengths[i];
  }
  const FftType type = hlo->attrs().fft_type;
  const bool inverse = type == FftType::kIfft || type == FftType::kIrfft;
  const int64_t elements = out.ElementCount();
  llvm::IRBuilder<> b(module.getContext());
  ElementalEmitter emitter(b, module);
  KernelScope k{target, module, nullptr, b, emitter, {}};
  if (absl::Status s = BeginKernel(k, hlo, name, params, kBlock); !s.ok()) {
    return s;
  }
  llvm::Type* f64 = b.getDoubleTy();
  llvm::AllocaInst* acc_re = EntryAlloca(b, f64);
  llvm::AllocaInst* acc_im = EntryAlloca(b, f64);
  llvm::Value* linear = GlobalThreadIndex64(k, kBlock);
  absl::Status s = EmitIf(
      k, b.CreateICmpULT(linear, b.getInt64(elements)), [&]() -> absl::Status {
        const Index o = DelinearizeRowMajor(b, linear, out);
        b.CreateStore(llvm::ConstantFP::get(f64, 0.0), acc_re);
        b.CreateStore(llvm::ConstantFP::get(f64, 0.0), acc_im);
        absl::Status loop = EmitForLoop(
            b, b.getInt64(0), b.getInt64(count), "fft.sum",
            [&](llvm::Value* t) -> absl::Status {
              ElementalEmitter::Scope scope(emitter);
              Index j = o;
              llvm::Value* rest = t;
              llvm::Value* phase = llvm::ConstantFP::get(f64, 0.0);
              for (int64_t d = rank - 1; d >= rank - fft_rank; --d) {
                llvm::Value* n = b.getInt64(dims[d]);
                j[d] = b.CreateURem(rest, n);
                rest = b.CreateUDiv(rest, n);
                llvm::Value* m = b.CreateURem(b.CreateMul(o[d], j[d]), n);
                phase = b.CreateFAdd(
                    phase, b.CreateFDiv(b.CreateUIToFP(m, f64),
                                        llvm::ConstantFP::get(
                                            f64, static_cast<double>(dims[d]))));
              }
              absl::StatusOr<std::pair<llvm::Value*, llvm::Value*>> x =
                  LoadInput(k, hlo, j, dims, fft_rank);
              if (!x.ok()) return x.status();
              const double turn = (inverse ? 2 : -2) * std::numbers::pi;
              llvm::Value* angle =
                  b.CreateFMul(phase, llvm::ConstantFP::get(f64, turn));
              llvm::Value* c = EmitMathCall(b, "cos", {angle});
              llvm::Value* sn = EmitMathCall(b, "sin", {angle});
              auto [xr, xi] = *x;
              llvm::Value* re = b.CreateFSub(b.CreateFMul(xr, c),
                                             b.CreateFMul(xi, sn));
              llvm::Value* im = b.CreateFAdd(b.CreateFMul(xr, sn),
                                             b.CreateFMul(xi, c));
              b.CreateStore(b.CreateFAdd(b.CreateLoad(f64, acc_re), re),
                            acc_re);
              b.CreateStore(b.CreateFAdd(b.CreateLoad(f64, acc_im), im),
                            acc_im);
              return absl::OkStatus();
            });
        if (!loop.ok()) return loop;
        llvm::Value* scale = llvm::ConstantFP::get(
            f64, inverse ? 1.0 / static_cast<double>(count) : 1.0);
        llvm::Value* re = b.CreateFMul(b.CreateLoad(f64, acc_re), scale);
        llvm::Value* im = b.CreateFMul(b.CreateLoad(f64, acc_im), scale);
        const PrimitiveType out_type = out.element_type();
        llvm::Value* value = nullptr;
        if (IsComplex(out_type)) {
          llvm::Type* complex = ValueType(out_type, b.getContext());
          llvm::Type* part = complex->getStructElementType(0);
          value = llvm::PoisonValue::get(complex);
          value = b.CreateInsertValue(value, b.CreateFPTrunc(re, part), {0});
          value = b.CreateInsertValue(value, b.CreateFPTrunc(im, part), {1});
        } else {
          absl::StatusOr<llvm::Value*> real =
              EmitConvert(b, PrimitiveType::kF64, out_type, re);
          if (!real.ok()) return real.status();
          value = *real;
        }
        k.outputs[0].EmitWrite(b, o, value);
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  return EndKernel(k, (elements + kBlock - 1) / kBlock, kBlock,
                   /*cooperative=*/false);
}

}  // namespace xlite::codegen::gpu
