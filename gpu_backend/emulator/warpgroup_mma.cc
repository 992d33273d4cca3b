#include "gpu_backend/emulator/warpgroup_mma.h"

#include <algorithm>
#include <bit>
#include <climits>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hlo/ir/float_types.h"

namespace xlite::gpu::emulator {
namespace {

// codegen::WgmmaKind's values.
enum Kind : int32_t { kF16, kBF16, kTF32, kE4M3, kE5M2, kS8 };

int ElementBytes(int32_t kind) {
  return kind == kTF32 ? 4 : (kind == kF16 || kind == kBF16) ? 2 : 1;
}

// One decoded descriptor: the fields of the ISA's table.
struct Matrix {
  int64_t start = 0, lbo = 0, sbo = 0;
  int base_offset = 0, swizzle = 0;
};

Matrix Decode(uint64_t desc) {
  Matrix m;
  m.start = static_cast<int64_t>(desc & 0x3FFF) << 4;
  m.lbo = static_cast<int64_t>((desc >> 16) & 0x3FFF) << 4;
  m.sbo = static_cast<int64_t>((desc >> 32) & 0x3FFF) << 4;
  m.base_offset = static_cast<int>((desc >> 49) & 0x7);
  m.swizzle = static_cast<int>(desc >> 62);
  return m;
}

// Swizzle mode 1: the 128-byte swizzle, which moves the 16-byte chunk
// (address bits 4-6) by the 128-byte row within 1024 bytes (bits 7-9).
constexpr int kSwizzle128B = 1;

int64_t Swizzle128B(int64_t at) { return at ^ (((at >> 7) & 7) << 4); }

// The byte of element (row, k) of a K-major operand. Without swizzling:
// core matrices of 8 rows x 16 bytes, rows contiguous; LBO between core
// matrices along K, SBO along the rows (M or N). 128-byte swizzled: rows
// of 128 bytes along K (the instruction's K within one), 8 of them
// contiguous, SBO between those groups along M or N; LBO unused.
int64_t KMajorByte(const Matrix& m, int64_t row, int64_t k, int bytes) {
  if (m.swizzle == kSwizzle128B) {
    return Swizzle128B(m.start + (row / 8) * m.sbo + (row % 8) * 128 +
                       k * bytes);
  }
  const int64_t per = 16 / bytes;
  return m.start + (row / 8) * m.sbo + (k / per) * m.lbo + (row % 8) * 16 +
         (k % per) * bytes;
}

// The same for an MN-major operand (16-bit types). Without swizzling:
// core matrices of 8 rows along K x 16 bytes along M or N; LBO along K,
// SBO along M or N. 128-byte swizzled: rows of 128 bytes along M or N,
// one per K, 8 K rows contiguous; LBO between 128-byte blocks along M or
// N, SBO between groups of 8 K rows.
int64_t MnMajorByte(const Matrix& m, int64_t row, int64_t k, int bytes) {
  if (m.swizzle == kSwizzle128B) {
    const int64_t per_row = 128 / bytes;
    return Swizzle128B(m.start + (row / per_row) * m.lbo +
                       (row % per_row) * bytes + (k % 8) * 128 +
                       (k / 8) * m.sbo);
  }
  const int64_t per = 16 / bytes;
  return m.start + (row / per) * m.sbo + (k / 8) * m.lbo + (k % 8) * 16 +
         (row % per) * bytes;
}

// The element at `p` as a float (or an s8 as one, exactly).
float Element(int32_t kind, const uint8_t* p) {
  switch (kind) {
    case kF16:
    case kBF16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      return kind == kF16 ? HalfToFloat(h) : BFloat16ToFloat(h);
    }
    case kTF32: {
      uint32_t bits;
      std::memcpy(&bits, p, 4);
      return std::bit_cast<float>(bits & 0xffffe000u);
    }
    case kE4M3:
      return DecodeToF32(PrimitiveType::kF8E4M3FN, *p);
    case kE5M2:
      return DecodeToF32(PrimitiveType::kF8E5M2, *p);
    default:
      return static_cast<float>(static_cast<int8_t>(*p));
  }
}

}  // namespace

