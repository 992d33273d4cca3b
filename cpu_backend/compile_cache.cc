#include "cpu_backend/compile_cache.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "cpu_backend/build_identity.h"
#include "cpu_backend/jit.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/SHA256.h"
#include "llvm/TargetParser/Host.h"

namespace xlite::cpu {

namespace {

// Appends one named field; lengths keep neighbouring fields apart.
void Field(llvm::SHA256& hash, absl::string_view name,
           absl::string_view value) {
  const std::string header = absl::StrCat(name, ":", value.size(), ":");
  hash.update(header);
  hash.update(llvm::StringRef(value.data(), value.size()));
}

void HashOptions(llvm::SHA256& hash, const CompileOptions& options) {
  // Every field by name: a field added to CompileOptions stops this from
  // compiling until it is hashed here too (or, like use_cache, said to
  // change nothing in the code).
  const auto& [xla_cpu_numerics, run_passes, keep_llvm_ir, keep_asm, use_cache,
               profile] = options;
  (void)use_cache;  // whether to cache, not what is compiled
  Field(hash, "xla_cpu_numerics", xla_cpu_numerics ? "1" : "0");
  Field(hash, "profile", profile ? "1" : "0");
  Field(hash, "run_passes", run_passes ? "1" : "0");
  Field(hash, "keep_llvm_ir", keep_llvm_ir ? "1" : "0");
  Field(hash, "keep_asm", keep_asm ? "1" : "0");
}

std::string EntryPath(const std::string& directory, const std::string& key) {
  return absl::StrCat(directory, "/", key, ".xlc");
}

std::optional<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return std::move(bytes).str();
}

// Writes `bytes` to `path` through a temporary file in the same directory
// and a rename; "" or why not.
std::string WriteFileAtomically(const std::string& path,
                                absl::string_view bytes) {
  static std::atomic<int64_t> counter{0};
  std::error_code error;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(),
                                      error);
  if (error) return error.message();
  const std::string temp =
      absl::StrCat(path, ".tmp.", ::getpid(), ".", counter++);
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), bytes.size());
    out.close();
    if (!out) {
      std::filesystem::remove(temp, error);
      return "cannot write " + temp;
    }
  }
  std::filesystem::rename(temp, path, error);
  if (error) {
    const std::string why = error.message();
    std::filesystem::remove(temp, error);
    return why;
  }
  return "";
}

}  // namespace

std::string CompileCacheKey(absl::string_view module_text,
                            const CompileOptions& options) {
  llvm::SHA256 hash;
  Field(hash, "format", absl::StrCat(kCacheFormatVersion));
  Field(hash, "llvm", LLVM_VERSION_STRING);
  Field(hash, "build", ProcessBuildIdentity());
  Field(hash, "triple", llvm::sys::getProcessTriple());
  Field(hash, "cpu", HostCpuName());
  Field(hash, "features", HostCpuFeatures());
  HashOptions(hash, options);
  Field(hash, "module", module_text);
  const std::array<uint8_t, 32> digest = hash.final();
  return absl::BytesToHexString(absl::string_view(
      reinterpret_cast<const char*>(digest.data()), digest.size()));
}

CompileCache& CompileCache::Global() {
  static CompileCache cache;
  return cache;
}

std::string CompileCache::Directory() {
  auto env = [](const char* name) -> std::string {
    const char* value = std::getenv(name);
    return value != nullptr ? value : "";
  };
  std::string root = env("XLITE_CACHE_DIR");
  if (root.empty() && !env("XDG_CACHE_HOME").empty()) {
    root = env("XDG_CACHE_HOME") + "/xlite";
  }
  if (root.empty() && !env("HOME").empty()) {
    root = env("HOME") + "/.cache/xlite";
  }
  return root.empty() ? "" : root + "/cpu";
}

std::shared_ptr<const CacheEntry> CompileCache::Lookup(const std::string& key) {
  {
    absl::MutexLock lock(&mutex_);
    if (auto it = slots_.find(key); it != slots_.end()) {
      recency_.splice(recency_.begin(), recency_, it->second.age);
      ++stats_.memory_hits;
      return it->second.entry;
    }
  }
  std::shared_ptr<const CacheEntry> found;
  if (const std::string directory = Directory(); !directory.empty()) {
    if (std::optional<std::string> bytes =
            ReadFile(EntryPath(directory, key))) {
      if (std::optional<CacheEntry> entry = ParseCacheEntry(*bytes, key)) {
        found = std::make_shared<const CacheEntry>(*std::move(entry));
      }
    }
  }
  absl::MutexLock lock(&mutex_);
  if (found == nullptr) {
    ++stats_.misses;
    return nullptr;
  }
  ++stats_.disk_hits;
  KeepInMemory(key, found);
  return found;
}

void CompileCache::Insert(const std::string& key, CacheEntry entry) {
  auto shared = std::make_shared<const CacheEntry>(std::move(entry));
  {
    absl::MutexLock lock(&mutex_);
    KeepInMemory(key, shared);
  }
  const std::string directory = Directory();
  if (directory.empty()) return;
  const std::string why = WriteFileAtomically(
      EntryPath(directory, key), SerializeCacheEntry(key, *shared));
  static std::atomic<bool> noted{false};
  if (!why.empty() && !noted.exchange(true)) {
    std::cerr << "note: the compile cache cannot write to " << directory << ": "
              << why << "\n";
  }
}

void CompileCache::KeepInMemory(const std::string& key,
                                std::shared_ptr<const CacheEntry> entry) {
  if (auto it = slots_.find(key); it != slots_.end()) {
    bytes_ -= it->second.entry->ByteSize();
    recency_.erase(it->second.age);
    slots_.erase(it);
  }
  const int64_t size = entry->ByteSize();
  if (size > max_bytes_) return;  // the disk keeps it
  while (!recency_.empty() &&
         (static_cast<int64_t>(slots_.size()) >= max_entries_ ||
          bytes_ + size > max_bytes_)) {
    auto oldest = slots_.find(recency_.back());
    bytes_ -= oldest->second.entry->ByteSize();
    slots_.erase(oldest);
    recency_.pop_back();
  }
  recency_.push_front(key);
  slots_[key] = Slot{std::move(entry), recency_.begin()};
  bytes_ += size;
}

void CompileCache::NoteRejected() {
  absl::MutexLock lock(&mutex_);
  ++stats_.rejected;
}

void CompileCache::ClearMemory() {
  absl::MutexLock lock(&mutex_);
  slots_.clear();
  recency_.clear();
  bytes_ = 0;
}

CompileCache::Stats CompileCache::stats() const {
  absl::MutexLock lock(&mutex_);
  return stats_;
}

}  // namespace xlite::cpu
