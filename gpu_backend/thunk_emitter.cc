#include "gpu_backend/thunk_emitter.h"

#include <algorithm>
#include <memory>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "codegen/elemental.h"
#include "codegen/gpu/kernel_emitter.h"
#include "gpu_backend/gemm_thunks.h"
#include "gpu_backend/thunk_cost.h"
#include "runtime/block_scaled_dot.h"
#include "hlo/ir/computation.h"
#include "hlo/ir/opcode.h"
#include "passes/annotation_calls.h"
#include "passes/single_device_collectives.h"
#include "passes/while_trip_count.h"

namespace xlite::gpu {
namespace {

using runtime::Slice;
using runtime::Thunk;
using runtime::ThunkSequence;

constexpr int64_t kGpuAlignment = 256;

// "LINE:COL: error: the gpu backend cannot compile %name (opcode): why",
// located when the instruction came from text (codegen::Unsupported's
// form, so tools put the file name in front).
absl::Status Refuse(const HloInstruction* hlo, absl::string_view why) {
  return codegen::NameBackend(codegen::Unsupported(hlo, why), "gpu");
}

// Opcodes no kernel emitter handles yet (side effects, collectives, sorts,
// library calls): refused rather than computed wrongly.
bool NeedsNonKernelSupport(HloOpcode op) {
  switch (op) {
    case HloOpcode::kCustomCall:
    case HloOpcode::kRng:
    case HloOpcode::kRngGetAndUpdateState:
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kAllReduceDone:
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kAllToAll:
    case HloOpcode::kRaggedAllToAll:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kCollectiveBroadcast:
    case HloOpcode::kCollectiveReduce:
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectivePermuteStart:
    case HloOpcode::kCollectivePermuteDone:
    case HloOpcode::kSend:
    case HloOpcode::kSendDone:
    case HloOpcode::kRecv:
    case HloOpcode::kRecvDone:
    case HloOpcode::kInfeed:
    case HloOpcode::kOutfeed:
    case HloOpcode::kPartitionId:
    case HloOpcode::kReplicaId:
    case HloOpcode::kAsyncStart:
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone:
    case HloOpcode::kCopyStart:
    case HloOpcode::kCopyDone:
    case HloOpcode::kScan:
    case HloOpcode::kBatchNormGrad:
    case HloOpcode::kBatchNormInference:
    case HloOpcode::kBatchNormTraining:
      return true;
    default:
      return false;
  }
}

// Why `hlo` (NeedsNonKernelSupport) has no thunk: the pipeline rewrote
// every instance of these opcodes that the GPU can run (PrepareForGpu).
std::string NonKernelReason(const HloModule& module,
                            const HloInstruction* hlo) {
  switch (hlo->opcode()) {
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllGather:
    case HloOpcode::kAllToAll:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectiveBroadcast:
    case HloOpcode::kCollectiveReduce:
    case HloOpcode::kRaggedAllToAll:
    case HloOpcode::kReplicaId:
    case HloOpcode::kPartitionId:
      if (std::string why = OneDeviceRefusal(module, *hlo); !why.empty()) {
        return why;
      }
      return "a one-device collective left for the single-device rewrite "
             "(compiled without the gpu pipeline?)";
    case HloOpcode::kCustomCall: {
      const std::string& target = hlo->attrs().custom_call->target;
      if (IsPassThroughTarget(target) || target == "AllocateBuffer") {
        return "an annotation whose result is shaped unlike its operands, "
               "which needs more than one device (or the SPMD partitioner "
               "first)";
      }
      return absl::StrCat("unknown custom-call target \"", target, "\"");
    }
    case HloOpcode::kRng:
      return "rng draws from the run's sequential host generator (the cpu "
             "backend's engine); no GPU kernel reproduces its stream yet";
    case HloOpcode::kSend:
    case HloOpcode::kSendDone:
    case HloOpcode::kRecv:
    case HloOpcode::kRecvDone:
    case HloOpcode::kInfeed:
    case HloOpcode::kOutfeed:
      return "host transfers (send, recv, infeed, outfeed) are not supported "
             "by the gpu backend";
    case HloOpcode::kBatchNormTraining:
    case HloOpcode::kBatchNormInference:
    case HloOpcode::kBatchNormGrad:
      return "batch normalization of real arrays with a feature dimension";
    case HloOpcode::kScan:
      return "a scan that slices or stacks tuple-shaped values (scans of "
             "arrays become while loops)";
    default:
      return "no GPU kernel or thunk for this opcode yet";
  }
}

// What a launch before an instruction's last one moves: the buffers it
// copies (read and written), or else the results it fills (written).
int64_t InitBytes(const codegen::gpu::KernelLaunch& launch,
                  const std::vector<codegen::gpu::KernelArgument>& args,
                  const std::vector<Slice>& slices) {
  int64_t bytes = 0;
  for (const auto& [from, to] : launch.copies) {
    bytes += slices[from].size + slices[to].size;
  }
  if (!launch.copies.empty()) return bytes;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].is_output) bytes += slices[i].size;
  }
  return bytes;
}

