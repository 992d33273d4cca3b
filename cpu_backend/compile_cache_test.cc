// The compiled-module cache (compile_cache.h): a second compile of a module
// is a hit that runs LLVM no more and computes the same bits; another
// module or option misses; a disk entry serves a later process (here: after
// the memory is cleared); truncated, corrupt, stale or unwritable entries
// are misses that compile correctly; the entry format rejects every damaged
// file.
#include "cpu_backend/compile_cache.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cpu_backend/build_identity.h"
#include "cpu_backend/cache_entry.h"
#include "cpu_backend/executable.h"
#include "cpu_backend/runtime_lib/test_support.h"
#include "hlo/text/parser.h"

namespace xlite::cpu {
namespace {

namespace fs = std::filesystem;

// A while loop, a fusion-worthy body and a constant too large to print in
// the cached text (its bytes travel beside it).
constexpr char kModule[] = R"(
HloModule cached

body {
  s = (s32[], f32[16]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[16] get-tuple-element(s), index=1
  w = f32[16] constant({1.5, -2, 3.25, 0.125, 7, -0.5, 9, 1e-3, 2, 4, 8, 16, -1, -2, -3, 0.1})
  m = f32[16] multiply(x, w)
  e = f32[16] exponential(m)
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT t = (s32[], f32[16]) tuple(j, e)
}

cond {
  s = (s32[], f32[16]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}

ENTRY main {
  p = f32[16] parameter(0)
  scale = f32[] constant(0.25)
  b = f32[16] broadcast(scale), dimensions={}
  x = f32[16] multiply(p, b)
  zero = s32[] constant(0)
  init = (s32[], f32[16]) tuple(zero, x)
  w = (s32[], f32[16]) while(init), condition=cond, body=body
  ROOT r = f32[16] get-tuple-element(w), index=1
}
)";

std::unique_ptr<HloModule> Parse(const std::string& text) {
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status().message();
  return module.ok() ? *std::move(module) : nullptr;
}

// Each test gets its own, empty cache directory and an empty memory.
class CompileCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TEST_TMPDIR");
    directory_ = absl::StrCat(
        tmp != nullptr ? tmp : "/tmp", "/cache_",
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(directory_);
    ::setenv("XLITE_CACHE_DIR", directory_.c_str(), 1);
    CompileCache::Global().ClearMemory();
    std::mt19937_64 rng(3);
    argument_ = rtlib_test::RandomLiteral(
        Parse(kModule)->entry_computation()->parameter_instruction(0)->shape(),
        rng);
  }

  static CompileOptions Cached() {
    CompileOptions options;
    options.use_cache = true;
    return options;
  }

  std::unique_ptr<CpuExecutable> Compile(
      const std::string& text, const CompileOptions& options = Cached()) {
    auto exe = CpuExecutable::Compile(Parse(text), options);
    EXPECT_TRUE(exe.ok()) << exe.status().message();
    return exe.ok() ? *std::move(exe) : nullptr;
  }

  Literal Run(const CpuExecutable& exe) {
    absl::StatusOr<Literal> result =
        exe.Run(absl::MakeConstSpan(&argument_, 1));
    EXPECT_TRUE(result.ok()) << result.status().message();
    return result.ok() ? *std::move(result) : Literal();
  }

  // The one entry file in the cache directory.
  std::string EntryFile() {
    std::vector<std::string> files;
    for (const auto& f : fs::directory_iterator(directory_ + "/cpu")) {
      files.push_back(f.path().string());
    }
    EXPECT_EQ(files.size(), 1u);
    return files.empty() ? "" : files[0];
  }

  static std::string ReadAll(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
  }
  static void WriteAll(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  }

  std::string directory_;
  Literal argument_;
};

TEST_F(CompileCacheTest, SecondCompileIsAMemoryHitWithTheSameBits) {
  const CompileCache::Stats before = CompileCache::Global().stats();
  auto first = Compile(kModule);
  ASSERT_NE(first, nullptr);
  EXPECT_FALSE(first->from_cache());
  auto second = Compile(kModule);
  ASSERT_NE(second, nullptr);
  EXPECT_TRUE(second->from_cache());
  const CompileCache::Stats after = CompileCache::Global().stats();
  EXPECT_EQ(after.misses - before.misses, 1);
  EXPECT_EQ(after.memory_hits - before.memory_hits, 1);
  EXPECT_EQ(after.rejected, before.rejected);
  // Bit for bit, and against a compile that never saw the cache.
  auto uncached = Compile(kModule, CompileOptions());
  ASSERT_NE(uncached, nullptr);
  EXPECT_FALSE(uncached->from_cache());
  const Literal want = Run(*uncached);
  EXPECT_EQ(Run(*first), want);
  EXPECT_EQ(Run(*second), want);
  auto evaluated =
      rtlib_test::EvaluateHlo(kModule, absl::MakeConstSpan(&argument_, 1));
  ASSERT_TRUE(evaluated.ok()) << evaluated.status().message();
  EXPECT_TRUE(rtlib_test::Near(*evaluated, want));
}

TEST_F(CompileCacheTest, DiskEntryServesAfterMemoryIsCleared) {
  auto first = Compile(kModule);
  ASSERT_NE(first, nullptr);
  ASSERT_FALSE(EntryFile().empty());
  CompileCache::Global().ClearMemory();
  const CompileCache::Stats before = CompileCache::Global().stats();
  auto second = Compile(kModule);
  ASSERT_NE(second, nullptr);
  EXPECT_TRUE(second->from_cache());
  EXPECT_EQ(CompileCache::Global().stats().disk_hits - before.disk_hits, 1);
  EXPECT_EQ(Run(*first), Run(*second));
  // The loaded executable's module and assignment are the compiled ones.
  EXPECT_EQ(first->assignment().ToString(), second->assignment().ToString());
}

TEST_F(CompileCacheTest, OtherModuleOrOptionMisses) {
  std::string other = kModule;
  other.replace(other.find("constant(0.25)"), 14, "constant(0.5)");
  CompileOptions no_passes = Cached();
  no_passes.run_passes = false;
  EXPECT_NE(CompileCacheKey(kModule, Cached()),
            CompileCacheKey(other, Cached()));
  EXPECT_NE(CompileCacheKey(kModule, Cached()),
            CompileCacheKey(kModule, no_passes));
  // Whether to cache does not change the code.
  EXPECT_EQ(CompileCacheKey(kModule, Cached()),
            CompileCacheKey(kModule, CompileOptions()));

  auto first = Compile(kModule);
  ASSERT_NE(first, nullptr);
  auto changed = Compile(other);
  ASSERT_NE(changed, nullptr);
  EXPECT_FALSE(changed->from_cache());
  EXPECT_NE(Run(*first), Run(*changed));
  auto unoptimized = Compile(kModule, no_passes);
  ASSERT_NE(unoptimized, nullptr);
  EXPECT_FALSE(unoptimized->from_cache());
  EXPECT_TRUE(rtlib_test::Near(Run(*first), Run(*unoptimized)));
}

TEST_F(CompileCacheTest, DamagedDiskEntriesAreMissesThatCompileCorrectly) {
  auto first = Compile(kModule);
  ASSERT_NE(first, nullptr);
  const Literal want = Run(*first);
  const std::string path = EntryFile();
  const std::string good = ReadAll(path);
  ASSERT_GT(good.size(), 100u);
  std::string flipped = good;
  flipped[flipped.size() / 2] ^= 0x10;
  for (const std::string& damaged :
       {std::string(), good.substr(0, 7), good.substr(0, good.size() / 2),
        good.substr(0, good.size() - 1), flipped, good + "x",
        std::string(4096, 'x')}) {
    WriteAll(path, damaged);
    CompileCache::Global().ClearMemory();
    const CompileCache::Stats before = CompileCache::Global().stats();
    auto exe = Compile(kModule);
    ASSERT_NE(exe, nullptr);
    EXPECT_FALSE(exe->from_cache()) << damaged.size() << " bytes";
    EXPECT_EQ(CompileCache::Global().stats().misses - before.misses, 1);
    EXPECT_EQ(Run(*exe), want);
    // ... and the compile stored a good entry again.
    EXPECT_EQ(ReadAll(path), good);
  }
  // An unreadable entry (a directory in its place) is a miss too.
  fs::remove(path);
  fs::create_directory(path);
  CompileCache::Global().ClearMemory();
  auto exe = Compile(kModule);
  ASSERT_NE(exe, nullptr);
  EXPECT_FALSE(exe->from_cache());
  EXPECT_EQ(Run(*exe), want);
}

TEST_F(CompileCacheTest, EntryThatDoesNotRebuildIsRejectedAndReplaced) {
  auto first = Compile(kModule);
  ASSERT_NE(first, nullptr);
  const std::string path = EntryFile();
  const std::string key = fs::path(path).stem().string();
  std::optional<CacheEntry> entry = ParseCacheEntry(ReadAll(path), key);
  ASSERT_TRUE(entry.has_value());
  // Well-formed files whose contents do not match what they claim.
  std::vector<CacheEntry> stale(4, *entry);
  stale[0].assignment_digest = Sha256Hex("another assignment");
  stale[1].hlo_text += "\n";
  stale[2].constants.clear();
  stale[3].object = "not an object file";
  for (const CacheEntry& bad : stale) {
    WriteAll(path, SerializeCacheEntry(key, bad));
    CompileCache::Global().ClearMemory();
    const CompileCache::Stats before = CompileCache::Global().stats();
    auto exe = Compile(kModule);
    ASSERT_NE(exe, nullptr);
    EXPECT_FALSE(exe->from_cache());
    const CompileCache::Stats after = CompileCache::Global().stats();
    EXPECT_EQ(after.disk_hits - before.disk_hits, 1);
    EXPECT_EQ(after.rejected - before.rejected, 1);
    EXPECT_EQ(Run(*exe), Run(*first));
    EXPECT_TRUE(ParseCacheEntry(ReadAll(path), key).has_value());
    auto again = Compile(kModule);
    ASSERT_NE(again, nullptr);
    EXPECT_TRUE(again->from_cache());
  }
}

TEST_F(CompileCacheTest, UnwritableDirectoryOnlyCostsTheDisk) {
  // A regular file where the directory should be.
  WriteAll(directory_, "not a directory");
  auto first = Compile(kModule);
  ASSERT_NE(first, nullptr);
  EXPECT_FALSE(first->from_cache());
  auto second = Compile(kModule);  // memory still serves
  ASSERT_NE(second, nullptr);
  EXPECT_TRUE(second->from_cache());
  EXPECT_EQ(Run(*first), Run(*second));
}

TEST_F(CompileCacheTest, OffByDefaultAndForTheLlvmStages) {
  auto plain = Compile(kModule, CompileOptions());
  ASSERT_NE(plain, nullptr);
  EXPECT_FALSE(fs::exists(directory_));
  auto cached = Compile(kModule);
  ASSERT_NE(cached, nullptr);
  CompileOptions ir = Cached();
  ir.keep_llvm_ir = true;
  const CompileCache::Stats before = CompileCache::Global().stats();
  auto with_ir = Compile(kModule, ir);
  ASSERT_NE(with_ir, nullptr);
  EXPECT_FALSE(with_ir->from_cache());
  EXPECT_NE(with_ir->llvm_ir().find("xlite_entry"), std::string::npos);
  const CompileCache::Stats after = CompileCache::Global().stats();
  EXPECT_EQ(after.memory_hits + after.disk_hits + after.misses,
            before.memory_hits + before.disk_hits + before.misses);
}

TEST_F(CompileCacheTest, ConcurrentCompilesOfOneModuleAgree) {
  std::vector<std::unique_ptr<CpuExecutable>> exes(4);
  std::vector<std::thread> threads;
  for (auto& exe : exes) {
    threads.emplace_back([&exe] {
      auto compiled = CpuExecutable::Compile(Parse(kModule), Cached());
      if (compiled.ok()) exe = *std::move(compiled);
    });
  }
  for (std::thread& t : threads) t.join();
  for (const auto& exe : exes) {
    ASSERT_NE(exe, nullptr);
    EXPECT_EQ(Run(*exe), Run(*exes[0]));
  }
  EXPECT_FALSE(EntryFile().empty());
}

TEST_F(CompileCacheTest, MemoryIsBounded) {
  // No disk: a file where the directory would be.
  WriteAll(directory_, "");
  CompileCache cache(/*max_entries=*/4, /*max_bytes=*/1000);
  for (int i = 0; i < 5; ++i) cache.Insert(absl::StrCat("key", i), {});
  EXPECT_EQ(cache.Lookup("key0"), nullptr);  // the oldest went
  for (int i = 1; i < 5; ++i) {
    EXPECT_NE(cache.Lookup(absl::StrCat("key", i)), nullptr) << i;
  }
  ASSERT_NE(cache.Lookup("key1"), nullptr);  // now the most recent
  cache.Insert("key5", {});
  EXPECT_NE(cache.Lookup("key1"), nullptr);
  EXPECT_EQ(cache.Lookup("key2"), nullptr);
  CacheEntry big;
  big.object.assign(600, 'o');
  cache.Insert("big1", big);
  cache.Insert("big2", big);
  EXPECT_EQ(cache.Lookup("big1"), nullptr);
  EXPECT_NE(cache.Lookup("big2"), nullptr);
  big.object.assign(1001, 'o');
  cache.Insert("huge", big);  // over the bound: not kept at all
  EXPECT_EQ(cache.Lookup("huge"), nullptr);
  EXPECT_NE(cache.Lookup("big2"), nullptr);
}

TEST(CacheEntryTest, RoundTripsAndRejectsEveryDamage) {
  CacheEntry entry;
  entry.hlo_text = "HloModule m";
  entry.scheduled = true;
  entry.object = std::string(
      "\x7f"
      "ELF\0\1",
      6);
  entry.assignment_digest = Sha256Hex("assignment");
  entry.constants = {{3, "abcd"}, {5, std::string(64, '\0')}};
  const std::string key(64, 'a');
  const std::string bytes = SerializeCacheEntry(key, entry);
  std::optional<CacheEntry> back = ParseCacheEntry(bytes, key);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->hlo_text, entry.hlo_text);
  EXPECT_TRUE(back->scheduled);
  EXPECT_EQ(back->object, entry.object);
  EXPECT_EQ(back->assignment_digest, entry.assignment_digest);
  ASSERT_EQ(back->constants.size(), 2u);
  EXPECT_EQ(back->constants[1].allocation, 5);
  EXPECT_EQ(back->constants[1].bytes, entry.constants[1].bytes);

  EXPECT_FALSE(ParseCacheEntry(bytes, std::string(64, 'b')).has_value());
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(ParseCacheEntry(bytes.substr(0, n), key).has_value()) << n;
  }
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string damaged = bytes;
    damaged[i] ^= 1;
    EXPECT_FALSE(ParseCacheEntry(damaged, key).has_value()) << i;
  }
}

TEST(BuildIdentityTest, IsAStableDigest) {
  const std::string& id = ProcessBuildIdentity();
  EXPECT_EQ(id.size(), 64u);
  EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(&id, &ProcessBuildIdentity());
}

}  // namespace
}  // namespace xlite::cpu
