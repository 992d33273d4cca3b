// cholesky and triangular-solve (the opcodes, and the LAPACK FFI custom
// calls JAX emits on the CPU: lapack_?potrf_ffi, lapack_?trsm_ffi) on real
// f32/f64 matrices, as the evaluator defines them (hlo/evaluator/
// linalg_fft.cc): one thread per matrix of the batch, walking the
// textbook algorithms serially in double. The result is first set to the
// operand the call overwrites (potrf's matrix, trsm's right-hand side),
// which also makes the calls' in-place aliasing safe.
//   - cholesky: column by column, L(j,j) = sqrt(A(j,j) - sum L(j,k)^2),
//     L(i,j) = (A(i,j) - sum L(i,k) L(j,k)) / L(j,j), upper as the
//     transpose; the opcode zeroes the other triangle, potrf keeps it and
//     reports the first non-positive pivot (1-based) in its info.
//   - triangular-solve: op(A) X = B column by column, or X op(A) = B row by
//     row, substituting in the order op(A)'s triangle allows.

#include <cctype>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "codegen/gpu/kernel_common.h"
#include "codegen/gpu/kernels.h"
#include "codegen/loops.h"
#include "codegen/math_library.h"
#include "codegen/scalar_ops.h"

namespace xlite::codegen::gpu {
namespace {

// The integer attribute `name = <int>` of an FFI call's backend_config.
int64_t FfiAttribute(absl::string_view config, absl::string_view name,
                     int64_t fallback) {
  for (size_t at = config.find(name); at != absl::string_view::npos;
       at = config.find(name, at + 1)) {
    if (at > 0 && std::isalnum(static_cast<unsigned char>(config[at - 1]))) {
      continue;
    }
    size_t p = at + name.size();
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
    if (absl::SimpleAtoi(config.substr(p, end - p), &value)) return value;
  }
  return fallback;
}

bool IsCall(const HloInstruction* hlo, absl::string_view suffix) {
  if (hlo->opcode() != HloOpcode::kCustomCall) return false;
  const std::string& t = hlo->attrs().custom_call->target;
  return absl::StartsWith(t, "lapack_") && absl::EndsWith(t, suffix) &&
         t.size() == 7 + 1 + suffix.size();
}

// A batch of matrices: the thread's batch prefix and element access.
struct Matrices {
  KernelScope& k;
  Index batch;  // indices of the leading dimensions