bool Overlaps(const Slice& a, const Slice& b) {
  return a.allocation == b.allocation && a.size > 0 && b.size > 0 &&
         a.offset < b.offset + b.size && b.offset < a.offset + a.size;
}

class ThunkEmitter {
 public:
  ThunkEmitter(const HloModule& module,
               const runtime::BufferAssignment& assignment,
               codegen::KernelTarget& target, llvm::Module& kernels)
      : module_(module),
        assignment_(assignment),
        target_(target),
        kernels_(kernels) {}

  absl::StatusOr<ThunkSequence> Sequence(const HloComputation* computation) {
    ThunkSequence out;
    for (const HloInstruction* hlo : assignment_.Schedule(computation)) {
      if (absl::Status s = Instruction(hlo, out); !s.ok()) return s;
    }
    return out;
  }

 private:
  absl::Status Instruction(const HloInstruction* hlo, ThunkSequence& out) {
    if (OnlyNamesBuffers(hlo->opcode())) return absl::OkStatus();
    switch (hlo->opcode()) {
      case HloOpcode::kWhile:
        return While(hlo, out);
      case HloOpcode::kConditional:
        return Conditional(hlo, out);
      case HloOpcode::kCall: {
        absl::StatusOr<ThunkSequence> body = Sequence(hlo->to_apply());
        if (!body.ok()) return body.status();
        out.insert(out.end(), body->begin(), body->end());
        return absl::OkStatus();
      }
      default:
        break;
    }
    if (hlo->opcode() == HloOpcode::kCustomCall && RunsAsGemmThunk(*hlo)) {
      return Gemm(hlo, out);
    }
    if (hlo->opcode() == HloOpcode::kCustomCall &&
        hlo->attrs().custom_call->target == "__cudnn$blockScaledDot") {
      return BlockScaledDot(hlo, out);
    }
    if (NeedsNonKernelSupport(hlo->opcode()) &&
        !codegen::gpu::IsKernelCustomCall(hlo)) {
      return Refuse(hlo, NonKernelReason(module_, hlo));
    }
    if (hlo->opcode() == HloOpcode::kFusion) {
      for (const HloInstruction* i : hlo->fused_computation()->instructions()) {
        if (NeedsNonKernelSupport(i->opcode())) {
          return Refuse(hlo, absl::StrCat("it fuses %", i->name(), " (",
                                          HloOpcodeString(i->opcode()),
                                          "), which no GPU kernel computes"));
        }
      }
    }
    return Kernel(hlo, out);
  }

