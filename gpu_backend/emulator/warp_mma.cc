#include "gpu_backend/emulator/warp_mma.h"

#include <cstring>
#include <vector>

#include "hlo/ir/float_types.h"

namespace xlite::gpu::emulator {
namespace {

// codegen::MmaKind's values.
enum Kind : int32_t { kF16 = 0, kBF16 = 1, kTF32 = 2, kS8 = 3 };

float BitsToFloat(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

uint32_t FloatToBits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return bits;
}

// Element `e` (of `per` per register, low bits first) of a register
// array, as f32 or s32.
float FloatElement(int32_t kind, const int32_t* regs, int e) {
  const uint32_t reg = static_cast<uint32_t>(regs[kind == kTF32 ? e : e / 2]);
  if (kind == kTF32) return BitsToFloat(reg & 0xffffe000u);
  const uint16_t half = static_cast<uint16_t>(reg >> (16 * (e % 2)));
  return kind == kF16 ? HalfToFloat(half) : BFloat16ToFloat(half);
}

int32_t IntElement(const int32_t* regs, int e) {
  return static_cast<int8_t>(static_cast<uint32_t>(regs[e / 4]) >>
                             (8 * (e % 4)));
}

// The ISA's "row = ..., col = ..." of element i of A held by a lane of
// group g, thread-in-group t.
void AElementAt(int32_t kind, int i, int g, int t, int& row, int& col) {
  switch (kind) {
    case kTF32:  // m16n8k8, a0..a3
      row = (i == 0 || i == 2) ? g : g + 8;
      col = i < 2 ? t : t + 4;
      return;
    case kS8:  // m16n8k32, a0..a15
      row = (i < 4 || (i >= 8 && i < 12)) ? g : g + 8;
      col = t * 4 + (i & 0x3) + (i >= 8 ? 16 : 0);
      return;
    default:  // m16n8k16 f16/bf16, a0..a7
      row = (i < 2 || (i >= 4 && i < 6)) ? g : g + 8;
      col = t * 2 + (i & 0x1) + (i >= 4 ? 8 : 0);
      return;
  }
}

// The same for element i of B: its row (k); its column is g.
int BRowAt(int32_t kind, int i, int t) {
  switch (kind) {
    case kTF32:  // b0, b1
      return i == 0 ? t : t + 4;
    case kS8:  // b0..b7
      return t * 4 + (i & 0x3) + (i >= 4 ? 16 : 0);
    default:  // b0..b3
      return t * 2 + (i & 0x1) + (i >= 2 ? 8 : 0);
  }
}

int AElements(int32_t kind) { return kind == kTF32 ? 4 : kind == kS8 ? 16 : 8; }

}  // namespace

int WarpMmaK(int32_t kind) {
  switch (kind) {
    case kF16:
    case kBF16:
      return 16;
    case kTF32:
      return 8;
    case kS8:
      return 32;
    default:
      return 0;
  }
}

void ComputeWarpMma(int32_t kind, const int32_t* const a[32],
                    const int32_t* const b[32], const int32_t* const c[32],
                    int32_t* const d[32]) {
  const int k_size = WarpMmaK(kind);
  // A as 16 x K and B as K x 8, in f32 (or s32).
  std::vector<float> fa(16 * k_size), fb(k_size * 8);
  std::vector<int32_t> ia(16 * k_size), ib(k_size * 8);
  for (int lane = 0; lane < 32; ++lane) {
    const int g = lane >> 2, t = lane % 4;
    for (int i = 0; i < AElements(kind); ++i) {
      int row = 0, col = 0;
      AElementAt(kind, i, g, t, row, col);
      if (kind == kS8) {
        ia[row * k_size + col] = IntElement(a[lane], i);
      } else {
        fa[row * k_size + col] = FloatElement(kind, a[lane], i);
      }
    }
    for (int i = 0; i < AElements(kind) / 2; ++i) {
      const int row = BRowAt(kind, i, t);
      if (kind == kS8) {
        ib[row * 8 + g] = IntElement(b[lane], i);
      } else {
        fb[row * 8 + g] = FloatElement(kind, b[lane], i);
      }
    }
  }
  // Each lane's c0..c3: rows g, g, g+8, g+8; columns 2t, 2t+1.
  for (int lane = 0; lane < 32; ++lane) {
    const int g = lane >> 2, t = lane % 4;
    for (int i = 0; i < 4; ++i) {
      const int row = i < 2 ? g : g + 8;
      const int col = t * 2 + (i & 0x1);
      if (kind == kS8) {
        uint32_t acc = static_cast<uint32_t>(c[lane][i]);
        for (int k = 0; k < k_size; ++k) {
          acc += static_cast<uint32_t>(ia[row * k_size + k] * ib[k * 8 + col]);
        }
        d[lane][i] = static_cast<int32_t>(acc);
        continue;
      }
      float acc = BitsToFloat(static_cast<uint32_t>(c[lane][i]));
      for (int k = 0; k < k_size; ++k) {
        acc += fa[row * k_size + k] * fb[k * 8 + col];
      }
      d[lane][i] = static_cast<int32_t>(FloatToBits(acc));
    }
  }
}

}  // namespace xlite::gpu::emulator
