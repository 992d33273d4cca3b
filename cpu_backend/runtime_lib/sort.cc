// xlite_cpu_sort and xlite_cpu_topk (see runtime_lib.h); the evaluator's
// counterparts are in hlo/evaluator/sort.cc.

#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "cpu_backend/runtime_lib/runtime_lib.h"

namespace xlite::cpu {
namespace {

// Bytes per element of the types top-k orders; 0 for any other code.
int ElementBytes(int32_t type) {
  switch (type) {
    case kTypePred:
    case kTypeS8:
    case kTypeU8:
    case 19:  // f8e5m2
    case 20:  // f8e4m3fn
    case 21:  // s4
    case 22:  // u4
    case 23:  // f8e4m3b11fnuz
    case 24:  // f8e5m2fnuz
    case 25:  // f8e4m3fnuz
    case 26:  // s2
    case 27:  // u2
    case 28:  // f8e4m3
    case 29:  // f8e3m4
    case 30:  // s1
    case 31:  // u1
    case 32:  // f4e2m1fn
    case 33:  // f8e8m0fnu
      return 1;
    case kTypeS16:
    case kTypeU16:
    case kTypeF16:
    case kTypeBF16:
      return 2;
    case kTypeS32:
    case kTypeU32:
    case kTypeF32:
      return 4;
    case kTypeS64:
    case kTypeU64:
    case kTypeF64:
    case kTypeC64:
      return 8;
    case kTypeC128:
      return 16;
    default:
      return 0;
  }
}

template <typename T>
T Load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

// Sign-magnitude float bits of `width` (sign bit at width - 1) as a key in
// XLA's total order, -NaN < -inf < ... < -0 < +0 < ... < +NaN.
int64_t SignMagnitudeKey(uint64_t bits, int width) {
  const int64_t b = static_cast<int64_t>(bits & ((uint64_t{1} << width) - 1));
  const int64_t sign = int64_t{1} << (width - 1);
  return (b & sign) ? -(b & ~sign) - 1 : b;
}

// The key of the element at `p` whose order is the element type's total
// order: floats as above, integers by value (u64 shifted into int64's
// range), pred 0/1, complex all equal.
int64_t OrderKey(int32_t type, const uint8_t* p) {
  switch (type) {
    case kTypePred:
    case kTypeU8:
    case 22:
    case 27:
    case 31:
      return *p;
    case kTypeS8:
    case 21:
    case 26:
    case 30:
      return static_cast<int8_t>(*p);
    case kTypeS16:
      return Load<int16_t>(p);
    case kTypeU16:
      return Load<uint16_t>(p);
    case kTypeS32:
      return Load<int32_t>(p);
    case kTypeU32:
      return Load<uint32_t>(p);
    case kTypeS64:
      return Load<int64_t>(p);
    case kTypeU64:
      return static_cast<int64_t>(Load<uint64_t>(p) ^ (uint64_t{1} << 63));
    case kTypeF32:
      return SignMagnitudeKey(Load<uint32_t>(p), 32);
    case kTypeF64: {
      const int64_t bits = Load<int64_t>(p);
      return bits < 0 ? (bits ^ 0x7fffffffffffffffLL) : bits;
    }
    case kTypeF16:
    case kTypeBF16:
      return SignMagnitudeKey(Load<uint16_t>(p), 16);
    case 32:  // f4e2m1fn
      return SignMagnitudeKey(*p, 4);
    case 33:  // f8e8m0fnu: no sign, bits in value order
      return *p;
    case kTypeC64:
    case kTypeC128:
      return 0;
    default:  // the signed f8 types
      return SignMagnitudeKey(*p, 8);
  }
}

// The index types top-k writes: the integers of 8 to 64 bits.
bool IsIndexType(int32_t type) { return type >= kTypeS8 && type <= kTypeU64; }

// Stores `v` as an element of the integer `type` (wrapping, as a convert).
void StoreIndex(int32_t type, int64_t v, uint8_t* p) {
  switch (ElementBytes(type)) {
    case 1: {
      const int8_t x = static_cast<int8_t>(v);
      std::memcpy(p, &x, 1);
      break;
    }
    case 2: {
      const int16_t x = static_cast<int16_t>(v);
      std::memcpy(p, &x, 2);
      break;
    }
    case 4: {
      const int32_t x = static_cast<int32_t>(v);
      std::memcpy(p, &x, 4);
      break;
    }
    default:
      std::memcpy(p, &v, 8);
      break;
  }
}

}  // namespace

// C linkage: these are the global functions runtime_lib.h declares.

extern "C" int32_t xlite_cpu_sort(int64_t num_operands, void** buffers,
                                  const int64_t* element_bytes, int64_t outer,
                                  int64_t sort_dim_size, int64_t inner,
                                  int32_t stable, XliteCpuSortComparator less) {
  (void)stable;  // always stable: see runtime_lib.h
  if (num_operands <= 0 || buffers == nullptr || element_bytes == nullptr ||
      less == nullptr || outer < 0 || sort_dim_size < 0 || inner < 0) {
    return kStatusInvalidArgument;
  }
  for (int64_t k = 0; k < num_operands; ++k) {
    if (element_bytes[k] <= 0) return kStatusInvalidArgument;
    if (buffers[k] == nullptr && outer * sort_dim_size * inner > 0) {
      return kStatusInvalidArgument;
    }
  }
  if (sort_dim_size <= 1) return kStatusOk;
  int64_t widest = 0;
  for (int64_t k = 0; k < num_operands; ++k) {
    widest = std::max(widest, element_bytes[k]);
  }
  std::vector<int64_t> perm(sort_dim_size);
  std::vector<void*> elements(2 * num_operands);
  std::vector<uint8_t> scratch(sort_dim_size * widest);
  const int64_t row = sort_dim_size * inner;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      const int64_t base = o * row + in;
      auto at = [&](int64_t k, int64_t i) {
        return static_cast<uint8_t*>(buffers[k]) +
               (base + i * inner) * element_bytes[k];
      };
      std::iota(perm.begin(), perm.end(), 0);
      // The evaluator's algorithm (std::stable_sort over an index
      // permutation), so that even a comparator that is not a strict weak
      // order (NaNs under LT) gives the same result.
      std::stable_sort(perm.begin(), perm.end(), [&](int64_t i, int64_t j) {
        for (int64_t k = 0; k < num_operands; ++k) {
          elements[2 * k] = at(k, i);
          elements[2 * k + 1] = at(k, j);
        }
        return less(elements.data()) != 0;
      });
      for (int64_t k = 0; k < num_operands; ++k) {
        const int64_t w = element_bytes[k];
        for (int64_t i = 0; i < sort_dim_size; ++i) {
          std::memcpy(scratch.data() + i * w, at(k, perm[i]), w);
        }
        for (int64_t i = 0; i < sort_dim_size; ++i) {
          std::memcpy(at(k, i), scratch.data() + i * w, w);
        }
      }
    }
  }
  return kStatusOk;
}