  absl::Status Kernel(const HloInstruction* hlo, ThunkSequence& out) {
    const std::vector<codegen::gpu::KernelArgument> args =
        codegen::gpu::KernelArguments(hlo);
    Thunk thunk;
    thunk.kind = Thunk::Kind::kKernel;
    thunk.instruction = hlo->name();
    bool writes_anything = false;
    for (const auto& arg : args) {
      absl::StatusOr<Slice> slice =
          assignment_.GetSlice(arg.instruction, arg.index);
      if (!slice.ok()) return slice.status();
      thunk.arguments.push_back(*slice);
      writes_anything |= arg.is_output && arg.shape.ElementCount() > 0;
    }
    if (!writes_anything) return absl::OkStatus();
    std::vector<codegen::KernelParam> params(args.size());
    for (size_t i = 0; i < args.size(); ++i) {
      params[i].alignment = kGpuAlignment;
      params[i].size = thunk.arguments[i].size;
      params[i].noalias = true;
      for (size_t j = 0; j < args.size(); ++j) {
        if (i == j || !Overlaps(thunk.arguments[i], thunk.arguments[j])) {
          continue;
        }
        params[i].noalias = false;
        if (args[i].is_output && !args[j].is_output &&
            !codegen::gpu::ReadsOperandInPlace(hlo, args[j].operand_number)) {
          return Refuse(hlo,
                        "its result shares a buffer with an operand "
                        "that it reads elsewhere than in place");
        }
      }
    }
    // Small buffers are aligned to less than 256 bytes.
    for (size_t i = 0; i < args.size(); ++i) {
      int64_t align = kGpuAlignment;
      while (align > 1 && thunk.arguments[i].offset % align != 0) align /= 2;
      params[i].alignment = align;
    }
    absl::StatusOr<std::vector<codegen::gpu::KernelLaunch>> launches =
        codegen::gpu::EmitKernels(target_, kernels_, hlo, KernelName(hlo),
                                  params);
    if (!launches.ok()) {
      // The shared emitters' refusals name the instruction (maybe one
      // inside the fusion) and only lack the backend.
      if (codegen::IsUnnamedRefusal(launches.status())) {
        return codegen::NameBackend(launches.status(), "gpu");
      }
      return Refuse(hlo, launches.status().message());
    }
    for (size_t l = 0; l < launches->size(); ++l) {
      const codegen::gpu::KernelLaunch& launch = (*launches)[l];
      if (const llvm::Function* kernel = kernels_.getFunction(launch.name)) {
        if (absl::Status s = target_.CheckExternalCalls(*kernel); !s.ok()) {
          return Refuse(hlo, s.message());
        }
      }
      // A copy of buffers onto themselves (a scatter in place) is not run.
      if (!launch.copies.empty() &&
          std::all_of(launch.copies.begin(), launch.copies.end(),
                      [&](const std::pair<int64_t, int64_t>& c) {
                        return thunk.arguments[c.first] ==
                               thunk.arguments[c.second];
                      })) {
        continue;
      }
      Thunk launched = thunk;
      launched.kernel = launch.name;
      launched.grid = launch.dims.grid;
      launched.block = launch.dims.block;
      launched.shared_bytes = launch.dims.shared_bytes;
      launched.cooperative = launch.dims.cooperative;
      for (const codegen::gpu::TensorMapParam& m : launch.dims.tensor_maps) {
        runtime::TensorMapDescription d;
        d.argument = m.argument;
        d.element_bytes = m.element_bytes;
        d.dims = m.dims;
        d.strides = m.strides;
        d.box = m.box;
        d.swizzle_128b = m.swizzle_128b;
        launched.tensor_maps.push_back(std::move(d));
      }
      launched.cost =
          l + 1 == launches->size()
              ? KernelThunkCost(*hlo, /*updates_in_place=*/l > 0)
              : InitLaunchCost(*hlo, InitBytes(launch, args, thunk.arguments));
      out.push_back(std::move(launched));
    }
    return absl::OkStatus();
  }

