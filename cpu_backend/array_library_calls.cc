// fft, top-k and rng-bit-generator as runtime library calls over dense
// row-major arrays (LibraryCallArrays copies any other layout through a
// scratch block).

#include "absl/strings/str_cat.h"
#include "codegen/elemental.h"
#include "cpu_backend/library_calls.h"
#include "cpu_backend/runtime_lib/runtime_lib.h"
#include "hlo/ir/opcode.h"

namespace xlite::cpu {

absl::Status EmitFftCall(EmitterContext& ctx, llvm::IRBuilderBase& b,
                         const HloInstruction* hlo) {
  const Shape& in = hlo->operand(0)->shape();
  const Shape& out = hlo->shape();
  const std::vector<int64_t>& lengths = hlo->attrs().fft_length;
  const int64_t fft_rank = lengths.size();
  const PrimitiveType complex_type =
      hlo->attrs().fft_type == FftType::kIrfft ? in.element_type()
                                               : out.element_type();
  if (!out.IsArray() || fft_rank < 1 || fft_rank > 3 ||
      out.rank() < fft_rank ||
      (complex_type != PrimitiveType::kC64 &&
       complex_type != PrimitiveType::kC128)) {
    return codegen::Unsupported(
        hlo, "fft needs 1 to 3 transformed dimensions of c64 or c128");
  }
  LibraryCallArrays arrays(ctx, b);
  absl::StatusOr<llvm::Value*> src = arrays.Input(hlo->operand(0));
  if (!src.ok()) return src.status();
  absl::StatusOr<llvm::Value*> dst = arrays.Output(hlo);
  if (!dst.ok()) return dst.status();
  arrays.Call("xlite_cpu_fft",
              {b.getInt32(static_cast<int32_t>(complex_type)),
               b.getInt32(static_cast<int32_t>(hlo->attrs().fft_type)), *src,
               *dst, b.getInt64(DimensionProduct(out, 0, out.rank() - fft_rank)),
               b.getInt64(fft_rank), EmitInt64Array(b, lengths)});
  return arrays.Finish();
}

absl::Status EmitTopKCall(EmitterContext& ctx, llvm::IRBuilderBase& b,
                          const HloInstruction* hlo) {
  const Shape& in = hlo->operand(0)->shape();
  if (hlo->operand_count() != 1 || !hlo->shape().IsTuple() ||
      hlo->shape().tuple_shapes_size() != 2 || in.rank() < 1) {
    return codegen::Unsupported(
        hlo, "top-k takes one array of rank >= 1 and returns (values, indices)");
  }
  const Shape& values = hlo->shape().tuple_shapes(0);
  const Shape& indices = hlo->shape().tuple_shapes(1);
  const int64_t k = values.dimensions(values.rank() - 1);
  bool largest = hlo->attrs().largest;
  if (hlo->opcode() == HloOpcode::kCustomCall) {
    // The comparator says the order: greater-than for the largest.
    largest = true;
    if (!hlo->called_computations().empty()) {
      const HloInstruction* root =
          hlo->called_computations()[0]->root_instruction();
      if (root->opcode() == HloOpcode::kCompare &&
          (root->attrs().direction == ComparisonDirection::kLt ||
           root->attrs().direction == ComparisonDirection::kLe)) {
        largest = false;
      }
    }
  }
  const int64_t n = in.dimensions(in.rank() - 1);
  LibraryCallArrays arrays(ctx, b);
  absl::StatusOr<llvm::Value*> src = arrays.Input(hlo->operand(0));
  if (!src.ok()) return src.status();
  absl::StatusOr<llvm::Value*> v = arrays.Output(hlo, {0});
  if (!v.ok()) return v.status();
  absl::StatusOr<llvm::Value*> i = arrays.Output(hlo, {1});
  if (!i.ok()) return i.status();
  arrays.Call("xlite_cpu_topk",
              {b.getInt32(static_cast<int32_t>(in.element_type())), *src,
               b.getInt64(DimensionProduct(in, 0, in.rank() - 1)),
               b.getInt64(n), b.getInt64(k), b.getInt32(largest), *v,
               b.getInt32(static_cast<int32_t>(indices.element_type())), *i});
  return arrays.Finish();
}

absl::Status EmitRngBitGeneratorCall(EmitterContext& ctx,
                                     llvm::IRBuilderBase& b,
                                     const HloInstruction* hlo) {
  const Shape& state = hlo->operand(0)->shape();
  if (!hlo->shape().IsTuple() || hlo->shape().tuple_shapes_size() != 2 ||
      state.element_type() != PrimitiveType::kU64 || state.rank() != 1 ||
      state.dimensions(0) < 2) {
    return codegen::Unsupported(
        hlo, "rng-bit-generator needs a u64[>=2] state and returns "
             "(state, bits)");
  }
  const Shape& bits = hlo->shape().tuple_shapes(1);
  const int width = BitWidth(bits.element_type());
  if ((width != 8 && width != 16 && width != 32 && width != 64) ||
      StorageBytes(bits.element_type()) * 8 != width) {
    return codegen::Unsupported(
        hlo, absl::StrCat("rng-bit-generator of ", bits.ToString(false),
                          " (needs 8- to 64-bit elements)"));
  }
  LibraryCallArrays arrays(ctx, b);
  absl::StatusOr<llvm::Value*> in = arrays.Input(hlo->operand(0));
  if (!in.ok()) return in.status();
  absl::StatusOr<llvm::Value*> new_state = arrays.Output(hlo, {0});
  if (!new_state.ok()) return new_state.status();
  absl::StatusOr<llvm::Value*> out = arrays.Output(hlo, {1});
  if (!out.ok()) return out.status();
  arrays.Call(
      "xlite_cpu_rng_bit_generator",
      {b.getInt32(static_cast<int32_t>(hlo->attrs().rng_algorithm)), *in,
       b.getInt64(state.dimensions(0)), *new_state, b.getInt32(width),
       b.getInt64(bits.rank()),
       EmitInt64Array(b, {bits.dimensions().begin(), bits.dimensions().end()}),
       *out});
  return arrays.Finish();
}

}  // namespace xlite::cpu
