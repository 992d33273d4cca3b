// Literal files against NumPy/ml_dtypes: every element type reads to the
// value its HLO text names, writes back byte-identical to numpy.save, and
// malformed files give errors that name the file.
#include "runtime/literal_io.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "hlo/text/parser.h"
#include "tests/testing/paths.h"

namespace xlite {
namespace {

constexpr char kData[] = "tests/runtime/testdata/";

std::string Read(const std::string& name) {
  std::optional<std::string> bytes = testing::ReadFile(kData + name);
  EXPECT_TRUE(bytes.has_value()) << name;
  return bytes.value_or("");
}

Literal Expected(const std::string& stem) {
  auto literal = ParseLiteral(Read(stem + ".txt"));
  EXPECT_TRUE(literal.ok()) << stem << ": " << literal.status().message();
  return literal.ok() ? *literal : Literal();
}

class NpyTypeTest : public ::testing::TestWithParam<std::string> {};

TEST_P(NpyTypeTest, ReadsAndWritesLikeNumpy) {
  const std::string stem = GetParam();
  const Literal expected = Expected(stem);
  const std::string file = Read(stem + ".npy");
  auto literal = ParseNpy(file, stem + ".npy", expected.shape().element_type());
  ASSERT_TRUE(literal.ok()) << literal.status().message();
  EXPECT_EQ(literal->ToString(), expected.ToString());
  EXPECT_TRUE(*literal == expected);
  auto written = SerializeNpy(*literal);
  ASSERT_TRUE(written.ok()) << written.status().message();
  if (stem == "f8e5m2") {
    // ml_dtypes labels float8_e5m2 '<f1', which numpy.load rejects; xlite
    // writes '<V1' like every other ml_dtypes type. The data is the same.
    EXPECT_EQ(written->substr(128), file.substr(128));
  } else {
    EXPECT_EQ(*written, file) << "not byte-identical to numpy.save";
  }
  // What xlite writes reads back.
  auto again = ParseNpy(*written, "again.npy", expected.shape().element_type());
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_TRUE(*again == expected);
}

INSTANTIATE_TEST_SUITE_P(
    AllTypes, NpyTypeTest,
    ::testing::Values("pred", "s8", "u8", "s16", "u16", "s32", "u32", "s64",
                      "u64", "f16", "f32", "f64", "c64", "c128", "bf16",
                      "f8e4m3fn", "f8e5m2", "f8e4m3", "f8e3m4", "f8e4m3fnuz",
                      "f8e5m2fnuz", "f8e4m3b11fnuz", "f8e8m0fnu", "f4e2m1fn",
                      "s4", "u4", "s2", "u2", "scalar_f32", "matrix_c_order",
                      "empty_f32"));

TEST(Npy, FortranOrderAndBigEndianAreConverted) {
  for (const char* stem :
       {"matrix_fortran_order", "matrix_big_endian", "complex_big_endian"}) {
    const Literal expected = Expected(stem);
    auto literal = ParseNpy(Read(std::string(stem) + ".npy"), stem);
    ASSERT_TRUE(literal.ok()) << literal.status().message();
    EXPECT_EQ(literal->ToString(), expected.ToString()) << stem;
  }
}

TEST(Npy, TypedDataMustMatchTheExpectedType) {
  auto literal = ParseNpy(Read("f32.npy"), "x.npy", PrimitiveType::kF64);
  ASSERT_FALSE(literal.ok());
  EXPECT_EQ(literal.status().message(),
            "x.npy: error: holds f32 data ('<f4'), expected f64");
}

TEST(Npy, RawMlDtypesDataNeedsAType) {
  auto literal = ParseNpy(Read("bf16.npy"), "x.npy");
  ASSERT_FALSE(literal.ok());
  EXPECT_NE(
      literal.status().message().find("x.npy: error: dtype '<V2' is raw data"),
      std::string::npos);
  literal = ParseNpy(Read("bf16.npy"), "x.npy", PrimitiveType::kF8E4M3FN);
  ASSERT_FALSE(literal.ok());
  EXPECT_EQ(literal.status().message(),
            "x.npy: error: dtype '<V2' has 2-byte elements, but f8e4m3fn "
            "needs 1");
}

TEST(Npy, MalformedFilesNameTheFile) {
  const std::string good = Read("matrix_c_order.npy");
  auto error = [](const std::string& bytes) {
    auto literal = ParseNpy(bytes, "bad.npy");
    return literal.ok() ? std::string("OK")
                        : std::string(literal.status().message());
  };
  EXPECT_EQ(error(""), "bad.npy: error: not a .npy file (no \\x93NUMPY magic)");
  EXPECT_EQ(error("PK\x03\x04 zip"),
            "bad.npy: error: not a .npy file (no \\x93NUMPY magic)");
  EXPECT_EQ(error(good.substr(0, 100)),
            "bad.npy: error: truncated .npy header");
  EXPECT_EQ(error(good.substr(0, good.size() - 4)),
            "bad.npy: error: holds 20 bytes of data, but shape (2, 3) of "
            "'<i4' needs 24");
  EXPECT_EQ(error(good + "xx"), "bad.npy: error: 2 bytes after the array data");
  std::string wrong_version = good;
  wrong_version[6] = 9;
  EXPECT_EQ(error(wrong_version),
            "bad.npy: error: .npy format version 9 is not supported (1, 2 or "
            "3)");
  std::string structured = good;
  structured.replace(structured.find("'<i4'"), 5, "[('a'");
  EXPECT_NE(error(structured).find("structured arrays are not supported"),
            std::string::npos);
  std::string object = good;
  object.replace(object.find("'<i4'"), 5, "'|O8'");
  EXPECT_EQ(error(object), "bad.npy: error: unsupported dtype '|O8'");
  // Every truncation fails cleanly.
  for (size_t cut = 0; cut < good.size(); ++cut) {
    EXPECT_NE(error(good.substr(0, cut)), "OK") << cut;
  }
}

TEST(Npz, ReadsWhatNumpyWrites) {
  for (const char* file : {"pair.npz", "pair_compressed.npz"}) {
    auto arrays = ParseNpz(Read(file), file);
    ASSERT_TRUE(arrays.ok()) << arrays.status().message();
    ASSERT_EQ(arrays->size(), 2u);
    EXPECT_EQ((*arrays)[0].first, "a");
    EXPECT_EQ((*arrays)[0].second.ToString(), "f32[3] {1, 2, 3}");
    EXPECT_EQ((*arrays)[1].first, "b");
    EXPECT_EQ((*arrays)[1].second.ToString(), "pred[1,2] { { 1, 0 } }");
  }
}

TEST(Npz, RoundTripsAndRejectsCorruption) {
  auto arrays = ParseNpz(Read("pair_compressed.npz"), "p.npz");
  ASSERT_TRUE(arrays.ok());
  auto bytes = SerializeNpz(*arrays);
  ASSERT_TRUE(bytes.ok());
  auto back = ParseNpz(*bytes, "q.npz");
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back->size(), 2u);
  EXPECT_TRUE((*back)[1].second == (*arrays)[1].second);
  std::string corrupt = *bytes;
  corrupt[corrupt.find("NUMPY") + 20] ^= 1;  // inside a member: CRC fails
  auto bad = ParseNpz(corrupt, "c.npz");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "c.npz:a.npy: error: corrupt .npz: CRC mismatch");
  for (size_t cut = 0; cut < bytes->size(); cut += 7) {
    EXPECT_FALSE(ParseNpz(bytes->substr(0, cut), "t.npz").ok()) << cut;
  }
}

