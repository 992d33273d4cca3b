#include "cpu_backend/cache_entry.h"

#include "absl/strings/escaping.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/xxhash.h"

namespace xlite::cpu {

namespace {

constexpr absl::string_view kMagic("XLITECPU", 8);

void PutInt(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i)
    out.push_back(char((value >> (8 * i)) & 0xff));
}

void PutString(std::string& out, absl::string_view s) {
  PutInt(out, s.size(), 8);
  out.append(s.data(), s.size());
}

uint64_t Checksum(absl::string_view bytes) {
  return llvm::xxh3_64bits(llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
}

// Reads the fields back in order; any read past the end fails and sticks.
class Reader {
 public:
  explicit Reader(absl::string_view bytes) : rest_(bytes) {}
  bool ok() const { return ok_; }
  bool done() const { return rest_.empty(); }

  uint64_t Int(int bytes) {
    if (!Need(bytes)) return 0;
    uint64_t value = 0;
    for (int i = 0; i < bytes; ++i) {
      value |= uint64_t(uint8_t(rest_[i])) << (8 * i);
    }
    rest_.remove_prefix(bytes);
    return value;
  }
  absl::string_view Bytes(uint64_t n) {
    if (!Need(n)) return "";
    absl::string_view out = rest_.substr(0, n);
    rest_.remove_prefix(n);
    return out;
  }
  std::string String() { return std::string(Bytes(Int(8))); }

 private:
  bool Need(uint64_t n) {
    if (n > rest_.size()) ok_ = false;
    return ok_;
  }
  absl::string_view rest_;
  bool ok_ = true;
};

}  // namespace

std::string Sha256Hex(absl::string_view bytes) {
  const std::array<uint8_t, 32> digest =
      llvm::SHA256::hash(llvm::ArrayRef<uint8_t>(
          reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  return absl::BytesToHexString(absl::string_view(
      reinterpret_cast<const char*>(digest.data()), digest.size()));
}

int64_t CacheEntry::ByteSize() const {
  int64_t size = hlo_text.size() + object.size() + assignment_digest.size();
  for (const Constant& c : constants) size += c.bytes.size() + sizeof(c);
  return size;
}

std::string SerializeCacheEntry(absl::string_view key,
                                const CacheEntry& entry) {
  std::string out(kMagic);
  PutInt(out, kCacheFormatVersion, 4);
  PutString(out, key);
  PutString(out, entry.hlo_text);
  PutInt(out, entry.scheduled ? 1 : 0, 1);
  PutString(out, entry.object);
  PutString(out, entry.assignment_digest);
  PutInt(out, entry.constants.size(), 8);
  for (const CacheEntry::Constant& c : entry.constants) {
    PutInt(out, c.allocation, 8);
    PutString(out, c.bytes);
  }
  PutInt(out, Checksum(out), 8);
  return out;
}

std::optional<CacheEntry> ParseCacheEntry(absl::string_view bytes,
                                          absl::string_view key) {
  if (bytes.size() < kMagic.size() + 8) return std::nullopt;
  const absl::string_view body = bytes.substr(0, bytes.size() - 8);
  Reader trailer(bytes.substr(body.size()));
  if (trailer.Int(8) != Checksum(body)) return std::nullopt;
  Reader in(body);
  if (in.Bytes(kMagic.size()) != kMagic) return std::nullopt;
  if (in.Int(4) != kCacheFormatVersion) return std::nullopt;
  if (in.String() != key) return std::nullopt;
  CacheEntry entry;
  entry.hlo_text = in.String();
  const uint64_t scheduled = in.Int(1);
  if (scheduled > 1) return std::nullopt;
  entry.scheduled = scheduled == 1;
  entry.object = in.String();
  entry.assignment_digest = in.String();
  const uint64_t count = in.Int(8);
  // Each constant takes at least 16 bytes: a bad count fails before any
  // allocation of that size.
  if (!in.ok() || count > body.size() / 16) return std::nullopt;
  entry.constants.resize(count);
  for (CacheEntry::Constant& c : entry.constants) {
    c.allocation = static_cast<int64_t>(in.Int(8));
    c.bytes = in.String();
  }
  if (!in.ok() || !in.done()) return std::nullopt;
  return entry;
}

}  // namespace xlite::cpu
