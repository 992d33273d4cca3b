#ifndef XLITE_TESTS_FUZZ_CHOICE_SOURCE_H_
#define XLITE_TESTS_FUZZ_CHOICE_SOURCE_H_

// Where the random module generator's decisions come from: a seeded PRNG
// (the fixed-budget test, runs by hand) or the bytes libFuzzer hands a
// fuzz target, so that its mutations change the module's structure. Every
// choice is a number below a bound; an exhausted byte stream answers 0,
// which the generator treats as "the simplest option", so any input ends
// in a small valid module.

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace xlite::fuzz {

class ChoiceSource {
 public:
  virtual ~ChoiceSource() = default;

  /// A number in [0, n); 0 when n <= 1.
  virtual uint64_t Below(uint64_t n) = 0;

  /// A number in [lo, hi] (lo when hi < lo).
  int64_t Range(int64_t lo, int64_t hi);
  /// True with about `percent` percent probability; false when exhausted.
  bool Chance(int percent);
  /// An index into `weights`, each drawn with probability proportional to
  /// its weight; index 0 when exhausted.
  size_t Weighted(const std::vector<int>& weights);
  /// One element of a non-empty vector.
  template <typename T>
  const T& Pick(const std::vector<T>& items) {
    return items[Below(items.size())];
  }
};

/// Choices from std::mt19937_64, reproducible from the seed.
class SeededChoices : public ChoiceSource {
 public:
  explicit SeededChoices(uint64_t seed) : gen_(seed) {}
  uint64_t Below(uint64_t n) override;

 private:
  std::mt19937_64 gen_;
};

/// Choices read from a byte string (libFuzzer's input): each choice
/// consumes as many bytes as its bound needs, little-endian, reduced
/// modulo the bound; 0 once the bytes run out.
class ByteChoices : public ChoiceSource {
 public:
  ByteChoices(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint64_t Below(uint64_t n) override;
  bool exhausted() const { return pos_ >= size_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

}  // namespace xlite::fuzz

#endif  // XLITE_TESTS_FUZZ_CHOICE_SOURCE_H_
