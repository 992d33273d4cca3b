#ifndef XLITE_CPU_BACKEND_RUNTIME_LIB_RUNTIME_LIB_H_
#define XLITE_CPU_BACKEND_RUNTIME_LIB_RUNTIME_LIB_H_

// The CPU runtime library: plain C functions that the code the CPU backend
// JIT-compiles calls for the ops not worth emitting as IR (sort, top-k,
// the LAPACK custom calls, fft, large matrix products and convolutions,
// batch normalization, the block-scaled dot, rng's distributions).
//
// ABI, common to every function:
//  - `extern "C"`, named xlite_cpu_<name>, no exceptions, no aborts, no
//    global state; safe to call from several threads at once.
//  - Arrays are dense, in xlite's Literal memory representation
//    (hlo/ir/literal.h): StorageBytes(type) bytes per element,
//    little-endian, pred one byte 0/1, c64 two floats (re, im), c128 two
//    doubles; ROW-MAJOR (the default layout {rank-1, ..., 0}) unless a
//    function's `col_major` argument says otherwise.
//  - Element types are int32 codes equal to xlite's PrimitiveType values
//    (hlo/ir/primitive_type.h, XLA's proto numbers); the kType* constants
//    below name the ones used here.
//  - Functions that can fail return an int32 status: kStatusOk (0), or a
//    non-zero code from the list below; on failure nothing meaningful was
//    written to the outputs.
//  - Outputs may alias inputs exactly (same pointer, as
//    output_to_operand_aliasing asks) where a function says so; partial
//    overlap is never allowed.
//
// Numerics mirror the reference evaluator (hlo/evaluator: sort.cc,
// custom_calls.cc, linalg_fft.cc, qr.cc, dot_kernels.cc), which this library
// never calls: see each function for where the arithmetic precision
// differs.

#include <cstdint>
#include <utility>
#include <vector>

namespace xlite::cpu {

/// Element type codes (= xlite::PrimitiveType values).
inline constexpr int32_t kTypePred = 1;
inline constexpr int32_t kTypeS8 = 2;
inline constexpr int32_t kTypeS16 = 3;
inline constexpr int32_t kTypeS32 = 4;
inline constexpr int32_t kTypeS64 = 5;
inline constexpr int32_t kTypeU8 = 6;
inline constexpr int32_t kTypeU16 = 7;
inline constexpr int32_t kTypeU32 = 8;
inline constexpr int32_t kTypeU64 = 9;
inline constexpr int32_t kTypeF16 = 10;
inline constexpr int32_t kTypeF32 = 11;
inline constexpr int32_t kTypeF64 = 12;
inline constexpr int32_t kTypeC64 = 15;
inline constexpr int32_t kTypeBF16 = 16;
inline constexpr int32_t kTypeC128 = 18;

/// Status codes.
inline constexpr int32_t kStatusOk = 0;
/// A size is negative, a pointer that must not be null is, or a flag is
/// out of range.
inline constexpr int32_t kStatusInvalidArgument = 1;
/// The element type is not one the function handles.
inline constexpr int32_t kStatusUnsupportedType = 2;

/// fft_type codes (= XLA's FftType proto values and xlite's FftType order).
inline constexpr int32_t kFftForward = 0;      // FFT
inline constexpr int32_t kFftInverse = 1;      // IFFT
inline constexpr int32_t kFftRealForward = 2;  // RFFT
inline constexpr int32_t kFftRealInverse = 3;  // IRFFT

/// Transpose codes of xlite_cpu_trsm (= xlite's TriangularSolveTranspose).
inline constexpr int32_t kTrsmNoTranspose = 1;
inline constexpr int32_t kTrsmTranspose = 2;
inline constexpr int32_t kTrsmAdjoint = 3;

/// Algorithm codes of xlite_cpu_rng_bit_generator (= RandomAlgorithm).
inline constexpr int32_t kRngDefault = 0;  // Philox, as XLA on CPU/GPU
inline constexpr int32_t kRngThreeFry = 1;
inline constexpr int32_t kRngPhilox = 2;

/// Fields per spatial dimension of xlite_cpu_conv's `spatial` array.
inline constexpr int64_t kConvSpatialFields = 8;

/// Bytes (16-byte aligned) of the engine block the `rng` functions draw
/// from (one per run; see xlite_cpu_rng_engine_init).
inline constexpr int64_t kRngEngineBytes = 2560;

/// Every exported function and its address, for the JIT to define as
/// absolute symbols (and for an AOT object's link line to check against).
std::vector<std::pair<const char*, void*>> RuntimeLibrarySymbols();

}  // namespace xlite::cpu

