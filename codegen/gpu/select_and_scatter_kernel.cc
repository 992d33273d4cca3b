// select-and-scatter as two launches, as the evaluator defines it: the
// result starts as the init value ("<name>_init", one thread per element);
// then for each source element the window it covers is walked in
// row-major window order, padding skipped, keeping the current selection
// unless `select(current, candidate)` is false (the first element wins
// ties), and the source is combined into the selected result element by
// `scatter(result, source)`. The selections are independent (one thread
// per source element); the combining is atomic when `scatter` is a plain
// add / maximum / minimum of an atomic type, else the source elements are
// walked in row-major order by one thread.

#include <optional>

#include "absl/strings/str_cat.h"
#include "codegen/gpu/kernel_common.h"
#include "codegen/gpu/kernels.h"
#include "codegen/loops.h"
#include "codegen/scalar_ops.h"
#include "codegen/window_position.h"
#include "hlo/ir/computation.h"

namespace xlite::codegen::gpu {
namespace {

constexpr int64_t kBlock = 256;

// The selection so far for one source element, in stack slots.
struct Selection {
  llvm::Value* have;                // i1
  llvm::Value* value;               // the selected element
  std::vector<llvm::Value*> index;  // i64 per operand dimension
};

// Considers window element `w` of source element `s` (straight-line: select
// is pure, so it is evaluated even before there is a selection, and
// ignored then).
absl::Status EmitCandidate(KernelScope& k, const HloInstruction* hlo,
                           const Window& window, const Selection& sel,
                           const Index& s, const Index& w) {
  llvm::IRBuilderBase& b = k.b;
  const HloInstruction* operand = hlo->operand(0);
  llvm::Type* value_type =
      ValueType(operand->shape().element_type(), b.getContext());
  auto [at, inside] = WindowPosition(b, window, operand->shape(), s, w);
  return EmitIf(k, inside, [&]() -> absl::Status {
    absl::StatusOr<llvm::Value*> candidate = k.emitter.ValueAt(operand, -1, at);
    if (!candidate.ok()) return candidate.status();
    llvm::Value* have = b.CreateLoad(b.getInt1Ty(), sel.have);
    llvm::Value* current = b.CreateLoad(value_type, sel.value);
    absl::StatusOr<std::vector<llvm::Value*>> keep = k.emitter.EmitApplied(
        *hlo->called_computations()[0], {current, *candidate});
    if (!keep.ok()) return keep.status();
    llvm::Value* take = b.CreateOr(b.CreateNot(have), b.CreateNot((*keep)[0]));
    b.CreateStore(b.getTrue(), sel.have);
    b.CreateStore(b.CreateSelect(take, *candidate, current), sel.value);
    for (size_t d = 0; d < at.size(); ++d) {
      llvm::Value* old = b.CreateLoad(b.getInt64Ty(), sel.index[d]);
      b.CreateStore(b.CreateSelect(take, at[d], old), sel.index[d]);
    }
    return absl::OkStatus();
  });
}

// Selects for source element `s` and combines it into the result.
absl::Status EmitSourceElement(KernelScope& k, const HloInstruction* hlo,
                               const Window& window, const Selection& sel,
                               const Index& s, std::optional<AtomicOp> atomic) {
  llvm::IRBuilderBase& b = k.b;
  b.CreateStore(b.getFalse(), sel.have);
  std::vector<int64_t> sizes;
  for (const WindowDimension& wd : window.dimensions) sizes.push_back(wd.size);
  absl::Status st =
      EmitLoopNestOverBounds(b, sizes, [&](const Index& w) -> absl::Status {
        ElementalEmitter::Scope scope(k.emitter);
        return EmitCandidate(k, hlo, window, sel, s, w);
      });
  if (!st.ok()) return st;
  return EmitIf(k, b.CreateLoad(b.getInt1Ty(), sel.have),
                [&]() -> absl::Status {
                  Index at;
                  for (llvm::Value* slot : sel.index) {
                    at.push_back(b.CreateLoad(b.getInt64Ty(), slot));
                  }
                  absl::StatusOr<llvm::Value*> source =
                      k.emitter.ValueAt(hlo->operand(1), -1, s);
                  if (!source.ok()) return source.status();
                  const PrimitiveType type = hlo->shape().element_type();
                  if (atomic.has_value()) {
                    return k.target
                        .AtomicRmw(b, *atomic,
                                   type == PrimitiveType::kS32 ||
                                       type == PrimitiveType::kS64,
                                   k.outputs[0].EmitAddress(b, at), *source)
                        .status();
                  }
                  absl::StatusOr<std::vector<llvm::Value*>> combined =
                      k.emitter.EmitApplied(
                          *hlo->called_computations()[1],
                          {k.outputs[0].EmitRead(b, at), *source});
                  if (!combined.ok()) return combined.status();
                  k.outputs[0].EmitWrite(b, at, (*combined)[0]);
                  return absl::OkStatus();
                });
}

absl::StatusOr<LaunchDims> EmitInitValue(
    KernelTarget& target, llvm::Module& module, const HloInstruction* hlo,
    const std::string& name, const std::vector<KernelParam>& params) {
  const int64_t elements = hlo->shape().ElementCount();
  llvm::IRBuilder<> b(module.getContext());
  ElementalEmitter emitter(b, module);
  KernelScope k{target, module, nullptr, b, emitter, {}};
  if (absl::Status s = BeginKernel(k, hlo, name, params, kBlock); !s.ok()) {
    return s;
  }
  llvm::Value* linear = GlobalThreadIndex64(k, kBlock);
  absl::Status s = EmitIf(
      k, b.CreateICmpULT(linear, b.getInt64(elements)), [&]() -> absl::Status {
        const Shape& shape = hlo->shape();
        Index index(shape.rank(), nullptr);
        DelinearizeInto(b, linear, shape, MajorToMinor(shape), index);
        absl::StatusOr<llvm::Value*> v =
            emitter.ValueAt(hlo->operand(2), -1, Index{});
        if (!v.ok()) return v.status();
        k.outputs[0].EmitWrite(b, index, *v);
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  return EndKernel(k, (elements + kBlock - 1) / kBlock, kBlock,
                   /*cooperative=*/false);
}

absl::StatusOr<LaunchDims> EmitSelections(
    KernelTarget& target, llvm::Module& module, const HloInstruction* hlo,
    const std::string& name, const std::vector<KernelParam>& params) {
  const Shape& source = hlo->operand(1)->shape();
  const int64_t rank = hlo->operand(0)->shape().rank();
  Window window;
  if (hlo->attrs().window.has_value()) window = *hlo->attrs().window;
  window.dimensions.resize(rank);
  const std::optional<AtomicOp> atomic =
      AtomicCombinerOf(*hlo->called_computations()[1], hlo->shape());
  const int64_t block = atomic.has_value() ? kBlock : 1;
  llvm::IRBuilder<> b(module.getContext());
  ElementalEmitter emitter(b, module);
  KernelScope k{target, module, nullptr, b, emitter, {}};
  if (absl::Status s = BeginKernel(k, hlo, name, params, block); !s.ok()) {
    return s;
  }
  Selection sel{EntryAlloca(b, b.getInt1Ty()),
                EntryAlloca(b, ValueType(hlo->operand(0)->shape().element_type(),
                                         b.getContext())),
                {}};
  for (int64_t d = 0; d < rank; ++d) {
    sel.index.push_back(EntryAlloca(b, b.getInt64Ty()));
  }
  std::vector<int64_t> bounds(source.dimensions().begin(),
                              source.dimensions().end());
  if (!atomic.has_value()) {
    absl::Status s =
        EmitLoopNestOverBounds(b, bounds, [&](const Index& si) -> absl::Status {
          ElementalEmitter::Scope scope(emitter);
          return EmitSourceElement(k, hlo, window, sel, si, std::nullopt);
        });
    if (!s.ok()) return s;
    return EndKernel(k, 1, 1, /*cooperative=*/false);
  }
  const int64_t elements = source.ElementCount();
  llvm::Value* linear = GlobalThreadIndex64(k, kBlock);
  absl::Status s = EmitIf(
      k, b.CreateICmpULT(linear, b.getInt64(elements)), [&]() -> absl::Status {
        Index si = DelinearizeRowMajor(b, linear, source);
        return EmitSourceElement(k, hlo, window, sel, si, atomic);
      });
  if (!s.ok()) return s;
  return EndKernel(k, (elements + kBlock - 1) / kBlock, kBlock,
                   /*cooperative=*/false);
}

}  // namespace

absl::StatusOr<std::vector<KernelLaunch>> EmitSelectAndScatterKernels(
    KernelTarget& target, llvm::Module& module, const HloInstruction* hlo,
    const std::string& name, const std::vector<KernelParam>& params) {
  if (hlo->operand_count() != 3 || hlo->called_computations().size() != 2 ||
      !hlo->shape().IsArray()) {
    return Unsupported(hlo, "select-and-scatter takes (operand, source, "
                            "init) and two computations");
  }
  KernelLaunch init{absl::StrCat(name, "_init"), {}, {}};
  absl::StatusOr<LaunchDims> dims =
      EmitInitValue(target, module, hlo, init.name, params);
  if (!dims.ok()) return dims.status();
  init.dims = *dims;
  KernelLaunch select{name, {}, {}};
  dims = EmitSelections(target, module, hlo, name, params);
  if (!dims.ok()) return dims.status();
  select.dims = *dims;
  return std::vector<KernelLaunch>{init, select};
}

}  // namespace xlite::codegen::gpu
