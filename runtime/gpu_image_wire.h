#ifndef XLITE_RUNTIME_GPU_IMAGE_WIRE_H_
#define XLITE_RUNTIME_GPU_IMAGE_WIRE_H_

// The .xlx wire primitives: little-endian integers and length-prefixed
// strings, a writer and a bounds-checked reader that fails instead of
// reading past the end.

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace xlite::runtime::wire {

inline constexpr char kMagic[8] = {'X', 'L', 'I', 'T', 'E', 'X', 'L', 'X'};
/// magic, u32 format version, u64 payload length, u32 CRC-32 of payload.
inline constexpr size_t kHeaderSize = 8 + 4 + 8 + 4;

/// CRC-32 (zlib's) of `bytes`.
uint32_t Crc32(absl::string_view bytes);

class Writer {
 public:
  void U8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void U32(uint32_t v) {
    for (int i = 0; i < 4; ++i) U8(static_cast<uint8_t>(v >> (8 * i)));
  }
  void U64(uint64_t v) {
    for (int i = 0; i < 8; ++i) U8(static_cast<uint8_t>(v >> (8 * i)));
  }
  void I64(int64_t v) { U64(static_cast<uint64_t>(v)); }
  void Bytes(absl::string_view s) {
    U64(s.size());
    out_.append(s.data(), s.size());
  }
  std::string& out() { return out_; }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(absl::string_view in) : in_(in) {}
  bool ok() const { return ok_; }
  size_t remaining() const { return in_.size() - at_; }
  uint8_t U8() {
    if (!Need(1)) return 0;
    return static_cast<uint8_t>(in_[at_++]);
  }
  uint32_t U32() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(U8()) << (8 * i);
    return v;
  }
  uint64_t U64() {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(U8()) << (8 * i);
    return v;
  }
  int64_t I64() { return static_cast<int64_t>(U64()); }
  std::string Bytes() {
    const uint64_t n = U64();
    if (!Need(n)) return "";
    std::string s(in_.substr(at_, n));
    at_ += n;
    return s;
  }
  /// A count of items each at least `min_item_bytes` long: fails when the
  /// rest of the input could not hold them.
  uint64_t Count(uint64_t min_item_bytes) {
    const uint64_t n = U64();
    if (!ok_ || (min_item_bytes > 0 && n > remaining() / min_item_bytes)) {
      ok_ = false;
      return 0;
    }
    return n;
  }
  void Fail() { ok_ = false; }

 private:
  bool Need(uint64_t n) {
    if (!ok_ || n > remaining()) {
      ok_ = false;
      return false;
    }
    return true;
  }
  absl::string_view in_;
  size_t at_ = 0;
  bool ok_ = true;
};

}  // namespace xlite::runtime::wire

#endif  // XLITE_RUNTIME_GPU_IMAGE_WIRE_H_
