// The C++ wrapper (xlite.hpp) over the C API: text and proto compiles
// agree, narrow floats pass as their bits, several devices, and errors
// come back as values.

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "api/xlite.hpp"
#include "hlo/proto/proto_convert.h"
#include "hlo/text/parser.h"

namespace xlite::embed {
namespace {

constexpr char kScale[] = R"(HloModule scale
ENTRY e {
  x = f32[4] parameter(0)
  k = f32[] constant(3)
  b = f32[4] broadcast(k), dimensions={}
  ROOT m = f32[4] multiply(x, b)
})";

TEST(XliteCc, TextAndProtoCompilesAgree) {
  Result<Client> client = Client::Create("cpu");
  ASSERT_TRUE(client.ok()) << client.error.message();
  Result<Executable> from_text = client.value.CompileText(kScale);
  ASSERT_TRUE(from_text.ok()) << from_text.error.message();
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(kScale);
  ASSERT_TRUE(module.ok());
  absl::StatusOr<xla::HloModuleProto> proto = ModuleToProto(**module);
  ASSERT_TRUE(proto.ok());
  Result<Executable> from_proto =
      client.value.CompileProto(SerializeDeterministic(*proto));
  ASSERT_TRUE(from_proto.ok()) << from_proto.error.message();
  Result<Buffer> x =
      Buffer::FromVector<float>(XLITE_F32, {4}, {1.5f, -2, 0, 7});
  ASSERT_TRUE(x.ok());
  for (const Executable* exe : {&from_text.value, &from_proto.value}) {
    Result<std::vector<Buffer>> out = exe->Execute({&x.value});
    ASSERT_TRUE(out.ok()) << out.error.message();
    ASSERT_EQ(out.value.size(), 1u);
    EXPECT_EQ(out.value[0].dims(), std::vector<int64_t>{4});
    Result<std::vector<float>> v = out.value[0].ToVector<float>();
    ASSERT_TRUE(v.ok());
    EXPECT_EQ(v.value, (std::vector<float>{4.5f, -6, 0, 21}));
  }
}

TEST(XliteCc, Bf16AsBits) {
  Result<Client> client = Client::Create("interpreter");
  ASSERT_TRUE(client.ok());
  Result<Executable> exe = client.value.CompileText(R"(HloModule n
ENTRY e {
  x = bf16[3] parameter(0)
  ROOT n = bf16[3] negate(x)
})");
  ASSERT_TRUE(exe.ok()) << exe.error.message();
  // 1.0, -2.0, +inf as bf16 bits.
  Result<Buffer> x =
      Buffer::FromVector<uint16_t>(XLITE_BF16, {3}, {0x3f80, 0xc000, 0x7f80});
  ASSERT_TRUE(x.ok());
  Result<std::vector<Buffer>> out = exe.value.Execute({&x.value});
  ASSERT_TRUE(out.ok()) << out.error.message();
  EXPECT_EQ(out.value[0].type(), XLITE_BF16);
  EXPECT_EQ(out.value[0].ToVector<uint16_t>().value,
            (std::vector<uint16_t>{0xbf80, 0x4000, 0xff80}));
}

TEST(XliteCc, ReplicasSeeEachOther) {
  Result<Client> client = Client::Create("cpu");
  ASSERT_TRUE(client.ok());
  Result<Executable> exe =
      client.value.CompileText(R"(HloModule r, replica_count=3
ENTRY e {
  ROOT id = u32[] replica-id()
})");
  ASSERT_TRUE(exe.ok()) << exe.error.message();
  EXPECT_EQ(exe.value.num_devices(), 3u);
  EXPECT_EQ(exe.value.num_arguments(), 0u);
  EXPECT_EQ(exe.value.signature(), "() -> u32[]");
  Result<std::vector<std::vector<Buffer>>> out =
      exe.value.ExecuteDevices({{}, {}, {}});
  ASSERT_TRUE(out.ok()) << out.error.message();
  for (uint32_t d = 0; d < 3; ++d) {
    EXPECT_EQ(out.value[d][0].ToVector<uint32_t>().value,
              std::vector<uint32_t>{d});
  }
}

TEST(XliteCc, ErrorsAreValues) {
  Result<Client> client = Client::Create("cpu");
  ASSERT_TRUE(client.ok());
  Result<Executable> exe =
      client.value.CompileText("HloModule m\nENTRY e {\n  ROOT r = f32[2 \n}");
  EXPECT_FALSE(exe.ok());
  EXPECT_EQ(exe.error.code(), XLITE_CODE_INVALID_ARGUMENT);
  EXPECT_NE(exe.error.message().find("error"), std::string::npos)
      << exe.error.message();
  Result<Executable> good = client.value.CompileText(kScale);
  ASSERT_TRUE(good.ok());
  Result<std::vector<Buffer>> none = good.value.Execute({});
  EXPECT_FALSE(none.ok());
  EXPECT_TRUE(none.value.empty());
  EXPECT_NE(none.error.message().find("takes 1 argument"), std::string::npos)
      << none.error.message();
}

}  // namespace
}  // namespace xlite::embed
