#include "gpu_backend/emulator/tensor_memory.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace xlite::gpu::emulator {
namespace {

constexpr int64_t kLanes = 128;
constexpr int64_t kColumns = 512;

// codegen::WgmmaKind's values.
enum Kind : int32_t { kF16, kBF16, kTF32, kE4M3, kE5M2, kS8 };

// A tcgen05 shared-memory descriptor as the wgmma one ReadWarpgroupOperand
// decodes (the same start, LBO, SBO and base offset bits; the 128-byte
// swizzle in bits 62-63), or an error: version 1 in bits 46-47, a
// relative LBO (bit 52), no swizzle or the 128-byte one (bits 61-63: 0 or
// 2).
std::string AsWgmmaDescriptor(const char* name, uint64_t desc, uint64_t& out) {
  const uint64_t version = (desc >> 46) & 3;
  const uint64_t swizzle = desc >> 61;
  if (version != 1) {
    return absl::StrCat("tcgen05.mma: the ", name, " descriptor has version ",
                        version, " in bits 46-47 (Blackwell's is 1)");
  }
  if (((desc >> 52) & 1) != 0 || (swizzle != 0 && swizzle != 2)) {
    return absl::StrCat("tcgen05.mma: the ", name,
                        " descriptor asks for an absolute LBO or swizzle "
                        "mode ",
                        swizzle,
                        ", which the emulator does not model (0: none, 2: "
                        "128 bytes)");
  }
  out = (desc & ((uint64_t{1} << 46) - 1)) | (desc & (uint64_t{7} << 49)) |
        (swizzle == 2 ? uint64_t{1} << 62 : 0);
  return "";
}

// The operand type `format` (3 bits of the instruction descriptor) names
// for `kind`, or -1.
int32_t OperandKind(Tcgen05Kind kind, uint32_t format) {
  switch (kind) {
    case Tcgen05Kind::kF16:
      return format == 0 ? kF16 : format == 1 ? kBF16 : -1;
    case Tcgen05Kind::kTf32:
      return format == 2 ? kTF32 : -1;
    case Tcgen05Kind::kF8f6f4:
      return format == 0 ? kE4M3 : format == 1 ? kE5M2 : -1;
    case Tcgen05Kind::kI8:
      return format == 1 ? kS8 : -1;
  }
  return -1;
}

}  // namespace

TensorMemory::TensorMemory() { Clear(); }

void TensorMemory::Clear() {
  cells_.assign(kLanes * kColumns, 0xA5A5A5A5u);
  allocs_.clear();
  pending_.clear();
  issued_ = completed_ = 0;
}

std::string TensorMemory::Alloc(int64_t columns, uint32_t& address) {
  if (columns < 32 || columns > kColumns || (columns & (columns - 1)) != 0) {
    return absl::StrCat("tcgen05.alloc of ", columns,
                        " columns (a power of 2 from 32 to 512)");
  }
  std::sort(allocs_.begin(), allocs_.end());
  int64_t at = 0;
  for (const auto& [first, count] : allocs_) {
    if (first - at >= columns) break;
    at = std::max(at, first + count);
  }
  if (at + columns > kColumns) {
    return absl::StrCat("tcgen05.alloc of ", columns,
                        " columns with too few free (it would wait forever "
                        "in one block)");
  }
  allocs_.emplace_back(at, columns);
  address = static_cast<uint32_t>(at);
  return "";
}

std::string TensorMemory::Dealloc(uint32_t address, int64_t columns) {
  for (auto it = allocs_.begin(); it != allocs_.end(); ++it) {
    if (it->first == address && it->second == columns) {
      allocs_.erase(it);
      return "";
    }
  }
  return absl::StrCat("tcgen05.dealloc of ", columns, " columns at ", address,
                      ", which no tcgen05.alloc gave");
}

std::string TensorMemory::Leftover() const {
  if (allocs_.empty()) return "";
  return absl::StrCat("the block ended holding ", allocs_.front().second,
                      " columns of tensor memory (no tcgen05.dealloc)");
}

std::string TensorMemory::Decode(Tcgen05Kind kind, uint32_t idesc, uint32_t d,
                                 uint64_t desc_a, uint64_t desc_b,
                                 Pending& p) const {
  // Sparsity (bits 0-2), saturation (3), negation (13-14), reserved
  // bits (6, 23, 29) and the weight-stationary shift (30-31): none.
  if ((idesc & 0xE080604Fu) != 0) {
    return absl::StrCat("tcgen05.mma: instruction descriptor 0x",
                        absl::Hex(idesc),
                        " asks for sparsity, saturation, negation or a "
                        "shift, which the emulator does not model");
  }
  const uint32_t d_format = (idesc >> 4) & 3;
  p.kind = OperandKind(kind, (idesc >> 7) & 7);
  p.kind_b = OperandKind(kind, (idesc >> 10) & 7);
  p.s32 = kind == Tcgen05Kind::kI8;
  const bool same_width = kind != Tcgen05Kind::kF16 || p.kind == p.kind_b;
  if (p.kind < 0 || p.kind_b < 0 || !same_width ||
      d_format != (p.s32 ? 2u : 1u)) {
    return absl::StrCat("tcgen05.mma: instruction descriptor 0x",
                        absl::Hex(idesc),
                        " names operand or accumulator types the emulator "
                        "does not model for this .kind");
  }
  p.trans_a = (idesc >> 15) & 1;
  p.trans_b = (idesc >> 16) & 1;
  p.n = ((idesc >> 17) & 0x3F) * 8;
  const int64_t m = ((idesc >> 24) & 0x1F) * 16;
  if (m != 128 || p.n < 16 || p.n > 256 || p.n % 16 != 0) {
    return absl::StrCat("tcgen05.mma: M ", m, " and N ", p.n,
                        " (the emulator models M = 128, N = 16 to 256 in "
                        "steps of 16)");
  }
  p.k = p.kind == kTF32 ? 8 : (p.kind == kF16 || p.kind == kBF16) ? 16 : 32;
  p.column = d & 0xFFFF;
  bool inside = false;
  for (const auto& [first, count] : allocs_) {
    inside |= p.column >= first && p.column + p.n <= first + count;
  }
  if ((d >> 16) != 0 || !inside) {
    return absl::StrCat("tcgen05.mma: D at tensor-memory address 0x",
                        absl::Hex(d), " (lane ", d >> 16, ", ", p.n,
                        " columns) is not lane 0 of allocated columns");
  }
  if (std::string e = AsWgmmaDescriptor("A", desc_a, p.desc_a); !e.empty()) {
    return e;
  }
  return AsWgmmaDescriptor("B", desc_b, p.desc_b);
}

