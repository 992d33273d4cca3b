// xlite_cpu_rng_bit_generator: XLA's Threefry-2x32 (20 rounds) and
// Philox-4x32 (10 rounds) expansions of a u64 state into random bits, bit
// for bit as hlo/evaluator/rng.cc (which this file never calls).

#include <array>
#include <cstring>
#include <vector>

#include "cpu_backend/runtime_lib/runtime_lib.h"

namespace xlite::cpu {
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
  for (int block = 0; block < 5; ++block) {
    const int first = (block % 2) * 4;
    for (int r = first; r < first + 4; ++r) {
      x[0] += x[1];
      x[1] = RotateLeft(x[1], kRotations[r]);
      x[1] ^= x[0];
    }
    x[0] += ks[(block + 1) % 3];
    x[1] += ks[(block + 2) % 3] + static_cast<uint32_t>(block + 1);
  }
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

// Writes the low `width` bits of `value` as element i (little-endian).
void Put(void* bits, int32_t width, int64_t i, uint64_t value) {
  const int64_t bytes = width / 8;
  std::memcpy(static_cast<uint8_t*>(bits) + i * bytes, &value, bytes);
}

// Threefry: 64-bit elements take one counter each; narrower ones split the
// shape in halves along its first even dimension (else its largest), each
// counter yielding one element of each half. Returns counters used.
uint64_t ThreeFryBits(uint64_t key, uint64_t counter, int32_t width,
                      int64_t rank, const int64_t* dims, void* bits) {
  int64_t n = 1;
  for (int64_t d = 0; d < rank; ++d) n *= dims[d];
  if (width == 64) {
    for (int64_t i = 0; i < n; ++i) {
      const auto out = ThreeFry2x32(Split(counter + i), Split(key));
      Put(bits, width, i, out[0] | (uint64_t{out[1]} << 32));
    }
    return n;
  }
  if (rank == 0) {
    Put(bits, width, 0, ThreeFry2x32(Split(counter), Split(key))[0]);
    return 1;
  }
  int64_t split = -1;
  for (int64_t d = 0; d < rank && split < 0; ++d) {
    if (dims[d] % 2 == 0) split = d;
  }
  if (split < 0) {
    for (int64_t d = 0; d < rank; ++d) {
      if (split < 0 || dims[d] > dims[split]) split = d;
    }
  }
  std::vector<int64_t> half(dims, dims + rank), strides(rank, 1);
  half[split] = (half[split] + 1) / 2;
  int64_t half_count = 1;
  for (int64_t d : half) half_count *= d;
  for (int64_t d = rank - 2; d >= 0; --d) strides[d] = strides[d + 1] * dims[d + 1];
  std::vector<int64_t> idx(rank, 0);
  for (int64_t h = 0; h < half_count; ++h) {
    const auto out = ThreeFry2x32(Split(counter + h), Split(key));
    for (int c = 0; c < 2; ++c) {
      const int64_t pos = idx[split] * 2 + c;
      if (pos >= dims[split]) continue;
      int64_t at = 0;
      for (int64_t d = 0; d < rank; ++d) {
        at += (d == split ? pos : idx[d]) * strides[d];
      }
      Put(bits, width, at, out[c]);
    }
    for (int64_t d = rank - 1; d >= 0 && ++idx[d] == half[d]; --d) idx[d] = 0;
  }
  return half_count;
}

// Philox: four 32-bit lanes per 128-bit counter value; a 64-bit element
// takes two lanes. Returns the counter values used.
uint64_t PhiloxBits(uint64_t key, uint64_t low, uint64_t high, int32_t width,
                    int64_t n, void* bits) {
  auto block = [&](uint64_t i) {
    const uint64_t l = low + i;
    const uint64_t hi = high + (l < low ? 1 : 0);
    const auto a = Split(l), b = Split(hi);
    return Philox4x32({a[0], a[1], b[0], b[1]}, Split(key));
  };
  if (width == 64) {
    for (int64_t k = 0; k < n; ++k) {
      const auto out = block(k / 2);
      const int lane = (k % 2) * 2;
      Put(bits, width, k, out[lane] | (uint64_t{out[lane + 1]} << 32));
    }
    return (2 * n + 3) / 4;
  }
  for (int64_t k = 0; k < n; ++k) Put(bits, width, k, block(k / 4)[k % 4]);
  return (n + 3) / 4;
}

}  // namespace
}  // namespace xlite::cpu

extern "C" int32_t xlite_cpu_rng_bit_generator(
    int32_t algorithm, const uint64_t* state, int64_t state_size,
    uint64_t* new_state, int32_t bit_width, int64_t rank, const int64_t* dims,
    void* bits) {
  using namespace xlite::cpu;  // NOLINT
  if (state == nullptr || new_state == nullptr ||
      state_size < 2 || rank < 0 || (rank > 0 && dims == nullptr) ||
      (bit_width != 8 && bit_width != 16 && bit_width != 32 &&
       bit_width != 64)) {
    return kStatusInvalidArgument;
  }
  int64_t n = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (dims[d] < 0) return kStatusInvalidArgument;
    n *= dims[d];
  }
  if (bits == nullptr && n > 0) return kStatusInvalidArgument;
  const std::vector<uint64_t> old(state, state + state_size);
  const uint64_t key = old[0];
  if (algorithm == kRngThreeFry) {
    const uint64_t used = ThreeFryBits(key, old[1], bit_width, rank, dims, bits);
    std::memmove(new_state, old.data(), state_size * sizeof(uint64_t));
    new_state[1] = old[1] + used;
    return kStatusOk;
  }
  if (algorithm != kRngDefault && algorithm != kRngPhilox) {
    return kStatusInvalidArgument;
  }
  const bool long_state = state_size >= 3;
  const uint64_t low = old[1];
  const uint64_t high = long_state ? old[2] : old[0];
  const uint64_t used = PhiloxBits(key, low, high, bit_width, n, bits);
  std::memmove(new_state, old.data(), state_size * sizeof(uint64_t));
  const uint64_t new_low = low + used;
  new_state[1] = new_low;
  if (long_state) new_state[2] = high + (new_low < low ? 1 : 0);
  return kStatusOk;
}
