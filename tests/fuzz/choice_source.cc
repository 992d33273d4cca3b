#include "tests/fuzz/choice_source.h"

namespace xlite::fuzz {

int64_t ChoiceSource::Range(int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  return lo + static_cast<int64_t>(Below(static_cast<uint64_t>(hi - lo) + 1));
}

bool ChoiceSource::Chance(int percent) {
  // An exhausted source answers 0, which must mean "no".
  return static_cast<int>(Below(100)) >= 100 - percent;
}

size_t ChoiceSource::Weighted(const std::vector<int>& weights) {
  uint64_t total = 0;
  for (int w : weights) total += w > 0 ? w : 0;
  uint64_t at = Below(total);
  for (size_t i = 0; i < weights.size(); ++i) {
    const uint64_t w = weights[i] > 0 ? weights[i] : 0;
    if (at < w) return i;
    at -= w;
  }
  return 0;
}

uint64_t SeededChoices::Below(uint64_t n) {
  if (n <= 1) return 0;
  return std::uniform_int_distribution<uint64_t>(0, n - 1)(gen_);
}

uint64_t ByteChoices::Below(uint64_t n) {
  if (n <= 1) return 0;
  uint64_t value = 0;
  int shift = 0;
  for (uint64_t span = n - 1; span != 0 && pos_ < size_; span >>= 8) {
    value |= uint64_t{data_[pos_++]} << shift;
    shift += 8;
  }
  return value % n;
}

}  // namespace xlite::fuzz
