// aot_arrays: the arrays side of the ahead-of-time library test
// (aot_test.sh), which the C driver (driver.c) leaves to it: .npy files to
// the raw bytes the library takes, and the raw bytes it returns compared
// with recorded results.
//
//   aot_arrays random MODULE DIR SEED   DIR/in_I.npy, random, per parameter
//   aot_arrays raw MODULE DIR OUT       DIR/in_I.npy -> OUT/in_I.bin
//   aot_arrays compare MODULE WANT GOT  GOT/out_J.bin vs WANT/out_J.npy
//
// Comparison as the corpus conformance tests: integers and pred bit for
// bit, floats within the element type's tolerance (that of the coarsest
// float type the module computes in), NaN matching NaN.

#include <cmath>
#include <complex>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cpu_backend/runtime_lib/test_support.h"
#include "hlo/module_io.h"
#include "runtime/literal_io.h"
#include "tests/testing/coarsest_float.h"

namespace xlite {
namespace {

using ::xlite::testing::CoarsestFloat;

std::vector<Shape> Leaves(const Shape& shape) {
  std::vector<Shape> out;
  std::function<void(const Shape&)> walk = [&](const Shape& s) {
    if (s.IsTuple()) {
      for (const Shape& e : s.tuple_shapes()) walk(e);
    } else if (!s.IsToken()) {
      out.push_back(s);
    }
  };
  walk(shape);
  return out;
}

std::vector<Shape> ParameterLeaves(const HloModule& module) {
  std::vector<Shape> out;
  for (const HloInstruction* p :
       module.entry_computation()->parameter_instructions()) {
    for (Shape& leaf : Leaves(p->shape())) out.push_back(std::move(leaf));
  }
  return out;
}

// "" or what differs.
std::string Mismatch(const Literal& got, const Literal& want,
                     PrimitiveType coarsest) {
  PrimitiveType type = want.shape().element_type();
  const bool inexact = IsFloatingPoint(type) || IsComplex(type);
  if (inexact && ::xlite::testing::FloatPrecision(coarsest) <
                     ::xlite::testing::FloatPrecision(type)) {
    type = coarsest;
  }
  const auto [atol, rtol] = rtlib_test::Tolerance(type);
  auto nan = [](std::complex<double> z) {
    return std::isnan(z.real()) || std::isnan(z.imag());
  };
  for (int64_t i = 0; i < want.element_count(); ++i) {
    bool same = got.GetBits(i) == want.GetBits(i);
    if (!same && inexact) {
      const std::complex<double> a = got.GetAsComplex(i);
      const std::complex<double> b = want.GetAsComplex(i);
      same =
          (nan(a) && nan(b)) || (!nan(a) && !nan(b) && !std::isinf(a.real()) &&
                                 !std::isinf(b.real()) &&
                                 std::abs(a - b) <= atol + rtol * std::abs(b));
    }
    if (!same) {
      return absl::StrCat("element ", i, ": ", got.ElementToString(i), " vs ",
                          want.ElementToString(i));
    }
  }
  return "";
}

int Random(const HloModule& module, const std::string& dir, int64_t seed) {
  std::mt19937_64 gen(seed);
  const std::vector<Shape> leaves = ParameterLeaves(module);
  for (size_t i = 0; i < leaves.size(); ++i) {
    const Literal literal = RandomLiteral(leaves[i], gen);
    if (absl::Status s =
            WriteNpyFile(literal, absl::StrCat(dir, "/in_", i, ".npy"));
        !s.ok()) {
      std::cerr << s.message() << "\n";
      return 1;
    }
  }
  return 0;
}

int Raw(const HloModule& module, const std::string& dir,
        const std::string& out) {
  const std::vector<Shape> leaves = ParameterLeaves(module);
  for (size_t i = 0; i < leaves.size(); ++i) {
    absl::StatusOr<Literal> literal =
        ReadLiteralFile(absl::StrCat(dir, "/in_", i, ".npy"), &leaves[i]);
    if (!literal.ok()) {
      std::cerr << literal.status().message() << "\n";
      return 1;
    }
    std::ofstream file(absl::StrCat(out, "/in_", i, ".bin"), std::ios::binary);
    file.write(reinterpret_cast<const char*>(literal->data().data()),
               literal->data().size());
    if (!file.good()) return 1;
  }
  return 0;
}

int Compare(const HloModule& module, const std::string& want_dir,
            const std::string& got_dir) {
  const std::vector<Shape> leaves =
      Leaves(module.entry_computation()->root_instruction()->shape());
  const PrimitiveType coarsest = CoarsestFloat(module);
  int failed = 0;
  for (size_t j = 0; j < leaves.size(); ++j) {
    absl::StatusOr<Literal> want =
        ReadLiteralFile(absl::StrCat(want_dir, "/out_", j, ".npy"), &leaves[j]);
    if (!want.ok()) {
      std::cerr << want.status().message() << "\n";
      return 1;
    }
    std::ifstream file(absl::StrCat(got_dir, "/out_", j, ".bin"),
                       std::ios::binary);
    std::stringstream bytes;
    bytes << file.rdbuf();
    const std::string got_bytes = bytes.str();
    Literal got(want->shape());
    if (got_bytes.size() != got.data().size()) {
      std::cerr << "result " << j << ": " << got_bytes.size()
                << " bytes, expected " << got.data().size() << "\n";
      return 1;
    }
    if (!got_bytes.empty()) {
      std::memcpy(got.mutable_data().data(), got_bytes.data(),
                  got_bytes.size());
    }
    const std::string mismatch = Mismatch(got, *want, coarsest);
    if (!mismatch.empty()) {
      std::cerr << "result " << j << " (" << want->shape().ToString(false)
                << ") differs: " << mismatch << "\n";
      ++failed;
    }
  }
  std::cout << leaves.size() - failed << "/" << leaves.size()
            << " results match\n";
  return failed == 0 ? 0 : 1;
}

int Main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: aot_arrays random|raw|compare MODULE DIR ARG\n";
    return 2;
  }
  const std::string command = argv[1];
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      LoadVerifiedModule(argv[2]);
  if (!module.ok()) {
    std::cerr << module.status().message() << "\n";
    return 1;
  }
  if (command == "random")
    return Random(**module, argv[3], std::atoll(argv[4]));
  if (command == "raw") return Raw(**module, argv[3], argv[4]);
  if (command == "compare") return Compare(**module, argv[3], argv[4]);
  std::cerr << "aot_arrays: unknown command " << command << "\n";
  return 2;
}

}  // namespace
}  // namespace xlite

int main(int argc, char** argv) { return xlite::Main(argc, argv); }
