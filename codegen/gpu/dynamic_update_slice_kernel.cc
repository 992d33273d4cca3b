// dynamic-update-slice in place: a DUS, or a fusion whose root is a DUS or
// a tuple of DUSes each updating a fusion parameter used by nothing else,
// when a result shares a buffer with its operand (the kernel parameters
// overlap; otherwise the loop kernel computes it in one launch), as two
// launches:
//   1. "<name>_init": every result leaf = its DUS's operand, one thread per
//      element; a pure copy of kernel arguments, which the backend skips
//      when buffer assignment gave the result the operand's buffer (the
//      in-place case: then only the update window is touched);
//   2. "<name>": one thread per update element u (of the largest update;
//      the others guarded by their own counts) writes the update at
//      start + u, the start indices clamped into [0, dim - update dim] as
//      XLA clamps them.
// Launch 2 reads no element of the operand, so sharing its buffer with the
// result is safe.

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "codegen/gpu/kernel_common.h"
#include "codegen/gpu/kernels.h"
#include "hlo/ir/computation.h"
#include "hlo/ir/opcode.h"

namespace xlite::codegen::gpu {
namespace {

constexpr int64_t kBlock = 256;

// The DUSes of `hlo`'s root, one per result leaf; empty when the root is
// not a DUS or a tuple of them each updating an operand the kernel may
// overwrite (a parameter read only as that DUS's operand).
std::vector<const HloInstruction*> InPlaceDuses(const HloInstruction* hlo) {
  const HloInstruction* root = ComputedRoot(hlo);
  if (hlo->opcode() != HloOpcode::kFusion) {
    if (hlo->opcode() != HloOpcode::kDynamicUpdateSlice ||
        hlo->shape().rank() == 0) {
      return {};
    }
    for (int64_t i = 1; i < hlo->operand_count(); ++i) {
      if (hlo->operand(i) == hlo->operand(0)) return {};
    }
    return {hlo};
  }
  std::vector<const HloInstruction*> duses;
  if (root->opcode() == HloOpcode::kTuple) {
    for (const HloInstruction* o : root->operands()) duses.push_back(o);
  } else {
    duses.push_back(root);
  }
  for (const HloInstruction* d : duses) {
    if (d->opcode() != HloOpcode::kDynamicUpdateSlice ||
        d->shape().rank() == 0 || !d->shape().IsArray()) {
      return {};
    }
    const HloInstruction* operand = d->operand(0);
    if (operand->opcode() != HloOpcode::kParameter ||
        operand->users().size() != 1 ||
        !(operand->shape() == d->shape())) {
      return {};
    }
    for (int64_t i = 1; i < d->operand_count(); ++i) {
      if (d->operand(i) == operand) return {};
    }
  }
  return duses;
}

// One thread per element of the largest of `shapes`; `body(i, index)` for
// leaf i at its own `index` where it has that element.
absl::StatusOr<LaunchDims> EmitPerElement(
    KernelTarget& target, llvm::Module& module, const HloInstruction* hlo,
    const std::string& name, const std::vector<KernelParam>& params,
    const std::vector<Shape>& shapes,
    const std::function<absl::Status(KernelScope&, size_t, const Index&)>&
        body) {
  int64_t elements = 0;
  for (const Shape& s : shapes) {
    elements = std::max(elements, s.ElementCount());
  }
  llvm::IRBuilder<> b(module.getContext());
  ElementalEmitter emitter(b, module);
  KernelScope k{target, module, nullptr, b, emitter, {}};
  if (absl::Status s = BeginKernel(k, hlo, name, params, kBlock); !s.ok()) {
    return s;
  }
  llvm::Value* linear = GlobalThreadIndex64(k, kBlock);
  for (size_t i = 0; i < shapes.size(); ++i) {
    const Shape& shape = shapes[i];
    absl::Status s = EmitIf(
        k, b.CreateICmpULT(linear, b.getInt64(shape.ElementCount())),
        [&]() -> absl::Status {
          Index index(shape.rank(), nullptr);
          DelinearizeInto(b, linear, shape, MajorToMinor(shape), index);
          return body(k, i, index);
        });
    if (!s.ok()) return s;
  }
  return EndKernel(k, (elements + kBlock - 1) / kBlock, kBlock,
                   /*cooperative=*/false);
}

// Launch 2: result[start + u] = update[u] for each DUS.
absl::Status WriteWindow(KernelScope& k, const HloInstruction* dus,
                         size_t leaf, const Index& u) {
  llvm::IRBuilderBase& b = k.b;
  const Shape& shape = dus->shape();
  const Shape& update = dus->operand(1)->shape();
  Index at(shape.rank(), nullptr);
  for (int64_t d = 0; d < shape.rank(); ++d) {
    const HloInstruction* start = dus->operand(2 + d);
    absl::StatusOr<llvm::Value*> v = k.emitter.ValueAt(start, -1, {});
    if (!v.ok()) return v.status();
    llvm::Value* clamped =
        ClampIndex(b, IndexToInt64(b, start->shape().element_type(), *v), 0,
                   shape.dimensions(d) - update.dimensions(d));
    at[d] = b.CreateAdd(clamped, u[d]);
  }
  absl::StatusOr<llvm::Value*> value = k.emitter.ValueAt(dus->operand(1), -1, u);
  if (!value.ok()) return value.status();
  k.outputs[leaf].EmitWrite(b, at, *value);
  return absl::OkStatus();
}

}  // namespace

bool IsInPlaceDynamicUpdateSlice(const HloInstruction* hlo) {
  return !InPlaceDuses(hlo).empty();
}

bool InPlaceDusReadsInPlace(const HloInstruction* hlo,
                            int64_t operand_number) {
  for (const HloInstruction* d : InPlaceDuses(hlo)) {
    const HloInstruction* operand = d->operand(0);
    if (hlo->opcode() != HloOpcode::kFusion) return operand_number == 0;
    if (operand->parameter_number() == operand_number) return true;
  }
  return false;
}

absl::StatusOr<std::vector<KernelLaunch>> EmitInPlaceDusKernels(
    KernelTarget& target, llvm::Module& module, const HloInstruction* hlo,
    const std::string& name, const std::vector<KernelParam>& params) {
  const std::vector<const HloInstruction*> duses = InPlaceDuses(hlo);
  if (duses.empty()) {
    return Unsupported(hlo, "a dynamic-update-slice not in place");
  }
  const std::vector<KernelArgument> args = KernelArguments(hlo);
  const bool tuple = hlo->shape().IsTuple();
  KernelLaunch init;
  init.name = absl::StrCat(name, "_init");
  std::vector<Shape> results, updates;
  for (size_t i = 0; i < duses.size(); ++i) {
    const HloInstruction* operand = duses[i]->operand(0);
    const int64_t from = KernelArgumentIndex(
        args, false,
        hlo->opcode() == HloOpcode::kFusion ? operand->parameter_number() : 0,
        -1);
    const int64_t to = KernelArgumentIndex(args, true, 0, tuple ? i : -1);
    if (from < 0 || to < 0) return Unsupported(hlo, "its DUS arguments");
    init.copies.push_back({from, to});
    results.push_back(duses[i]->shape());
    updates.push_back(duses[i]->operand(1)->shape());
  }
  // As XLA, only a result sharing its operand's buffer takes the window
  // kernel; apart, one loop kernel writes operand and update at once.
  if (std::none_of(init.copies.begin(), init.copies.end(),
                   [&](const std::pair<int64_t, int64_t>& c) {
                     return !params[c.second].noalias;
                   })) {
    absl::StatusOr<LaunchDims> loop =
        EmitLoopKernel(target, module, hlo, name, params);
    if (!loop.ok()) return loop.status();
    return std::vector<KernelLaunch>{{name, *loop, {}}};
  }
  absl::StatusOr<LaunchDims> dims = EmitPerElement(
      target, module, hlo, init.name, params, results,
      [&](KernelScope& k, size_t i, const Index& index) -> absl::Status {
        absl::StatusOr<llvm::Value*> v =
            k.emitter.ValueAt(duses[i]->operand(0), -1, index);
        if (!v.ok()) return v.status();
        k.outputs[i].EmitWrite(k.b, index, *v);
        return absl::OkStatus();
      });
  if (!dims.ok()) return dims.status();
  init.dims = *dims;
  KernelLaunch window;
  window.name = name;
  dims = EmitPerElement(
      target, module, hlo, name, params, updates,
      [&](KernelScope& k, size_t i, const Index& u) {
        return WriteWindow(k, duses[i], i, u);
      });
  if (!dims.ok()) return dims.status();
  window.dims = *dims;
  return std::vector<KernelLaunch>{init, window};
}

}  // namespace xlite::codegen::gpu
