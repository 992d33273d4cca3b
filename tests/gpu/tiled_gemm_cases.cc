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
// for TMA tiles with a producer warp; Blackwell's "tcgen05_BMxBNxBK".
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
  if (std::sscanf(name.c_str(), "tcgen05_%ldx%ldx%ld", &bm, &bn, &bk) == 3) {
    c.block_m = bm;
    c.block_n = bn;
    c.block_k = bk;
    c.warps_m = c.warps_n = 1;
    c.wgmma = c.tcgen05 = 1;
    return c;
  }
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

Case MakeCase(const std::string& type, const std::string& form, int64_t m,
              int64_t n, int64_t k, const std::string& tiling) {
  Case c;
  c.type = type;
  c.form = form;
  c.m = m;
  c.n = n;
  c.k = k;
  c.tiling = tiling;
  return c;
}

namespace {

// Warpgroup tiles staged through registers or by cp.async.
std::vector<Case> StagedWarpgroupCases() {
  std::vector<Case> cases;
  // Every tensor-core type, tiles
  // staged through registers (nn: N-minor rhs; ta; colmajor; f32 and f8,
  // which convert) or copied by cp.async (tb, batch_tb), one to four
  // stages, one or two warpgroups along M or N, K tails.
  for (const char* tiling :
       {"wgmma64x64x32_1x1", "wgmma128x128x64_2x1_s4", "wgmma64x128x32_1x2_s2",
        "wgmma128x64x32_2x1_s3"}) {
    for (const char* type : {"bf16", "f16", "f32", "s8", "f8e4m3fn"}) {
      // 4 stages of 128x64 f32 tiles on each side: 256 KiB, past h100's
      // 227 KiB a block may have.
      if (type[1] == '3' && std::string(tiling) == "wgmma128x128x64_2x1_s4") {
        continue;
      }
      for (const char* form : {"nn", "tb", "ta", "batch_tb", "colmajor"}) {
        Case c;
        c.type = type;
        c.form = form;
        c.k = 272;
        c.tiling = tiling;
        cases.push_back(c);
      }
    }
  }
  for (const char* epilogue : {"bias_relu", "gelu", "convert_bf16"}) {
    Case c;
    c.type = "bf16";
    c.form = "tb";
    c.epilogue = epilogue;
    c.tiling = "wgmma128x128x64_2x1_s4";
    cases.push_back(c);
  }
  // MN-major tiles (transposed wgmma operands) copied by cp.async: M and
  // N in whole 16-byte rows but not whole tiles, N-minor rhs (nn, batch),
  // M-minor lhs (ta, colmajor).
  for (const char* tiling : {"wgmma64x64x32_1x1", "wgmma128x128x64_2x1_s4",
                             "wgmma128x64x32_2x1_s3"}) {
    for (const char* type : {"bf16", "f16"}) {
      for (const char* form : {"nn", "ta", "batch", "colmajor"}) {
        cases.push_back(MakeCase(type, form, 72, 136, 272, tiling));
      }
    }
  }
  // Dots of two f8 operands multiply them as they are (e4m3, e5m2 and
  // mixed wgmma kinds, 1-byte K-major tiles: cp.async for K-minor
  // operands, through registers, transposed, for the others).
  // 128x128x128 s4 is the heuristic's f8 tiling (3 K steps here: fewer
  // than the stages).
  for (const char* tiling :
       {"wgmma64x64x32_1x1", "wgmma128x128x64_2x1_s4", "wgmma128x64x64_2x1_s3",
        "wgmma128x128x128_2x1_s4"}) {
    for (const char* types : {"f8e5m2", "f8e4m3fn_f8e5m2", "f8e5m2_f8e4m3fn"}) {
      for (const char* form : {"tb", "nn", "batch_tb", "ta"}) {
        Case c;
        const std::string t = types;
        c.type = t.substr(0, t.find('_'));
        if (t.find('_') != std::string::npos) {
          c.type_b = t.substr(t.find('_') + 1);
        }
        c.form = form;
        c.m = 72;
        c.k = 272;
        c.tiling = tiling;
        cases.push_back(c);
      }
    }
  }
  // f8 into bf16 (the epilogue's convert) on the heuristic's f8 tiling,
  // and f8 beside bf16, which converts to bf16 and stays a bf16 wgmma.
  {
    Case c;
    c.type = "f8e4m3fn";
    c.form = "tb";
    c.epilogue = "convert_bf16";
    c.m = 72;
    c.k = 272;
    c.tiling = "wgmma128x128x128_2x1_s4";
    cases.push_back(c);
    for (const char* form : {"tb", "nn"}) {
      Case mixed;
      mixed.type = "f8e4m3fn";
      mixed.type_b = "bf16";
      mixed.form = form;
      mixed.k = 272;
      mixed.tiling = "wgmma128x64x64_2x1_s3";
      cases.push_back(mixed);
    }
  }
  // N = 256 per warpgroup: 128 accumulators per thread.
  for (const char* form : {"tb", "nn"}) {
    cases.push_back(
        MakeCase("bf16", form, 72, 264, 80, "wgmma128x256x64_2x1_s3"));
  }
  return cases;
}

// Warpgroup tiles that arrive by TMA, with and without a producer warp.
std::vector<Case> TmaWarpgroupCases() {
  std::vector<Case> cases;
  // TMA tiles (128-byte swizzled, mbarriers): K-major (tb, batch_tb;
  // 1-byte f8 and s8, 2-byte bf16 and f16) and MN-major (nn, batch: N
  // minor; ta, colmajor: M minor) operands, K and M / N tails, warpgroup
  // columns of 64 and 128; sides TMA cannot take (f32, an M- or N-minor
  // f8 operand) fall back to cp.async or registers.
  for (const char* tiling :
       {"wgmma128x128x64_2x1_s4_tma", "wgmma128x64x64_2x1_s3_tma",
        "wgmma64x128x128_1x1_s3_tma"}) {
    for (const char* type : {"bf16", "f16", "s8", "f8e4m3fn", "f32"}) {
      // f32 tiles past 128x64x64 s3 exceed the GPU's shared memory.
      if (type[1] == '3' &&
          std::string(tiling) != "wgmma128x64x64_2x1_s3_tma") {
        continue;
      }
      for (const char* form : {"tb", "nn", "batch_tb", "batch", "ta"}) {
        cases.push_back(MakeCase(type, form, 72, 136, 272, tiling));
      }
    }
  }
  // Warp-specialized TMA tiles (a producer warp, full and empty
  // mbarriers): K-major and MN-major operands with tails; K of one step,
  // of fewer steps than stages, and of several rounds of the stages.
  for (const char* tiling :
       {"wgmma128x128x64_2x1_s4_tma_ws", "wgmma64x128x128_1x1_s3_tma_ws"}) {
    for (const char* type : {"bf16", "s8", "f8e4m3fn"}) {
      for (const char* form : {"tb", "nn", "batch", "ta"}) {
        if (type[0] != 'b' && form[0] != 't') continue;  // f8, s8: K-major
        cases.push_back(MakeCase(type, form, 72, 136, 272, tiling));
      }
    }
    for (int64_t k : {48, 144, 528}) {
      cases.push_back(MakeCase("f16", "tb", 136, 72, k, tiling));
    }
  }
  return cases;
}

}  // namespace

