#include "runtime/cuda/cublas_lt_params.h"

#include <algorithm>
#include <string>
#include <utility>

#include "runtime/cuda/cublas_lt_api.h"
#include "runtime/gemm_matrices.h"

namespace xlite::runtime::cuda {
namespace {

using PT = PrimitiveType;

GemmMatrix Transposed(GemmMatrix x) {
  std::swap(x.rows, x.cols);
  x.row_major = !x.row_major;
  return x;
}

// `x` (the matrix op(X) must be) as a column-major layout and its op.
std::pair<CublasLtMatrix, int32_t> Describe(const GemmMatrix& x) {
  CublasLtMatrix out;
  out.type = CudaDataType(x.type);
  // A row-major rows x cols matrix is the column-major cols x rows one,
  // transposed.
  out.rows = x.row_major ? x.cols : x.rows;
  out.cols = x.row_major ? x.rows : x.cols;
  out.leading_dim = x.leading_dim;
  out.batch_count = static_cast<int32_t>(x.batch);
  out.batch_stride = x.batch > 1 ? x.batch_stride : 0;
  return {out, x.row_major ? lt::kOpT : lt::kOpN};
}

// cublasComputeType_t and the scale type for operands of type `t`.
std::pair<int32_t, int32_t> ComputeAndScale(PT t,
                                            const GemmBackendConfig& config) {
  switch (t) {
    case PT::kF64:
      return {lt::kCompute64F, lt::kR64F};
    case PT::kC128:
      return {lt::kCompute64F, lt::kC64F};
    case PT::kC64:
      return {lt::kCompute32F, lt::kC32F};
    case PT::kF32:
      return {
          GemmAllowsTf32(config) ? lt::kCompute32FFastTF32 : lt::kCompute32F,
          lt::kR32F};
    default:  // f16, bf16, f8: f32 accumulation
      return {lt::kCompute32F, lt::kR32F};
  }
}

int32_t EpilogueFor(GemmEpilogue e) {
  switch (e) {
    case GemmEpilogue::kDefault:
      return lt::kEpilogueDefault;
    case GemmEpilogue::kBias:
      return lt::kEpilogueBias;
    case GemmEpilogue::kRelu:
      return lt::kEpilogueRelu;
    case GemmEpilogue::kBiasRelu:
      return lt::kEpilogueReluBias;
    case GemmEpilogue::kGelu:
      return lt::kEpilogueGelu;
    case GemmEpilogue::kGeluAux:
      return lt::kEpilogueGeluAux;
    case GemmEpilogue::kBiasGelu:
      return lt::kEpilogueGeluBias;
    case GemmEpilogue::kBiasGeluAux:
      return lt::kEpilogueGeluAuxBias;
    default:  // SiLU: refused by CheckGemmThunkSupport
      return -1;
  }
}

}  // namespace

int32_t CudaDataType(PrimitiveType type) {
  switch (type) {
    case PT::kF16:
      return lt::kR16F;
    case PT::kBF16:
      return lt::kR16BF;
    case PT::kF32:
      return lt::kR32F;
    case PT::kF64:
      return lt::kR64F;
    case PT::kC64:
      return lt::kC32F;
    case PT::kC128:
      return lt::kC64F;
    case PT::kF8E4M3FN:
      return lt::kR8FE4M3;
    case PT::kF8E5M2:
      return lt::kR8FE5M2;
    default:
      return -1;
  }
}

absl::StatusOr<CublasLtGemmParams> CublasLtParamsFor(
    const GemmDescription& gemm) {
  if (absl::Status s = CheckGemmThunkSupport(gemm); !s.ok()) return s;
  absl::StatusOr<GemmMatrices> mm = GemmMatricesFor(gemm);
  if (!mm.ok()) return mm.status();
  CublasLtGemmParams p;
  GemmMatrix a = mm->a, b = mm->b, d = mm->d;
  std::optional<GemmMatrix> c = mm->c;
  if (d.row_major) {
    // d^T = b^T a^T, with d^T column-major.
    p.swapped = true;
    p.a_operand = 1;
    p.b_operand = 0;
    const GemmMatrix a_before = a;
    a = Transposed(b);
    b = Transposed(a_before);
    d = Transposed(d);
    if (c) c = Transposed(*c);
  }
  std::tie(p.a, p.trans_a) = Describe(a);
  std::tie(p.b, p.trans_b) = Describe(b);
  p.d = Describe(d).first;
  p.c = c ? Describe(*c).first : p.d;
  // cuBLASLt pairs an f8 d with a bf16 or f16 c; without a c (beta 0, not
  // read) the layout still needs an allowed type.
  if (!c && (mm->d.type == PT::kF8E4M3FN || mm->d.type == PT::kF8E5M2)) {
    p.c.type = lt::kR16BF;
  }
  std::tie(p.compute_type, p.scale_type) =
      ComputeAndScale(mm->a.type, gemm.config);
  p.epilogue = EpilogueFor(gemm.config.epilogue);
  p.alpha_real = gemm.config.alpha_real;
  p.alpha_imag = gemm.config.alpha_imag;
  p.beta = gemm.layout.c >= 0 ? gemm.config.beta : 0;
  if (mm->aux) {
    p.aux_leading_dim = p.d.leading_dim;
    p.aux_batch_stride = p.d.batch_stride;
  }
  if (gemm.layout.bias >= 0) {
    p.bias_type = CudaDataType(gemm.operands[gemm.layout.bias].element_type());
  }
  return p;
}

}  // namespace xlite::runtime::cuda
