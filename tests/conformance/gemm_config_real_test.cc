// The GEMM backend-config decoder (hlo/ir/gemm_config.h) on the three real
// XLA:GPU dumps that carry cuBLAS calls: pretty-printed JSON, one-line JSON
// and a JSON string; tuple results with a workspace and a bare result.
#include <gtest/gtest.h>

#include "hlo/ir/computation.h"
#include "hlo/ir/gemm_config.h"
#include "hlo/ir/module.h"
#include "hlo/text/parser.h"
#include "tests/testing/paths.h"

namespace xlite {
namespace {

// Every GEMM call of a real XLA dump: its config decodes, and its operands
// and result fit it.
std::vector<const HloInstruction*> GemmCalls(const HloModule& m) {
  std::vector<const HloInstruction*> out;
  for (const HloComputation* c : m.computations()) {
    for (const HloInstruction* h : c->instructions()) {
      if (h->opcode() == HloOpcode::kCustomCall &&
          GemmTargetFromName(h->attrs().custom_call->target)) {
        out.push_back(h);
      }
    }
  }
  return out;
}

struct RealDump {
  const char* file;
  int calls;
  bool tuple;  // results carry a workspace
};

class RealDumps : public ::testing::TestWithParam<RealDump> {};

TEST_P(RealDumps, EveryCallDecodesAndFitsItsShapes) {
  std::optional<std::string> dir = testing::SharedCorpusDir();
  if (!dir) GTEST_SKIP() << "no shared corpus";
  const std::string path = *dir + "/" + GetParam().file;
  std::optional<std::string> text = testing::ReadFile(path);
  ASSERT_TRUE(text.has_value()) << path;
  auto module = ParseHloModule(*text);
  ASSERT_TRUE(module.ok()) << module.status().message();
  std::vector<const HloInstruction*> calls = GemmCalls(**module);
  ASSERT_EQ(calls.size(), GetParam().calls);
  for (const HloInstruction* call : calls) {
    absl::StatusOr<GemmBackendConfig> config =
        ParseGemmBackendConfig(call->backend_config());
    ASSERT_TRUE(config.ok()) << call->name() << ": "
                             << config.status().message();
    EXPECT_EQ(config->alpha_real, 1);
    EXPECT_EQ(config->beta, 0);
    EXPECT_EQ(config->epilogue, GemmEpilogue::kDefault);
    EXPECT_EQ(config->dnums.lhs_contracting_dimensions,
              std::vector<int64_t>{1});
    EXPECT_EQ(config->dnums.rhs_contracting_dimensions,
              std::vector<int64_t>{0});
    EXPECT_TRUE(config->dnums.lhs_batch_dimensions.empty());
    ASSERT_EQ(config->operand_precision.size(), 2);
    std::vector<const Shape*> shapes;
    for (const HloInstruction* o : call->operands()) {
      shapes.push_back(&o->shape());
    }
    absl::StatusOr<GemmCallLayout> layout = GemmCallLayoutFor(
        *GemmTargetFromName(call->attrs().custom_call->target), *config,
        shapes, call->shape());
    ASSERT_TRUE(layout.ok()) << call->name() << ": "
                             << layout.status().message();
    EXPECT_EQ(layout->workspace >= 0, GetParam().tuple);
    EXPECT_EQ(layout->c, -1);
    EXPECT_EQ(layout->bias, -1);
    // What we print reads back the same.
    absl::StatusOr<GemmBackendConfig> again =
        ParseGemmBackendConfig(GemmBackendConfigToJson(*config));
    ASSERT_TRUE(again.ok()) << again.status().message();
    EXPECT_EQ(GemmBackendConfigToJson(*again),
              GemmBackendConfigToJson(*config));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Gpu, RealDumps,
    ::testing::Values(
        RealDump{"gpu_dynamic_slice_fusion_cublaslt_pretty_json.hlo", 2, true},
        RealDump{"gpu_execution_stream_call_start_cublas.hlo", 2, true},
        RealDump{"gpu_kernel_reuse_cublaslt_string_backend_config.hlo", 4,
                 false}));

}  // namespace
}  // namespace xlite