extern "C" {

// ---------------------------------------------------------------------------
// Sort and top-k (sort.cc)
// ---------------------------------------------------------------------------

/// The comparator of a sort: `elements` holds 2 * num_operands pointers,
/// operand 0's lhs and rhs elements, then operand 1's, ...; returns non-zero
/// when lhs goes before rhs (the HLO comparator's pred result).
typedef int32_t (*XliteCpuSortComparator)(void** elements);

/// HLO `sort`: sorts every operand in place along the middle dimension of
/// its [outer, sort_dim_size, inner] view (for a sort over dimension d of
/// dims D: outer = prod(D[0..d)), inner = prod(D(d..rank))), all operands
/// permuted alike by `less` over the elements of every operand.
/// `element_bytes[i]` is operand i's StorageBytes. The order is always
/// std::stable_sort's (stable on ties, whatever `stable` says), which is
/// the evaluator's for a stable sort and a valid order for an unstable one.
/// Returns kStatusInvalidArgument on negative sizes or null pointers.
int32_t xlite_cpu_sort(int64_t num_operands, void** buffers,
                       const int64_t* element_bytes, int64_t outer,
                       int64_t sort_dim_size, int64_t inner, int32_t stable,
                       XliteCpuSortComparator less);

/// Top-k over the last dimension: `input` is [rows, n] of `type`;
/// `values` gets [rows, k] of `type` and `indices` [rows, k] of
/// `index_type` (an integer type of 8 to 64 bits; s32 in XLA's TopK): for
/// each row the k largest (`largest` != 0) or smallest elements in XLA's
/// total order (-NaN < -inf < ... < -0 < +0 < ... < inf < NaN for floats;
/// by value for integers and pred), ties by lower index first. Complex
/// elements all compare equal (index order), as in the evaluator. Serves
/// the `topk` opcode and the "TopK" custom call (largest unless its
/// comparator is LT or LE). Every array type is handled (sub-byte integers
/// one per byte). Returns kStatusInvalidArgument unless 0 <= k <= n.
int32_t xlite_cpu_topk(int32_t type, const void* input, int64_t rows, int64_t n,
                       int64_t k, int32_t largest, void* values,
                       int32_t index_type, void* indices);

// ---------------------------------------------------------------------------
// Linear algebra (linalg.cc, qr.cc). Types f32, f64, c64, c128; arithmetic
// in the element type's own precision (the evaluator uses double and rounds
// once, XLA:CPU's LAPACK uses the element type).
//
// Each operand is a batch of matrices, batch dimensions major. `col_major`
// = 0: each matrix row-major (default layout {r-1, r-2, ..., 0}); 1: each
// matrix column-major, batch dimensions still major — the layout
// {r-2, r-1, r-3, ..., 0} that JAX's lapack_*_ffi custom calls ask for in
// operand_layout_constraints, so a caller that honours those constraints
// passes col_major = 1 and no transposing copy is needed. Results have the
// operands' layout. Matrices are read whole into a private working copy,
// so outputs may alias inputs.
// ---------------------------------------------------------------------------

/// Cholesky factorization of `batch` n x n Hermitian positive definite
/// matrices `a`, reading only the `lower` (else upper) triangle:
/// a = L L^H (factor's lower triangle = L) or a = U^H U (upper = U).
/// The other triangle of `factor` is copied from `a` when
/// `keep_other_triangle` (LAPACK potrf: lapack_?potrf_ffi) or zeroed
/// (the HLO `cholesky` opcode). `info` (null allowed) gets one int32 per
/// matrix: 0, or j + 1 for the first column j whose pivot is not > 0
/// (NaN included); such a factor continues with NaNs as the evaluator's.
/// potrf's backend_config {uplo = 76 ('L') | 85 ('U')} gives `lower`.
int32_t xlite_cpu_cholesky(int32_t type, const void* a, void* factor,
                           int32_t* info, int64_t batch, int64_t n,
                           int32_t lower, int32_t keep_other_triangle,
                           int32_t col_major);

/// Triangular solve, batched: `a` is [batch, s, s] with s = m when `left`
/// else n; `b` and `x` are [batch, m, n]. Solves op(A) X = B (`left`) or
/// X op(A) = B, A read from its `lower` (else upper) triangle only, its
/// diagonal taken as ones when `unit_diagonal`; op = `transpose`
/// (kTrsm{NoTranspose, Transpose, Adjoint}). Serves the
/// `triangular-solve` opcode and lapack_?trsm_ffi (backend_config side 'L'
/// = 76 / 'R' = 82, uplo 'L' / 'U' = 85, trans_x 'N' = 78 / 'T' = 84 /
/// 'C' = 67, diag 'N' / 'U'; an alpha operand, if any, is ignored as the
/// evaluator ignores it). `x` may alias `b`.
int32_t xlite_cpu_trsm(int32_t type, const void* a, const void* b, void* x,
                       int64_t batch, int64_t m, int64_t n, int32_t left,
                       int32_t lower, int32_t transpose, int32_t unit_diagonal,
                       int32_t col_major);

/// Householder QR (LAPACK geqrf; the "Qr" custom call): `a` is
/// [batch, m, n]; `qr` gets [batch, m, n] with R on and above the diagonal
/// and the Householder vectors (unit leading entry implied) below it;
/// `taus` gets [batch, min(m, n)], H(j) = I - taus[j] v_j v_j^H and
/// a = H(0) ... H(k-1) R, LAPACK's (xLARFG) sign and tau conventions.
/// `taus` is always dense [batch, min(m, n)]; `col_major` applies to a and
/// qr. `qr` may alias `a`.
int32_t xlite_cpu_geqrf(int32_t type, const void* a, void* qr, void* taus,
                        int64_t batch, int64_t m, int64_t n, int32_t col_major);

/// The product of Householder reflectors (LAPACK orgqr; the
/// "ProductOfElementaryHouseholderReflectors" custom call): `a` [batch, m,
/// n] holds reflector vectors below its diagonal as geqrf leaves them,
/// `taus` [batch, p] with m >= n >= p; `q` [batch, m, n] gets the first n
/// columns of H(0) H(1) ... H(p-1). `q` may alias `a`.
int32_t xlite_cpu_orgqr(int32_t type, const void* a, const void* taus, void* q,
                        int64_t batch, int64_t m, int64_t n, int64_t p,
                        int32_t col_major);

/// The Hermitian eigendecomposition (LAPACK syevd/heevd; the
/// lapack_{s,d}syevd_ffi / lapack_{c,z}heevd_ffi custom calls, backend_config
/// {mode, uplo = 76 'L' | 85 'U'} giving `lower`) of `batch` n x n matrices
/// `a`, reading only their `lower` (else upper) triangle, by cyclic Jacobi
/// (hlo/ir/jacobi_linalg.h): `vectors` [batch, n, n] gets unit eigenvectors
/// as columns, `w` [batch, n] (always dense; the real type: f32 for c64,
/// f64 for c128) the eigenvalues ascending, `info` (null allowed) 0 per
/// matrix. Non-finite input gives NaN results. `vectors` may alias `a`.
int32_t xlite_cpu_syevd(int32_t type, const void* a, void* vectors, void* w,
                        int32_t* info, int64_t batch, int64_t n, int32_t lower,
                        int32_t col_major);

/// The SVD a = U diag(s) V^H (LAPACK gesdd; lapack_?gesdd_ffi and
/// lapack_?gesvd_ffi, whose backend_config mode 65 'A' gives `full`, 83
/// 'S' not, and 78 'N' as u's shape says) of
/// `batch` m x n matrices `a`, by one-sided Jacobi (hlo/ir/jacobi_linalg.h),
/// k = min(m, n): `s` [batch, k] (dense, real type) descending; `u`
/// [batch, m, full ? m : k]; `vt` [batch, full ? n : k, n] = V^H; `a_out`
/// (null allowed; may alias `a`) gets `a` back; `info` (null allowed) 0,
/// or -4 (LAPACK's report) for a matrix holding a NaN, with NaN results.
int32_t xlite_cpu_gesdd(int32_t type, const void* a, void* a_out, void* s,
                        void* u, void* vt, int32_t* info, int64_t batch,
                        int64_t m, int64_t n, int32_t full, int32_t col_major);

// ---------------------------------------------------------------------------
// FFT (fft.cc)
// ---------------------------------------------------------------------------

/// HLO `fft` over the last `fft_rank` (1 to 3) dimensions, whose logical
/// sizes are fft_length[0..fft_rank); `batch` = product of the other
/// (leading) dimensions. `complex_type` (kTypeC64 or kTypeC128) sets the
/// precision; the real side of RFFT/IRFFT is f32 or f64 accordingly.
///   FFT, IFFT: in, out complex [batch, L...].
///   RFFT:  in real [batch, L...]; out complex [batch, L0.., L_last/2+1].
///   IRFFT: in complex [batch, L0.., L_last/2+1] (the rest of the last
///          dimension follows from Hermitian symmetry over all transformed
///          dimensions, X[-k] = conj(X[k]); the given entries' imaginary
///          parts are used as given); out real [batch, L...].
/// Inverse transforms scale by 1 / prod(L). Arithmetic is in double for
/// both precisions (as the evaluator; results rounded once). `out` must not
/// overlap `in`.
int32_t xlite_cpu_fft(int32_t complex_type, int32_t fft_type, const void* in,
                      void* out, int64_t batch, int64_t fft_rank,
                      const int64_t* fft_length);

// ---------------------------------------------------------------------------
// Matrix product (matmul.cc)
// ---------------------------------------------------------------------------

/// out[b] = op(lhs[b]) * op(rhs[b]) for b < batch, Eigen GEMM in the
/// element type (f32, f64, c64, c128), built for the best instruction set
/// the CPU has and split over threads when large (contraction_kernels.h,
/// parallel_for.h). out is [batch, m, n];
/// lhs is [batch, m, k], or [batch, k, m] when `transpose_lhs`; rhs is
/// [batch, k, n], or [batch, n, k] when `transpose_rhs` (plain transposes,
/// no conjugation). `out` must not overlap the operands. k = 0 gives zeros.
int32_t xlite_cpu_matmul(int32_t type, const void* lhs, const void* rhs,
                         void* out, int64_t batch, int64_t m, int64_t k,
                         int64_t n, int32_t transpose_lhs,
                         int32_t transpose_rhs);

/// Most batch dimensions xlite_cpu_matmul_strided takes.
inline constexpr int64_t kMatMulStridedMaxBatchRank = 4;

/// out[b] = lhs[b] * rhs[b] as xlite_cpu_matmul (same GEMM, threads and
/// numerics: bit for bit its result for the same matrices), with every
/// matrix read and written in place at strides given in elements:
/// lhs[b] is m x k, rhs[b] k x n, out[b] m x n, and `matrix_strides` holds
/// {row stride, column stride} of lhs, then rhs, then out. Per operand one
/// of the two must be 1 and the other at least the extent of the
/// dimension that is 1 apart (a row-major or a column-major matrix with a
/// leading dimension); the stride of a dimension of extent at most 1 is
/// ignored. b runs over `batch_rank` (0 to kMatMulStridedMaxBatchRank)
/// batch dimensions, row-major; `batch` holds 4 values per dimension:
/// {size, lhs stride, rhs stride, out stride}, strides non-negative (0
/// repeats an operand matrix; an out stride is positive where the size is
/// above 1), and may be null when batch_rank is 0. No two output elements
/// may share an address, and `out` must not overlap the operands. k = 0
/// gives zeros. Returns kStatusInvalidArgument on negative sizes, a rank
/// out of range, null pointers or strides that break the rules above.
int32_t xlite_cpu_matmul_strided(int32_t type, const void* lhs, const void* rhs,
                                 void* out, int64_t m, int64_t k, int64_t n,
                                 const int64_t* matrix_strides,
                                 int64_t batch_rank, const int64_t* batch);

// ---------------------------------------------------------------------------
// Convolution (conv.cc)
// ---------------------------------------------------------------------------

/// HLO `convolution` with feature_group_count = batch_group_count = 1 and
/// 1 to 3 (`spatial_rank`) spatial dimensions, by im2col and Eigen GEMM
/// in the element type (f32 or f64), as xlite_cpu_matmul's:
///   input  [batch, in_0, ..., in_{r-1}, in_features],
///   kernel [window_0, ..., window_{r-1}, in_features, out_features],
///   out    [batch, out_0, ..., out_{r-1}, out_features],
/// all row-major. `spatial` holds kConvSpatialFields int64 per spatial
/// dimension s: in_s, out_s, window_s, stride, padding_low, base (lhs)
/// dilation, window (rhs) dilation, window reversal (0/1); padding_high
/// follows from the sizes. out[b, o..., f] = sum over window positions w
/// and input features c of input[b, p...(o, w), c] * kernel[w..., c, f],
/// where p_s = o_s * stride + k_s * window_dilation - padding_low with
/// k_s = w_s (window_s - 1 - w_s when reversed), divided by the base
/// dilation; positions outside the input or between dilated elements read
/// zero. `out` must not overlap the operands.
int32_t xlite_cpu_conv(int32_t type, const void* input, const void* kernel,
                       void* out, int64_t spatial_rank, int64_t batch,
                       int64_t in_features, int64_t out_features,
                       const int64_t* spatial);

// ---------------------------------------------------------------------------
// Random bits (rng.cc)
// ---------------------------------------------------------------------------

/// HLO `rng-bit-generator`, bit-exact with XLA (and hlo/evaluator/rng.cc):
/// `state` is u64[state_size] (state_size >= 2: key, counter...), `bits` a
/// row-major array of `rank` dimensions `dims` whose elements are
/// `bit_width` (8, 16, 32 or 64) bits wide; `new_state` gets the advanced
/// state (u64[state_size]; may alias `state`). ThreeFry-2x32 keeps a 64-bit
/// counter in state[1]; Philox-4x32 a 128-bit one in state[1..2], or
/// (state[1], state[0]) for a u64[2] state. Returns kStatusInvalidArgument
/// on a bad width, algorithm, size or null pointer (`bits` may be null
/// when it has no elements).
int32_t xlite_cpu_rng_bit_generator(int32_t algorithm, const uint64_t* state,
                                    int64_t state_size, uint64_t* new_state,
                                    int32_t bit_width, int64_t rank,
                                    const int64_t* dims, void* bits);

// ---------------------------------------------------------------------------
// Batch normalization (batch_norm.cc), in double: arrays are f64, `x`
// (and out, grad_out, grad_x) row-major [outer, features, inner] with the
// feature dimension in the middle, the per-feature arrays [features].
// Moments and sums run in row-major order, so a caller that converts to
// and from the element types as convert does gets the evaluator's results
// bit for bit. `epsilon` is the instruction's (a float, widened).
// ---------------------------------------------------------------------------

/// out = (x - mean) / sqrt(variance + epsilon) * scale + offset with the
/// batch's mean and biased variance, which go to `mean` and `variance`.
int32_t xlite_cpu_batch_norm_training(const double* x, const double* scale,
                                      const double* offset, double* out,
                                      double* mean, double* variance,
                                      int64_t outer, int64_t features,
                                      int64_t inner, double epsilon);

/// out = (x - mean) / sqrt(variance + epsilon) * scale + offset.
int32_t xlite_cpu_batch_norm_inference(const double* x, const double* scale,
                                       const double* offset, const double* mean,
                                       const double* variance, double* out,
                                       int64_t outer, int64_t features,
                                       int64_t inner, double epsilon);

/// The gradients of batch-norm-training's output with respect to x, scale
/// and offset, given the output's gradient `grad_out` and the batch's mean
/// and variance.
int32_t xlite_cpu_batch_norm_grad(const double* x, const double* scale,
                                  const double* mean, const double* variance,
                                  const double* grad_out, double* grad_x,
                                  double* grad_scale, double* grad_offset,
                                  int64_t outer, int64_t features,
                                  int64_t inner, double epsilon);

// ---------------------------------------------------------------------------
// Block-scaled dot (block_scaled_dot.cc): the contraction of
// __op$block_scaled_dot and __cudnn$blockScaledDot, whose operands the
// generated code has dequantized (data * per-block scale, rounded as the
// evaluator rounds) into f64 arrays.
// ---------------------------------------------------------------------------

/// out[b, i, j] = sum over c < k of lhs[b, i, c] * rhs[b, j, c] for
/// b < batch, i < m, j < n (row-major f64 arrays [batch, m, k],
/// [batch, n, k], [batch, m, n]), summed in order of c: in double, or with
/// `f32_accumulation` each (exact) double product rounded to f32 and summed
/// in f32, as XLA's CPU backend accumulates narrow types.
int32_t xlite_cpu_block_scaled_dot(const double* lhs, const double* rhs,
                                   double* out, int64_t batch, int64_t m,
                                   int64_t n, int64_t k,
                                   int32_t f32_accumulation);

// ---------------------------------------------------------------------------
// The `rng` opcode (rng_distribution.cc). The functions keep no state of
// their own: they draw from an engine block the caller owns (one per run,
// kRngEngineBytes, 16-byte aligned), so consecutive rng instructions
// continue one stream, as the evaluator's per-run generator does. The
// engine and distributions are the C++ standard library's (mt19937_64,
// uniform_real, normal and uniform_int distributions), drawn in the
// evaluator's order: with its seed (EvaluatorOptions::rng_seed + device)
// the values equal the evaluator's. XLA leaves rng's values unspecified.
// ---------------------------------------------------------------------------

/// Seeds a new engine in `engine` (kRngEngineBytes bytes). The block needs
/// no destruction.
void xlite_cpu_rng_engine_init(void* engine, uint64_t seed);

/// n draws of uniform_real_distribution<double>(a, b) into `out`.
int32_t xlite_cpu_rng_uniform_f64(void* engine, double a, double b, double* out,
                                  int64_t n);

/// n draws of normal_distribution<double>(mu, sigma) (a fresh distribution
/// per call: its cached second value does not carry over).
int32_t xlite_cpu_rng_normal_f64(void* engine, double mu, double sigma,
                                 double* out, int64_t n);

/// n draws of uniform_int_distribution<int64_t>(a, b - 1);
/// kStatusInvalidArgument unless a < b.
int32_t xlite_cpu_rng_uniform_s64(void* engine, int64_t a, int64_t b,
                                  int64_t* out, int64_t n);

// ---------------------------------------------------------------------------
// Scratch memory (scratch.cc)
// ---------------------------------------------------------------------------

/// A 64-byte aligned block of at least `bytes` bytes (a valid, distinct
/// pointer even for 0), for generated code that needs an array in another
/// layout than its buffer's; null only when memory is exhausted.
void* xlite_cpu_alloc(int64_t bytes);

/// Releases a block from xlite_cpu_alloc (null is ignored).
void xlite_cpu_free(void* block);

/// A part of a kernel: its iterations [begin, end) of `count`, with the
/// kernel's allocation table and run context.
typedef void (*XliteKernelPart)(void** allocations, void* context,
                                int64_t begin, int64_t end);

/// Runs `part` over [0, count) split into at most `max_tasks` contiguous,
/// near-equal ranges, on at most ContractionThreads() threads
/// (parallel_for.h; a few ranges per thread, each taken by the next free
/// one), and returns when all are done. One thread (XLITE_CPU_THREADS=1,
/// max_tasks 1) is one call part(allocations, context, 0, count) on the
/// calling thread.
void xlite_cpu_parallel_range(XliteKernelPart part, void** allocations,
                              void* context, int64_t count, int64_t max_tasks);

// ---------------------------------------------------------------------------
// Denormal mode (denormal_mode.cc). The entry function of every compiled
// module runs between these two calls, as XLA:CPU runs its code: f32 and
// f64 subnormals flushed (FTZ and DAZ, hlo/ir/denormal_mode.h). The pool
// runs each task in the mode of the thread that handed it over.
// ---------------------------------------------------------------------------

/// Flushes denormals on the calling thread; returns the state to restore.
int64_t xlite_cpu_flush_denormals(void);

/// Restores the state xlite_cpu_flush_denormals returned.
void xlite_cpu_restore_denormals(int64_t saved);

}  // extern "C"

#endif  // XLITE_CPU_BACKEND_RUNTIME_LIB_RUNTIME_LIB_H_
