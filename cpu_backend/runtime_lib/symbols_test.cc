// The symbol table lists every exported function once, and the ABI's codes
// are xlite's enum values.

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "cpu_backend/runtime_lib/runtime_lib.h"
#include "hlo/ir/attributes.h"
#include "hlo/ir/primitive_type.h"

namespace xlite {
namespace {

namespace rt = xlite::cpu;

static_assert(rt::kTypePred == static_cast<int>(PrimitiveType::kPred));
static_assert(rt::kTypeS8 == static_cast<int>(PrimitiveType::kS8));
static_assert(rt::kTypeS16 == static_cast<int>(PrimitiveType::kS16));
static_assert(rt::kTypeS32 == static_cast<int>(PrimitiveType::kS32));
static_assert(rt::kTypeS64 == static_cast<int>(PrimitiveType::kS64));
static_assert(rt::kTypeU8 == static_cast<int>(PrimitiveType::kU8));
static_assert(rt::kTypeU16 == static_cast<int>(PrimitiveType::kU16));
static_assert(rt::kTypeU32 == static_cast<int>(PrimitiveType::kU32));
static_assert(rt::kTypeU64 == static_cast<int>(PrimitiveType::kU64));
static_assert(rt::kTypeF16 == static_cast<int>(PrimitiveType::kF16));
static_assert(rt::kTypeF32 == static_cast<int>(PrimitiveType::kF32));
static_assert(rt::kTypeF64 == static_cast<int>(PrimitiveType::kF64));
static_assert(rt::kTypeC64 == static_cast<int>(PrimitiveType::kC64));
static_assert(rt::kTypeBF16 == static_cast<int>(PrimitiveType::kBF16));
static_assert(rt::kTypeC128 == static_cast<int>(PrimitiveType::kC128));
static_assert(rt::kFftForward == static_cast<int>(FftType::kFft));
static_assert(rt::kFftInverse == static_cast<int>(FftType::kIfft));
static_assert(rt::kFftRealForward == static_cast<int>(FftType::kRfft));
static_assert(rt::kFftRealInverse == static_cast<int>(FftType::kIrfft));
static_assert(rt::kTrsmNoTranspose ==
              static_cast<int>(TriangularSolveTranspose::kNoTranspose));
static_assert(rt::kTrsmTranspose ==
              static_cast<int>(TriangularSolveTranspose::kTranspose));
static_assert(rt::kTrsmAdjoint ==
              static_cast<int>(TriangularSolveTranspose::kAdjoint));

TEST(Symbols, EveryFunctionOnceWithItsAddress) {
  const auto symbols = rt::RuntimeLibrarySymbols();
  std::set<std::string> names;
  for (const auto& [name, address] : symbols) {
    EXPECT_NE(address, nullptr) << name;
    EXPECT_TRUE(names.insert(name).second) << name << " twice";
    EXPECT_EQ(std::string(name).rfind("xlite_cpu_", 0), 0u) << name;
  }
  EXPECT_EQ(names, (std::set<std::string>{"xlite_cpu_sort",
                                          "xlite_cpu_topk",
                                          "xlite_cpu_cholesky",
                                          "xlite_cpu_trsm",
                                          "xlite_cpu_geqrf",
                                          "xlite_cpu_orgqr",
                                          "xlite_cpu_syevd",
                                          "xlite_cpu_gesdd",
                                          "xlite_cpu_fft",
                                          "xlite_cpu_matmul",
                                          "xlite_cpu_matmul_strided",
                                          "xlite_cpu_conv",
                                          "xlite_cpu_rng_bit_generator",
                                          "xlite_cpu_block_scaled_dot",
                                          "xlite_cpu_batch_norm_training",
                                          "xlite_cpu_batch_norm_inference",
                                          "xlite_cpu_batch_norm_grad",
                                          "xlite_cpu_rng_engine_init",
                                          "xlite_cpu_rng_uniform_f64",
                                          "xlite_cpu_rng_normal_f64",
                                          "xlite_cpu_rng_uniform_s64",
                                          "xlite_cpu_alloc",
                                          "xlite_cpu_free",
                                          "xlite_cpu_parallel_range",
                                          "xlite_cpu_flush_denormals",
                                          "xlite_cpu_restore_denormals"}));
  EXPECT_EQ(symbols[0].second, reinterpret_cast<void*>(&xlite_cpu_sort));
}

}  // namespace
}  // namespace xlite
