#include "cpu_backend/executable.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>

#include "absl/cleanup/cleanup.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "cpu_backend/cache_entry.h"
#include "cpu_backend/compile_cache.h"
#include "cpu_backend/instruction_fusion.h"
#include "cpu_backend/reshape_to_bitcast.h"
#include "cpu_backend/rng_order.h"
#include "cpu_backend/runtime_symbols.h"
#include "cpu_backend/scaled_dot_expansion.h"
#include "cpu_backend/sibling_fusion.h"
#include "cpu_backend/tree_reduction.h"
#include "cpu_backend/unfuse_non_elemental.h"
#include "cpu_backend/xla_cpu_numerics.h"
#include "hlo/text/printer.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/raw_ostream.h"
#include "passes/async_to_sync.h"
#include "passes/blocked_scans.h"
#include "passes/gemm_call_expansion.h"
#include "passes/layout_consistency.h"
#include "passes/registry.h"
#include "passes/scan_to_while.h"

namespace xlite::cpu {

absl::Status RunCpuPassPipeline(HloModule& module) {
  absl::StatusOr<Pipeline> pipeline =
      PassRegistry::Global().BuildPipeline("", "cpu", {});
  if (!pipeline.ok()) return pipeline.status();
  return pipeline->Run(module).status();
}

absl::Status PrepareForCpu(HloModule& module) {
  for (auto* pass :
       {&ConvertAsyncToSync, &ConvertScanToWhile, &ExpandScaledDots,
        &RunGemmCallExpansion, &OrderRandomOpsAsEvaluated,
        &RewriteReductionsAsTrees, &RewriteScansAsBlocks,
        &UnfuseNonElementalFusions, &MakeLayoutsConsistent, &ReshapesToBitcasts,
        &FuseInstructions, &FuseSiblings, &runtime::InsertCopies}) {
    if (absl::StatusOr<bool> changed = (*pass)(module); !changed.ok()) {
      return changed.status();
    }
  }
  // Passes append the instructions they add; buffer assignment breaks ties
  // by instruction order. Definitions before uses makes that order one the
  // module can print and read back, as the compile cache does.
  for (HloComputation* computation : module.computations()) {
    computation->Resequence();
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<CpuExecutable>> CpuExecutable::Compile(
    std::unique_ptr<HloModule> module, const CompileOptions& options) {
  // The LLVM and assembly stages want LLVM to run.
  // Profiled code keeps its table of timed sites, which the cache does
  // not hold: it is compiled afresh, as the IR and assembly stages are.
  if (!options.use_cache || options.keep_llvm_ir || options.keep_asm ||
      options.profile) {
    return CompileWithLlvm(std::move(module), options, nullptr);
  }
  CompileCache& cache = CompileCache::Global();
  const std::string key = CompileCacheKey(PrintModule(*module), options);
  if (std::shared_ptr<const CacheEntry> entry = cache.Lookup(key)) {
    absl::StatusOr<std::unique_ptr<CpuExecutable>> exe = FromCacheEntry(*entry);
    if (exe.ok()) return exe;
    cache.NoteRejected();  // compiled again below, and replaced
  }
  CacheEntry entry;
  absl::StatusOr<std::unique_ptr<CpuExecutable>> exe =
      CompileWithLlvm(std::move(module), options, &entry);
  if (!exe.ok()) return exe;
  // Keep only what loads back: a module whose text does not rebuild it
  // exactly is compiled every time.
  if (RebuildFromCacheEntry(entry).ok()) cache.Insert(key, std::move(entry));
  return exe;
}

absl::StatusOr<std::unique_ptr<CpuExecutable>> CpuExecutable::CompileWithLlvm(
    std::unique_ptr<HloModule> module, const CompileOptions& options,
    CacheEntry* keep) {
  auto exe = std::unique_ptr<CpuExecutable>(new CpuExecutable());
  if (options.xla_cpu_numerics) {
    if (absl::Status s = RewriteForXlaCpuNumerics(*module).status(); !s.ok()) {
      return s;
    }
  }
  if (options.run_passes) {
    if (absl::Status s = RunCpuPassPipeline(*module); !s.ok()) return s;
  }
  if (absl::Status s = PrepareForCpu(*module); !s.ok()) return s;
  absl::StatusOr<runtime::BufferAssignment> assignment =
      runtime::BufferAssignment::Build(*module, {/*alignment=*/64});
  if (!assignment.ok()) return assignment.status();
  exe->assignment_ =
      std::make_unique<runtime::BufferAssignment>(std::move(*assignment));
  exe->module_ = std::move(module);

  absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> machine =
      HostTargetMachine();
  if (!machine.ok()) return machine.status();
  auto context = std::make_unique<llvm::LLVMContext>();
  auto llvm_module =
      std::make_unique<llvm::Module>(exe->module_->name(), *context);
  llvm_module->setDataLayout((*machine)->createDataLayout());
  llvm_module->setTargetTriple((*machine)->getTargetTriple().str());
  if (absl::Status s =
          EmitModule(*exe->module_, *exe->assignment_, *llvm_module,
                     options.profile ? &exe->profile_sites_ : nullptr);
      !s.ok()) {
    return s;
  }
  OptimizeModule(*llvm_module, machine->get());
  if (options.keep_llvm_ir) {
    llvm::raw_string_ostream os(exe->llvm_ir_);
    llvm_module->print(os, nullptr);
  }
  if (options.keep_asm) {
    absl::StatusOr<std::string> text =
        EmitAssembly(*llvm_module, machine->get());
    if (!text.ok()) return text.status();
    exe->asm_ = *std::move(text);
  }
  // Through an object file, as a cached module is loaded.
  absl::StatusOr<std::string> object = EmitObject(*llvm_module, machine->get());
  if (!object.ok()) return object.status();
  if (absl::Status s = exe->LinkObject(*object); !s.ok()) return s;
  if (absl::Status s = exe->LayOutConstants(nullptr); !s.ok()) return s;
  exe->MakeBufferPool();
  if (keep != nullptr) *keep = exe->ToCacheEntry(*std::move(object));
  return exe;
}

absl::Status CpuExecutable::LinkObject(absl::string_view object) {
  absl::StatusOr<std::unique_ptr<CpuJit>> jit =
      CpuJit::Create(RuntimeSymbols());
  if (!jit.ok()) return jit.status();
  jit_ = std::move(*jit);
  if (absl::Status s = jit_->AddObject(object, module_->name()); !s.ok()) {
    return s;
  }
  absl::StatusOr<void*> entry = jit_->Lookup(kEntryName);
  if (!entry.ok()) return entry.status();
  entry_ = reinterpret_cast<void (*)(void**, RunContext*)>(*entry);
  return absl::OkStatus();
}

absl::Status CpuExecutable::LayOutConstants(const CacheEntry* stored) {
  absl::flat_hash_map<int64_t, const std::string*> stored_bytes;
  if (stored != nullptr) {
    for (const CacheEntry::Constant& c : stored->constants) {
      stored_bytes[c.allocation] = &c.bytes;
    }
  }
  const auto& allocations = assignment_->allocations();
  constants_.clear();
  constants_.resize(allocations.size());
  for (size_t i = 0; i < allocations.size(); ++i) {
    const runtime::Allocation& a = allocations[i];
    if (a.kind != runtime::Allocation::Kind::kConstant) continue;
    auto buffer = std::make_unique<AlignedBuffer>(a.size);
    if (stored != nullptr) {
      auto it = stored_bytes.find(i);
      if (it == stored_bytes.end() ||
          static_cast<int64_t>(it->second->size()) != a.size) {
        return absl::DataLossError(
            absl::StrCat("the cache entry lacks the bytes of constant %",
                         a.constant->name()));
      }
      std::memcpy(buffer->data(), it->second->data(), a.size);
      constants_[i] = std::move(buffer);
      continue;
    }
    // Laid out as the constant instruction's layout says.
    const Literal& literal = *a.constant->attrs().literal;
    if (literal.is_unknown()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "constant %", a.constant->name(),
          " has an elided value ({...}); the cpu backend needs its data"));
    }
    std::vector<uint8_t> bytes = literal.PhysicalData(a.constant->shape());
    if (!bytes.empty()) {  // memcpy from an empty vector's null is UB
      std::memcpy(buffer->data(), bytes.data(),
                  std::min<int64_t>(bytes.size(), a.size));
    }
    constants_[i] = std::move(buffer);
  }
  return absl::OkStatus();
}

namespace {

// The leaf `index` of `literal` (a tuple or array).
const Literal* LeafOf(const Literal& literal, const ShapeIndex& index) {
  const Literal* at = &literal;
  for (int64_t i : index) {
    if (!at->shape().IsTuple() ||
        i >= static_cast<int64_t>(at->tuple_elements().size())) {
      return nullptr;
    }
    at = &at->tuple_elements()[i];
  }
  return at;
}

}  // namespace

void CpuExecutable::MakeBufferPool() {
  std::vector<int64_t> sizes;
  for (const runtime::Allocation& a : assignment_->allocations()) {
    sizes.push_back(a.kind == runtime::Allocation::Kind::kConstant ? -1
                                                                   : a.size);
  }
  pool_ = std::make_unique<BufferPool>(std::move(sizes));
}

absl::StatusOr<Literal> CpuExecutable::Run(absl::Span<const Literal> arguments,
                                           const RunOptions& options) const {
  const HloComputation* entry = module_->entry_computation();
  const auto& params = entry->parameter_instructions();
  if (arguments.size() != params.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the module takes ", params.size(), " arguments, got ",
                     arguments.size()));
  }
  const auto& allocations = assignment_->allocations();
  // Buffers kept from an earlier run (or fresh ones), given back after.
  BufferSet owned = pool_->Take();
  absl::Cleanup give_back = [&] { pool_->Give(std::move(owned)); };
  std::vector<void*> table(allocations.size(), nullptr);
  for (size_t i = 0; i < allocations.size(); ++i) {
    AlignedBuffer* buffer =
        allocations[i].kind == runtime::Allocation::Kind::kConstant
            ? constants_[i].get()
            : owned[i].get();
    if (buffer == nullptr || buffer->data() == nullptr) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "out of memory for a buffer of ", allocations[i].size, " bytes"));
    }
    table[i] = buffer->data();
  }
  // Arguments first (not timed), then the module's run.
  for (size_t i = 0; i < allocations.size(); ++i) {
    const runtime::Allocation& a = allocations[i];
    if (a.kind != runtime::Allocation::Kind::kParameter) continue;
    const HloInstruction* param = params[a.parameter_number];
    const Literal* leaf =
        LeafOf(arguments[a.parameter_number], a.parameter_index);
    const Shape* shape = param->shape().Subshape(a.parameter_index);
    if (leaf == nullptr || shape == nullptr || leaf->shape().IsTuple() ||
        leaf->shape().dimensions() != shape->dimensions() ||
        leaf->shape().element_type() != shape->element_type()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "argument ", a.parameter_number, " does not have the shape of %",
          param->name(), ": ", shape ? shape->ToString() : "?"));
    }
    if (leaf->is_unknown()) {
      return absl::InvalidArgumentError(
          absl::StrCat("argument ", a.parameter_number, " has no data"));
    }
    std::vector<uint8_t> permuted;
    const std::vector<uint8_t>* bytes = &leaf->data();
    if (!PhysicalOrderIsLogical(*shape)) {
      permuted = leaf->PhysicalData(*shape);
      bytes = &permuted;
    }
    const size_t n = std::min<size_t>(bytes->size(), a.size);
    // A buffer that already holds the argument (the same arguments run
    // again) is left as it is: rewriting it would leave all of it dirty in
    // the caches, for the run to write back while it reads.
    if (n > 0 && std::memcmp(owned[i]->data(), bytes->data(), n) != 0) {
      std::memcpy(owned[i]->data(), bytes->data(), n);
    }
  }
  const auto execute_start = std::chrono::steady_clock::now();
  RunContext context;
  context.replica_id = options.replica_id;
  context.partition_id = options.partition_id;
  context.collectives = options.collectives;
  context.profile = options.profile;
  const int64_t started = options.profile ? ProfileCounters::Now() : 0;
  entry_(table.data(), &context);
  if (options.profile)
    options.profile->AddRun(ProfileCounters::Now() - started);
  if (options.execute_seconds != nullptr) {
    *options.execute_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                      execute_start)
            .count();
  }
  if (context.status != 0) {
    return absl::InternalError(absl::StrCat(
        "a runtime library call failed with status ", context.status));
  }
  // The result, leaf by leaf, from its slices.
  const HloInstruction* root = entry->root_instruction();
  Literal result(root->shape());
  std::vector<std::pair<ShapeIndex, const Shape*>> leaves;
  std::function<void(const Shape&, ShapeIndex&)> walk = [&](const Shape& s,
                                                            ShapeIndex& at) {
    if (s.IsTuple()) {
      for (int64_t i = 0; i < s.tuple_shapes_size(); ++i) {
        at.push_back(i);
        walk(s.tuple_shapes(i), at);
        at.pop_back();
      }
    } else if (s.IsArray()) {
      leaves.push_back({at, &s});
    }
  };
  ShapeIndex start;
  walk(root->shape(), start);
  for (const auto& [index, shape] : leaves) {
    absl::StatusOr<runtime::Slice> slice = assignment_->GetSlice(root, index);
    if (!slice.ok()) return slice.status();
    Literal* leaf = const_cast<Literal*>(LeafOf(result, index));
    const uint8_t* base = static_cast<const uint8_t*>(table[slice->allocation]);
    leaf->SetFromPhysicalData(
        *shape, absl::MakeConstSpan(base + slice->offset, slice->size));
  }
  return result;
}

}  // namespace xlite::cpu
