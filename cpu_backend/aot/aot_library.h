#ifndef XLITE_CPU_BACKEND_AOT_AOT_LIBRARY_H_
#define XLITE_CPU_BACKEND_AOT_AOT_LIBRARY_H_

// Ahead-of-time compilation (hlo-compile, as tfcompile does): a module
// becomes a host object file exporting C functions that run it
// (c_function_emitter.h) and a C header describing them (c_header.h). The
// code is the JIT's — the same pipeline, buffer assignment and entry
// function — compiled for the host CPU; its object references the runtime
// library by name, and library_writer.h links it with the runtime archive
// into a self-contained shared library or object.

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "cpu_backend/aot/c_function_emitter.h"
#include "cpu_backend/aot/c_interface.h"
#include "hlo/ir/module.h"

namespace xlite::cpu {

struct AotOptions {
  /// The C function's name; empty: the module's name made a C identifier.
  std::string entry_name;
  /// Run the cpu pass pipeline first (as CompileOptions::run_passes).
  bool run_passes = true;
  /// The input file, named in the header's comment.
  std::string source;
};

struct AotLibrary {
  CInterface interface;
  /// The arena NAME_with_temp takes and the results that may share a
  /// parameter's buffer.
  CFunctionsLayout layout;
  /// A relocatable host object defining NAME and NAME_with_temp, whose
  /// undefined symbols are runtime library functions and libc/libm ones.
  std::string object;
  /// The C header (c_header.h).
  std::string header;
};

/// Compiles `module` (taken over) to an ahead-of-time library. Fails with a
/// located error ("LINE:COL: error: ...") on what a library cannot hold: an
/// instruction the cpu backend cannot compile, a parameter or result a C
/// caller cannot pass as a dense row-major array, a collective or device
/// id in a module of several devices (the library runs one device, alone).
absl::StatusOr<AotLibrary> CompileAotLibrary(std::unique_ptr<HloModule> module,
                                             const AotOptions& options);

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_AOT_AOT_LIBRARY_H_
