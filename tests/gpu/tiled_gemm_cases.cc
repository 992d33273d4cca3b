#include "tests/gpu/tiled_gemm_cases.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"

namespace xlite {
namespace {

std::string Dims(std::vector<int64_t> d) { return absl::StrJoin(d, ","); }

}  // namespace

std::string Name(const Case& c) {
  return absl::StrCat(c.type, c.type_b.empty() ? "" : "_", c.type_b, "_",
                      c.form, "_", c.epilogue, "_", c.m, "x", c.n, "x", c.k,
                      c.tiling.empty() ? "" : "_", c.tiling);
}

// The forced tilings: "simt" (CUDA cores, the default tiling), tensor
// cores "mmaBMxBNxBK_WMxWN" and warpgroup tensor cores
// "wgmmaBMxBNxBK_GMxGN", of 2, 3 or 4 stages with the suffix "_s2", "_s3"
// or "_s4", and (warpgroups) "_tma" after it for TMA tiles, "_tma_ws"
// for TMA tiles with a producer warp.
std::optional<TiledGemmConfig> Tiling(const std::string& full) {
  if (full.empty()) return std::nullopt;
  TiledGemmConfig c;
  std::string name = full;
  if (name.size() > 3 && name.substr(name.size() - 3) == "_ws") {
    c.ws = 1;
    name.resize(name.size() - 3);
  }
  if (name.size() > 4 && name.substr(name.size() - 4) == "_tma") {
    c.tma = 1;
    name.resize(name.size() - 4);
  }
  if (name.size() > 3 && name.substr(name.size() - 3, 2) == "_s") {
    c.stages = name.back() - '0';
  }
  if (name.rfind("simt", 0) == 0) return c;
  int64_t bm, bn, bk, wm, wn;
  const bool groups = name.rfind("wgmma", 0) == 0;
  if (std::sscanf(name.c_str() + (groups ? 2 : 0), "mma%ldx%ldx%ld_%ldx%ld",
                  &bm, &bn, &bk, &wm, &wn) != 5) {
    ADD_FAILURE() << "bad tiling " << name;
    return std::nullopt;
  }
  c.block_m = bm;
  c.block_n = bn;
  c.block_k = bk;
  c.warps_m = wm;
  c.warps_n = wn;
  c.wgmma = groups ? 1 : 0;
  return c;
}

// The dot's result type for operands of `type`.
std::string ResultType(const std::string& type) {
  if (type == "s8") return "s32";
  if (type.rfind("f8", 0) == 0) return "f32";
  return type;
}

// The module: d = a x b as `form` lays them out, then the epilogue.
std::string Module(const Case& c) {
  const std::string t = c.type;
  const std::string tb = c.type_b.empty() ? t : c.type_b;
  const std::string r = ResultType(t);
  const bool batch = c.form == "batch";
  const bool batched = batch || c.form == "batch_tb";
  std::string a = absl::StrCat(t, "[", Dims({c.m, c.k}), "]{1,0}");
  std::string b = absl::StrCat(tb, "[", Dims({c.k, c.n}), "]{1,0}");
  std::string lc = "1", rc = "0", dims;
  if (c.form == "ta") {
    a = absl::StrCat(t, "[", Dims({c.k, c.m}), "]{1,0}");
    lc = "0";
  } else if (c.form == "tb") {
    b = absl::StrCat(tb, "[", Dims({c.n, c.k}), "]{1,0}");
    rc = "1";
  } else if (c.form == "colmajor") {
    a = absl::StrCat(t, "[", Dims({c.m, c.k}), "]{0,1}");
    b = absl::StrCat(tb, "[", Dims({c.k, c.n}), "]{0,1}");
  } else if (batch || c.form == "batch_tb") {
    a = absl::StrCat(t, "[3,", Dims({c.m, c.k}), "]{2,1,0}");
    b = batch ? absl::StrCat(tb, "[3,", Dims({c.k, c.n}), "]{2,1,0}")
              : absl::StrCat(tb, "[3,", Dims({c.n, c.k}), "]{2,1,0}");
    lc = "2";
    rc = batch ? "1" : "2";
    dims = "lhs_batch_dims={0}, rhs_batch_dims={0}, ";
  }
  const std::string shape = batched ? Dims({3, c.m, c.n}) : Dims({c.m, c.n});
  const std::string d = absl::StrCat(r, "[", shape, "]");
  const std::string last = batched ? "2" : "1";
  std::string text =
      absl::StrCat("HloModule tiled\n\nENTRY e {\n  a = ", a,
                   " parameter(0)\n  b = ", b, " parameter(1)\n");
  absl::StrAppend(&text, "  d = ", d, " dot(a, b), ", dims,
                  "lhs_contracting_dims={", lc, "}, rhs_contracting_dims={", rc,
                  "}\n");
  if (c.epilogue == "none") {
    absl::StrAppend(&text, "  ROOT out = ", d, " negate(d)\n");
  } else if (c.epilogue == "bias_relu") {
    text.insert(text.find("  d = "),
                absl::StrCat("  bias = ", r, "[", c.n, "] parameter(2)\n"));
    absl::StrAppend(&text, "  bb = ", d, " broadcast(bias), dimensions={", last,
                    "}\n  add = ", d, " add(d, bb)\n  zero = ", r,
                    "[] constant(0)\n  zeros = ", d,
                    " broadcast(zero), dimensions={}\n  ROOT out = ", d,
                    " maximum(add, zeros)\n");
  } else if (c.epilogue == "gelu") {
    absl::StrAppend(&text, "  x3 = ", d, " multiply(d, d)\n  c = ", r,
                    "[] constant(0.5)\n  cb = ", d,
                    " broadcast(c), dimensions={}\n  y = ", d,
                    " multiply(x3, cb)\n  th = ", d,
                    " tanh(y)\n  ROOT out = ", d, " multiply(d, th)\n");
  } else {
    absl::StrAppend(&text, "  ROOT out = bf16[", shape, "] convert(d)\n");
  }
  return text + "}\n";
}

}  // namespace xlite