  // One slice per operand, then one per result leaf.
  absl::Status Gemm(const HloInstruction* hlo, ThunkSequence& out) {
    absl::StatusOr<runtime::GemmDescription> gemm = DescribeGemmCall(*hlo);
    if (!gemm.ok()) return Refuse(hlo, gemm.status().message());
    Thunk thunk;
    thunk.kind = Thunk::Kind::kGemm;
    thunk.instruction = hlo->name();
    for (const HloInstruction* operand : hlo->operands()) {
      absl::StatusOr<Slice> slice = assignment_.GetSlice(operand, {});
      if (!slice.ok()) return slice.status();
      thunk.arguments.push_back(*slice);
    }
    const int64_t leaves = static_cast<int64_t>(gemm->ResultLeaves().size());
    for (int64_t i = 0; i < leaves; ++i) {
      ShapeIndex index;
      if (hlo->shape().IsTuple()) index.push_back(i);
      absl::StatusOr<Slice> slice = assignment_.GetSlice(hlo, index);
      if (!slice.ok()) return slice.status();
      thunk.arguments.push_back(*slice);
    }
    // The GEMM reads its operands while it writes: only d may share a
    // buffer with an operand, c's exactly (beta != 0, aliased as XLA does).
    const size_t operands = static_cast<size_t>(hlo->operand_count());
    for (size_t r = operands; r < thunk.arguments.size(); ++r) {
      for (size_t o = 0; o < operands; ++o) {
        const bool aliased_c = r == operands &&
                               static_cast<int64_t>(o) == gemm->layout.c &&
                               thunk.arguments[r] == thunk.arguments[o];
        if (Overlaps(thunk.arguments[r], thunk.arguments[o]) && !aliased_c) {
          return Refuse(hlo, "a GEMM result shares a buffer with an operand");
        }
      }
    }
    thunk.cost = GemmThunkCost(*gemm);
    thunk.gemm =
        std::make_shared<const runtime::GemmDescription>(*std::move(gemm));
    out.push_back(std::move(thunk));
    return absl::OkStatus();
  }

  // The __cudnn$blockScaledDot call: one slice per operand, then the
  // result and the workspace.
  absl::Status BlockScaledDot(const HloInstruction* hlo, ThunkSequence& out) {
    std::vector<Shape> operands;
    for (const HloInstruction* operand : hlo->operands()) {
      operands.push_back(operand->shape());
    }
    absl::StatusOr<runtime::BlockScaledDotDescription> dot =
        runtime::DescribeBlockScaledDot(std::move(operands), hlo->shape());
    if (!dot.ok()) return Refuse(hlo, dot.status().message());
    Thunk thunk;
    thunk.kind = Thunk::Kind::kBlockScaledDot;
    thunk.instruction = hlo->name();
    for (const HloInstruction* operand : hlo->operands()) {
      absl::StatusOr<Slice> slice = assignment_.GetSlice(operand, {});
      if (!slice.ok()) return slice.status();
      thunk.arguments.push_back(*slice);
    }
    for (int64_t leaf : {0, 1}) {
      absl::StatusOr<Slice> slice = assignment_.GetSlice(hlo, {leaf});
      if (!slice.ok()) return slice.status();
      thunk.arguments.push_back(*slice);
    }
    const size_t operand_count = hlo->operands().size();
    for (size_t r = operand_count; r < thunk.arguments.size(); ++r) {
      for (size_t o = 0; o < operand_count; ++o) {
        if (Overlaps(thunk.arguments[r], thunk.arguments[o])) {
          return Refuse(hlo, "a block-scaled dot result shares a buffer with "
                             "an operand");
        }
      }
    }
    thunk.cost = BlockScaledDotThunkCost(*dot);
    thunk.block_scaled_dot =
        std::make_shared<const runtime::BlockScaledDotDescription>(
            *std::move(dot));
    out.push_back(std::move(thunk));
    return absl::OkStatus();
  }

