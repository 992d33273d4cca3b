// rng-bit-generator, bit-exact with the evaluator (hlo/evaluator/rng.cc):
// Threefry-2x32 (20 rounds) and Philox-4x32 (10 rounds) counter-based
// expansions, one thread per output element (every element is a function
// of the key, the counter and its own row-major number), thread 0 also
// writing the advanced state.
//   - Threefry, 64-bit elements: element i is the 2x32 block of counter+i.
//   - Threefry, 8 to 32 bits: the shape is split in halves along its first
//     even dimension (else its largest); counter h (the row-major number
//     in the half shape) gives one element of each half.
//   - Philox (and the default algorithm): the 128-bit counter is
//     state[1..2] (or state[1], state[0] for a u64[2] state); block i has
//     counter+i; 32 bits or fewer take lane k%4 of block k/4, 64 bits
//     lanes (0,1) or (2,3) of block k/2.

#include <array>

#include "absl/strings/str_cat.h"
#include "codegen/gpu/kernel_common.h"
#include "codegen/gpu/kernels.h"
#include "codegen/scalar_ops.h"

namespace xlite::codegen::gpu {
namespace {

constexpr int64_t kBlock = 256;

using Pair = std::array<llvm::Value*, 2>;
using Quad = std::array<llvm::Value*, 4>;

Pair Split(llvm::IRBuilderBase& b, llvm::Value* v64) {
  return {b.CreateTrunc(v64, b.getInt32Ty()),
          b.CreateTrunc(b.CreateLShr(v64, 32), b.getInt32Ty())};
}

llvm::Value* Join(llvm::IRBuilderBase& b, llvm::Value* lo, llvm::Value* hi) {
  return b.CreateOr(b.CreateZExt(lo, b.getInt64Ty()),
                    b.CreateShl(b.CreateZExt(hi, b.getInt64Ty()), 32));
}

llvm::Value* RotateLeft(llvm::IRBuilderBase& b, llvm::Value* v, int d) {
  return b.CreateOr(b.CreateShl(v, d), b.CreateLShr(v, 32 - d));
}

Pair ThreeFry(llvm::IRBuilderBase& b, Pair x, Pair key) {
  constexpr int kRotations[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  llvm::Value* ks[3] = {
      key[0], key[1],
      b.CreateXor(b.getInt32(0x1BD11BDA), b.CreateXor(key[0], key[1]))};
  x[0] = b.CreateAdd(x[0], ks[0]);
  x[1] = b.CreateAdd(x[1], ks[1]);
  for (int group = 0; group < 5; ++group) {
    const int first = (group % 2) * 4;
    for (int r = first; r < first + 4; ++r) {
      x[0] = b.CreateAdd(x[0], x[1]);
      x[1] = b.CreateXor(RotateLeft(b, x[1], kRotations[r]), x[0]);
    }
    // Key injection `group + 1`.
    x[0] = b.CreateAdd(x[0], ks[(group + 1) % 3]);
    x[1] = b.CreateAdd(x[1], b.CreateAdd(ks[(group + 2) % 3],
                                         b.getInt32(group + 1)));
  }
  return x;
}

Quad Philox(llvm::IRBuilderBase& b, Quad x, Pair key) {
  llvm::Type* i64 = b.getInt64Ty();
  for (int round = 0; round < 10; ++round) {
    llvm::Value* p0 =
        b.CreateMul(b.getInt64(0xD2511F53), b.CreateZExt(x[0], i64));
    llvm::Value* p1 =
        b.CreateMul(b.getInt64(0xCD9E8D57), b.CreateZExt(x[2], i64));
    const Pair h0 = Split(b, p0), h1 = Split(b, p1);
    x = {b.CreateXor(b.CreateXor(h1[1], x[1]), key[0]), h1[0],
         b.CreateXor(b.CreateXor(h0[1], x[3]), key[1]), h0[0]};
    key[0] = b.CreateAdd(key[0], b.getInt32(0x9E3779B9));
    key[1] = b.CreateAdd(key[1], b.getInt32(0xBB67AE85));
  }
  return x;
}

// v[i] for a dynamic i (i64) in [0, N).
template <size_t N>
llvm::Value* Pick(llvm::IRBuilderBase& b, const std::array<llvm::Value*, N>& v,
                  llvm::Value* i) {
  llvm::Value* out = v[0];
  for (size_t k = 1; k < N; ++k) {
    out = b.CreateSelect(b.CreateICmpEQ(i, b.getInt64(k)), v[k], out);
  }
  return out;
}

// Threefry's split dimension for elements of 32 bits or fewer.
int64_t SplitDimension(const Shape& s) {
  for (int64_t d = 0; d < s.rank(); ++d) {
    if (s.dimensions(d) % 2 == 0) return d;
  }
  int64_t split = 0;
  for (int64_t d = 1; d < s.rank(); ++d) {
    if (s.dimensions(d) > s.dimensions(split)) split = d;
  }
  return split;
}

struct Plan {
  RandomAlgorithm algorithm;
  int width;
  int64_t advance = 0;  // counters (or 128-bit blocks) consumed
  bool long_state = false;
};

// The bits (i64, low `width` significant) of element `index` (row-major
// number `k`).
llvm::Value* ElementBits(llvm::IRBuilderBase& b, const Plan& plan,
                         const Shape& shape, llvm::Value* key,
                         llvm::Value* counter, llvm::Value* high,
                         const Index& index, llvm::Value* k) {
  if (plan.algorithm == RandomAlgorithm::kThreeFry) {
    if (plan.width == 64) {
      Pair out = ThreeFry(b, Split(b, b.CreateAdd(counter, k)), Split(b, key));
      return Join(b, out[0], out[1]);
    }
    if (shape.rank() == 0) {
      return b.CreateZExt(ThreeFry(b, Split(b, counter), Split(b, key))[0],
                          b.getInt64Ty());
    }
    const int64_t split = SplitDimension(shape);
    llvm::Value* h = b.getInt64(0);
    for (int64_t d = 0; d < shape.rank(); ++d) {
      int64_t size = shape.dimensions(d);
      llvm::Value* at = index[d];
      if (d == split) {
        size = (size + 1) / 2;
        at = b.CreateLShr(at, 1);
      }
      h = b.CreateAdd(b.CreateMul(h, b.getInt64(size)), at);
    }
    Pair out = ThreeFry(b, Split(b, b.CreateAdd(counter, h)), Split(b, key));
    llvm::Value* odd = b.CreateTrunc(index[split], b.getInt1Ty());
    return b.CreateZExt(b.CreateSelect(odd, out[1], out[0]), b.getInt64Ty());
  }
  llvm::Value* block =
      b.CreateLShr(k, plan.width == 64 ? 1 : 2);
  llvm::Value* low = b.CreateAdd(counter, block);
  llvm::Value* carry = b.CreateZExt(b.CreateICmpULT(low, counter),
                                    b.getInt64Ty());
  const Pair l = Split(b, low), hi = Split(b, b.CreateAdd(high, carry));
  const Quad out = Philox(b, {l[0], l[1], hi[0], hi[1]}, Split(b, key));
  if (plan.width == 64) {
    llvm::Value* upper = b.CreateTrunc(k, b.getInt1Ty());
    return b.CreateSelect(upper, Join(b, out[2], out[3]),
                          Join(b, out[0], out[1]));
  }
  return b.CreateZExt(Pick(b, out, b.CreateAnd(k, b.getInt64(3))),
                      b.getInt64Ty());
}

// Thread 0: the state, advanced.
void EmitNewState(KernelScope& k, const Plan& plan, const IrArray& in,
                  const IrArray& out, llvm::Value* counter,
                  llvm::Value* high) {
  llvm::IRBuilderBase& b = k.b;
  const int64_t size = in.shape().dimensions(0);
  llvm::Value* new_low = b.CreateAdd(counter, b.getInt64(plan.advance));
  for (int64_t i = 0; i < size; ++i) {
    llvm::Value* v = in.EmitRead(b, {b.getInt64(i)});
    if (i == 1) v = new_low;
    if (i == 2 && plan.algorithm == RandomAlgorithm::kPhilox) {
      v = b.CreateAdd(high, b.CreateZExt(b.CreateICmpULT(new_low, counter),
                                         b.getInt64Ty()));
    }
    out.EmitWrite(b, {b.getInt64(i)}, v);
  }
}

}  // namespace

absl::StatusOr<LaunchDims> EmitRngBitGeneratorKernel(
    KernelTarget& target, llvm::Module& module, const HloInstruction* hlo,
    const std::string& name, const std::vector<KernelParam>& params) {
  const Shape& state = hlo->operand(0)->shape();
  if (!hlo->shape().IsTuple() || hlo->shape().tuple_shapes_size() != 2 ||
      state.element_type() != PrimitiveType::kU64 || state.rank() != 1 ||
      state.dimensions(0) < 2) {
    return Unsupported(hlo, "rng-bit-generator needs a u64[>=2] state and "
                            "returns (state, bits)");
  }
  const Shape& shape = hlo->shape().tuple_shapes(1);
  const PrimitiveType type = shape.element_type();
  Plan plan{hlo->attrs().rng_algorithm, BitWidth(type)};
  if ((plan.width != 8 && plan.width != 16 && plan.width != 32 &&
       plan.width != 64) ||
      StorageBytes(type) * 8 != plan.width || IsComplex(type)) {
    return Unsupported(hlo, absl::StrCat("rng-bit-generator of ",
                                         shape.ToString(false),
                                         " (needs 8- to 64-bit elements)"));
  }
  if (plan.algorithm == RandomAlgorithm::kDefault) {
    plan.algorithm = RandomAlgorithm::kPhilox;
  }
  const int64_t n = shape.ElementCount();
  plan.long_state = state.dimensions(0) >= 3;
  if (plan.algorithm == RandomAlgorithm::kThreeFry) {
    int64_t half = 1;
    if (plan.width == 64) {
      half = n;
    } else if (shape.rank() > 0) {
      const int64_t split = SplitDimension(shape);
      for (int64_t d = 0; d < shape.rank(); ++d) {
        half *= d == split ? (shape.dimensions(d) + 1) / 2 : shape.dimensions(d);
      }
    }
    plan.advance = half;
  } else {
    plan.advance = plan.width == 64 ? (2 * n + 3) / 4 : (n + 3) / 4;
  }
  llvm::IRBuilder<> b(module.getContext());
  ElementalEmitter emitter(b, module);
  KernelScope k{target, module, nullptr, b, emitter, {}};
  if (absl::Status s = BeginKernel(k, hlo, name, params, kBlock); !s.ok()) {
    return s;
  }
  IrArray in(k.function->getArg(0), state);
  llvm::Value* key = in.EmitRead(b, {b.getInt64(0)});
  llvm::Value* counter = in.EmitRead(b, {b.getInt64(1)});
  llvm::Value* high = in.EmitRead(b, {b.getInt64(plan.long_state ? 2 : 0)});
  llvm::Value* linear = GlobalThreadIndex64(k, kBlock);
  absl::Status s =
      EmitIf(k, b.CreateICmpEQ(linear, b.getInt64(0)), [&]() -> absl::Status {
        EmitNewState(k, plan, in, k.outputs[0], counter, high);
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  s = EmitIf(k, b.CreateICmpULT(linear, b.getInt64(n)), [&]() -> absl::Status {
    const Index index = DelinearizeRowMajor(b, linear, shape);
    llvm::Value* bits =
        ElementBits(b, plan, shape, key, counter, high, index, linear);
    bits = b.CreateTrunc(bits, b.getIntNTy(plan.width));
    llvm::Type* value_type = ValueType(type, b.getContext());
    if (value_type->isFloatingPointTy()) {
      bits = b.CreateBitCast(bits, value_type);
    } else if (value_type != bits->getType()) {
      return Unsupported(hlo, "rng-bit-generator of this element type");
    }
    k.outputs[1].EmitWrite(b, index, bits);
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return EndKernel(k, (std::max<int64_t>(n, 1) + kBlock - 1) / kBlock, kBlock,
                   /*cooperative=*/false);
}

}  // namespace xlite::codegen::gpu
