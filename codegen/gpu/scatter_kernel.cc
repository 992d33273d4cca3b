// scatter (plain, or as the root of a fusion) as two launches:
//   1. "<name>_init": result = operand, one thread per element (a pure
//      copy when every scattered operand is a kernel argument, which the
//      backend skips when buffer assignment put the result in place);
//   2. "<name>": the updates, combined into the result:
//      - atomically, one thread per update element, when the combiner is a
//        plain add / maximum / minimum of one array of a type the target
//        has atomics for (the order of colliding float adds may differ);
//      - in parallel without atomics when the scatter promises
//        unique_indices;
//      - otherwise serially in row-major update order by one thread, which
//        is right for any combiner and any colliding indices.
// An update window that does not fit in the operand is skipped, as XLA
// does.

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "codegen/gpu/kernel_common.h"
#include "codegen/gpu/kernels.h"
#include "codegen/loops.h"
#include "hlo/ir/computation.h"
#include "hlo/ir/opcode.h"

namespace xlite::codegen::gpu {
namespace {

constexpr int64_t kBlock = 256;

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// Where update element `u` goes in the operand, and whether its window
// fits there.
struct UpdateTarget {
  Index index;
  llvm::Value* fits = nullptr;
};

absl::StatusOr<UpdateTarget> TargetOf(llvm::IRBuilderBase& b,
                                      ElementalEmitter& emitter,
                                      const HloInstruction* scatter,
                                      const Index& u) {
  const int64_t n = (scatter->operand_count() - 1) / 2;
  const ScatterDimensionNumbers& s = scatter->attrs().gather_scatter->scatter;
  const HloInstruction* indices = scatter->operand(n);
  const Shape& operand = scatter->operand(0)->shape();
  const Shape& updates = scatter->operand(n + 1)->shape();
  const int64_t index_rank = indices->shape().rank();
  Index batch, window;
  for (int64_t d = 0; d < updates.rank(); ++d) {
    (Contains(s.update_window_dims, d) ? window : batch).push_back(u[d]);
  }
  std::vector<int64_t> index_batch_dims;
  for (int64_t d = 0; d < index_rank; ++d) {
    if (d != s.index_vector_dim) index_batch_dims.push_back(d);
  }
  Index start(operand.rank(), b.getInt64(0));
  for (size_t k = 0; k < s.scatter_dims_to_operand_dims.size(); ++k) {
    Index at;
    size_t next = 0;
    for (int64_t d = 0; d < index_rank; ++d) {
      at.push_back(d == s.index_vector_dim ? b.getInt64(k) : batch[next++]);
    }
    absl::StatusOr<llvm::Value*> v = emitter.ValueAt(indices, -1, at);
    if (!v.ok()) return v.status();
    start[s.scatter_dims_to_operand_dims[k]] =
        IndexToInt64(b, indices->shape().element_type(), *v);
  }
  for (size_t k = 0; k < s.input_batching_dims.size(); ++k) {
    const auto it = std::find(index_batch_dims.begin(), index_batch_dims.end(),
                              s.scatter_indices_batching_dims[k]);
    start[s.input_batching_dims[k]] = batch[it - index_batch_dims.begin()];
  }
  UpdateTarget target{Index(operand.rank(), nullptr), b.getTrue()};
  size_t w = 0;
  for (int64_t d = 0; d < operand.rank(); ++d) {
    int64_t extent = 1;
    llvm::Value* offset = b.getInt64(0);
    if (!Contains(s.inserted_window_dims, d) &&
        !Contains(s.input_batching_dims, d)) {
      extent = updates.dimensions(s.update_window_dims[w]);
      offset = window[w++];
    }
    target.fits = b.CreateAnd(
        target.fits,
        b.CreateAnd(b.CreateICmpSGE(start[d], b.getInt64(0)),
                    b.CreateICmpSLE(start[d], b.getInt64(operand.dimensions(d) -
                                                         extent))));
    target.index[d] = b.CreateAdd(start[d], offset);
  }
  return target;
}

// Combines update element `u` into the results (if its window fits),
// atomically when `atomic` is set.
absl::Status EmitUpdate(KernelScope& k, const HloInstruction* scatter,
                        const Index& u, std::optional<AtomicOp> atomic) {
  const int64_t n = (scatter->operand_count() - 1) / 2;
  llvm::IRBuilderBase& b = k.b;
  absl::StatusOr<UpdateTarget> target = TargetOf(b, k.emitter, scatter, u);
  if (!target.ok()) return target.status();
  return EmitIf(k, target->fits, [&]() -> absl::Status {
    std::vector<llvm::Value*> updates;
    for (int64_t i = 0; i < n; ++i) {
      absl::StatusOr<llvm::Value*> v =
          k.emitter.ValueAt(scatter->operand(n + 1 + i), -1, u);
      if (!v.ok()) return v.status();
      updates.push_back(*v);
    }
    if (atomic.has_value()) {
      const PrimitiveType type = scatter->shape().element_type();
      const bool is_signed =
          type == PrimitiveType::kS32 || type == PrimitiveType::kS64;
      absl::StatusOr<llvm::Value*> old = k.target.AtomicRmw(
          b, *atomic, is_signed, k.outputs[0].EmitAddress(b, target->index),
          updates[0]);
      return old.status();
    }
    std::vector<llvm::Value*> args;
    for (int64_t i = 0; i < n; ++i) {
      args.push_back(k.outputs[i].EmitRead(b, target->index));
    }
    args.insert(args.end(), updates.begin(), updates.end());
    absl::StatusOr<std::vector<llvm::Value*>> combined =
        k.emitter.EmitApplied(*scatter->to_apply(), args);
    if (!combined.ok()) return combined.status();
    for (int64_t i = 0; i < n; ++i) {
      k.outputs[i].EmitWrite(b, target->index, (*combined)[i]);
    }
    return absl::OkStatus();
  });
}

// Launch 1: every result leaf i = scattered operand i.
absl::StatusOr<LaunchDims> EmitInit(KernelTarget& target, llvm::Module& module,
                                    const HloInstruction* hlo,
                                    const HloInstruction* scatter,
                                    const std::string& name,
                                    const std::vector<KernelParam>& params) {
  const int64_t n = (scatter->operand_count() - 1) / 2;
  const Shape& shape = scatter->operand(0)->shape();
  const int64_t elements = shape.ElementCount();
  llvm::IRBuilder<> b(module.getContext());
  ElementalEmitter emitter(b, module);
  KernelScope k{target, module, nullptr, b, emitter, {}};
  if (absl::Status s = BeginKernel(k, hlo, name, params, kBlock); !s.ok()) {
    return s;
  }
  llvm::Value* linear = GlobalThreadIndex64(k, kBlock);
  absl::Status s = EmitIf(
      k, b.CreateICmpULT(linear, b.getInt64(elements)), [&]() -> absl::Status {
        for (int64_t i = 0; i < n; ++i) {
          const Shape& leaf = k.outputs[i].shape();
          Index index(leaf.rank(), nullptr);
          DelinearizeInto(b, linear, leaf, MajorToMinor(leaf), index);
          absl::StatusOr<llvm::Value*> v =
              emitter.ValueAt(scatter->operand(i), -1, index);
          if (!v.ok()) return v.status();
          k.outputs[i].EmitWrite(b, index, *v);
        }
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  return EndKernel(k, (elements + kBlock - 1) / kBlock, kBlock,
                   /*cooperative=*/false);
}

// Launch 2: the updates.
absl::StatusOr<LaunchDims> EmitUpdates(KernelTarget& target,
                                       llvm::Module& module,
                                       const HloInstruction* hlo,
                                       const HloInstruction* scatter,
                                       const std::string& name,
                                       const std::vector<KernelParam>& params) {
  const int64_t n = (scatter->operand_count() - 1) / 2;
  const Shape& updates = scatter->operand(n + 1)->shape();
  const int64_t elements = updates.ElementCount();
  const std::optional<AtomicOp> atomic =
      scatter->operand_count() == 3
          ? AtomicCombinerOf(*scatter->to_apply(), scatter->shape())
          : std::nullopt;
  const bool parallel =
      atomic.has_value() || scatter->attrs().gather_scatter->unique_indices;
  const int64_t block = parallel ? kBlock : 1;
  llvm::IRBuilder<> b(module.getContext());
  ElementalEmitter emitter(b, module);
  KernelScope k{target, module, nullptr, b, emitter, {}};
  if (absl::Status s = BeginKernel(k, hlo, name, params, block); !s.ok()) {
    return s;
  }
  if (!parallel) {
    std::vector<int64_t> bounds(updates.dimensions().begin(),
                                updates.dimensions().end());
    absl::Status s = EmitLoopNestOverBounds(
        b, bounds, [&](const Index& u) -> absl::Status {
          ElementalEmitter::Scope scope(emitter);
          return EmitUpdate(k, scatter, u, std::nullopt);
        });
    if (!s.ok()) return s;
    return EndKernel(k, 1, 1, /*cooperative=*/false);
  }
  llvm::Value* linear = GlobalThreadIndex64(k, kBlock);
  absl::Status s = EmitIf(
      k, b.CreateICmpULT(linear, b.getInt64(elements)), [&]() -> absl::Status {
        Index u = DelinearizeRowMajor(b, linear, updates);
        return EmitUpdate(k, scatter, u, atomic);
      });
  if (!s.ok()) return s;
  return EndKernel(k, (elements + kBlock - 1) / kBlock, kBlock,
                   /*cooperative=*/false);
}

}  // namespace

absl::StatusOr<std::vector<KernelLaunch>> EmitScatterKernels(
    KernelTarget& target, llvm::Module& module, const HloInstruction* hlo,
    const std::string& name, const std::vector<KernelParam>& params) {
  const HloInstruction* scatter = ComputedRoot(hlo);
  if (scatter->opcode() != HloOpcode::kScatter) {
    return Unsupported(hlo, "a fusion whose root is not the scatter");
  }
  const int64_t n = (scatter->operand_count() - 1) / 2;
  KernelLaunch init;
  init.name = absl::StrCat(name, "_init");
  absl::StatusOr<LaunchDims> dims =
      EmitInit(target, module, hlo, scatter, init.name, params);
  if (!dims.ok()) return dims.status();
  init.dims = *dims;
  // A pure copy of kernel arguments when every scattered operand is one.
  const std::vector<KernelArgument> args = KernelArguments(hlo);
  const bool fusion = hlo->opcode() == HloOpcode::kFusion;
  for (int64_t i = 0; i < n; ++i) {
    const HloInstruction* source = scatter->operand(i);
    int64_t operand_number = i;
    if (fusion) {
      if (source->opcode() != HloOpcode::kParameter) {
        init.copies.clear();
        break;
      }
      operand_number = source->parameter_number();
    }
    const int64_t from = KernelArgumentIndex(args, false, operand_number, -1);
    const int64_t to = KernelArgumentIndex(args, true, 0, n == 1 && !hlo->shape().IsTuple() ? -1 : i);
    if (from < 0 || to < 0) {
      init.copies.clear();
      break;
    }
    init.copies.push_back({from, to});
  }
  KernelLaunch updates;
  updates.name = name;
  dims = EmitUpdates(target, module, hlo, scatter, name, params);
  if (!dims.ok()) return dims.status();
  updates.dims = *dims;
  return std::vector<KernelLaunch>{init, updates};
}

bool ScatterReadsInPlace(const HloInstruction* hlo,
                         int64_t operand_number) {
  const HloInstruction* scatter = ComputedRoot(hlo);
  const int64_t n = (scatter->operand_count() - 1) / 2;
  for (int64_t i = 0; i < n; ++i) {
    const HloInstruction* source = scatter->operand(i);
    if (hlo->opcode() != HloOpcode::kFusion) {
      if (i == operand_number) return true;
    } else if (source->opcode() == HloOpcode::kParameter &&
               source->parameter_number() == operand_number) {
      return true;
    }
  }
  return false;
}

}  // namespace xlite::codegen::gpu
