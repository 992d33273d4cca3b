#include "cpu_backend/aot/aot_library.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "cpu_backend/aot/c_function_emitter.h"
#include "cpu_backend/aot/c_header.h"
#include "cpu_backend/aot/row_major_entry.h"
#include "cpu_backend/executable.h"
#include "cpu_backend/jit.h"
#include "cpu_backend/module_emitter.h"
#include "cpu_backend/xla_cpu_numerics.h"
#include "hlo/ir/opcode.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"
#include "runtime/buffer_assignment.h"

namespace xlite::cpu {

namespace {

// A library runs one device with no other to talk to: a module of several
// devices compiles only if no instruction exchanges values or asks which
// device it is (then every device computes what the library does).
absl::Status CheckRunsAlone(const HloModule& module) {
  const int64_t devices =
      module.config().replica_count * module.config().num_partitions;
  if (devices <= 1) return absl::OkStatus();
  for (const HloComputation* c : module.computations()) {
    for (const HloInstruction* i : c->instructions()) {
      const HloOpcode op = i->opcode();
      if (IsCollectiveOpcode(op) || op == HloOpcode::kReplicaId ||
          op == HloOpcode::kPartitionId) {
        return LocatedError(
            i, absl::StrCat(
                   "an ahead-of-time library cannot hold %", i->name(), " (",
                   HloOpcodeString(op), "): the module runs on ", devices,
                   " devices (replica_count=", module.config().replica_count,
                   ", num_partitions=", module.config().num_partitions,
                   ") and the library runs one, alone"));
      }
    }
  }
  return absl::OkStatus();
}

// The compiled module must keep the interface the input module promised.
absl::Status CheckSameInterface(const CInterface& before,
                                const CInterface& after) {
  auto same = [](const std::vector<CArray>& a, const std::vector<CArray>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i].shape.element_type() != b[i].shape.element_type() ||
          a[i].shape.dimensions() != b[i].shape.dimensions() ||
          a[i].bytes != b[i].bytes) {
        return false;
      }
    }
    return true;
  };
  if (!same(before.params, after.params) ||
      !same(before.results, after.results)) {
    return absl::InternalError(
        "the cpu pipeline changed the entry computation's parameters or "
        "result");
  }
  return absl::OkStatus();
}

// The optimized host object of `module`'s entry function and C functions;
// sets `library->layout`.
absl::Status EmitObjectFile(const HloModule& module,
                            const runtime::BufferAssignment& assignment,
                            AotLibrary* library) {
  absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> machine =
      HostTargetMachine();
  if (!machine.ok()) return machine.status();
  llvm::LLVMContext context;
  llvm::Module llvm_module(module.name(), context);
  llvm_module.setDataLayout((*machine)->createDataLayout());
  llvm_module.setTargetTriple((*machine)->getTargetTriple().str());
  if (absl::Status s = EmitModule(module, assignment, llvm_module); !s.ok()) {
    return s;
  }
  absl::StatusOr<CFunctionsLayout> layout =
      EmitCFunctions(library->interface, module, assignment, llvm_module);
  if (!layout.ok()) return layout.status();
  library->layout = *std::move(layout);
  OptimizeModule(llvm_module, machine->get());
  absl::StatusOr<std::string> object = EmitObject(llvm_module, machine->get());
  if (!object.ok()) return object.status();
  library->object = *std::move(object);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<AotLibrary> CompileAotLibrary(std::unique_ptr<HloModule> module,
                                             const AotOptions& options) {
  const std::string entry_name = options.entry_name.empty()
                                     ? SanitizeCIdentifier(module->name())
                                     : options.entry_name;
  if (!IsCIdentifier(entry_name)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the function name '", entry_name, "' is not a C identifier"));
  }
  if (absl::Status s = CheckRunsAlone(*module); !s.ok()) return s;
  if (absl::Status s = MakeEntryRowMajor(*module).status(); !s.ok()) return s;
  AotLibrary library;
  absl::StatusOr<CInterface> interface = BuildCInterface(*module, entry_name);
  if (!interface.ok()) return interface.status();
  library.interface = *std::move(interface);
  // Before anything rewrites the module, as Compile does.
  if (absl::Status s = RewriteForXlaCpuNumerics(*module).status(); !s.ok()) {
    return s;
  }
  if (options.run_passes) {
    if (absl::Status s = RunCpuPassPipeline(*module); !s.ok()) return s;
  }
  if (absl::Status s = PrepareForCpu(*module); !s.ok()) return s;
  absl::StatusOr<CInterface> compiled = BuildCInterface(*module, entry_name);
  if (!compiled.ok()) return compiled.status();
  if (absl::Status s = CheckSameInterface(library.interface, *compiled);
      !s.ok()) {
    return s;
  }
  library.interface = *std::move(compiled);
  absl::StatusOr<runtime::BufferAssignment> assignment =
      runtime::BufferAssignment::Build(*module, {/*alignment=*/64});
  if (!assignment.ok()) return assignment.status();
  if (absl::Status s = EmitObjectFile(*module, *assignment, &library);
      !s.ok()) {
    return s;
  }
  CHeaderFacts facts;
  facts.layout = library.layout;
  facts.source = options.source;
  facts.cpu_name = HostCpuName();
  facts.cpu_features = HostCpuFeatures();
  library.header = RenderCHeader(library.interface, facts);
  return library;
}

}  // namespace xlite::cpu