std::string ReadWarpgroupOperand(const std::string& name, uint64_t desc,
                                 int32_t kind, bool transposed, int64_t rows,
                                 int64_t k, const uint8_t* shared,
                                 int64_t shared_bytes,
                                 std::vector<float>& out) {
  const Matrix m = Decode(desc);
  if ((m.swizzle != 0 && m.swizzle != kSwizzle128B) || m.base_offset != 0) {
    return absl::StrCat(name,
                        " descriptor asks for a 64- or 32-byte swizzle or a "
                        "base offset (mode ",
                        m.swizzle, ", base offset ", m.base_offset,
                        "), which the emulator does not model");
  }
  const int bytes = ElementBytes(kind);
  out.assign(rows * k, 0.0f);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t i = 0; i < k; ++i) {
      const int64_t at =
          transposed ? MnMajorByte(m, r, i, bytes) : KMajorByte(m, r, i, bytes);
      if (at < 0 || at + bytes > shared_bytes) {
        return absl::StrCat("element (", r, ", ", i, ") of ", name,
                            " at shared byte ", at, " lies outside the ",
                            shared_bytes, " bytes of the block");
      }
      out[r * k + i] = Element(kind, shared + at);
    }
  }
  return "";
}

int32_t WgmmaOpWord(int32_t kind, int64_t n, bool trans_a, bool trans_b,
                    int32_t kind_b) {
  return kind | static_cast<int32_t>(n << 8) | (trans_a ? 1 << 20 : 0) |
         (trans_b ? 1 << 21 : 0) |
         (kind_b < 0 || kind_b == kind ? 0 : (kind_b + 1) << 24);
}

namespace {

// An op word's fields.
struct Op {
  int32_t kind = 0, kind_b = 0;
  int64_t n = 0, k = 0;
  bool trans_a = false, trans_b = false;
};

// Decodes `word` into `op`; "" or an error.
std::string DecodeOp(int32_t word, Op& op) {
  op.kind = word & 0xff;
  op.n = (word >> 8) & 0xfff;
  const int32_t b_field = (word >> 24) & 0x7f;
  op.kind_b = b_field == 0 ? op.kind : b_field - 1;
  if (op.kind > kS8 || op.kind_b > kS8 || op.n < 8 || op.n > 256 ||
      op.n % 8 != 0) {
    return absl::StrCat("wgmma: bad op word ", word);
  }
  auto f8 = [](int32_t t) { return t == kE4M3 || t == kE5M2; };
  if (op.kind_b != op.kind && !(f8(op.kind) && f8(op.kind_b))) {
    return "wgmma: only e4m3 and e5m2 operands may differ in type";
  }
  op.trans_a = (word >> 20) & 1;
  op.trans_b = (word >> 21) & 1;
  if ((op.trans_a || op.trans_b) && op.kind != kF16 && op.kind != kBF16) {
    return "wgmma: only f16 and bf16 operands may be transposed";
  }
  op.k = 32 / ElementBytes(op.kind);
  return "";
}

// Calls fn(byte, bytes) for each element of a rows x k operand.
template <typename Fn>
void ForEachElement(uint64_t desc, int32_t kind, bool transposed, int64_t rows,
                    int64_t k, Fn fn) {
  const Matrix m = Decode(desc);
  const int bytes = ElementBytes(kind);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t i = 0; i < k; ++i) {
      fn(transposed ? MnMajorByte(m, r, i, bytes) : KMajorByte(m, r, i, bytes),
         bytes);
    }
  }
}

}  // namespace

WgmmaSpan WarpgroupOperandSpan(uint64_t desc, int32_t kind, bool transposed,
                               int64_t rows, int64_t k) {
  WgmmaSpan s;
  s.lo = INT64_MAX;
  s.hi = INT64_MIN;
  ForEachElement(desc, kind, transposed, rows, k, [&](int64_t at, int bytes) {
    s.lo = std::min(s.lo, at);
    s.hi = std::max(s.hi, at + bytes);
  });
  return s;
}

