#include "cpu_backend/runtime_lib/test_support.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "hlo/analysis/verifier.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"

namespace xlite::rtlib_test {

std::pair<double, double> Tolerance(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::kF64:
    case PrimitiveType::kC128:
      return {1e-12, 1e-9};
    case PrimitiveType::kF32:
    case PrimitiveType::kC64:
      return {1e-5, 2e-4};
    case PrimitiveType::kF16:
      return {1e-3, 2e-3};
    case PrimitiveType::kBF16:
      return {1e-2, 1.6e-2};
    default:
      return {0.02, 0.26};
  }
}

Literal RandomLiteral(const Shape& shape, std::mt19937_64& rng, double lo,
                      double hi) {
  Literal out(shape);
  const PrimitiveType type = shape.element_type();
  std::uniform_real_distribution<double> real(lo, hi);
  for (int64_t i = 0; i < out.element_count(); ++i) {
    if (IsComplex(type)) {
      const double re = real(rng);
      out.SetFromComplex(i, {re, real(rng)});
    } else if (IsFloatingPoint(type)) {
      out.SetFromDouble(i, real(rng));
    } else if (type == PrimitiveType::kPred) {
      out.SetFromInt64(i, rng() & 1);
    } else {
      const int bits = BitWidth(type);
      const bool is_signed = IsSignedInteger(type);
      const double min = is_signed ? -std::ldexp(1.0, bits - 1) : 0.0;
      const double max =
          is_signed ? std::ldexp(1.0, bits - 1) - 1 : std::ldexp(1.0, bits) - 1;
      const int64_t a = static_cast<int64_t>(std::max(lo, min));
      const int64_t b = static_cast<int64_t>(std::min(hi, max));
      out.SetFromInt64(i, std::uniform_int_distribution<int64_t>(a, b)(rng));
    }
  }
  return out;
}

absl::StatusOr<Literal> EvaluateHlo(const std::string& hlo,
                                    absl::Span<const Literal> args) {
  auto module = ParseHloModule(hlo);
  if (!module.ok()) return module.status();
  absl::Status verified = VerifyModule(**module);
  if (!verified.ok()) return verified;
  return EvaluateModule(**module, args);
}

Literal FromBytes(const Shape& shape, const void* data) {
  Literal out(shape);
  if (!out.mutable_data().empty()) {
    std::memcpy(out.mutable_data().data(), data, out.mutable_data().size());
  }
  return out;
}

::testing::AssertionResult Near(const Literal& want, const Literal& got) {
  if (want.shape().ToString(false) != got.shape().ToString(false)) {
    return ::testing::AssertionFailure()
           << "shape " << got.shape().ToString(false) << ", want "
           << want.shape().ToString(false);
  }
  if (want.shape().IsTuple()) {
    for (size_t i = 0; i < want.tuple_elements().size(); ++i) {
      ::testing::AssertionResult leaf =
          Near(want.tuple_elements()[i], got.tuple_elements()[i]);
      if (!leaf) return leaf << " (leaf " << i << ")";
    }
    return ::testing::AssertionSuccess();
  }
  const PrimitiveType type = want.shape().element_type();
  const bool inexact = IsFloatingPoint(type) || IsComplex(type);
  const auto [atol, rtol] = Tolerance(type);
  auto close = [&](double a, double b) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    if (a == b) return true;  // infinities
    return std::abs(a - b) <= atol + rtol * std::abs(a);
  };
  for (int64_t i = 0; i < want.element_count(); ++i) {
    bool ok;
    if (inexact) {
      const std::complex<double> a = want.GetAsComplex(i);
      const std::complex<double> b = got.GetAsComplex(i);
      ok = close(a.real(), b.real()) && close(a.imag(), b.imag());
    } else {
      ok = want.GetBits(i) == got.GetBits(i);
    }
    if (!ok) {
      return ::testing::AssertionFailure()
             << "element " << i << " is " << got.ElementToString(i) << ", want "
             << want.ElementToString(i) << " (of " << want.element_count()
             << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

std::vector<uint8_t> TransposeMatrices(const std::vector<uint8_t>& data,
                                       int64_t batch, int64_t rows,
                                       int64_t cols,
                                       int64_t bytes_per_element) {
  std::vector<uint8_t> out(data.size());
  const int64_t w = bytes_per_element;
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t base = b * rows * cols;
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < cols; ++c) {
        std::memcpy(out.data() + (base + c * rows + r) * w,
                    data.data() + (base + r * cols + c) * w, w);
      }
    }
  }
  return out;
}

}  // namespace xlite::rtlib_test