extern "C" int32_t xlite_cpu_topk(int32_t type, const void* input, int64_t rows,
                                  int64_t n, int64_t k, int32_t largest,
                                  void* values, int32_t index_type,
                                  void* indices) {
  const int w = ElementBytes(type);
  if (w == 0 || !IsIndexType(index_type)) return kStatusUnsupportedType;
  if (rows < 0 || n < 0 || k < 0 || k > n) return kStatusInvalidArgument;
  if (rows * k > 0 &&
      (input == nullptr || values == nullptr || indices == nullptr)) {
    return kStatusInvalidArgument;
  }
  if (rows * k == 0) return kStatusOk;
  const int iw = ElementBytes(index_type);
  const auto* in = static_cast<const uint8_t*>(input);
  auto* vals = static_cast<uint8_t*>(values);
  auto* idx = static_cast<uint8_t*>(indices);
  std::vector<int64_t> keys(n);
  std::vector<int64_t> order(n);
  for (int64_t r = 0; r < rows; ++r) {
    const uint8_t* row = in + r * n * w;
    for (int64_t i = 0; i < n; ++i) keys[i] = OrderKey(type, row + i * w);
    std::iota(order.begin(), order.end(), 0);
    // A strict total order (key, then index), so a partial sort gives what
    // the evaluator's stable sort of the whole row gives.
    auto before = [&](int64_t i, int64_t j) {
      if (keys[i] != keys[j]) {
        return largest ? keys[i] > keys[j] : keys[i] < keys[j];
      }
      return i < j;
    };
    std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
    for (int64_t i = 0; i < k; ++i) {
      std::memcpy(vals + (r * k + i) * w, row + order[i] * w, w);
      StoreIndex(index_type, order[i], idx + (r * k + i) * iw);
    }
  }
  return kStatusOk;
}

}  // namespace xlite::cpu
