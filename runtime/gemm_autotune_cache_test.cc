// The autotuning cache file: a round trip keeps every entry, the text is
// what people read, malformed files are refused at their line and column
// (never half read), a missing file is an empty cache, and writes are
// whole.
#include "runtime/gemm_autotune_cache.h"

#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace xlite::runtime {
namespace {

GemmAutotuneKey Key(const std::string& gemm) {
  return {"NVIDIA H100 80GB HBM3 (sm_90)", "130100", "91900", gemm};
}

GemmAutotuneEntry Entry(uint64_t first_word, const std::string& label,
                        double us) {
  GemmAutotuneEntry e;
  e.algorithm.data = {first_word, 0, 0x2a, 0, 0, 0, 0, 0xffffffffffffffff};
  e.algorithm.label = label;
  e.microseconds = us;
  return e;
}

std::string Header() { return std::string(kGemmAutotuneCacheHeader) + " 1\n"; }

std::string Error(const std::string& text) {
  absl::StatusOr<GemmAutotuneCache> cache =
      GemmAutotuneCache::Parse(text, "c.txt");
  EXPECT_FALSE(cache.ok()) << text;
  return cache.ok() ? "" : std::string(cache.status().message());
}

TEST(GemmAutotuneCache, RoundTripsEveryField) {
  GemmAutotuneCache cache;
  cache.Insert(Key("gemm \"quoted\" \\ two"), Entry(21, "id=21 tile=20", 12.5));
  cache.Insert(Key("gemm one"), Entry(7, "", -1));
  const std::string text = cache.ToText();
  EXPECT_EQ(text,
            Header() +
                "# GEMM autotuning results (xlite --autotune-cache): per "
                "device, cuBLASLt and cuDNN version and GEMM, the cuBLASLt "
                "algorithm chosen.\n"
                "device=\"NVIDIA H100 80GB HBM3 (sm_90)\" cublaslt=\"130100\" "
                "cudnn=\"91900\" gemm=\"gemm \\\"quoted\\\" \\\\ two\" "
                "algorithm=15,0,2a,0,0,0,0,ffffffffffffffff us=12.500 "
                "label=\"id=21 tile=20\"\n"
                "device=\"NVIDIA H100 80GB HBM3 (sm_90)\" cublaslt=\"130100\" "
                "cudnn=\"91900\" gemm=\"gemm one\" "
                "algorithm=7,0,2a,0,0,0,0,ffffffffffffffff\n");
  absl::StatusOr<GemmAutotuneCache> back =
      GemmAutotuneCache::Parse(text, "c.txt");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->size(), 2);
  EXPECT_EQ(back->ToText(), text);
  const GemmAutotuneEntry* hit = back->Find(Key("gemm \"quoted\" \\ two"));
  ASSERT_NE(hit, nullptr);
  EXPECT_EQ(hit->algorithm.data, Entry(21, "", 0).algorithm.data);
  EXPECT_EQ(hit->algorithm.label, "id=21 tile=20");
  EXPECT_EQ(hit->algorithm.tuned_for,
            "NVIDIA H100 80GB HBM3 (sm_90); cuBLASLt 130100");
  EXPECT_DOUBLE_EQ(hit->microseconds, 12.5);
  EXPECT_LT(back->Find(Key("gemm one"))->microseconds, 0);
  // Every part of the key matters.
  GemmAutotuneKey other = Key("gemm one");
  other.cudnn = "none";
  EXPECT_EQ(back->Find(other), nullptr);
}

TEST(GemmAutotuneCache, ReadsHandWrittenFiles) {
  // Fields in any order, bare words, comments, blank lines, CRLF, and the
  // later of two entries for one key.
  absl::StatusOr<GemmAutotuneCache> cache = GemmAutotuneCache::Parse(
      Header() +
          "# a comment\n\n"
          "  gemm=g algorithm=1,2,3,4,5,6,7,8 cudnn=none cublaslt=1 "
          "device=d\r\n"
          "device=d cublaslt=1 cudnn=none gemm=g algorithm=9,0,0,0,0,0,0,0 "
          "us=3\n",
      "c.txt");
  ASSERT_TRUE(cache.ok()) << cache.status().message();
  ASSERT_EQ(cache->size(), 1);
  const GemmAutotuneEntry* e = cache->Find({"d", "1", "none", "g"});
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->algorithm.data[0], 9);
  EXPECT_DOUBLE_EQ(e->microseconds, 3);
  // An empty file is an empty cache.
  ASSERT_TRUE(GemmAutotuneCache::Parse("", "c.txt").ok());
  EXPECT_EQ(GemmAutotuneCache::Parse(" \n", "c.txt")->size(), 0);
}

