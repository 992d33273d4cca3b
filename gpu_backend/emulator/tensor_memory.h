#ifndef XLITE_GPU_BACKEND_EMULATOR_TENSOR_MEMORY_H_
#define XLITE_GPU_BACKEND_EMULATOR_TENSOR_MEMORY_H_

// One emulated block's tensor memory (Blackwell, sm_100a: 128 lanes by 512
// columns of 32 bits, addressed lane << 16 | column) and the tcgen05.mma-s
// writing it, for the emulator's runtime (PTX ISA "Tensor Memory" and
// "tcgen05 Matrix Multiply and Accumulate").
//
// A tcgen05.mma is asynchronous: it is decoded and its operands read from
// shared memory when issued, but its D is written only when something
// waits for it: a wait on the mbarrier its tcgen05.commit arrives on
// (CompleteThrough). Then its operands are read again, and bytes that
// changed in between (a refill of a stage the multiply still reads) are
// an error, as is a tcgen05.ld of columns a multiply not yet complete
// writes, a TMA into bytes one reads (Reads), and columns left allocated
// when the block ends. The instruction and shared-memory descriptors are
// decoded here from the ISA's tables, independently of the encoders the
// kernels use (codegen/kernel_target.h, codegen/gpu/wgmma_layout.h).
//
// Numbers: as wgmma's (warpgroup_mma.h): each D element plus its K
// products in K order, in f32 (s32 wrapping for s8).

#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "gpu_backend/emulator/warpgroup_mma.h"

namespace xlite::gpu::emulator {

/// The `.kind` of a tcgen05.mma as EmulatorTarget passes it.
enum class Tcgen05Kind : int32_t { kF16 = 0, kTf32 = 1, kF8f6f4 = 2, kI8 = 3 };

class TensorMemory {
 public:
  TensorMemory();

  /// Forgets everything (a new block).
  void Clear();

  /// tcgen05.alloc of `columns` (a power of 2, 32 to 512): the address of
  /// the first free run of them, lane 0; "" or an error.
  std::string Alloc(int64_t columns, uint32_t& address);
  /// tcgen05.dealloc of exactly what an Alloc gave.
  std::string Dealloc(uint32_t address, int64_t columns);
  /// An error when columns are still allocated (at the block's end).
  std::string Leftover() const;

  /// A tcgen05.mma of `kind` with instruction descriptor `idesc`, D at
  /// `d`, descriptors `desc_a` and `desc_b`, issued by thread `thread`;
  /// `accumulate` false: D's old value is not added. "" or an error.
  std::string Issue(Tcgen05Kind kind, uint32_t idesc, uint32_t d,
                    uint64_t desc_a, uint64_t desc_b, bool accumulate,
                    int64_t thread, const uint8_t* shared,
                    int64_t shared_bytes);
  /// The multiplies issued so far: a tcgen05.commit by `thread` tracks the
  /// ones before this count it issued (every one, here: a commit waits for
  /// all of its thread's and so, in order, for those before them).
  int64_t Issued() const { return issued_; }
  /// Writes the D of every multiply before `count` not yet written; ""
  /// or an error (operands changed since the issue).
  std::string CompleteThrough(int64_t count, const uint8_t* shared,
                              int64_t shared_bytes);

  /// tcgen05.ld.32x32b.x`count` by lane `lane` of warp `warp` at
  /// `address`; "" or an error.
  std::string Load(int64_t warp, int64_t lane, uint32_t address, int64_t count,
                   int32_t* out) const;

  /// Whether a multiply not yet complete reads shared bytes [lo, hi).
  bool Reads(int64_t lo, int64_t hi) const;

 private:
  struct Pending {
    int32_t kind = 0, kind_b = 0;  // codegen::WgmmaKind values
    bool trans_a = false, trans_b = false, accumulate = false, s32 = false;
    int64_t n = 0, k = 0, column = 0;
    uint64_t desc_a = 0, desc_b = 0;  // as wgmma descriptors
    WgmmaSpan spans[2];
    std::vector<float> a, b;  // the operands at the issue
  };
  std::string Decode(Tcgen05Kind kind, uint32_t idesc, uint32_t d,
                     uint64_t desc_a, uint64_t desc_b, Pending& p) const;
  std::string Read(const Pending& p, const uint8_t* shared,
                   int64_t shared_bytes, std::vector<float>& a,
                   std::vector<float>& b) const;

  std::vector<uint32_t> cells_;                      // 128 x 512
  std::vector<std::pair<int64_t, int64_t>> allocs_;  // first column, count
  std::deque<Pending> pending_;
  int64_t issued_ = 0, completed_ = 0;
};

}  // namespace xlite::gpu::emulator

#endif  // XLITE_GPU_BACKEND_EMULATOR_TENSOR_MEMORY_H_
