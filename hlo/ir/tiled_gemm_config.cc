#include "hlo/ir/tiled_gemm_config.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

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
  return block_m > 0 && block_n > 0 && block_k > 0 && thread_m > 0 &&
         thread_n > 0 && block_m % thread_m == 0 && block_n % thread_n == 0 &&
         threads() >= 1 && threads() <= 1024;
}

std::string TiledGemmBackendConfig(const TiledGemmConfig& c) {
  return absl::StrCat(R"({"fusion_backend_config":{"kind":")",
                      kTiledGemmFusionKind, R"(","block_m":)", c.block_m,
                      R"(,"block_n":)", c.block_n, R"(,"block_k":)", c.block_k,
                      R"(,"thread_m":)", c.thread_m, R"(,"thread_n":)",
                      c.thread_n, "}}");
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
        {"thread_n", &c.thread_n}}) {
    if (std::optional<int64_t> v = Field(json, name)) *field = *v;
  }
  if (!c.IsValid()) return std::nullopt;
  return c;
}

}  // namespace xlite
