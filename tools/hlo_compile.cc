// hlo-compile: compiles an HLO module ahead of time into a shared library
// or an object file holding a C function that runs it, and a C header
// beside it (cpu_backend/aot/). See ../shared/specs/cli.md.

#include <iostream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "cpu_backend/aot/aot_library.h"
#include "cpu_backend/aot/library_writer.h"
#include "cpu_backend/aot/runtime_archive.h"
#include "hlo/analysis/verifier.h"
#include "hlo/module_io.h"
#include "hlo/text/text_scanner.h"
#include "tools/tool_flags.h"

ABSL_FLAG(std::string, platform, "cpu",
          "cpu (for the GPU, hlo-opt --platform=gpu --stage=executable "
          "writes a serialized executable)");
ABSL_FLAG(std::string, entry, "",
          "the C function's name (default: the module's name made a C "
          "identifier)");
ABSL_FLAG(std::string, o, "",
          "the output: a shared library (.so) or an object file (.o); the C "
          "header is written beside it (.h)");
ABSL_FLAG(std::string, format, "",
          "input format: hlo, pb or pbtxt (default: from the extension; hlo "
          "for stdin)");

namespace xlite {
namespace {

constexpr char kUsage[] =
    "usage: hlo-compile [flags] FILE -o OUT\n"
    "Compiles an HLO module ahead of time for this CPU into OUT, a shared "
    "library (libm.so) or an object file (m.o), holding a C function that "
    "runs it, and writes its C header beside OUT (libm.h, m.h).";

// Checks the flags; kExitOk or kExitUsage (reported).
int CheckFlags(ModuleFormat* format, const std::string& path) {
  const std::string platform = absl::GetFlag(FLAGS_platform);
  if (platform == "gpu" || platform == "gpu-emulator") {
    std::cerr << "error: hlo-compile writes libraries for the host CPU; for "
                 "the GPU, write a serialized executable with hlo-opt "
                 "--platform=gpu --stage=executable -o m.xlx and run it with "
                 "hlo-run-gpu\n";
    return kExitUsage;
  }
  if (platform != "cpu") {
    std::cerr << "error: unknown platform '" << platform
              << "'; hlo-compile supports cpu\n";
    return kExitUsage;
  }
  const std::string out = absl::GetFlag(FLAGS_o);
  if (out.empty()) {
    std::cerr << "error: no output file (-o libm.so or -o m.o)\n"
              << kUsage << "\n";
    return kExitUsage;
  }
  if (absl::Status s = cpu::AotOutputKindOf(out).status(); !s.ok()) {
    std::cerr << "error: -o: " << s.message() << "\n";
    return kExitUsage;
  }
  const std::string entry = absl::GetFlag(FLAGS_entry);
  if (!entry.empty() && !cpu::IsCIdentifier(entry)) {
    std::cerr << "error: --entry: '" << entry
              << "' is not a C identifier (letters, digits and _, not "
                 "starting with a digit, no keyword)\n";
    return kExitUsage;
  }
  *format = ModuleFormatFromPath(path);
  if (!absl::GetFlag(FLAGS_format).empty()) {
    absl::StatusOr<ModuleFormat> named =
        ModuleFormatFromName(absl::GetFlag(FLAGS_format));
    if (!named.ok()) {
      std::cerr << "error: --format: " << named.status().message() << "\n";
      return kExitUsage;
    }
    *format = *named;
  }
  return kExitOk;
}

// The verified module in `path`, or null (reported).
std::unique_ptr<HloModule> LoadModule(const std::string& path,
                                      ModuleFormat format) {
  absl::StatusOr<std::string> bytes = ReadFileBytes(path);
  if (!bytes.ok()) {
    std::cerr << bytes.status().message() << "\n";
    return nullptr;
  }
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ModuleFromBytes(*bytes, format, path);
  if (!module.ok()) {
    std::cerr << module.status().message() << "\n";
    return nullptr;
  }
  if (absl::Status s = VerifyModule(**module); !s.ok()) {
    if (format == ModuleFormat::kText) s = AddSourceExcerpt(s, *bytes);
    std::cerr << s.message() << "\n";
    return nullptr;
  }
  return *std::move(module);
}

int Main(int argc, char** argv) {
  std::vector<std::string> args =
      ParseToolFlags(argc, argv, kUsage, "tools/hlo_compile");
  if (args.size() != 1) {
    std::cerr << (args.empty() ? "error: no input file\n"
                               : "error: more than one input file\n")
              << kUsage << "\n";
    return kExitUsage;
  }
  const std::string& path = args[0];
  ModuleFormat format;
  if (int code = CheckFlags(&format, path); code != kExitOk) return code;
  std::unique_ptr<HloModule> module = LoadModule(path, format);
  if (module == nullptr) return kExitInputError;
  absl::StatusOr<std::string> archive = cpu::FindAotRuntimeArchive(argv[0]);
  if (!archive.ok()) {
    std::cerr << "error: " << archive.status().message() << "\n";
    return kExitInputError;
  }
  cpu::AotOptions options;
  options.entry_name = absl::GetFlag(FLAGS_entry);
  options.source = path;
  absl::StatusOr<cpu::AotLibrary> library =
      cpu::CompileAotLibrary(std::move(module), options);
  if (!library.ok()) {
    // Errors located in the input ("LINE:COL: error: ...") get the file
    // name; others read "FILE: error: ...".
    const absl::string_view message = library.status().message();
    const bool located = !message.empty() && absl::ascii_isdigit(message[0]);
    std::cerr << path << (located ? ":" : ": error: ") << message << "\n";
    return kExitInputError;
  }
  const std::string out = absl::GetFlag(FLAGS_o);
  if (absl::Status s = cpu::WriteAotLibrary(*library, out, *archive); !s.ok()) {
    std::cerr << "error: " << s.message() << "\n";
    return kExitInputError;
  }
  return kExitOk;
}

}  // namespace
}  // namespace xlite

int main(int argc, char** argv) { return xlite::Main(argc, argv); }
