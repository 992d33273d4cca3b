// GemmCallLayoutFor (gemm_config.h): which operand and result element of a
// GEMM custom call is which, checked against the call's config.

#include "absl/strings/str_cat.h"
#include "hlo/ir/gemm_config.h"

namespace xlite {
namespace {

absl::Status Invalid(absl::string_view what) {
  return absl::InvalidArgumentError(what);
}

// Product of the dimensions of `s` that are in neither list.
absl::StatusOr<int64_t> FreeSize(const Shape& s,
                                 const std::vector<int64_t>& batch,
                                 const std::vector<int64_t>& contracting,
                                 absl::string_view side) {
  std::vector<bool> used(s.rank(), false);
  for (const std::vector<int64_t>* list : {&batch, &contracting}) {
    for (int64_t d : *list) {
      if (d < 0 || d >= s.rank() || used[d]) {
        return Invalid(absl::StrCat("dot_dimension_numbers: ", side,
                                    " dimension ", d, " is out of range or "
                                    "repeated for rank ", s.rank()));
      }
      used[d] = true;
    }
  }
  int64_t size = 1;
  for (int64_t i = 0; i < s.rank(); ++i) {
    if (!used[i]) size *= s.dimensions(i);
  }
  return size;
}

absl::Status CheckSizes(const GemmBackendConfig& config, const Shape& a,
                        const Shape& b, const Shape& d, int64_t* n) {
  const DotDimensionNumbers& dn = config.dnums;
  absl::StatusOr<int64_t> m = FreeSize(a, dn.lhs_batch_dimensions,
                                       dn.lhs_contracting_dimensions, "lhs");
  if (!m.ok()) return m.status();
  absl::StatusOr<int64_t> cols = FreeSize(
      b, dn.rhs_batch_dimensions, dn.rhs_contracting_dimensions, "rhs");
  if (!cols.ok()) return cols.status();
  int64_t batch = 1;
  for (size_t i = 0; i < dn.lhs_batch_dimensions.size(); ++i) {
    const int64_t l = a.dimensions(dn.lhs_batch_dimensions[i]);
    if (l != b.dimensions(dn.rhs_batch_dimensions[i])) {
      return Invalid("a and b disagree on a batch dimension's size");
    }
    batch *= l;
  }
  for (size_t i = 0; i < dn.lhs_contracting_dimensions.size(); ++i) {
    if (a.dimensions(dn.lhs_contracting_dimensions[i]) !=
        b.dimensions(dn.rhs_contracting_dimensions[i])) {
      return Invalid("a and b disagree on a contracting dimension's size");
    }
  }
  if (!d.IsArray() || d.ElementCount() != batch * *m * *cols) {
    return Invalid(absl::StrCat("the result ", d.ToString(false),
                                " does not hold batch x rows x columns = ",
                                batch, " x ", *m, " x ", *cols, " elements"));
  }
  *n = *cols;
  return absl::OkStatus();
}

absl::Status AssignResults(GemmTarget target, const GemmBackendConfig& config,
                           const Shape& result, GemmCallLayout& out) {
  const bool aux = EpilogueHasAux(config.epilogue);
  if (aux && target == GemmTarget::kCublasLtMatmulF8) {
    return Invalid("an f8 matmul has no aux output");
  }
  if (!result.IsTuple()) {
    if (aux || config.damax_output) {
      return Invalid("a call with an aux or amax output returns a tuple");
    }
    return absl::OkStatus();
  }
  const int64_t size = result.tuple_shapes_size();
  int64_t next = 1;
  out.d = 0;
  if (aux) out.aux = next++;
  if (config.damax_output) out.amax = next++;
  if (next < size) out.workspace = next++;
  if (size == 0 || next != size) {
    return Invalid(absl::StrCat(
        "the result tuple has ", size, " elements; this config gives d",
        aux ? ", aux" : "", config.damax_output ? ", amax" : "",
        " and an optional workspace"));
  }
  if (out.aux >= 0 &&
      result.tuple_shapes(out.aux).dimensions() !=
          result.tuple_shapes(0).dimensions()) {
    return Invalid("the aux output must have d's dimensions");
  }
  if (out.amax >= 0 && (!result.tuple_shapes(out.amax).IsArray() ||
                        result.tuple_shapes(out.amax).rank() != 0)) {
    return Invalid("the amax output must be a scalar");
  }
  if (out.workspace >= 0) {
    const Shape& w = result.tuple_shapes(out.workspace);
    if (w.element_type() != PrimitiveType::kS8 || w.rank() != 1) {
      return Invalid("the workspace (last result) must be s8[N]");
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<GemmCallLayout> GemmCallLayoutFor(
    GemmTarget target, const GemmBackendConfig& config,
    absl::Span<const Shape* const> operands, const Shape& result) {
  GemmCallLayout out;
  if (operands.size() < 2 || !operands[0]->IsArray() ||
      !operands[1]->IsArray()) {
    return Invalid("a GEMM call takes at least two arrays (a, b)");
  }
  if (absl::Status s = AssignResults(target, config, result, out); !s.ok()) {
    return s;
  }
  const Shape& d = GemmOutputShape(result);
  int64_t columns = 1;
  if (absl::Status s =
          CheckSizes(config, *operands[0], *operands[1], d, &columns);
      !s.ok()) {
    return s;
  }
  const int64_t n = static_cast<int64_t>(operands.size());
  int64_t next = 2;
  if (config.beta != 0) out.c = next++;
  if (target == GemmTarget::kCublasLtMatmulF8) {
    int64_t first = next;
    while (next < n && next - first < 4 && operands[next]->IsArray() &&
           operands[next]->rank() == 0) {
      ++next;
    }
    const int64_t scales = next - first;
    if (scales < 2) {
      return Invalid("an f8 matmul takes a_scale and b_scale after a, b [, c]");
    }
    out.a_scale = first;
    out.b_scale = first + 1;
    if (scales == 3) out.d_scale = first + 2;
    if (scales == 4) {
      out.c_scale = first + 2;
      out.d_scale = first + 3;
    }
  }
  if (EpilogueAddsBias(config.epilogue)) out.bias = next++;
  if (next != n) {
    return Invalid(absl::StrCat(
        "the call has ", n, " operands; its config (beta ", config.beta,
        ", epilogue ", GemmEpilogueName(config.epilogue), ") takes ", next));
  }
  if (out.c >= 0 && operands[out.c]->dimensions() != d.dimensions()) {
    return Invalid(absl::StrCat("c ", operands[out.c]->ToString(false),
                                " must have the result's dimensions"));
  }
  if (out.bias >= 0 && (!operands[out.bias]->IsArray() ||
                        operands[out.bias]->ElementCount() != columns)) {
    return Invalid(absl::StrCat("the bias ", operands[out.bias]->ToString(false),
                                " must hold one value per result column (",
                                columns, ")"));
  }
  return out;
}

}  // namespace xlite
