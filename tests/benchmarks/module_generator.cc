#include "tests/benchmarks/module_generator.h"

#include "absl/strings/str_cat.h"

namespace xlite {

std::string GenerateLargeModule(int64_t min_instructions) {
  // Each layer writes 24 entry instructions plus a 4-instruction fused
  // computation.
  constexpr int64_t kPerLayer = 28;
  const int64_t layers = (min_instructions + kPerLayer - 1) / kPerLayer;
  std::string out =
      "HloModule jit_train_step, entry_computation_layout={(f32[128,256]{1,0}, "
      "f32[256,256]{1,0})->f32[128,256]{1,0}}\n\n"
      "%region_add (x: f32[], y: f32[]) -> f32[] {\n"
      "  %x = f32[] parameter(0)\n"
      "  %y = f32[] parameter(1)\n"
      "  ROOT %sum = f32[] add(%x, %y)\n"
      "}\n\n";
  out.reserve(layers * 4200);
  for (int64_t i = 0; i < layers; ++i) {
    absl::StrAppend(&out, "%fused_computation.", i, " (param_0.", i,
                    ": f32[128,256], param_1.", i,
                    ": f32[128,256]) -> f32[128,256] {\n"
                    "  %param_0.",
                    i,
                    " = f32[128,256]{1,0} parameter(0)\n"
                    "  %param_1.",
                    i,
                    " = f32[128,256]{1,0} parameter(1)\n"
                    "  %multiply.f",
                    i, " = f32[128,256]{1,0} multiply(%param_0.", i,
                    ", %param_1.", i,
                    ")\n"
                    "  ROOT %tanh.f",
                    i, " = f32[128,256]{1,0} tanh(%multiply.f", i, ")\n}\n\n");
  }
  out +=
      "ENTRY %main (Arg_0.1: f32[128,256], Arg_1.2: f32[256,256]) -> "
      "f32[128,256] {\n"
      "  %Arg_0.1 = f32[128,256]{1,0} parameter(0), metadata={op_name=\"x\"}\n"
      "  %Arg_1.2 = f32[256,256]{1,0} parameter(1), metadata={op_name=\"w\"}\n"
      "  %zero = f32[] constant(0)\n";
  std::string x = "%Arg_0.1";
  for (int64_t i = 0; i < layers; ++i) {
    const std::string n = absl::StrCat(i);
    const std::string meta = absl::StrCat(
        ", metadata={op_type=\"dot_general\" op_name=\"jit(train_step)/"
        "jvp(model)/layer_",
        i % 97,
        "/dot_general\" source_file=\"/workspace/model.py\" source_line=",
        100 + i % 500, "}");
    absl::StrAppend(
        &out, "  %dot.", n, " = f32[128,256]{1,0} dot(", x,
        ", %Arg_1.2), lhs_contracting_dims={1}, rhs_contracting_dims={0}", meta,
        "\n  %constant.", n, " = f32[] constant(0.0441941731)\n",
        "  %broadcast.", n, " = f32[128,256]{1,0} broadcast(%constant.", n,
        "), dimensions={}\n", "  %multiply.", n,
        " = f32[128,256]{1,0} multiply(%dot.", n, ", %broadcast.", n, ")", meta,
        "\n", "  %add.", n, " = f32[128,256]{1,0} add(%multiply.", n, ", ", x,
        ")", meta, "\n", "  %maximum.", n, " = f32[128,256]{1,0} maximum(%add.",
        n, ", %broadcast.", n, ")\n", "  %reduce.", n,
        " = f32[128]{0} reduce(%maximum.", n,
        ", %zero), dimensions={1}, to_apply=%region_add", meta, "\n",
        "  %broadcast.r", n, " = f32[128,256]{1,0} broadcast(%reduce.", n,
        "), dimensions={0}\n", "  %divide.", n,
        " = f32[128,256]{1,0} divide(%maximum.", n, ", %broadcast.r", n, ")\n",
        "  %compare.", n, " = pred[128,256]{1,0} compare(%divide.", n,
        ", %broadcast.", n, "), direction=GT\n", "  %select.", n,
        " = f32[128,256]{1,0} select(%compare.", n, ", %divide.", n, ", %add.",
        n, ")\n", "  %transpose.", n, " = f32[256,128]{1,0} transpose(%select.",
        n, "), dimensions={1,0}\n", "  %reshape.", n,
        " = f32[128,256]{1,0} reshape(%transpose.", n, ")\n", "  %convert.", n,
        " = bf16[128,256]{1,0} convert(%reshape.", n, ")\n", "  %convert.b", n,
        " = f32[128,256]{1,0} convert(%convert.", n, ")\n", "  %slice.", n,
        " = f32[64,256]{1,0} slice(%convert.b", n,
        "), slice={[0:64], [0:256]}\n", "  %slice.b", n,
        " = f32[64,256]{1,0} slice(%convert.b", n,
        "), slice={[64:128], [0:256]}\n", "  %concatenate.", n,
        " = f32[128,256]{1,0} concatenate(%slice.b", n, ", %slice.", n,
        "), dimensions={0}\n", "  %exponential.", n,
        " = f32[128,256]{1,0} exponential(%concatenate.", n, ")\n", "  %tuple.",
        n, " = (f32[128,256]{1,0}, f32[128]{0}) tuple(%exponential.", n,
        ", %reduce.", n, ")\n", "  %get-tuple-element.", n,
        " = f32[128,256]{1,0} get-tuple-element(%tuple.", n, "), index=0\n",
        "  %fusion.", n, " = f32[128,256]{1,0} fusion(%get-tuple-element.", n,
        ", ", x, "), kind=kLoop, calls=%fused_computation.", n, "\n",
        "  %negate.", n, " = f32[128,256]{1,0} negate(%fusion.", n, ")\n",
        "  %abs.", n, " = f32[128,256]{1,0} abs(%negate.", n, ")\n");
    x = absl::StrCat("%abs.", n);
  }
  absl::StrAppend(&out, "  ROOT %result = f32[128,256]{1,0} copy(", x,
                  ")\n}\n");
  return out;
}

}  // namespace xlite