std::vector<Case> WarpgroupCases() {
  std::vector<Case> cases = StagedWarpgroupCases();
  for (const Case& c : TmaWarpgroupCases()) cases.push_back(c);
  return cases;
}

std::vector<Case> Tcgen05Cases() {
  std::vector<Case> cases;
  // Every tensor-core type, one to four stages: tiles through registers
  // (nn with f8 and f32, ta, colmajor), copied by cp.async (tb, batch_tb;
  // MN-major 16-bit nn, batch) and by TMA; M, N and K tails.
  for (const char* tiling :
       {"tcgen05_128x128x64", "tcgen05_128x64x64_s2", "tcgen05_128x128x64_s4",
        "tcgen05_128x128x64_s4_tma", "tcgen05_128x256x64_s3_tma"}) {
    for (const char* type : {"bf16", "f16", "f32", "s8", "f8e4m3fn"}) {
      // f32 tiles of 128x64 take 4 stages of 64 KiB past 227 KiB, and
      // more than 1 stage of 128x256x64.
      if (type[1] == '3' &&
          std::string(tiling).find("_s") != std::string::npos) {
        continue;
      }
      for (const char* form :
           {"tb", "nn", "ta", "batch", "batch_tb", "colmajor"}) {
        cases.push_back(MakeCase(type, form, 136, 72, 272, tiling));
      }
    }
  }
  // f8 x f8 multiplied as f8 (e4m3 and e5m2 kinds, 128 bytes of K), K of
  // one step, of fewer steps than stages and of several rounds of them;
  // the epilogues.
  for (const char* types : {"f8e5m2", "f8e4m3fn_f8e5m2"}) {
    Case c = MakeCase("", "tb", 72, 136, 272, "tcgen05_128x128x128_s3_tma");
    const std::string t = types;
    c.type = t.substr(0, t.find('_'));
    if (t.find('_') != std::string::npos) c.type_b = t.substr(t.find('_') + 1);
    cases.push_back(c);
  }
  for (int64_t k : {48, 144, 656}) {
    cases.push_back(
        MakeCase("bf16", "tb", 136, 72, k, "tcgen05_128x128x64_s3_tma"));
    cases.push_back(MakeCase("bf16", "tb", 136, 72, k, "tcgen05_128x64x64_s4"));
  }
  for (const char* epilogue : {"bias_relu", "gelu", "convert_bf16"}) {
    Case c = MakeCase("bf16", "tb", 136, 72, 272, "tcgen05_128x128x64_s4_tma");
    c.epilogue = epilogue;
    cases.push_back(c);
  }
  return cases;
}

}  // namespace xlite
