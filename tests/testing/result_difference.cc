#include "tests/testing/result_difference.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hlo/ir/float_types.h"

namespace xlite::testing {
namespace {

void Leaves(const Literal& l, std::vector<const Literal*>* out) {
  if (l.shape().IsTuple()) {
    for (const Literal& e : l.tuple_elements()) Leaves(e, out);
  } else {
    out->push_back(&l);
  }
}

// 2^-mantissa_bits of a float type (of a complex type's parts); 0 for
// others.
double TypeEpsilon(PrimitiveType type) {
  if (type == PrimitiveType::kC64) type = PrimitiveType::kF32;
  if (type == PrimitiveType::kC128) type = PrimitiveType::kF64;
  const FloatFormat* format = GetFloatFormat(type);
  return format == nullptr ? 0 : std::ldexp(1.0, -format->mantissa_bits);
}

}  // namespace

ResultTolerance ReorderedReductionTolerance() {
  ResultTolerance t;
  t.type_epsilons = 4;
  return t;
}

std::string ResultDifference(const Literal& got, const Literal& want,
                             const ResultTolerance& tolerance) {
  std::vector<const Literal*> a, b;
  Leaves(got, &a);
  Leaves(want, &b);
  if (a.size() != b.size()) return "different result tuple sizes";
  for (size_t k = 0; k < a.size(); ++k) {
    const PrimitiveType type = b[k]->shape().element_type();
    if (!b[k]->shape().IsArray()) continue;
    if (a[k]->element_count() != b[k]->element_count()) {
      return absl::StrCat("result ", k, ": different element counts");
    }
    const bool inexact = IsFloatingPoint(type) || IsComplex(type);
    const PrimitiveType rounding = k < tolerance.rounding_types.size()
                                       ? tolerance.rounding_types[k]
                                       : PrimitiveType::kInvalid;
    const double type_error =
        tolerance.type_epsilons *
        std::max(TypeEpsilon(type), TypeEpsilon(rounding));
    for (int64_t i = 0; i < b[k]->element_count(); ++i) {
      if (!inexact) {
        if (a[k]->GetBits(i) != b[k]->GetBits(i)) {
          return absl::StrCat("result ", k, " element ", i, ": ",
                              a[k]->ElementToString(i), " vs ",
                              b[k]->ElementToString(i));
        }
        continue;
      }
      const std::complex<double> x = a[k]->GetAsComplex(i);
      const std::complex<double> y = b[k]->GetAsComplex(i);
      const bool xn = std::isnan(x.real()) || std::isnan(x.imag());
      const bool yn = std::isnan(y.real()) || std::isnan(y.imag());
      if (xn || yn) {
        if (xn != yn) {
          return absl::StrCat("result ", k, " element ", i, ": NaN mismatch (",
                              a[k]->ElementToString(i), " vs ",
                              b[k]->ElementToString(i), ")");
        }
        continue;
      }
      if (x == y) continue;
      const double error = std::abs(x - y);
      const bool close =
          error <= tolerance.absolute + tolerance.relative * std::abs(y) ||
          error <= type_error * std::max(std::abs(y), 1.0);
      if (std::isinf(x.real()) || std::isinf(y.real()) ||
          std::isinf(x.imag()) || std::isinf(y.imag()) || !close) {
        return absl::StrCat("result ", k, " element ", i, ": ",
                            a[k]->ElementToString(i), " vs ",
                            b[k]->ElementToString(i));
      }
    }
  }
  return "";
}

}  // namespace xlite::testing
