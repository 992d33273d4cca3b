#include "codegen/testing/differential.h"

#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hlo/analysis/verifier.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/ir/float_types.h"
#include "hlo/text/parser.h"

namespace xlite::codegen::testing {
namespace {

std::string ShapeText(const Shape& shape) {
  std::string dims;
  for (int64_t i = 0; i < shape.rank(); ++i) {
    absl::StrAppend(&dims, i ? "," : "", shape.dimensions(i));
  }
  return absl::StrCat(PrimitiveTypeName(shape.element_type()), "[", dims, "]");
}

// Bits of component `part` (0 re, 1 im) of element i; the element's bits for
// non-complex types.
uint64_t ComponentBits(const Literal& literal, int64_t i, int part) {
  const PrimitiveType type = literal.shape().element_type();
  if (!IsComplex(type)) return literal.GetBits(i);
  const int half = StorageBytes(type) / 2;
  uint64_t bits = 0;
  std::memcpy(&bits, literal.data().data() + i * 2 * half + part * half, half);
  return bits;
}

bool IsNanBits(PrimitiveType type, uint64_t bits) {
  return std::isnan(DecodeToF64(type, bits));
}

bool ElementsMatch(const Literal& expected, const Literal& actual, int64_t i,
                   bool pred_as_truth) {
  const PrimitiveType type = expected.shape().element_type();
  if (type == PrimitiveType::kPred && pred_as_truth) {
    return (expected.data()[i] != 0) == (actual.data()[i] != 0);
  }
  if (type == PrimitiveType::kPred) {
    return expected.data()[i] == actual.data()[i];
  }
  const PrimitiveType part = ComplexComponentType(type);
  for (int p = 0; p < (IsComplex(type) ? 2 : 1); ++p) {
    const uint64_t e = ComponentBits(expected, i, p);
    const uint64_t a = ComponentBits(actual, i, p);
    if (e == a) continue;
    if (IsFloatingPoint(part) && IsNanBits(part, e) && IsNanBits(part, a)) {
      continue;
    }
    return false;
  }
  // Raw storage must agree too (sign-extension of sub-byte integers).
  const int bytes = StorageBytes(type);
  return IsFloatingPoint(type) || IsComplex(type) ||
         std::memcmp(expected.data().data() + i * bytes,
                     actual.data().data() + i * bytes, bytes) == 0;
}

std::string Describe(const Literal& literal, int64_t i) {
  const PrimitiveType type = literal.shape().element_type();
  if (IsComplex(type)) {
    return absl::StrFormat("%s [0x%x, 0x%x]", literal.ElementToString(i),
                           ComponentBits(literal, i, 0),
                           ComponentBits(literal, i, 1));
  }
  const int bytes = StorageBytes(type);
  uint64_t raw = 0;
  std::memcpy(&raw, literal.data().data() + i * bytes, bytes);
  return absl::StrFormat("%s [0x%x]", literal.ElementToString(i), raw);
}

}  // namespace

std::string OneInstructionModule(const std::string& opcode, const Shape& result,
                                 const std::vector<Shape>& operands,
                                 const std::string& attributes) {
  std::string text = "HloModule m\n\nENTRY e {\n";
  std::string names;
  for (size_t k = 0; k < operands.size(); ++k) {
    absl::StrAppend(&text, "  p", k, " = ", ShapeText(operands[k]),
                    " parameter(", k, ")\n");
    absl::StrAppend(&names, k ? ", " : "", "p", k);
  }
  absl::StrAppend(&text, "  ROOT r = ", ShapeText(result), " ", opcode, "(",
                  names, ")", attributes, "\n}\n");
  return text;
}

struct DifferentialRunner::Case {
  std::unique_ptr<HloModule> module;
  std::vector<Literal> arguments;
  std::string text;
  absl::StatusOr<int> kernel;
};

DifferentialRunner::DifferentialRunner(ElementwiseJit::Options options)
    : jit_(options), denormals_(options.denormals) {}

DifferentialRunner::~DifferentialRunner() = default;

absl::StatusOr<bool> DifferentialRunner::Add(const std::string& hlo,
                                             std::vector<Literal> arguments) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(hlo);
  if (!module.ok()) return module.status();
  if (!VerifyModule(**module).ok()) {
    ++counts_.skipped;
    return false;
  }
  auto c = std::make_unique<Case>();
  c->module = std::move(*module);
  c->arguments = std::move(arguments);
  c->text = hlo;
  c->kernel =
      jit_.AddKernel(*c->module->entry_computation()->root_instruction());
  cases_.push_back(std::move(c));
  ++counts_.cases;
  return true;
}

std::vector<std::string> DifferentialRunner::Check() {
  std::vector<std::string> failures;
  if (absl::Status status = jit_.Compile(); !status.ok()) {
    failures.push_back(absl::StrCat("compile: ", status.message()));
    cases_.clear();
    return failures;
  }
  for (const std::unique_ptr<Case>& c : cases_) {
    const HloInstruction& root =
        *c->module->entry_computation()->root_instruction();
    EvaluatorOptions evaluator;
    evaluator.denormals = denormals_;
    absl::StatusOr<Literal> expected =
        EvaluateModule(*c->module, c->arguments, evaluator);
    if (!c->kernel.ok() || !expected.ok()) {
      if (!c->kernel.ok() && !expected.ok()) {
        ++counts_.both_rejected;
      } else if (!c->kernel.ok()) {
        failures.push_back(
            absl::StrCat("emitter rejects what the evaluator "
                         "runs: ",
                         c->kernel.status().message(), "\n", c->text));
      } else {
        failures.push_back(
            absl::StrCat("evaluator rejects what the emitter "
                         "compiles: ",
                         expected.status().message(), "\n", c->text));
      }
      continue;
    }
    std::vector<const Literal*> operands;
    for (const Literal& argument : c->arguments) operands.push_back(&argument);
    absl::StatusOr<Literal> actual = jit_.Run(*c->kernel, root, operands);
    if (!actual.ok()) {
      failures.push_back(absl::StrCat("run: ", actual.status().message()));
      continue;
    }
    const bool pred_as_truth = root.opcode() == HloOpcode::kBitcastConvert;
    int reported = 0;
    int64_t mismatches = 0;
    std::string message;
    const int64_t n = expected->element_count();
    counts_.elements += n;
    for (int64_t i = 0; i < n; ++i) {
      if (ElementsMatch(*expected, *actual, i, pred_as_truth)) continue;
      ++mismatches;
      if (reported++ >= 4) continue;
      absl::StrAppend(&message, "  element ", i, ": expected ",
                      Describe(*expected, i), ", got ", Describe(*actual, i));
      // Operand elements at i (for same-count operands).
      for (size_t k = 0; k < c->arguments.size(); ++k) {
        const Literal& a = c->arguments[k];
        const int64_t at = a.element_count() == n   ? i
                           : a.element_count() == 1 ? 0
                                                    : -1;
        if (at >= 0)
          absl::StrAppend(&message, "; p", k, " = ", Describe(a, at));
      }
      absl::StrAppend(&message, "\n");
    }
    if (mismatches > 0) {
      failures.push_back(absl::StrCat(
          mismatches, " of ", n, " elements differ in\n", c->text, message));
    }
  }
  cases_.clear();
  return failures;
}

}  // namespace xlite::codegen::testing
