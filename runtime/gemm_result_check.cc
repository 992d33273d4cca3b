#include "runtime/gemm_result_check.h"

#include <cmath>
#include <complex>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "hlo/ir/literal.h"

namespace xlite::runtime {
namespace {

absl::Span<const uint8_t> Bytes(absl::string_view s) {
  return absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(s.data()),
                             s.size());
}

bool Close(double x, double y, double tolerance) {
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  if (std::isinf(x) || std::isinf(y)) return x == y;
  return std::abs(x - y) <=
         tolerance * (std::max(std::abs(x), std::abs(y)) + 1);
}

}  // namespace

double GemmResultTolerance(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::kF64:
    case PrimitiveType::kC128:
      return 1e-9;
    case PrimitiveType::kF32:
    case PrimitiveType::kC64:
      // TF32 inputs keep 10 mantissa bits, whatever the order of the sums.
      return 1e-2;
    case PrimitiveType::kF16:
    case PrimitiveType::kBF16:
      return 5e-2;
    default:
      // f8 results: one step of a 2- or 3-bit mantissa is 12.5 to 25%.
      return 0.3;
  }
}

absl::Status CompareGemmResults(const Shape& d, absl::string_view reference,
                                absl::string_view candidate) {
  const int64_t bytes = d.ByteSizeOfElements();
  if (static_cast<int64_t>(reference.size()) != bytes ||
      static_cast<int64_t>(candidate.size()) != bytes) {
    return absl::InternalError(absl::StrCat(
        "result has ", candidate.size(), " bytes, the reference ",
        reference.size(), ", ", d.ToString(true), " needs ", bytes));
  }
  Literal want(d), got(d);
  want.SetFromPhysicalData(d, Bytes(reference));
  got.SetFromPhysicalData(d, Bytes(candidate));
  const double tolerance = GemmResultTolerance(d.element_type());
  for (int64_t i = 0; i < want.element_count(); ++i) {
    const std::complex<double> x = got.GetAsComplex(i);
    const std::complex<double> y = want.GetAsComplex(i);
    if (Close(x.real(), y.real(), tolerance) &&
        Close(x.imag(), y.imag(), tolerance)) {
      continue;
    }
    return absl::InternalError(absl::StrCat(
        "element ", i, " is ", got.ElementToString(i), ", the reference has ",
        want.ElementToString(i), " (tolerance ", tolerance, ")"));
  }
  return absl::OkStatus();
}

}  // namespace xlite::runtime
