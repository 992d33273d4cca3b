// custom-call dispatch and the reference implementations the global
// registry ships: XLA:CPU's TopK, the LAPACK FFI calls JAX emits on CPU
// for Cholesky, triangular solves, eigh and svd (eigh_svd.cc), the SPMD
// annotations and AllocateBuffer that XLA runs on one device, and QR (qr.cc).

#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "hlo/evaluator/eigh_svd.h"
#include "hlo/evaluator/internal.h"
#include "hlo/evaluator/qr.h"

namespace xlite::eval {
namespace {

// An integer attribute of an FFI backend config such as
// "{diag = 78 : ui8, side = 76 : ui8}" (MLIR dictionary syntax).
std::optional<int64_t> FfiAttribute(absl::string_view config,
                                    absl::string_view name) {
  size_t at = 0;
  while ((at = config.find(name, at)) != absl::string_view::npos) {
    const bool starts = at == 0 || config[at - 1] == '{' ||
                        config[at - 1] == ' ' || config[at - 1] == ',';
    size_t p = at + name.size();
    at = p;
    if (!starts) continue;
    while (p < config.size() && config[p] == ' ') ++p;
    if (p >= config.size() || config[p] != '=') continue;
    ++p;
    while (p < config.size() && config[p] == ' ') ++p;
    size_t end = p;
    while (end < config.size() &&
           (std::isdigit(static_cast<unsigned char>(config[end])) ||
            config[end] == '-')) {
      ++end;
    }
    int64_t value;
    if (absl::SimpleAtoi(config.substr(p, end - p), &value)) {
      return value;
    }
  }
  return std::nullopt;
}

absl::StatusOr<Literal> TopKCall(const HloInstruction& call,
                                 absl::Span<const Literal* const> operands) {
  if (operands.size() != 1 || !call.shape().IsTuple() ||
      call.shape().tuple_shapes_size() != 2) {
    return absl::InvalidArgumentError(
        "TopK takes one operand and returns "
        "(values, indices)");
  }
  const Shape& values = call.shape().tuple_shapes(0);
  const int64_t k =
      values.rank() == 0 ? 0 : values.dimensions(values.rank() - 1);
  // The comparator says the order: greater-than for the largest.
  bool largest = true;
  if (!call.called_computations().empty()) {
    const HloInstruction* root =
        call.called_computations()[0]->root_instruction();
    if (root->opcode() == HloOpcode::kCompare &&
        (root->attrs().direction == ComparisonDirection::kLt ||
         root->attrs().direction == ComparisonDirection::kLe)) {
      largest = false;
    }
  }
  return EvalTopK(call, *operands[0], k, largest);
}

absl::StatusOr<Literal> PotrfCall(const HloInstruction& call,
                                  absl::Span<const Literal* const> operands) {
  if (operands.size() != 1 || !call.shape().IsTuple() ||
      call.shape().tuple_shapes_size() != 2) {
    return absl::InvalidArgumentError(
        "potrf takes one operand and returns "
        "(factor, info)");
  }
  const int64_t uplo =
      FfiAttribute(call.backend_config(), "uplo").value_or('L');
  const bool lower = uplo == 'L';
  std::vector<int64_t> info;
  Literal factor =
      Cholesky(*operands[0], lower, call.shape().tuple_shapes(0), &info);
  // LAPACK leaves the other triangle as it was.
  const Shape& s = operands[0]->shape();
  const int64_t n = s.dimensions(s.rank() - 1);
  for (int64_t i = 0; i < factor.element_count(); ++i) {
    const int64_t r = (i / n) % n, c = i % n;
    if (lower ? c > r : c < r) {
      factor.SetFromComplex(i, operands[0]->GetAsComplex(i));
    }
  }
  Literal status(call.shape().tuple_shapes(1));
  for (int64_t b = 0;
       b < status.element_count() && b < static_cast<int64_t>(info.size());
       ++b) {
    status.SetFromInt64(b, info[b]);
  }
  std::vector<Literal> elements;
  elements.push_back(std::move(factor));
  elements.push_back(std::move(status));
  return Literal::Tuple(std::move(elements));
}

absl::StatusOr<Literal> TrsmCall(const HloInstruction& call,
                                 absl::Span<const Literal* const> operands) {
  if (operands.size() < 2) {
    return absl::InvalidArgumentError("trsm takes (a, b)");
  }
  const std::string& config = call.backend_config();
  const bool left = FfiAttribute(config, "side").value_or('L') == 'L';
  const bool lower = FfiAttribute(config, "uplo").value_or('L') == 'L';
  const bool unit = FfiAttribute(config, "diag").value_or('N') == 'U';
  const int64_t trans = FfiAttribute(config, "trans_x").value_or('N');
  const TriangularSolveTranspose t =
      trans == 'T'   ? TriangularSolveTranspose::kTranspose
      : trans == 'C' ? TriangularSolveTranspose::kAdjoint
                     : TriangularSolveTranspose::kNoTranspose;
  return TriangularSolve(*operands[0], *operands[1], left, lower, unit, t,
                         call.shape());
}

absl::StatusOr<Literal> EighCall(const HloInstruction& call,
                                 absl::Span<const Literal* const> operands) {
  if (operands.size() != 1) {
    return absl::InvalidArgumentError("syevd/heevd takes one operand");
  }
  const int64_t uplo =
      FfiAttribute(call.backend_config(), "uplo").value_or('L');
  return HermitianEigenCall(*operands[0], uplo == 'L', call.shape());
}

absl::StatusOr<Literal> GesddCall(const HloInstruction& call,
                                  absl::Span<const Literal* const> operands) {
  if (operands.size() != 1) {
    return absl::InvalidArgumentError("gesdd takes one operand");
  }
  const int64_t mode =
      FfiAttribute(call.backend_config(), "mode").value_or('A');
  return SvdCall(*operands[0], mode, call.shape());
}

// Sharding, SPMDFullToShardShape and SPMDShardToFullShape annotate values
// for the SPMD partitioner; on one device a shard is the whole value, so
// they pass their operand through. A shard shape that differs from the full
// one means the module needs the partitioner first.
absl::StatusOr<Literal> SpmdIdentityCall(
    const HloInstruction& call, absl::Span<const Literal* const> operands) {
  const std::string& target = call.attrs().custom_call->target;
  if (operands.size() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(target, " takes one operand"));
  }
  if (!ShapesCompatible(operands[0]->shape(), call.shape())) {
    return absl::InvalidArgumentError(absl::StrCat(
        target, " from ", operands[0]->shape().ToString(false), " to ",
        call.shape().ToString(false),
        " splits the value over devices; only the one-device (identity) "
        "form runs here"));
  }
  return *operands[0];
}

// XLA gives AllocateBuffer's result uninitialized memory; zeros are one
// such content, and deterministic.
absl::StatusOr<Literal> AllocateBufferCall(
    const HloInstruction& call, absl::Span<const Literal* const> operands) {
  if (!operands.empty()) {
    return absl::InvalidArgumentError("AllocateBuffer takes no operands");
  }
  return Literal(call.shape());
}

}  // namespace