std::string WgmmaReadSpans(int32_t word, uint64_t desc_a, uint64_t desc_b,
                           WgmmaSpan spans[2]) {
  Op op;
  if (std::string e = DecodeOp(word, op); !e.empty()) return e;
  spans[0] = WarpgroupOperandSpan(desc_a, op.kind, op.trans_a, 64, op.k);
  spans[1] = WarpgroupOperandSpan(desc_b, op.kind_b, op.trans_b, op.n, op.k);
  return "";
}

std::vector<uint8_t> WgmmaReadBytes(int32_t word, uint64_t desc_a,
                                    uint64_t desc_b, const uint8_t* shared,
                                    int64_t shared_bytes) {
  std::vector<uint8_t> out;
  Op op;
  if (!DecodeOp(word, op).empty()) return out;
  auto gather = [&](int64_t at, int bytes) {
    if (at < 0 || at + bytes > shared_bytes) return;
    out.insert(out.end(), shared + at, shared + at + bytes);
  };
  ForEachElement(desc_a, op.kind, op.trans_a, 64, op.k, gather);
  ForEachElement(desc_b, op.kind_b, op.trans_b, op.n, op.k, gather);
  return out;
}

bool WgmmaReadsAny(int32_t word, uint64_t desc_a, uint64_t desc_b, int64_t lo,
                   int64_t hi) {
  Op op;
  if (!DecodeOp(word, op).empty()) return false;
  bool any = false;
  auto overlaps = [&](int64_t at, int bytes) {
    any |= at < hi && at + bytes > lo;
  };
  ForEachElement(desc_a, op.kind, op.trans_a, 64, op.k, overlaps);
  ForEachElement(desc_b, op.kind_b, op.trans_b, op.n, op.k, overlaps);
  return any;
}

std::string ComputeWarpgroupMma(int32_t word, uint64_t desc_a, uint64_t desc_b,
                                const uint8_t* shared, int64_t shared_bytes,
                                const int32_t* const c[128],
                                int32_t* const d[128]) {
  Op op;
  if (std::string e = DecodeOp(word, op); !e.empty()) return e;
  const int32_t kind = op.kind, kind_b = op.kind_b;
  const int64_t n = op.n, k = op.k;
  const bool trans_a = op.trans_a, trans_b = op.trans_b;
  std::vector<float> a, b;
  if (std::string e = ReadWarpgroupOperand("wgmma A", desc_a, kind, trans_a, 64,
                                           k, shared, shared_bytes, a);
      !e.empty()) {
    return e;
  }
  if (std::string e = ReadWarpgroupOperand("wgmma B", desc_b, kind_b, trans_b,
                                           n, k, shared, shared_bytes, b);
      !e.empty()) {
    return e;
  }
  // Thread 32 w + l, register r: D[16 w + l / 4 + 8 ((r / 2) % 2)]
  // [8 (r / 4) + 2 (l % 4) + r % 2].
  for (int thread = 0; thread < 128; ++thread) {
    const int w = thread / 32, l = thread % 32;
    for (int64_t r = 0; r < n / 2; ++r) {
      const int64_t row = 16 * w + l / 4 + 8 * ((r / 2) % 2);
      const int64_t col = 8 * (r / 4) + 2 * (l % 4) + r % 2;
      if (kind == kS8) {
        uint32_t acc = static_cast<uint32_t>(c[thread][r]);
        for (int64_t i = 0; i < k; ++i) {
          acc += static_cast<uint32_t>(static_cast<int32_t>(a[row * k + i]) *
                                       static_cast<int32_t>(b[col * k + i]));
        }
        d[thread][r] = static_cast<int32_t>(acc);
        continue;
      }
      float acc = std::bit_cast<float>(static_cast<uint32_t>(c[thread][r]));
      for (int64_t i = 0; i < k; ++i) acc += a[row * k + i] * b[col * k + i];
      d[thread][r] = static_cast<int32_t>(std::bit_cast<uint32_t>(acc));
    }
  }
  return "";
}

}  // namespace xlite::gpu::emulator