TEST(GemmAutotuneCache, RefusesMalformedFilesWithTheirLocation) {
  const std::string ok_line =
      "device=d cublaslt=1 cudnn=none gemm=g algorithm=1,0,0,0,0,0,0,0";
  EXPECT_EQ(Error("{\"json\": 1}\n"),
            "c.txt:1:1: error: not an xlite GEMM autotuning cache (the first "
            "line must be 'xlite-gemm-autotune-cache 1')");
  EXPECT_EQ(Error("xlite-gemm-autotune-cache 2\n" + ok_line),
            "c.txt:1:1: error: autotuning cache format version '2'; this "
            "xlite reads 1");
  EXPECT_EQ(Error(Header() + "# c\n" + ok_line + " colour=red\n"),
            "c.txt:3:65: error: unknown field 'colour'; expected device, "
            "cublaslt, cudnn, gemm, algorithm, us or label");
  EXPECT_EQ(Error(Header() + ok_line + " gemm=h\n"),
            "c.txt:2:65: error: field 'gemm' given twice");
  EXPECT_EQ(Error(Header() + "device=d cublaslt=1 gemm=g "
                             "algorithm=1,0,0,0,0,0,0,0\n"),
            "c.txt:2:1: error: entry without 'cudnn'");
  EXPECT_EQ(Error(Header() + "device=\"d cublaslt=1\n"),
            "c.txt:2:8: error: unterminated string");
  EXPECT_EQ(Error(Header() + "device=\"d\\t\"\n"),
            "c.txt:2:10: error: unknown escape '\\t'");
  EXPECT_EQ(Error(Header() + "device d\n"),
            "c.txt:2:7: error: expected '=' after 'device'");
  EXPECT_EQ(Error(Header() + "device=d =x\n"),
            "c.txt:2:10: error: expected a field name");
  EXPECT_EQ(Error(Header() + "device=\n"),
            "c.txt:2:8: error: expected a value");
  EXPECT_EQ(Error(Header() + "device=d cublaslt=1 cudnn=none gemm=g "
                             "algorithm=1,0,0,0,0,0,0\n"),
            "c.txt:2:49: error: algorithm must be 8 comma-separated hex "
            "numbers");
  EXPECT_EQ(Error(Header() + "device=d cublaslt=1 cudnn=none gemm=g "
                             "algorithm=1,0,0,0,0,0,0,-2\n"),
            "c.txt:2:49: error: algorithm must be 8 comma-separated hex "
            "numbers");
  EXPECT_EQ(Error(Header() + ok_line + " us=fast\n"),
            "c.txt:2:68: error: us must be a time in microseconds (>= 0)");
  EXPECT_EQ(Error(Header() + ok_line + " us=-1\n"),
            "c.txt:2:68: error: us must be a time in microseconds (>= 0)");
}

TEST(GemmAutotuneCache, LoadsAndSavesFiles) {
  const std::string dir = ::testing::TempDir() + "/gemm_autotune_cache_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/cache.txt";
  // Not there yet: an empty cache, and nothing written by reading.
  absl::StatusOr<GemmAutotuneCache> empty = GemmAutotuneCache::Load(path);
  ASSERT_TRUE(empty.ok()) << empty.status().message();
  EXPECT_EQ(empty->size(), 0);
  EXPECT_FALSE(std::filesystem::exists(path));

  GemmAutotuneCache cache;
  cache.Insert(Key("g"), Entry(3, "id=3", 1.25));
  ASSERT_TRUE(cache.Save(path).ok());
  absl::StatusOr<GemmAutotuneCache> back = GemmAutotuneCache::Load(path);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->ToText(), cache.ToText());
  // The temporary went with the rename.
  int files = 0;
  for (const auto& f : std::filesystem::directory_iterator(dir)) {
    (void)f;
    ++files;
  }
  EXPECT_EQ(files, 1);

  // A malformed file names itself.
  std::ofstream(path) << Header() << "device=d\n";
  absl::StatusOr<GemmAutotuneCache> bad = GemmAutotuneCache::Load(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            path + ":2:1: error: entry without 'cublaslt'");
  // An unwritable place is an error, not a crash.
  const absl::Status s = cache.Save(dir + "/no/such/dir/cache.txt");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cannot write the autotuning cache"),
            std::string::npos)
      << s.message();
}

}  // namespace
}  // namespace xlite::runtime