std::string TensorMemory::Read(const Pending& p, const uint8_t* shared,
                               int64_t shared_bytes, std::vector<float>& a,
                               std::vector<float>& b) const {
  if (std::string e =
          ReadWarpgroupOperand("tcgen05.mma A", p.desc_a, p.kind, p.trans_a,
                               kLanes, p.k, shared, shared_bytes, a);
      !e.empty()) {
    return e;
  }
  return ReadWarpgroupOperand("tcgen05.mma B", p.desc_b, p.kind_b, p.trans_b,
                              p.n, p.k, shared, shared_bytes, b);
}

std::string TensorMemory::Issue(Tcgen05Kind kind, uint32_t idesc, uint32_t d,
                                uint64_t desc_a, uint64_t desc_b,
                                bool accumulate, int64_t thread,
                                const uint8_t* shared, int64_t shared_bytes) {
  Pending p;
  p.accumulate = accumulate;
  if (std::string e = Decode(kind, idesc, d, desc_a, desc_b, p); !e.empty()) {
    return absl::StrCat(e, " (thread ", thread, ")");
  }
  if (std::string e = Read(p, shared, shared_bytes, p.a, p.b); !e.empty()) {
    return e;
  }
  p.spans[0] = WarpgroupOperandSpan(p.desc_a, p.kind, p.trans_a, kLanes, p.k);
  p.spans[1] = WarpgroupOperandSpan(p.desc_b, p.kind_b, p.trans_b, p.n, p.k);
  pending_.push_back(std::move(p));
  ++issued_;
  return "";
}

std::string TensorMemory::CompleteThrough(int64_t count, const uint8_t* shared,
                                          int64_t shared_bytes) {
  while (completed_ < count && !pending_.empty()) {
    Pending p = std::move(pending_.front());
    pending_.pop_front();
    ++completed_;
    std::vector<float> a, b;
    if (std::string e = Read(p, shared, shared_bytes, a, b); !e.empty()) {
      return e;
    }
    if (a.size() != p.a.size() || b.size() != p.b.size() ||
        std::memcmp(a.data(), p.a.data(), a.size() * sizeof(float)) != 0 ||
        std::memcmp(b.data(), p.b.data(), b.size() * sizeof(float)) != 0) {
      return "a tcgen05.mma's shared operands changed between its issue and "
             "its completion (a stage refilled before the mbarrier of its "
             "tcgen05.commit)";
    }
    for (int64_t row = 0; row < kLanes; ++row) {
      for (int64_t col = 0; col < p.n; ++col) {
        uint32_t& cell = cells_[row * kColumns + p.column + col];
        const float* x = &a[row * p.k];
        const float* y = &b[col * p.k];
        if (p.s32) {
          uint32_t acc = p.accumulate ? cell : 0;
          for (int64_t i = 0; i < p.k; ++i) {
            acc += static_cast<uint32_t>(static_cast<int32_t>(x[i]) *
                                         static_cast<int32_t>(y[i]));
          }
          cell = acc;
          continue;
        }
        float acc = p.accumulate ? std::bit_cast<float>(cell) : 0.0f;
        for (int64_t i = 0; i < p.k; ++i) acc += x[i] * y[i];
        cell = std::bit_cast<uint32_t>(acc);
      }
    }
  }
  return "";
}

std::string TensorMemory::Load(int64_t warp, int64_t lane, uint32_t address,
                               int64_t count, int32_t* out) const {
  const int64_t base = address >> 16, column = address & 0xFFFF;
  if (base != 32 * (warp % 4)) {
    return absl::StrCat("tcgen05.ld by warp ", warp, " at lane ", base,
                        " (warp w reaches lanes 32 (w % 4) on)");
  }
  bool inside = false;
  for (const auto& [first, n] : allocs_) {
    inside |= column >= first && column + count <= first + n;
  }
  if (!inside) {
    return absl::StrCat("tcgen05.ld of ", count, " columns at ", column,
                        ", not allocated");
  }
  for (const Pending& p : pending_) {
    if (column < p.column + p.n && p.column < column + count) {
      return "tcgen05.ld reads tensor memory that a tcgen05.mma not yet "
             "complete writes (no wait on its tcgen05.commit's mbarrier)";
    }
  }
  for (int64_t i = 0; i < count; ++i) {
    out[i] =
        static_cast<int32_t>(cells_[(base + lane) * kColumns + column + i]);
  }
  return "";
}

bool TensorMemory::Reads(int64_t lo, int64_t hi) const {
  for (const Pending& p : pending_) {
    for (const WgmmaSpan& s : p.spans) {
      if (lo < s.hi && s.lo < hi) return true;
    }
  }
  return false;
}

}  // namespace xlite::gpu::emulator