  std::string KernelName(const HloInstruction* hlo) {
    std::string name;
    for (char c : hlo->name()) {
      name +=
          (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
    }
    // Kernels of several launches are named <name>_<suffix> (a scatter's
    // <name>_init): a name and its suffixed forms stay unique.
    std::string unique = name;
    for (int n = 1; used_names_.contains(unique) ||
                    used_names_.contains(absl::StrCat(unique, "_init"));
         ++n) {
      unique = absl::StrCat(name, "_", n);
    }
    used_names_.insert(unique);
    used_names_.insert(absl::StrCat(unique, "_init"));
    return unique;
  }

  absl::Status While(const HloInstruction* hlo, ThunkSequence& out) {
    // Kernels index by their own shapes' layouts: the loop state must be
    // laid out alike on every side (layout consistency sees to it; this
    // check guards modules compiled without the pipeline).
    const Shape& state = hlo->shape();
    for (const Shape* side :
         {&hlo->operand(0)->shape(),
          &hlo->while_body()->parameter_instruction(0)->shape(),
          &hlo->while_body()->root_instruction()->shape(),
          &hlo->while_condition()->parameter_instruction(0)->shape()}) {
      if (!(*side == state)) {
        return Refuse(
            hlo, absl::StrCat("its loop state is laid out differently in "
                              "its body or condition (",
                              side->ToString(), " vs ", state.ToString(), ")"));
      }
    }
    Thunk thunk;
    thunk.kind = Thunk::Kind::kWhile;
    thunk.instruction = hlo->name();
    absl::StatusOr<ThunkSequence> condition = Sequence(hlo->while_condition());
    if (!condition.ok()) return condition.status();
    absl::StatusOr<ThunkSequence> body = Sequence(hlo->while_body());
    if (!body.ok()) return body.status();
    absl::StatusOr<Slice> pred =
        assignment_.GetSlice(hlo->while_condition()->root_instruction(), {});
    if (!pred.ok()) return pred.status();
    thunk.predicate = *pred;
    thunk.trip_count = KnownTripCount(*hlo).value_or(-1);
    thunk.children = {*std::move(condition), *std::move(body)};
    out.push_back(std::move(thunk));
    return absl::OkStatus();
  }

  absl::Status Conditional(const HloInstruction* hlo, ThunkSequence& out) {
    Thunk thunk;
    thunk.kind = Thunk::Kind::kConditional;
    thunk.instruction = hlo->name();
    absl::StatusOr<Slice> index = assignment_.GetSlice(hlo->operand(0), {});
    if (!index.ok()) return index.status();
    thunk.predicate = *index;
    thunk.index_is_pred =
        hlo->operand(0)->shape().element_type() == PrimitiveType::kPred;
    for (size_t b = 0; b < hlo->called_computations().size(); ++b) {
      const HloComputation* branch = hlo->called_computations()[b];
      if (!(branch->root_instruction()->shape() == hlo->shape()) ||
          (branch->num_parameters() == 1 &&
           !(branch->parameter_instruction(0)->shape() ==
             hlo->operand(b + 1)->shape()))) {
        return Refuse(hlo,
                      "a branch lays out its operand or result "
                      "differently after layout consistency");
      }
      absl::StatusOr<ThunkSequence> seq = Sequence(branch);
      if (!seq.ok()) return seq.status();
      thunk.children.push_back(*std::move(seq));
    }
    out.push_back(std::move(thunk));
    return absl::OkStatus();
  }

  const HloModule& module_;
  const runtime::BufferAssignment& assignment_;
  codegen::KernelTarget& target_;
  llvm::Module& kernels_;
  absl::flat_hash_set<std::string> used_names_;
};

}  // namespace

absl::StatusOr<ThunkSequence> EmitThunks(
    const HloModule& module, const runtime::BufferAssignment& assignment,
    codegen::KernelTarget& target, llvm::Module& kernels) {
  ThunkEmitter emitter(module, assignment, target, kernels);
  absl::StatusOr<ThunkSequence> thunks =
      emitter.Sequence(module.entry_computation());
  if (!thunks.ok()) return thunks.status();
  if (absl::Status s = target.MapMathFunctions(kernels); !s.ok()) return s;
  return thunks;
}

}  // namespace xlite::gpu
