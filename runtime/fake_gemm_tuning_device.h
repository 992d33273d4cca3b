#ifndef XLITE_RUNTIME_FAKE_GEMM_TUNING_DEVICE_H_
#define XLITE_RUNTIME_FAKE_GEMM_TUNING_DEVICE_H_

// A GemmTuningDevice for tests (no GPU): every GEMM gets the same scripted
// candidates, each with a time or a failure and a right (all zeros) or
// wrong (all ones) result; it counts trials and measurements, so a test
// can tell a cache hit from a timing.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "hlo/ir/gemm_config.h"
#include "hlo/ir/literal.h"
#include "runtime/gemm_autotuner.h"

namespace xlite::runtime {

/// One candidate's behaviour.
struct FakeCandidate {
  std::string label;
  absl::StatusOr<double> microseconds;
  bool wrong = false;
};

class FakeGemmTuningDevice : public GemmTuningDevice {
 public:
  explicit FakeGemmTuningDevice(std::vector<FakeCandidate> candidates)
      : candidates_(std::move(candidates)) {}

  const GemmTuningPlatform& platform() const override { return platform_; }
  absl::StatusOr<std::unique_ptr<GemmTrial>> StartTrial(
      const GemmDescription& gemm) override {
    ++trials;
    return std::make_unique<Trial>(*this, GemmOutputShape(gemm.result));
  }

  GemmTuningPlatform platform_{"Fake GPU (sm_90)", "130100", "91900"};
  int trials = 0;
  int measured = 0;

 private:
  // Candidate i's first word is 100 + i.
  class Trial : public GemmTrial {
   public:
    Trial(FakeGemmTuningDevice& device, Shape d)
        : device_(device), d_(std::move(d)) {}
    absl::StatusOr<std::vector<GemmAlgorithm>> Candidates() override {
      std::vector<GemmAlgorithm> out;
      for (size_t i = 0; i < device_.candidates_.size(); ++i) {
        GemmAlgorithm a;
        a.data[0] = 100 + i;
        a.label = device_.candidates_[i].label;
        out.push_back(a);
      }
      return out;
    }
    absl::StatusOr<GemmMeasurement> Measure(const GemmAlgorithm& c) override {
      ++device_.measured;
      const FakeCandidate& f = device_.candidates_.at(c.data[0] - 100);
      if (!f.microseconds.ok()) return f.microseconds.status();
      Literal value(d_);
      for (int64_t i = 0; f.wrong && i < value.element_count(); ++i) {
        value.SetFromDouble(i, 1);
      }
      const std::vector<uint8_t> bytes = value.PhysicalData(d_);
      return GemmMeasurement{*f.microseconds,
                             std::string(bytes.begin(), bytes.end())};
    }

   private:
    FakeGemmTuningDevice& device_;
    Shape d_;
  };

  std::vector<FakeCandidate> candidates_;
};

}  // namespace xlite::runtime

#endif  // XLITE_RUNTIME_FAKE_GEMM_TUNING_DEVICE_H_
