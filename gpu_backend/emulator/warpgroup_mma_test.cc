// The emulator's wgmma against a naive product of plain row-major
// matrices: the test lays A (64 x K) and B (N x K) out in shared memory by
// the PTX ISA's K-major, unswizzled core-matrix formula, element (r, k) at
// start + (r / 8) SBO + (k / T) LBO + (r % 8) 16 + (k % T) E, writes the
// descriptors by the ISA's bit table and reads D back through the ISA's
// accumulator table: thread 32 w + l, register i holds
// D[16 w + l / 4 + 8 ((i / 2) % 2)][8 (i / 4) + 2 (l % 4) + i % 2].
// Values are hashed small numbers, exact in every type and in f32 sums,
// so any layout slip shows up as a wrong element.
#include "gpu_backend/emulator/warpgroup_mma.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "hlo/ir/float_types.h"

namespace xlite::gpu::emulator {
namespace {

// codegen::WgmmaKind's values.
enum Kind : int32_t { kF16, kBF16, kTF32, kE4M3, kE5M2, kS8 };

int Bytes(int32_t kind) {
  return kind == kTF32 ? 4 : (kind == kF16 || kind == kBF16) ? 2 : 1;
}

// K of one instruction: 32 bytes of each row.
int64_t KOf(int32_t kind) { return 32 / Bytes(kind); }

uint32_t Hash(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

// Where a K-major operand lies in shared memory (bytes).
struct Layout {
  int64_t start = 0, lbo = 0, sbo = 0;
};

// The ISA's descriptor: start, LBO, SBO >> 4 in bits 0-13, 16-29, 32-45;
// base offset and swizzle 0.
uint64_t Descriptor(const Layout& l) {
  return (static_cast<uint64_t>(l.start >> 4) & 0x3fff) |
         ((static_cast<uint64_t>(l.lbo >> 4) & 0x3fff) << 16) |
         ((static_cast<uint64_t>(l.sbo >> 4) & 0x3fff) << 32);
}

// An 8-row group keeps its two K core matrices together.
Layout PairedK(int64_t start) { return {start, 128, 256}; }
// The K halves are outer: all row groups of k 0..T-1, then of k T..2T-1.
Layout KOuter(int64_t start, int64_t rows) {
  return {start, rows / 8 * 128, 128};
}

int64_t ByteOf(const Layout& l, int64_t row, int64_t k, int bytes) {
  const int64_t per = 16 / bytes;
  return l.start + (row / 8) * l.sbo + (k / per) * l.lbo + (row % 8) * 16 +
         (k % per) * bytes;
}

// The bits of `v` in `kind`, which must hold it exactly; tf32 gets garbage
// in the 13 low mantissa bits, which the instruction ignores.
uint32_t Encode(int32_t kind, double v, uint32_t h) {
  const float f = static_cast<float>(v);
  EXPECT_EQ(static_cast<double>(f), v);
  uint32_t bits = 0;
  double back = 0;
  switch (kind) {
    case kF16:
      bits = FloatToHalf(f);
      back = HalfToFloat(static_cast<uint16_t>(bits));
      break;
    case kBF16:
      bits = FloatToBFloat16(f);
      back = BFloat16ToFloat(static_cast<uint16_t>(bits));
      break;
    case kTF32:
      std::memcpy(&bits, &f, 4);
      EXPECT_EQ(bits & 0x1fffu, 0u) << v << " is not a tf32 value";
      return bits | ((h >> 7) & 0x1fffu) | 1u;
    case kE4M3:
    case kE5M2: {
      const PrimitiveType t =
          kind == kE4M3 ? PrimitiveType::kF8E4M3FN : PrimitiveType::kF8E5M2;
      bits = static_cast<uint32_t>(EncodeFromF32(t, f));
      back = DecodeToF32(t, bits);
      break;
    }
    default:
      EXPECT_TRUE(v >= -128 && v <= 127 && v == std::floor(v)) << v;
      bits = static_cast<uint8_t>(static_cast<int8_t>(v));
      back = static_cast<int8_t>(bits);
  }
  EXPECT_EQ(back, v) << "kind " << kind << " does not hold " << v;
  return bits;
}

// A value from a hash.
using Gen = std::function<double(uint32_t)>;

// A rows x k operand: its exact values (row-major) and the bits stored.
struct Operand {
  int64_t rows = 0, k = 0;
  std::vector<double> value;
  std::vector<uint32_t> bits;
};

Operand MakeOperand(int32_t kind, int64_t rows, uint32_t salt, const Gen& gen) {
  Operand o;
  o.rows = rows;
  o.k = KOf(kind);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t i = 0; i < o.k; ++i) {
      const uint32_t h =
          Hash(salt * 0x9e3779b9U + static_cast<uint32_t>(r * 4096 + i));
      o.value.push_back(gen(h));
      o.bits.push_back(Encode(kind, o.value.back(), Hash(h)));
    }
  }
  return o;
}

// Writes `o` at `l`, growing `shared` with garbage as needed.
void Place(const Operand& o, const Layout& l, int bytes,
           std::vector<uint8_t>& shared) {
  for (int64_t r = 0; r < o.rows; ++r) {
    for (int64_t i = 0; i < o.k; ++i) {
      const int64_t at = ByteOf(l, r, i, bytes);
      if (at + bytes > static_cast<int64_t>(shared.size())) {
        shared.resize(at + bytes, 0xa5);
      }
      std::memcpy(&shared[at], &o.bits[r * o.k + i], bytes);
    }
  }
}

// One wgmma's inputs, in shared memory, and its exact answer.
struct Problem {
  int32_t kind = 0;
  int32_t kind_b = 0;  // B's (differs from A's for e4m3 x e5m2 only)
  int64_t n = 0;
  Layout la, lb;
  Operand a, b;
  std::vector<double> c, want;  // 64 x n, row-major
  std::vector<uint8_t> shared;
};

// Ints in [-16, 16], exact in every 16-bit type and tf32.
double SmallInt(uint32_t h) { return static_cast<int>(h % 33) - 16; }

// Quarter steps of C, exact in f32.
double SmallC(uint32_t h) { return static_cast<int>(h % 64) - 32 + 0.25; }

Problem MakeProblem(int32_t kind, int64_t n, const Layout& la, const Layout& lb,
                    const Gen& gen = SmallInt, const Gen& c_gen = SmallC,
                    int32_t kind_b = -1) {
  Problem p;
  p.kind = kind;
  p.kind_b = kind_b < 0 ? kind : kind_b;
  p.n = n;
  p.la = la;
  p.lb = lb;
  p.a = MakeOperand(kind, 64, 1, gen);
  p.b = MakeOperand(p.kind_b, n, 2, gen);
  Place(p.a, la, Bytes(kind), p.shared);
  Place(p.b, lb, Bytes(p.kind_b), p.shared);
  const int64_t k = KOf(kind);
  for (int64_t row = 0; row < 64; ++row) {
    for (int64_t col = 0; col < n; ++col) {
      p.c.push_back(c_gen(Hash(static_cast<uint32_t>(row * 1000 + col))));
      double sum = p.c.back();
      for (int64_t i = 0; i < k; ++i) {
        sum += p.a.value[row * k + i] * p.b.value[col * k + i];
      }
      p.want.push_back(sum);
    }
  }
  return p;
}

// D's (row, col) in register i of thread t.
std::pair<int64_t, int64_t> Position(int t, int64_t i) {
  const int w = t / 32, l = t % 32;
  return {16 * w + l / 4 + 8 * ((i / 2) % 2),
          8 * (i / 4) + 2 * (l % 4) + i % 2};
}

// A value as its register bits: f32, or s32 wrapped for s8.
int32_t RegisterBits(int32_t kind, double v) {
  if (kind == kS8) {
    return static_cast<int32_t>(static_cast<uint32_t>(static_cast<int64_t>(v)));
  }
  const float f = static_cast<float>(v);
  EXPECT_EQ(static_cast<double>(f), v) << "not exact in f32";
  int32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}

// The warpgroup's accumulators: 128 threads x N / 2, with room for the
// largest N an op word can name, so that a bad N the model took would
// not write past them.
constexpr int64_t kRoom = 4096 / 2;

struct Registers {
  std::vector<std::vector<int32_t>> c, d;
};

// Runs `p` with the given descriptors and op, C from p.c; `in_place`
// passes the same arrays for C and D, as the runtime does.
std::string RunWgmma(const Problem& p, int32_t op, uint64_t desc_a,
                     uint64_t desc_b, int64_t shared_bytes, bool in_place,
                     Registers& r) {
  r.c.assign(128, std::vector<int32_t>(kRoom));
  r.d.assign(128, std::vector<int32_t>(kRoom, 0x7fc0dead));
  const int32_t* c[128];
  int32_t* d[128];
  for (int t = 0; t < 128; ++t) {
    for (int64_t i = 0; i < p.n / 2; ++i) {
      const auto [row, col] = Position(t, i);
      r.c[t][i] = RegisterBits(p.kind, p.c[row * p.n + col]);
    }
    c[t] = r.c[t].data();
    d[t] = in_place ? r.c[t].data() : r.d[t].data();
  }
  const std::string error = ComputeWarpgroupMma(
      op, desc_a, desc_b, p.shared.data(), shared_bytes, c, d);
  if (in_place) r.d = r.c;
  return error;
}

int32_t Op(const Problem& p) {
  return WgmmaOpWord(p.kind, p.n, false, false, p.kind_b);
}

std::string RunAsLaidOut(const Problem& p, bool in_place, Registers& r) {
  return RunWgmma(p, Op(p), Descriptor(p.la), Descriptor(p.lb),
                  static_cast<int64_t>(p.shared.size()), in_place, r);
}

// The registers of D that differ from p.want; the first few fail when
// `report`.
int Mismatches(const Problem& p, const Registers& r, bool report) {
  int wrong = 0;
  for (int t = 0; t < 128; ++t) {
    for (int64_t i = 0; i < p.n / 2; ++i) {
      const auto [row, col] = Position(t, i);
      const int32_t want = RegisterBits(p.kind, p.want[row * p.n + col]);
      if (r.d[t][i] == want) continue;
      if (report && ++wrong <= 5) {
        ADD_FAILURE() << "thread " << t << " register " << i << " (D[" << row
                      << "][" << col << "]): got bits " << r.d[t][i]
                      << ", want " << want << " (" << p.want[row * p.n + col]
                      << ")";
      } else if (!report) {
        ++wrong;
      }
    }
  }
  return wrong;
}

// Lays out, runs and checks every register of D.
void Check(const Problem& p, bool in_place) {
  Registers r;
  const std::string error = RunAsLaidOut(p, in_place, r);
  ASSERT_EQ(error, "");
  EXPECT_EQ(Mismatches(p, r, true), 0);
}

// Both layouts, A at a nonzero 16-byte aligned start and B after it with a
// gap; in place and not.
void CheckBothLayouts(int32_t kind, int64_t n, const Gen& gen = SmallInt,
                      const Gen& c_gen = SmallC, int32_t kind_b = -1) {
  const int64_t a_start = 48, b_start = a_start + 64 * 32 + 16 * 5;
  for (bool outer : {false, true}) {
    SCOPED_TRACE(outer ? "K-outer layout" : "paired-K layout");
    const Layout la = outer ? KOuter(a_start, 64) : PairedK(a_start);
    const Layout lb = outer ? KOuter(b_start, n) : PairedK(b_start);
    const Problem p = MakeProblem(kind, n, la, lb, gen, c_gen, kind_b);
    Check(p, outer);
  }
}

TEST(WarpgroupMma, HalfTypesMatchTheReference) {
  for (int32_t kind : {kF16, kBF16}) {
    for (int64_t n : {8, 64, 256}) {
      SCOPED_TRACE(testing::Message() << "kind " << kind << " n " << n);
      CheckBothLayouts(kind, n);
    }
  }
}

TEST(WarpgroupMma, OddNMatchesTheReference) {
  for (int64_t n : {24, 136}) {
    SCOPED_TRACE(testing::Message() << "n " << n);
    CheckBothLayouts(kBF16, n);
  }
}

// The garbage Encode puts in the low 13 mantissa bits must not count.
TEST(WarpgroupMma, Tf32IgnoresTheLow13MantissaBits) {
  for (int64_t n : {8, 64}) {
    SCOPED_TRACE(testing::Message() << "n " << n);
    CheckBothLayouts(kTF32, n);
  }
}

// (-4..4) times 2^-2..2^1: exact in e4m3 and e5m2.
double F8Value(uint32_t h) {
  return (static_cast<int>(h % 9) - 4) *
         std::ldexp(1.0, static_cast<int>((h >> 8) % 4) - 2);
}

TEST(WarpgroupMma, F8MatchTheReference) {
  for (int32_t kind : {kE4M3, kE5M2}) {
    for (int64_t n : {8, 64}) {
      SCOPED_TRACE(testing::Message() << "kind " << kind << " n " << n);
      CheckBothLayouts(kind, n, F8Value);
    }
  }
}

// e4m3 x e5m2 and back: B read as its own type.
TEST(WarpgroupMma, MixedF8MatchTheReference) {
  for (auto [a, b] : {std::pair{kE4M3, kE5M2}, std::pair{kE5M2, kE4M3}}) {
    SCOPED_TRACE(testing::Message() << "kinds " << a << " x " << b);
    CheckBothLayouts(a, 64, F8Value, SmallC, b);
  }
  // Read as A's type, B's bits give other numbers.
  Problem p = MakeProblem(kE4M3, 64, PairedK(0), PairedK(64 * 32), F8Value,
                          SmallC, kE5M2);
  Registers r;
  ASSERT_EQ(RunWgmma(p, WgmmaOpWord(kE4M3, 64, false, false), Descriptor(p.la),
                     Descriptor(p.lb), static_cast<int64_t>(p.shared.size()),
                     false, r),
            "");
  EXPECT_GT(Mismatches(p, r, false), 0);
}

// Mostly 120..127, some -128 and -127: the extremes of s8.
double S8Value(uint32_t h) {
  const int pick = static_cast<int>(h % 10);
  return pick == 0 ? -128 : pick == 1 ? -127 : 120 + static_cast<int>(h % 8);
}

// Just under INT32_MAX, so that adding the products wraps.
double NearMax(uint32_t h) {
  return std::numeric_limits<int32_t>::max() - static_cast<double>(h % 1000);
}

TEST(WarpgroupMma, S8WrapsInS32) {
  const Problem probe =
      MakeProblem(kS8, 64, PairedK(0), PairedK(2048), S8Value, NearMax);
  int wraps = 0;
  for (double v : probe.want) {
    wraps += v > std::numeric_limits<int32_t>::max();
  }
  EXPECT_GT(wraps, static_cast<int>(probe.want.size()) / 2);
  for (int64_t n : {8, 64}) {
    SCOPED_TRACE(testing::Message() << "n " << n);
    CheckBothLayouts(kS8, n, S8Value, NearMax);
  }
}

// The fields are read, not assumed: describing the same bytes with LBO
// and SBO swapped (for A, for B or both), or with a start 16 bytes off,
// gives a different D.
TEST(WarpgroupMma, SwappedStridesGiveADifferentAnswer) {
  const Problem p =
      MakeProblem(kBF16, 64, PairedK(32), PairedK(32 + 64 * 32 + 64));
  const Layout sa{p.la.start, p.la.sbo, p.la.lbo};
  const Layout sb{p.lb.start, p.lb.sbo, p.lb.lbo};
  const Layout shifted{p.la.start + 16, p.la.lbo, p.la.sbo};
  const std::pair<Layout, Layout> wrong[] = {
      {sa, p.lb}, {p.la, sb}, {sa, sb}, {shifted, p.lb}};
  for (const auto& [la, lb] : wrong) {
    Registers r;
    ASSERT_EQ(RunWgmma(p, Op(p), Descriptor(la), Descriptor(lb),
                       static_cast<int64_t>(p.shared.size()), false, r),
              "");
    EXPECT_GT(Mismatches(p, r, false), 64 * 64 / 2);
  }
  Check(p, false);
}

// Every bit of the 14-bit start, LBO and SBO fields counts: operands at
// the top of the 256 KiB window and strides with high bits set (the core
// matrices stay disjoint), first for B, then for A.
TEST(WarpgroupMma, HighFieldBitsAreDecoded) {
  const Layout field_units[][2] = {
      {{0x3c01, 8, 16}, {0x0003, 0x1011, 0x2102}},
      {{0x0001, 0x0408, 0x0883}, {0x0100, 8, 16}},
  };
  for (const auto& [a, b] : field_units) {
    const Layout la{a.start << 4, a.lbo << 4, a.sbo << 4};
    const Layout lb{b.start << 4, b.lbo << 4, b.sbo << 4};
    SCOPED_TRACE(testing::Message()
                 << "A start " << la.start << " B start " << lb.start);
    Check(MakeProblem(kBF16, 16, la, lb), false);
  }
}

// Errors are messages, not crashes or silent answers.
void ExpectError(const Problem& p, int32_t op, uint64_t desc_a, uint64_t desc_b,
                 int64_t shared_bytes) {
  Registers r;
  EXPECT_NE(RunWgmma(p, op, desc_a, desc_b, shared_bytes, false, r), "");
}

// The 64- and 32-byte swizzles (modes 2 and 3) and base offsets are not
// modelled (the 128-byte swizzle, mode 1, is: TMA tiles use it).
TEST(WarpgroupMma, SwizzleAndBaseOffsetAreErrors) {
  const Problem p = MakeProblem(kBF16, 64, PairedK(16), PairedK(16 + 2048));
  const uint64_t a = Descriptor(p.la), b = Descriptor(p.lb);
  const int64_t bytes = static_cast<int64_t>(p.shared.size());
  for (uint64_t mode = 2; mode < 4; ++mode) {
    SCOPED_TRACE(testing::Message() << "swizzle " << mode);
    ExpectError(p, Op(p), a | mode << 62, b, bytes);
    ExpectError(p, Op(p), a, b | mode << 62, bytes);
  }
  for (uint64_t base : {1, 4, 7}) {
    SCOPED_TRACE(testing::Message() << "base offset " << base);
    ExpectError(p, Op(p), a | base << 49, b, bytes);
    ExpectError(p, Op(p), a, b | base << 49, bytes);
  }
}

// The last element read ends exactly at shared_bytes: one byte less, or a
// start near the 256 KiB limit of the field, is outside.
TEST(WarpgroupMma, ReadsPastSharedMemoryAreErrors) {
  for (int64_t n : {8, 256}) {
    SCOPED_TRACE(testing::Message() << "n " << n);
    const Problem p = MakeProblem(kBF16, n, PairedK(16), KOuter(16 + 2048, n));
    const uint64_t a = Descriptor(p.la), b = Descriptor(p.lb);
    const int64_t bytes = static_cast<int64_t>(p.shared.size());
    Registers r;
    EXPECT_EQ(RunWgmma(p, Op(p), a, b, bytes, false, r), "");
    ExpectError(p, Op(p), a, b, bytes - 1);
    const Layout far{(0x3fff << 4), 128, 256};
    ExpectError(p, Op(p), Descriptor(far), b, bytes);
    ExpectError(p, Op(p), a, Descriptor(far), bytes);
    // A in bounds but B's strides run off the end.
    const Layout wide{p.lb.start, 0x3fff << 4, 0x3fff << 4};
    ExpectError(p, Op(p), a, Descriptor(wide), bytes);
  }
}

TEST(WarpgroupMma, BadOpWordsAreErrors) {
  const Problem p = MakeProblem(kF16, 64, PairedK(16), PairedK(16 + 2048));
  const uint64_t a = Descriptor(p.la), b = Descriptor(p.lb);
  const int64_t bytes = static_cast<int64_t>(p.shared.size());
  // Only f16 and bf16 operands may be transposed (MN-major).
  for (int32_t kind : {kTF32, kE4M3, kE5M2, kS8}) {
    ExpectError(p, WgmmaOpWord(kind, 64, true, false), a, b, bytes);
    ExpectError(p, WgmmaOpWord(kind, 64, false, true), a, b, bytes);
  }
  // Only e4m3 and e5m2 mix.
  ExpectError(p, WgmmaOpWord(kF16, 64, false, false, kBF16), a, b, bytes);
  ExpectError(p, WgmmaOpWord(kF16, 64, false, false, kE4M3), a, b, bytes);
  ExpectError(p, WgmmaOpWord(kE4M3, 64, false, false, kS8), a, b, bytes);
  ExpectError(p, WgmmaOpWord(kE4M3, 64, false, false, 9), a, b, bytes);
  for (int32_t kind : {6, 7, 255}) {
    SCOPED_TRACE(testing::Message() << "kind " << kind);
    ExpectError(p, WgmmaOpWord(kind, 64, false, false), a, b, bytes);
  }
  for (int64_t n : {0, 4, 12, 60, 257, 264, 512, 4088}) {
    SCOPED_TRACE(testing::Message() << "n " << n);
    ExpectError(p, WgmmaOpWord(kF16, n, false, false), a, b, bytes);
  }
}

}  // namespace
}  // namespace xlite::gpu::emulator