  Index At(llvm::Value* i, llvm::Value* j) const {
    Index index = batch;
    index.push_back(i);
    index.push_back(j);
    return index;
  }
  absl::StatusOr<llvm::Value*> Read(const HloInstruction* operand,
                                    llvm::Value* i, llvm::Value* j) {
    ElementalEmitter::Scope scope(k.emitter);
    absl::StatusOr<llvm::Value*> v = k.emitter.ValueAt(operand, -1, At(i, j));
    if (!v.ok()) return v.status();
    return EmitConvert(k.b, operand->shape().element_type(),
                       PrimitiveType::kF64, *v);
  }
  absl::StatusOr<llvm::Value*> Read(const IrArray& out, llvm::Value* i,
                                    llvm::Value* j) {
    return EmitConvert(k.b, out.shape().element_type(), PrimitiveType::kF64,
                       out.EmitRead(k.b, At(i, j)));
  }
  absl::Status Write(const IrArray& out, llvm::Value* i, llvm::Value* j,
                     llvm::Value* v) {
    absl::StatusOr<llvm::Value*> c =
        EmitConvert(k.b, PrimitiveType::kF64, out.shape().element_type(), v);
    if (!c.ok()) return c.status();
    out.EmitWrite(k.b, At(i, j), *c);
    return absl::OkStatus();
  }
  // out = operand, every element.
  absl::Status Copy(const HloInstruction* operand, const IrArray& out,
                    int64_t rows, int64_t cols) {
    return EmitLoopNestOverBounds(
        k.b, {rows, cols}, [&](const Index& ij) -> absl::Status {
          absl::StatusOr<llvm::Value*> v = Read(operand, ij[0], ij[1]);
          if (!v.ok()) return v.status();
          return Write(out, ij[0], ij[1], *v);
        });
  }
};

using Body = std::function<absl::Status(llvm::Value*)>;

absl::Status For(llvm::IRBuilderBase& b, llvm::Value* start, int64_t end,
                 const Body& body) {
  return EmitForLoop(b, start, b.getInt64(end), "linalg", body);
}

// d -= sum_{k < j} x(k) * y(k) into the double slot `acc`.
absl::Status SubtractProducts(
    Matrices& m, llvm::AllocaInst* acc, llvm::Value* j,
    const std::function<absl::StatusOr<std::pair<llvm::Value*, llvm::Value*>>(
        llvm::Value*)>& terms) {
  llvm::IRBuilderBase& b = m.k.b;
  return EmitForLoop(b, b.getInt64(0), j, "linalg.dot",
                     [&](llvm::Value* kk) -> absl::Status {
                       auto t = terms(kk);
                       if (!t.ok()) return t.status();
                       llvm::Value* d = b.CreateLoad(b.getDoubleTy(), acc);
                       b.CreateStore(
                           b.CreateFSub(d, b.CreateFMul(t->first, t->second)),
                           acc);
                       return absl::OkStatus();
                     });
}

absl::Status EmitCholesky(Matrices& m, const HloInstruction* hlo, int64_t n,
                          llvm::Value* batch_linear) {
  llvm::IRBuilderBase& b = m.k.b;
  const bool call = hlo->opcode() == HloOpcode::kCustomCall;
  const bool lower =
      call ? FfiAttribute(hlo->backend_config(), "uplo", 'L') == 'L'
           : hlo->attrs().lower;
  const IrArray& out = m.k.outputs[0];
  const HloInstruction* a = hlo->operand(0);
  if (call) {
    if (absl::Status s = m.Copy(a, out, n, n); !s.ok()) return s;
  }
  // A's triangle (read from the copy for the call, which works in place),
  // and L stored transposed for upper.
  auto read_a = [&](llvm::Value* i, llvm::Value* j) {
    llvm::Value* r = lower ? i : j;
    llvm::Value* c = lower ? j : i;
    return call ? m.Read(out, r, c) : m.Read(a, r, c);
  };
  auto read_l = [&](llvm::Value* i, llvm::Value* j) {
    return lower ? m.Read(out, i, j) : m.Read(out, j, i);
  };
  auto write_l = [&](llvm::Value* i, llvm::Value* j, llvm::Value* v) {
    return lower ? m.Write(out, i, j, v) : m.Write(out, j, i, v);
  };
  llvm::AllocaInst* acc = EntryAlloca(b, b.getDoubleTy());
  llvm::AllocaInst* info = EntryAlloca(b, b.getInt64Ty());
  b.CreateStore(b.getInt64(0), info);
  absl::Status s = For(b, b.getInt64(0), n, [&](llvm::Value* j) -> absl::Status {
    absl::StatusOr<llvm::Value*> d = read_a(j, j);
    if (!d.ok()) return d.status();
    b.CreateStore(*d, acc);
    absl::Status st = SubtractProducts(m, acc, j, [&](llvm::Value* kk) {
      absl::StatusOr<llvm::Value*> l = read_l(j, kk);
      if (!l.ok()) return absl::StatusOr<std::pair<llvm::Value*, llvm::Value*>>(l.status());
      return absl::StatusOr<std::pair<llvm::Value*, llvm::Value*>>(
          std::make_pair(*l, *l));
    });
    if (!st.ok()) return st;
    llvm::Value* pivot = b.CreateLoad(b.getDoubleTy(), acc);
    llvm::Value* old = b.CreateLoad(b.getInt64Ty(), info);
    llvm::Value* bad = b.CreateAnd(
        b.CreateICmpEQ(old, b.getInt64(0)),
        b.CreateNot(b.CreateFCmpOGT(pivot, llvm::ConstantFP::get(b.getDoubleTy(), 0))));
    b.CreateStore(b.CreateSelect(bad, b.CreateAdd(j, b.getInt64(1)), old), info);
    llvm::Value* diag = EmitMathCall(b, "sqrt", {pivot});
    if (absl::Status w = write_l(j, j, diag); !w.ok()) return w;
    return For(b, b.CreateAdd(j, b.getInt64(1)), n,
               [&](llvm::Value* i) -> absl::Status {
                 absl::StatusOr<llvm::Value*> v = read_a(i, j);
                 if (!v.ok()) return v.status();
                 b.CreateStore(*v, acc);
                 absl::Status st2 = SubtractProducts(
                     m, acc, j,
                     [&](llvm::Value* kk)
                         -> absl::StatusOr<std::pair<llvm::Value*, llvm::Value*>> {
                       absl::StatusOr<llvm::Value*> x = read_l(i, kk);
                       if (!x.ok()) return x.status();
                       absl::StatusOr<llvm::Value*> y = read_l(j, kk);
                       if (!y.ok()) return y.status();
                       return std::make_pair(*x, *y);
                     });
                 if (!st2.ok()) return st2;
                 return write_l(i, j,
                                b.CreateFDiv(b.CreateLoad(b.getDoubleTy(), acc),
                                             diag));
               });
  });
  if (!s.ok()) return s;
  if (!call) {
    // The opcode's other triangle is zero.
    llvm::Value* zero = llvm::ConstantFP::get(b.getDoubleTy(), 0.0);
    return EmitLoopNestOverBounds(
        b, {n, n}, [&](const Index& ij) -> absl::Status {
          llvm::Value* other = lower ? b.CreateICmpUGT(ij[1], ij[0])
                                     : b.CreateICmpULT(ij[1], ij[0]);
          return EmitIf(m.k, other, [&]() -> absl::Status {
            return m.Write(out, ij[0], ij[1], zero);
          });
        });
  }
  // potrf's info, one per matrix.
  const IrArray& status = m.k.outputs[1];
  const Shape& info_shape = status.shape();
  Index at(info_shape.rank(), nullptr);
  if (info_shape.rank() > 0) {
    at = DelinearizeRowMajor(b, batch_linear, info_shape);
  }
  absl::StatusOr<llvm::Value*> value =
      EmitConvert(b, PrimitiveType::kS64, info_shape.element_type(),
                  b.CreateLoad(b.getInt64Ty(), info));
  if (!value.ok()) return value.status();
  llvm::Value* fits = b.CreateICmpULT(
      batch_linear, b.getInt64(info_shape.ElementCount()));
  return EmitIf(m.k, fits, [&]() -> absl::Status {
    status.EmitWrite(b, at, *value);
    return absl::OkStatus();
  });
}

absl::Status EmitTriangularSolve(Matrices& m, const HloInstruction* hlo) {
  llvm::IRBuilderBase& b = m.k.b;
  const bool call = hlo->opcode() == HloOpcode::kCustomCall;
  const std::string& config = hlo->backend_config();
  const bool left =
      call ? FfiAttribute(config, "side", 'L') == 'L' : hlo->attrs().left_side;
  const bool lower =
      call ? FfiAttribute(config, "uplo", 'L') == 'L' : hlo->attrs().lower;
  const bool unit = call ? FfiAttribute(config, "diag", 'N') == 'U'
                         : hlo->attrs().unit_diagonal;
  const bool transposed =
      call ? FfiAttribute(config, "trans_x", 'N') != 'N'
           : hlo->attrs().transpose_a != TriangularSolveTranspose::kNoTranspose;
  const HloInstruction* a = hlo->operand(0);
  const Shape& bs = hlo->operand(1)->shape();
  const int64_t mdim = a->shape().dimensions(a->shape().rank() - 1);
  const int64_t rows = bs.dimensions(bs.rank() - 2);
  const int64_t cols = bs.dimensions(bs.rank() - 1);
  const IrArray& x = m.k.outputs[0];
  if (absl::Status s = m.Copy(hlo->operand(1), x, rows, cols); !s.ok()) {
    return s;
  }
  // op(A)(i, j), reading only the given triangle.
  auto op = [&](llvm::Value* i, llvm::Value* j) -> absl::StatusOr<llvm::Value*> {
    llvm::Value* r = transposed ? j : i;
    llvm::Value* c = transposed ? i : j;
    absl::StatusOr<llvm::Value*> v = m.Read(a, r, c);
    if (!v.ok()) return v.status();
    llvm::Value* outside = lower ? b.CreateICmpUGT(c, r) : b.CreateICmpULT(c, r);
    llvm::Value* value = b.CreateSelect(
        outside, llvm::ConstantFP::get(b.getDoubleTy(), 0.0), *v);
    if (unit) {
      value = b.CreateSelect(b.CreateICmpEQ(r, c),
                             llvm::ConstantFP::get(b.getDoubleTy(), 1.0), value);
    }
    return value;
  };
  const bool op_lower = lower == !transposed;
  llvm::AllocaInst* acc = EntryAlloca(b, b.getDoubleTy());
  const int64_t outer = left ? cols : rows;
  return For(b, b.getInt64(0), outer, [&](llvm::Value* o) -> absl::Status {
    return For(b, b.getInt64(0), mdim, [&](llvm::Value* step) -> absl::Status {
      llvm::Value* last = b.CreateSub(b.getInt64(mdim - 1), step);
      // The unknown solved at this step.
      llvm::Value* u = left == op_lower ? step : last;
      llvm::Value* xi = left ? u : o;
      llvm::Value* xj = left ? o : u;
      absl::StatusOr<llvm::Value*> v0 = m.Read(x, xi, xj);
      if (!v0.ok()) return v0.status();
      b.CreateStore(*v0, acc);
      absl::Status st = For(b, b.getInt64(0), mdim, [&](llvm::Value* kk) -> absl::Status {
        // Only the unknowns already solved contribute.
        llvm::Value* solved =
            left ? (op_lower ? b.CreateICmpULT(kk, u) : b.CreateICmpUGT(kk, u))
                 : (op_lower ? b.CreateICmpUGT(kk, u) : b.CreateICmpULT(kk, u));
        return EmitIf(m.k, solved, [&]() -> absl::Status {
          absl::StatusOr<llvm::Value*> coef = left ? op(u, kk) : op(kk, u);
          if (!coef.ok()) return coef.status();
          absl::StatusOr<llvm::Value*> xk =
              left ? m.Read(x, kk, o) : m.Read(x, o, kk);
          if (!xk.ok()) return xk.status();
          llvm::Value* d = b.CreateLoad(b.getDoubleTy(), acc);
          b.CreateStore(b.CreateFSub(d, b.CreateFMul(*coef, *xk)), acc);
          return absl::OkStatus();
        });
      });
      if (!st.ok()) return st;
      absl::StatusOr<llvm::Value*> diag = op(u, u);
      if (!diag.ok()) return diag.status();
      return m.Write(x, xi, xj,
                     b.CreateFDiv(b.CreateLoad(b.getDoubleTy(), acc), *diag));
    });
  });
}

}  // namespace

bool IsLinalg(const HloInstruction* hlo) {
  return hlo->opcode() == HloOpcode::kCholesky ||
         hlo->opcode() == HloOpcode::kTriangularSolve ||
         IsCall(hlo, "potrf_ffi") || IsCall(hlo, "trsm_ffi");
}

bool LinalgReadsInPlace(const HloInstruction* hlo, int64_t operand_number) {
  return (IsCall(hlo, "potrf_ffi") && operand_number == 0) ||
         (IsCall(hlo, "trsm_ffi") && operand_number == 1);
}

absl::StatusOr<LaunchDims> EmitLinalgKernel(
    KernelTarget& target, llvm::Module& module, const HloInstruction* hlo,
    const std::string& name, const std::vector<KernelParam>& params) {
  const bool cholesky =
      hlo->opcode() == HloOpcode::kCholesky || IsCall(hlo, "potrf_ffi");
  const Shape& result =
      hlo->shape().IsTuple() ? hlo->shape().tuple_shapes(0) : hlo->shape();
  const size_t operands = cholesky ? 1 : 2;
  if (hlo->operand_count() != static_cast<int64_t>(operands) ||
      !result.IsArray() || result.rank() < 2 ||
      (result.element_type() != PrimitiveType::kF32 &&
       result.element_type() != PrimitiveType::kF64) ||
      (hlo->opcode() == HloOpcode::kCustomCall && cholesky &&
       (!hlo->shape().IsTuple() || hlo->shape().tuple_shapes_size() != 2))) {
    return Unsupported(hlo, "cholesky / triangular-solve of f32 or f64 "
                            "matrices (complex ones are not done on the GPU)");
  }
  const Shape& a = hlo->operand(0)->shape();
  const int64_t n = a.dimensions(a.rank() - 1);
  const int64_t batches = n == 0 ? 0 : a.ElementCount() / (n * n);
  constexpr int64_t kBlock = 32;
  llvm::IRBuilder<> b(module.getContext());
  ElementalEmitter emitter(b, module);
  KernelScope k{target, module, nullptr, b, emitter, {}};
  if (absl::Status s = BeginKernel(k, hlo, name, params, kBlock); !s.ok()) {
    return s;
  }
  llvm::Value* linear = GlobalThreadIndex64(k, kBlock);
  absl::Status s = EmitIf(
      k, b.CreateICmpULT(linear, b.getInt64(batches)), [&]() -> absl::Status {
        Shape batch_shape(PrimitiveType::kS64,
                          std::vector<int64_t>(result.dimensions().begin(),
                                               result.dimensions().end() - 2));
        Matrices m{k, DelinearizeRowMajor(b, linear, batch_shape)};
        return cholesky ? EmitCholesky(m, hlo, n, linear)
                        : EmitTriangularSolve(m, hlo);
      });
  if (!s.ok()) return s;
  return EndKernel(k, (batches + kBlock - 1) / kBlock, kBlock,
                   /*cooperative=*/false);
}

}  // namespace xlite::codegen::gpu
