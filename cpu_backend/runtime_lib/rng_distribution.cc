// The `rng` opcode's distributions over one engine per run: the engine is
// std::mt19937_64 and the distributions are the standard library's, drawn
// in the order hlo/evaluator/rng.cc draws them (which this file never
// calls), so that a run with the evaluator's seed gives its values. XLA
// leaves the bits of `rng` unspecified; only this agreement is promised.

#include <cstring>
#include <new>
#include <random>

#include "cpu_backend/runtime_lib/runtime_lib.h"

namespace xlite::cpu {
namespace {

static_assert(sizeof(std::mt19937_64) <= kRngEngineBytes,
              "kRngEngineBytes must hold the engine");
static_assert(alignof(std::mt19937_64) <= 16,
              "the engine's block is 16-byte aligned");

std::mt19937_64& Engine(void* engine) {
  return *std::launder(static_cast<std::mt19937_64*>(engine));
}

}  // namespace
}  // namespace xlite::cpu

extern "C" {

void xlite_cpu_rng_engine_init(void* engine, uint64_t seed) {
  // mt19937_64 is trivially destructible: the block is simply dropped.
  new (engine) std::mt19937_64(seed);
}

int32_t xlite_cpu_rng_uniform_f64(void* engine, double a, double b, double* out,
                                  int64_t n) {
  if (engine == nullptr || n < 0 || (n > 0 && out == nullptr)) {
    return xlite::cpu::kStatusInvalidArgument;
  }
  std::uniform_real_distribution<double> dist(a, b);
  auto& gen = xlite::cpu::Engine(engine);
  for (int64_t i = 0; i < n; ++i) out[i] = dist(gen);
  return xlite::cpu::kStatusOk;
}

int32_t xlite_cpu_rng_normal_f64(void* engine, double mu, double sigma,
                                 double* out, int64_t n) {
  if (engine == nullptr || n < 0 || (n > 0 && out == nullptr)) {
    return xlite::cpu::kStatusInvalidArgument;
  }
  std::normal_distribution<double> dist(mu, sigma);
  auto& gen = xlite::cpu::Engine(engine);
  for (int64_t i = 0; i < n; ++i) out[i] = dist(gen);
  return xlite::cpu::kStatusOk;
}

int32_t xlite_cpu_rng_uniform_s64(void* engine, int64_t a, int64_t b,
                                  int64_t* out, int64_t n) {
  if (engine == nullptr || n < 0 || (n > 0 && out == nullptr) || b <= a) {
    return xlite::cpu::kStatusInvalidArgument;
  }
  std::uniform_int_distribution<int64_t> dist(a, b - 1);
  auto& gen = xlite::cpu::Engine(engine);
  for (int64_t i = 0; i < n; ++i) out[i] = dist(gen);
  return xlite::cpu::kStatusOk;
}

}  // extern "C"
