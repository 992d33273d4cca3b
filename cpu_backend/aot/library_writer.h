#ifndef XLITE_CPU_BACKEND_AOT_LIBRARY_WRITER_H_
#define XLITE_CPU_BACKEND_AOT_LIBRARY_WRITER_H_

// Writes an ahead-of-time library (aot_library.h) as files a C program
// links: the module's object linked with the runtime archive
// (libxlite_aot_runtime.a, built by //cpu_backend/runtime_lib:aot_runtime)
// by the system's C++ compiler driver and binutils, and its header.
//
//   OUT.so  a shared library: `c++ -shared` over the object and the
//           archive, only NAME and NAME_with_temp exported (a version
//           script keeps the runtime's symbols local), every symbol
//           resolved at link time (-z defs) against libc, libm and
//           libstdc++ alone.
//   OUT.o   one relocatable object: the object and the archive members it
//           needs, partially linked (`-r`), every symbol but the two
//           functions made local (objcopy), so that several libraries link
//           into one program; it still wants libstdc++, libm and pthread.
//
// The driver is $CXX when set, else the first of c++, g++, clang++,
// clang++-19 on PATH; objcopy is $OBJCOPY or objcopy on PATH.

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "cpu_backend/aot/aot_library.h"

namespace xlite::cpu {

enum class AotOutputKind { kSharedLibrary, kObject };

/// The kind `path` names by its extension (.so, .o); InvalidArgument for
/// anything else.
absl::StatusOr<AotOutputKind> AotOutputKindOf(absl::string_view path);

/// `path` with its extension replaced by .h ("libm.so" -> "libm.h").
std::string AotHeaderPath(absl::string_view path);

/// Writes `library` to `path` (its kind from the extension), linked with
/// the runtime archive at `runtime_archive`, and the header beside it.
/// Errors name the file or the failing command and what it printed.
absl::Status WriteAotLibrary(const AotLibrary& library, const std::string& path,
                             const std::string& runtime_archive);

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_AOT_LIBRARY_WRITER_H_