void RegisterBuiltinCustomCalls(CustomCallRegistry& registry) {
  registry.Register("TopK", TopKCall);
  for (const char* target :
       {"Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape"}) {
    registry.Register(target, SpmdIdentityCall);
  }
  registry.Register("AllocateBuffer", AllocateBufferCall);
  RegisterQrCustomCalls(registry);
  RegisterBlockScaledCustomCalls(registry);
  RegisterGemmCustomCalls(registry);
  for (const char* prefix : {"s", "d", "c", "z"}) {
    registry.Register(absl::StrCat("lapack_", prefix, "potrf_ffi"), PotrfCall);
    registry.Register(absl::StrCat("lapack_", prefix, "trsm_ffi"), TrsmCall);
    registry.Register(absl::StrCat("lapack_", prefix, "gesdd_ffi"), GesddCall);
    registry.Register(absl::StrCat("lapack_", prefix, "gesvd_ffi"), GesddCall);
  }
  for (const char* target : {"lapack_ssyevd_ffi", "lapack_dsyevd_ffi",
                             "lapack_cheevd_ffi", "lapack_zheevd_ffi"}) {
    registry.Register(target, EighCall);
  }
}

absl::StatusOr<Literal> EvalCustomCall(Evaluator& evaluator,
                                       const HloInstruction& hlo,
                                       Operands operands) {
  const std::string& target = hlo.attrs().custom_call->target;
  bool buffers = hlo.shape().ContainsBuffer();
  for (const Literal* o : operands) buffers |= o->shape().ContainsBuffer();
  if (buffers) {
    // Pin/Unpin/CreateBuffer and their users need mutable, aliased storage
    // that literals (values) do not model.
    return InstructionError(
        hlo, absl::StrCat("custom-call \"", target,
                          "\" uses buffer shapes (b(...)), which the "
                          "evaluator does not run"));
  }
  const CustomCallFn* fn = evaluator.custom_calls().Find(target);
  if (fn == nullptr) {
    return InstructionError(
        hlo, absl::StrCat(
                 "custom-call target \"", target,
                 "\" has no implementation in the evaluator (it "
                 "knows: ",
                 absl::StrJoin(evaluator.custom_calls().Targets(), ", "), ")"));
  }
  absl::StatusOr<Literal> result = (*fn)(hlo, operands);
  if (!result.ok()) return InstructionError(hlo, result.status().message());
  if (!ShapesCompatible(result->shape(), hlo.shape())) {
    return InstructionError(
        hlo, absl::StrCat("custom-call \"", target, "\" returned ",
                          result->shape().ToString(false), ", expected ",
                          hlo.shape().ToString(false)));
  }
  result->mutable_shape_for_layout() = hlo.shape();
  return result;
}

}  // namespace xlite::eval
