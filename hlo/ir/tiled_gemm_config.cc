#include "hlo/ir/tiled_gemm_config.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace xlite {
namespace {

// The config without whitespace, so that pretty-printed JSON reads the
// same as one line.
std::string Compact(absl::string_view json) {
  std::string out;
  bool in_string = false;
  for (char c : json) {
    if (c == '"') in_string = !in_string;
    if (!in_string && absl::ascii_isspace(static_cast<unsigned char>(c))) {
      continue;
    }
    out.push_back(c);
  }
  return out;
}

// The integer field `"name":N` (or `"name":"N"`, as proto JSON writes
// int64), if present.
std::optional<int64_t> Field(absl::string_view json, absl::string_view name) {
  const std::string key = absl::StrCat("\"", name, "\":");
  const size_t at = json.find(key);
  if (at == absl::string_view::npos) return std::nullopt;
  size_t start = at + key.size();
  if (start < json.size() && json[start] == '"') ++start;
  size_t end = start;
  while (end < json.size() && (absl::ascii_isdigit(json[end]) ||
                               (end == start && json[end] == '-'))) {
    ++end;
  }
  int64_t value = 0;
  if (!absl::SimpleAtoi(json.substr(start, end - start), &value)) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

bool TiledGemmConfig::IsValid() const {
  if (block_m <= 0 || block_n <= 0 || block_k <= 0 || warps_m < 0 ||
      warps_n < 0 || stages < 1 || stages > 4 || wgmma < 0 || wgmma > 1 ||
      tma < 0 || tma > 1 || (tma == 1 && (wgmma != 1 || stages < 3)) ||
      ws < 0 || ws > 1 || (ws == 1 && tma != 1) || tcgen05 < 0 || tcgen05 > 1 ||
      (tcgen05 == 1 && (wgmma != 1 || ws == 1))) {
    return false;
  }
  if (tcgen05 == 1) {
    if (warps_m != 1 || warps_n != 1 || block_m != 128 || block_n < 16 ||
        block_n > 256 || block_n % 16 != 0 || block_k % 32 != 0) {
      return false;
    }
  } else if (wgmma == 1) {
    if (!tensor_cores() || warps_n <= 0 || block_m != 64 * warps_m ||
        block_n % warps_n != 0 || block_k % 32 != 0) {
      return false;
    }
    const int64_t n = block_n / warps_n;
    if (n < 8 || n > 256 || n % (n > 32 ? 16 : 8) != 0) return false;
  } else if (tensor_cores()) {
    if (warps_n <= 0 || block_m % (warps_m * 16) != 0 ||
        block_n % (warps_n * 8) != 0 || block_k % 32 != 0) {
      return false;
    }
  } else if (thread_m <= 0 || thread_n <= 0 || block_m % thread_m != 0 ||
             block_n % thread_n != 0) {
    return false;
  }
  return threads() >= 1 && launch_threads(true) <= 1024;
}

std::string TiledGemmConfig::ToString() const {
  std::string s = absl::StrCat(block_m, "x", block_n, "x", block_k);
  if (blackwell_mma()) {
    absl::StrAppend(&s, " tcgen05 groups ", warps_m, "x", warps_n);
  } else if (warpgroups()) {
    absl::StrAppend(&s, " wgmma groups ", warps_m, "x", warps_n);
  } else if (tensor_cores()) {
    absl::StrAppend(&s, " mma warps ", warps_m, "x", warps_n);
  } else {
    absl::StrAppend(&s, " simt threads ", thread_m, "x", thread_n);
  }
  if (stages > 1) absl::StrAppend(&s, " stages ", stages);
  if (tma == 1) absl::StrAppend(&s, " tma");
  if (ws == 1) absl::StrAppend(&s, " ws");
  return s;
}

std::optional<TiledGemmConfig> ParseTiledGemmConfig(absl::string_view text) {
  std::vector<absl::string_view> words =
      absl::StrSplit(text, ' ', absl::SkipEmpty());
  const bool ws = !words.empty() && words.back() == "ws";
  if (ws) words.pop_back();
  const bool tma = !words.empty() && words.back() == "tma";
  if (tma) words.pop_back();
  if (words.size() != 4 && words.size() != 6) return std::nullopt;
  auto sizes = [](absl::string_view w, std::vector<int64_t>& out) {
    for (absl::string_view part : absl::StrSplit(w, 'x')) {
      int64_t v = 0;
      if (!absl::SimpleAtoi(part, &v) || v <= 0) return false;
      out.push_back(v);
    }
    return true;
  };
  std::vector<int64_t> block, pair;
  if (!sizes(words[0], block) || block.size() != 3 || !sizes(words[3], pair) ||
      pair.size() != 2) {
    return std::nullopt;
  }
  TiledGemmConfig c;
  c.block_m = block[0];
  c.block_n = block[1];
  c.block_k = block[2];
  const std::string kind = absl::StrCat(words[1], " ", words[2]);
  if (kind == "mma warps" || kind == "wgmma groups" ||
      kind == "tcgen05 groups") {
    c.warps_m = pair[0];
    c.warps_n = pair[1];
    c.wgmma = kind == "mma warps" ? 0 : 1;
    c.tcgen05 = kind == "tcgen05 groups" ? 1 : 0;
  } else if (kind == "simt threads") {
    c.thread_m = pair[0];
    c.thread_n = pair[1];
  } else {
    return std::nullopt;
  }
  if (words.size() == 6 &&
      (words[4] != "stages" || !absl::SimpleAtoi(words[5], &c.stages) ||
       c.stages < 2)) {
    return std::nullopt;
  }
  c.tma = tma ? 1 : 0;
  c.ws = ws ? 1 : 0;
  if (!c.IsValid()) return std::nullopt;
  return c;
}

std::optional<TensorCoreInput> TensorCoreInputOf(const HloInstruction& dot) {
  using PT = PrimitiveType;
  if (dot.opcode() != HloOpcode::kDot || dot.operand_count() != 2) {
    return std::nullopt;
  }
  const PT l = dot.operand(0)->shape().element_type();
  const PT r = dot.operand(1)->shape().element_type();
  const PT out = dot.shape().element_type();
  if (l == PT::kS8 && r == PT::kS8) {
    return out == PT::kS32 ? std::optional(TensorCoreInput::kS8) : std::nullopt;
  }
  auto f8 = [](PT t) { return t == PT::kF8E4M3FN || t == PT::kF8E5M2; };
  auto narrow = [&](PT t) { return t == PT::kF16 || t == PT::kBF16 || f8(t); };
  if (out != PT::kF32 && out != PT::kF16 && out != PT::kBF16) {
    return std::nullopt;
  }
  if (narrow(l) && narrow(r)) {
    if (l == PT::kBF16 || r == PT::kBF16) {
      if (l == PT::kF16 || r == PT::kF16) return std::nullopt;
      return TensorCoreInput::kBF16;
    }
    return TensorCoreInput::kF16;
  }
  if ((l != PT::kF32 && !narrow(l)) || (r != PT::kF32 && !narrow(r))) {
    return std::nullopt;
  }
  // An f32 side: TF32 when the dot allows it (the 16-bit and f8 types
  // convert to TF32 exactly).
  const std::string& algorithm = dot.attrs().dot->algorithm;
  if (algorithm == "dot_tf32_tf32_f32") return TensorCoreInput::kTF32;
  if (!algorithm.empty() && algorithm != "unset") return std::nullopt;
  for (Precision p : dot.attrs().operand_precision) {
    if (p != Precision::kDefault) return std::nullopt;
  }
  return TensorCoreInput::kTF32;
}

int64_t TensorCoreK(TensorCoreInput input) {
  switch (input) {
    case TensorCoreInput::kTF32:
      return 8;
    case TensorCoreInput::kS8:
      return 32;
    default:
      return 16;
  }
}

std::string TiledGemmBackendConfig(const TiledGemmConfig& c) {
  std::string warps;
  if (c.tensor_cores()) {
    warps =
        absl::StrCat(R"(,"warps_m":)", c.warps_m, R"(,"warps_n":)", c.warps_n);
  }
  if (c.warpgroups()) absl::StrAppend(&warps, R"(,"wgmma":1)");
  if (c.blackwell_mma()) absl::StrAppend(&warps, R"(,"tcgen05":1)");
  if (c.stages > 1) absl::StrAppend(&warps, R"(,"stages":)", c.stages);
  if (c.tma == 1) absl::StrAppend(&warps, R"(,"tma":1)");
  if (c.ws == 1) absl::StrAppend(&warps, R"(,"ws":1)");
  return absl::StrCat(R"({"fusion_backend_config":{"kind":")",
                      kTiledGemmFusionKind, R"(","block_m":)", c.block_m,
                      R"(,"block_n":)", c.block_n, R"(,"block_k":)", c.block_k,
                      R"(,"thread_m":)", c.thread_m, R"(,"thread_n":)",
                      c.thread_n, warps, "}}");
}

