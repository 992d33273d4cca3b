#ifndef XLITE_HLO_IR_DENORMAL_MODE_H_
#define XLITE_HLO_IR_DENORMAL_MODE_H_

// How a thread's float hardware treats subnormal f32 and f64 values, and a
// scope that sets it. XLA:CPU runs its compiled code (and its thread pool)
// with denormals flushed, and compiles (constant folding included) with
// IEEE gradual underflow; the CPU backend and the evaluator follow it:
//
//   ScopedDenormalMode flush(DenormalMode::kFlushToZero);
//   ... every f32/f64 operation on this thread flushes ...
//   // leaving the scope restores the thread's previous mode
//
// x86-64: MXCSR's FTZ (a subnormal result is a zero of its sign) and DAZ
// (a subnormal operand reads as a zero of its sign) bits, set and cleared
// together. AArch64: FPCR.FZ, which does both for single and double
// precision (FZ16, for half precision, is left alone: xlite computes f16 in
// f32). Elsewhere the mode cannot be set: CurrentDenormalMode() is kIeee
// and a scope changes nothing.
//
// Header-only, with no dependencies, so that the CPU runtime library (and
// the ahead-of-time libraries built on it) can use it.

#include <bit>
#include <cstdint>
#include <type_traits>

#if defined(__x86_64__) || defined(_M_X64)
#include <xmmintrin.h>
#endif

namespace xlite {

enum class DenormalMode {
  /// IEEE 754 gradual underflow.
  kIeee,
  /// Subnormal operands read as zero and subnormal results become zero,
  /// signs kept (FTZ and DAZ): XLA:CPU's mode at run time.
  kFlushToZero,
};

namespace denormal_internal {

#if defined(__x86_64__) || defined(_M_X64)
inline constexpr uint64_t kFlushBits = (1u << 15) | (1u << 6);  // FTZ | DAZ
inline uint64_t ReadControl() { return _mm_getcsr(); }
inline void WriteControl(uint64_t v) {
  _mm_setcsr(static_cast<unsigned int>(v));
}
#elif defined(__aarch64__)
inline constexpr uint64_t kFlushBits = uint64_t{1} << 24;  // FPCR.FZ
inline uint64_t ReadControl() {
  uint64_t v;
  asm volatile("mrs %0, fpcr" : "=r"(v));
  return v;
}
inline void WriteControl(uint64_t v) {
  asm volatile("msr fpcr, %0" : : "r"(v));
}
#else
inline constexpr uint64_t kFlushBits = 0;
inline uint64_t ReadControl() { return 0; }
inline void WriteControl(uint64_t) {}
#endif

}  // namespace denormal_internal

/// Whether the mode can be set on this architecture.
inline constexpr bool kDenormalModeSettable =
    denormal_internal::kFlushBits != 0;

/// The calling thread's mode.
inline DenormalMode CurrentDenormalMode() {
  namespace internal = denormal_internal;
  return kDenormalModeSettable && (internal::ReadControl() &
                                   internal::kFlushBits) == internal::kFlushBits
             ? DenormalMode::kFlushToZero
             : DenormalMode::kIeee;
}

/// Sets the calling thread's mode; returns the flush bits it had before, for
/// RestoreDenormalMode. Only the flush bits change: the rounding mode, the
/// exception masks and the sticky exception flags stay as they are.
inline uint64_t SetDenormalMode(DenormalMode mode) {
  namespace internal = denormal_internal;
  const uint64_t control = internal::ReadControl();
  const uint64_t want =
      mode == DenormalMode::kFlushToZero ? internal::kFlushBits : uint64_t{0};
  if ((control & internal::kFlushBits) != want) {
    internal::WriteControl((control & ~internal::kFlushBits) | want);
  }
  return control & internal::kFlushBits;
}

/// Restores the flush bits SetDenormalMode returned.
inline void RestoreDenormalMode(uint64_t saved) {
  namespace internal = denormal_internal;
  const uint64_t control = internal::ReadControl();
  if ((control & internal::kFlushBits) != saved) {
    internal::WriteControl((control & ~internal::kFlushBits) | saved);
  }
}

/// `x` as float hardware in `mode` reads an operand: a subnormal is a zero
/// of its sign when flushing, `x` itself otherwise. For code that selects
/// or tests values without float arithmetic (maximum, sign) and must agree
/// with the arithmetic around it.
template <typename F>
F ReadAs(DenormalMode mode, F x) {
  static_assert(std::is_same_v<F, float> || std::is_same_v<F, double>);
  if (mode == DenormalMode::kIeee) return x;
  using U = std::conditional_t<sizeof(F) == 4, uint32_t, uint64_t>;
  constexpr int kMantissaBits = sizeof(F) == 4 ? 23 : 52;
  constexpr U kSign = U{1} << (sizeof(F) * 8 - 1);
  constexpr U kExponent = (kSign - 1) & ~((U{1} << kMantissaBits) - 1);
  const U bits = std::bit_cast<U>(x);
  return (bits & kExponent) == 0 ? std::bit_cast<F>(bits & kSign) : x;
}

/// Sets the calling thread's mode for the scope's lifetime.
class ScopedDenormalMode {
 public:
  explicit ScopedDenormalMode(DenormalMode mode)
      : saved_(SetDenormalMode(mode)) {}
  ~ScopedDenormalMode() { RestoreDenormalMode(saved_); }
  ScopedDenormalMode(const ScopedDenormalMode&) = delete;
  ScopedDenormalMode& operator=(const ScopedDenormalMode&) = delete;

 private:
  uint64_t saved_;
};

}  // namespace xlite

#endif  // XLITE_HLO_IR_DENORMAL_MODE_H_