TEST(LiteralFile, TextNpyAndShapeChecks) {
  const std::string dir = kData;
  auto text = ReadLiteralFile(dir + "matrix_c_order.txt");
  ASSERT_TRUE(text.ok()) << text.status().message();
  EXPECT_EQ(text->ToString(), "s32[2,3] { { 0, 1, 2 }, { 3, 4, 5 } }");
  const Shape want = Shape::WithDefaultLayout(PrimitiveType::kBF16, {7});
  auto npy = ReadLiteralFile(dir + "bf16.npy", &want);
  ASSERT_TRUE(npy.ok()) << npy.status().message();
  const Shape other = Shape::WithDefaultLayout(PrimitiveType::kS32, {3, 2});
  auto mismatch = ReadLiteralFile(dir + "matrix_c_order.npy", &other);
  ASSERT_FALSE(mismatch.ok());
  EXPECT_EQ(
      mismatch.status().message(),
      dir + "matrix_c_order.npy: error: holds s32[2,3], expected s32[3,2]");
  auto missing = ReadLiteralFile(dir + "no_such_file.npy");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(),
            dir + "no_such_file.npy: error: cannot open file");
}

TEST(LiteralFile, BadTextIsLocated) {
  const std::string path = ::testing::TempDir() + "/bad_literal.txt";
  {
    std::ofstream out(path);
    out << "f32[2] {1, x}\n";
  }
  auto literal = ReadLiteralFile(path);
  ASSERT_FALSE(literal.ok());
  EXPECT_EQ(std::string(literal.status().message()).substr(0, path.size() + 6),
            path + ":1:12:");
}

TEST(Snapshot, WritesAndReadsModuleArgumentsAndResult) {
  auto module = ParseHloModule(R"(
HloModule snap
ENTRY e {
  a = f32[2] parameter(0)
  b = f32[2] parameter(1)
  ROOT s = f32[2] add(a, b)
})");
  ASSERT_TRUE(module.ok());
  std::vector<Literal> arguments;
  arguments.push_back(*ParseLiteral("f32[2] {1, 2}"));
  arguments.push_back(*ParseLiteral("f32[2] {0.5, -1}"));
  const Literal result = *ParseLiteral("f32[2] {1.5, 1}");
  const std::string path = ::testing::TempDir() + "/run.snapshot.pb";
  ASSERT_TRUE(WriteHloSnapshotFile(**module, arguments, &result, path).ok());
  auto snapshot = ReadHloSnapshotFile(path);
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().message();
  EXPECT_EQ(snapshot->module->name(), "snap");
  ASSERT_EQ(snapshot->arguments.size(), 2u);
  EXPECT_TRUE(snapshot->arguments[1] == arguments[1]);
  ASSERT_TRUE(snapshot->result.has_value());
  EXPECT_TRUE(*snapshot->result == result);
  auto not_snapshot = ReadHloSnapshotFile(kData + std::string("f32.npy"));
  ASSERT_FALSE(not_snapshot.ok());
  EXPECT_NE(not_snapshot.status().message().find("not an HloSnapshot"),
            std::string::npos);
}

}  // namespace
}  // namespace xlite
