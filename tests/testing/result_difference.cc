#include "tests/testing/result_difference.h"

#include <cmath>
#include <complex>
#include <vector>

#include "absl/strings/str_cat.h"

namespace xlite::testing {
namespace {

void Leaves(const Literal& l, std::vector<const Literal*>* out) {
  if (l.shape().IsTuple()) {
    for (const Literal& e : l.tuple_elements()) Leaves(e, out);
  } else {
    out->push_back(&l);
  }
}

}  // namespace

std::string ResultDifference(const Literal& got, const Literal& want) {
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
      if (std::isinf(x.real()) || std::isinf(y.real()) ||
          std::abs(x - y) > 1e-3 + 1e-3 * std::abs(y)) {
        return absl::StrCat("result ", k, " element ", i, ": ",
                            a[k]->ElementToString(i), " vs ",
                            b[k]->ElementToString(i));
      }
    }
  }
  return "";
}

}  // namespace xlite::testing