std::string UntiledGemmBackendConfig() {
  return absl::StrCat(R"({"fusion_backend_config":{"kind":")",
                      kTiledGemmFusionKind, R"("}})");
}

bool IsTiledGemmFusion(const HloInstruction& hlo) {
  if (hlo.opcode() != HloOpcode::kFusion ||
      hlo.attrs().fusion_kind != FusionKind::kCustom) {
    return false;
  }
  return absl::StrContains(
      Compact(hlo.backend_config()),
      absl::StrCat("\"kind\":\"", kTiledGemmFusionKind, "\""));
}

std::optional<TiledGemmConfig> TiledGemmConfigOf(const HloInstruction& hlo) {
  if (!IsTiledGemmFusion(hlo)) return std::nullopt;
  const std::string json = Compact(hlo.backend_config());
  TiledGemmConfig c;
  for (auto [name, field] :
       {std::pair<const char*, int64_t*>{"block_m", &c.block_m},
        {"block_n", &c.block_n},
        {"block_k", &c.block_k},
        {"thread_m", &c.thread_m},
        {"thread_n", &c.thread_n},
        {"warps_m", &c.warps_m},
        {"warps_n", &c.warps_n},
        {"stages", &c.stages},
        {"wgmma", &c.wgmma},
        {"tma", &c.tma},
        {"ws", &c.ws},
        {"tcgen05", &c.tcgen05}}) {
    if (std::optional<int64_t> v = Field(json, name)) *field = *v;
  }
  if (!c.IsValid()) return std::nullopt;
  return c;
}

}  // namespace xlite
