#include "runtime/gemm_algorithm.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xlite::runtime {

std::string GemmAlgorithmScope(absl::string_view device,
                               absl::string_view cublaslt_version) {
  return absl::StrCat(device, "; cuBLASLt ", cublaslt_version);
}

std::string GemmAlgorithmWords(const GemmAlgorithm& algorithm) {
  std::vector<std::string> words;
  for (uint64_t w : algorithm.data) words.push_back(absl::StrCat(absl::Hex(w)));
  return absl::StrJoin(words, ",");
}

}  // namespace xlite::runtime
