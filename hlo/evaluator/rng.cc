// rng-bit-generator, bit-exact with XLA's Threefry-2x32 (20 rounds) and
// Philox-4x32 (10 rounds) expansions, and the `rng` opcode (seeded
// mt19937_64; XLA leaves its bits unspecified).

#include <array>
#include <cmath>

#include "hlo/evaluator/internal.h"

namespace xlite::eval {
namespace {

uint32_t RotateLeft(uint32_t v, int distance) {
  return (v << distance) | (v >> (32 - distance));
}

std::array<uint32_t, 2> ThreeFry2x32(std::array<uint32_t, 2> x,
                                     std::array<uint32_t, 2> key) {
  constexpr int kRotations[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  const uint32_t ks[3] = {key[0], key[1], 0x1BD11BDA ^ key[0] ^ key[1]};
  x[0] += ks[0];
  x[1] += ks[1];
  auto rounds = [&](int first) {
    for (int r = first; r < first + 4; ++r) {
      x[0] += x[1];
      x[1] = RotateLeft(x[1], kRotations[r]);
      x[1] ^= x[0];
    }
  };
  rounds(0);
  x[0] += ks[1];
  x[1] += ks[2] + 1;
  rounds(4);
  x[0] += ks[2];
  x[1] += ks[0] + 2;
  rounds(0);
  x[0] += ks[0];
  x[1] += ks[1] + 3;
  rounds(4);
  x[0] += ks[1];
  x[1] += ks[2] + 4;
  rounds(0);
  x[0] += ks[2];
  x[1] += ks[0] + 5;
  return x;
}

std::array<uint32_t, 4> Philox4x32(std::array<uint32_t, 4> x,
                                   std::array<uint32_t, 2> key) {
  constexpr uint32_t kW32A = 0x9E3779B9, kW32B = 0xBB67AE85;
  constexpr uint32_t kM4x32A = 0xD2511F53, kM4x32B = 0xCD9E8D57;
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t{kM4x32A} * x[0];
    const uint64_t p1 = uint64_t{kM4x32B} * x[2];
    x = {static_cast<uint32_t>(p1 >> 32) ^ x[1] ^ key[0],
         static_cast<uint32_t>(p1),
         static_cast<uint32_t>(p0 >> 32) ^ x[3] ^ key[1],
         static_cast<uint32_t>(p0)};
    key[0] += kW32A;
    key[1] += kW32B;
  }
  return x;
}

std::array<uint32_t, 2> Split(uint64_t v) {
  return {static_cast<uint32_t>(v), static_cast<uint32_t>(v >> 32)};
}

// Stores `bits` (the low BitWidth bits) as element i of `out`.
void Put(Literal& out, int64_t i, uint64_t bits) { out.SetBits(i, bits); }

absl::StatusOr<Literal> EvalRngBitGenerator(const HloInstruction& hlo,
                                            const Literal& state) {
  const Shape& state_shape = hlo.shape().tuple_shapes(0);
  const Shape& shape = hlo.shape().tuple_shapes(1);
  const int64_t n = shape.ElementCount();
  const int width = BitWidth(shape.element_type());
  if (width != 8 && width != 16 && width != 32 && width != 64) {
    return InstructionError(hlo,
                            "rng-bit-generator needs 8- to 64-bit "
                            "elements");
  }
  if (state.shape().rank() != 1 || state.element_count() < 2) {
    return InstructionError(hlo, "rng-bit-generator needs a u64[>=2] state");
  }
  RandomAlgorithm algorithm = hlo.attrs().rng_algorithm;
  if (algorithm == RandomAlgorithm::kDefault) {
    algorithm = RandomAlgorithm::kPhilox;  // XLA's default on CPU and GPU
  }
  const uint64_t key = state.GetAsUint64(0);
  Literal bits(shape);
  Literal new_state(state_shape);
  for (int64_t i = 0; i < state.element_count(); ++i) {
    new_state.SetFromUint64(i, state.GetAsUint64(i));
  }
  if (algorithm == RandomAlgorithm::kThreeFry) {
    const uint64_t counter = state.GetAsUint64(1);
    if (width == 64) {
      for (int64_t i = 0; i < n; ++i) {
        const auto out = ThreeFry2x32(Split(counter + i), Split(key));
        Put(bits, i, out[0] | (uint64_t{out[1]} << 32));
      }
      new_state.SetFromUint64(1, counter + n);
    } else {
      // 32 bits or fewer: the shape is split in halves along its first
      // even dimension (or its largest), each counter yielding one element
      // of each half.
      const Shape& s = shape;
      const int64_t rank = s.rank();
      int64_t split = -1;
      for (int64_t d = 0; d < rank && split < 0; ++d) {
        if (s.dimensions(d) % 2 == 0) split = d;
      }
      if (split < 0) {
        for (int64_t d = 0; d < rank; ++d) {
          if (split < 0 || s.dimensions(d) > s.dimensions(split)) split = d;
        }
      }
      if (rank == 0) {
        const auto out = ThreeFry2x32(Split(counter), Split(key));
        Put(bits, 0, out[0]);
        new_state.SetFromUint64(1, counter + 1);
      } else {
        // Half shape: dims with dims[split] -> ceil(d/2), plus a size-1
        // axis after it; counters follow its row-major order.
        std::vector<int64_t> half(s.dimensions().begin(), s.dimensions().end());
        half[split] = (half[split] + 1) / 2;
        int64_t half_count = 1;
        for (int64_t d : half) half_count *= d;
        const std::vector<int64_t> out_strides = Strides(s.dimensions());
        int64_t h = 0;
        ForEachIndex(half, [&](absl::Span<const int64_t> idx) {
          const auto out = ThreeFry2x32(Split(counter + h), Split(key));
          for (int c = 0; c < 2; ++c) {
            const int64_t pos = idx[split] * 2 + c;
            if (pos >= s.dimensions(split)) continue;
            int64_t at = 0;
            for (int64_t d = 0; d < rank; ++d) {
              at += (d == split ? pos : idx[d]) * out_strides[d];
            }
            Put(bits, at, out[c]);
          }
          ++h;
        });
        new_state.SetFromUint64(1, counter + half_count);
      }
    }
  } else if (algorithm == RandomAlgorithm::kPhilox) {
    // The 128-bit counter: state[1..2], or the reversed u64[2] state.
    uint64_t low, high;
    const bool long_state = state.element_count() >= 3;
    if (long_state) {
      low = state.GetAsUint64(1);
      high = state.GetAsUint64(2);
    } else {
      low = state.GetAsUint64(1);
      high = state.GetAsUint64(0);
    }
    auto block = [&](uint64_t i) {
      const uint64_t l = low + i;
      const uint64_t hi = high + (l < low ? 1 : 0);
      const auto a = Split(l), b = Split(hi);
      return Philox4x32({a[0], a[1], b[0], b[1]}, Split(key));
    };
    int64_t blocks;
    if (width == 64) {
      blocks = (2 * n + 3) / 4;
      // Element k: lanes (0,1) of block k/2 for even k, (2,3) for odd.
      for (int64_t k = 0; k < n; ++k) {
        const auto out = block(k / 2);
        const int lane = (k % 2) * 2;
        Put(bits, k, out[lane] | (uint64_t{out[lane + 1]} << 32));
      }
    } else {
      blocks = (n + 3) / 4;
      for (int64_t k = 0; k < n; ++k) Put(bits, k, block(k / 4)[k % 4]);
    }
    const uint64_t new_low = low + blocks;
    const uint64_t new_high = high + (new_low < low ? 1 : 0);
    new_state.SetFromUint64(1, new_low);
    if (long_state) new_state.SetFromUint64(2, new_high);
  } else {
    return InstructionError(hlo, "unknown rng algorithm");
  }
  std::vector<Literal> elements;
  elements.push_back(std::move(new_state));
  elements.push_back(std::move(bits));
  return Literal::Tuple(std::move(elements));
}

absl::StatusOr<Literal> EvalRng(Evaluator& evaluator, const HloInstruction& hlo,
                                Operands operands) {
  Literal out(hlo.shape());
  const int64_t n = out.element_count();
  const PrimitiveType type = hlo.shape().element_type();
  std::mt19937_64& gen = evaluator.rng();
  if (hlo.attrs().distribution == RandomDistribution::kNormal) {
    const double mu = operands[0]->GetAsDouble(0);
    const double sigma = operands[1]->GetAsDouble(0);
    std::normal_distribution<double> dist(mu, sigma);
    for (int64_t i = 0; i < n; ++i) out.SetFromDouble(i, dist(gen));
    return out;
  }
  if (IsFloatingPoint(type)) {
    const double a = operands[0]->GetAsDouble(0);
    const double b = operands[1]->GetAsDouble(0);
    std::uniform_real_distribution<double> dist(a, b);
    for (int64_t i = 0; i < n; ++i) out.SetFromDouble(i, dist(gen));
    return out;
  }
  const int64_t a = operands[0]->GetAsInt64(0);
  const int64_t b = operands[1]->GetAsInt64(0);
  if (b <= a) return InstructionError(hlo, "rng needs a < b");
  std::uniform_int_distribution<int64_t> dist(a, b - 1);
  for (int64_t i = 0; i < n; ++i) out.SetFromInt64(i, dist(gen));
  return out;
}

}  // namespace

absl::StatusOr<Literal> EvalRandom(Evaluator& evaluator,
                                   const HloInstruction& hlo,
                                   Operands operands) {
  switch (hlo.opcode()) {
    case HloOpcode::kRngBitGenerator:
      return EvalRngBitGenerator(hlo, *operands[0]);
    case HloOpcode::kRng:
      return EvalRng(evaluator, hlo, operands);
    default:
      return NotImplemented(hlo);
  }
}

}  // namespace xlite::eval
