// hlo-opt: reads an HLO module (text), verifies it, runs passes and prints
// the result. Flags follow XLA's hlo-opt; see ../shared/specs/cli.md.

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "hlo/parser.h"
#include "hlo/printer.h"
#include "hlo/text_scanner.h"
#include "hlo/verifier.h"
#include "passes/registry.h"
#include "tools/tool_flags.h"

ABSL_FLAG(std::string, format, "",
          "input format: hlo, pb or pbtxt (default: from the extension; hlo "
          "for stdin)");
ABSL_FLAG(std::string, platform, "transforms",
          "transforms: only --passes run; cpu/gpu: that backend's pipeline "
          "when no --passes is given");
ABSL_FLAG(std::string, passes, "",
          "comma-separated passes to run in order; options in braces: "
          "name{key=value,...}");
ABSL_FLAG(bool, list_passes, false,
          "print the registered pass names, comma-separated, sorted");
ABSL_FLAG(std::string, stage, "hlo",
          "what to print: hlo, buffer-assignment, llvm, ptx, html, dot");
ABSL_FLAG(bool, emit_proto, false, "print the module as an HloModuleProto");
ABSL_FLAG(bool, split_input_file, false,
          "split the input on lines '// -----' and handle each module");
ABSL_FLAG(std::string, o, "", "output file (default: stdout)");
ABSL_FLAG(std::string, gpu_spec, "",
          "target GPU: h100, h200, b200, gb200 or a spec file");
ABSL_FLAG(std::string, cudnn_version, "",
          "override the GPU spec's cuDNN version (X.Y.Z; 0 = no cuDNN)");
ABSL_FLAG(std::string, dump_to, "",
          "write the module before and after each pass to this directory");
ABSL_FLAG(bool, time_passes, false,
          "report each pass's wall time and change flag on stderr");
ABSL_FLAG(bool, verify_each, false, "run the verifier after every pass");

namespace xlite {
namespace {

constexpr char kUsage[] =
    "usage: hlo-opt [flags] FILE|-\n"
    "Reads an HLO module, verifies it, runs passes and prints it.";

bool ReadInput(const std::string& path, std::string* text, std::string* error) {
  if (path == "-") {
    std::ostringstream buffer;
    buffer << std::cin.rdbuf();
    *text = buffer.str();
    return true;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = absl::StrCat(path, ": error: cannot open file");
    return false;
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  *text = buffer.str();
  return true;
}

// Parses, verifies and transforms one module; returns its printed form or an
// error status (message already located).
absl::StatusOr<std::string> ProcessModule(const std::string& text,
                                          const std::string& filename,
                                          int line_offset,
                                          const Pipeline& pipeline) {
  ParseOptions options;
  options.filename = filename;
  options.line_offset = line_offset;
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(text, options);
  if (!module.ok()) return module.status();
  absl::Status status = VerifyModule(**module);
  if (!status.ok()) return AddSourceExcerpt(status, text, line_offset);
  absl::StatusOr<bool> changed = pipeline.Run(**module);
  if (!changed.ok()) return changed.status();
  return PrintModule(**module);
}

int Main(int argc, char** argv) {
  std::vector<std::string> args =
      ParseToolFlags(argc, argv, kUsage, "tools/hlo_opt");
  const PassRegistry& registry = PassRegistry::Global();
  if (absl::GetFlag(FLAGS_list_passes)) {
    std::cout << absl::StrJoin(registry.Names(), ",") << "\n";
    return kExitOk;
  }
  if (args.size() != 1) {
    std::cerr << (args.empty() ? "error: no input file (use - for stdin)\n"
                               : "error: more than one input file\n")
              << kUsage << "\n";
    return kExitUsage;
  }
  const std::string& path = args[0];
  const std::string stage = absl::GetFlag(FLAGS_stage);
  if (stage != "hlo") {
    if (stage == "buffer-assignment" || stage == "llvm" || stage == "ptx" ||
        stage == "html" || stage == "dot") {
      std::cerr << "error: --stage=" << stage
                << " needs a backend, which this build of xlite does not have "
                   "yet; only --stage=hlo is available\n";
    } else {
      std::cerr
          << "error: unknown --stage=" << stage
          << "; expected hlo, buffer-assignment, llvm, ptx, html or dot\n";
    }
    return kExitUsage;
  }
  const std::string platform = absl::GetFlag(FLAGS_platform);
  if (platform != "transforms" && platform != "cpu" && platform != "gpu") {
    std::cerr << "error: unknown --platform=" << platform
              << "; expected transforms, cpu or gpu\n";
    return kExitUsage;
  }
  std::string format = absl::GetFlag(FLAGS_format);
  if (format.empty()) {
    format = absl::EndsWith(path, ".pbtxt") ? "pbtxt"
             : absl::EndsWith(path, ".pb")  ? "pb"
                                            : "hlo";
  }
  if (format != "hlo" && format != "pb" && format != "pbtxt") {
    std::cerr << "error: unknown --format=" << format
              << "; expected hlo, pb or pbtxt\n";
    return kExitUsage;
  }
  if (format != "hlo" || absl::GetFlag(FLAGS_emit_proto)) {
    std::cerr << "error: HloModuleProto input and --emit-proto are not "
                 "available in this build yet; use HLO text\n";
    return kExitUsage;
  }
  absl::StatusOr<Pipeline> pipeline =
      registry.BuildPipeline(absl::GetFlag(FLAGS_passes), platform);
  if (!pipeline.ok()) {
    std::cerr << "error: " << pipeline.status().message() << "\n";
    return kExitUsage;
  }
  std::string text, error;
  if (!ReadInput(path, &text, &error)) {
    std::cerr << error << "\n";
    return kExitInputError;
  }
  const std::string filename = path == "-" ? "<stdin>" : path;
  std::vector<SplitPiece> pieces;
  if (absl::GetFlag(FLAGS_split_input_file)) {
    pieces = SplitInputFile(text);
  } else {
    pieces.push_back({text, 0});
  }
  std::string output;
  int exit_code = kExitOk;
  for (size_t i = 0; i < pieces.size(); ++i) {
    if (i > 0) output += "// -----\n";
    absl::StatusOr<std::string> printed = ProcessModule(
        pieces[i].text, filename, pieces[i].line_offset, *pipeline);
    if (!printed.ok()) {
      std::cerr << printed.status().message() << "\n";
      exit_code = kExitInputError;
      continue;
    }
    output += *printed;
  }
  const std::string out_path = absl::GetFlag(FLAGS_o);
  if (out_path.empty() || out_path == "-") {
    std::cout << output;
  } else {
    std::ofstream out(out_path, std::ios::binary);
    out << output;
    if (!out) {
      std::cerr << out_path << ": error: cannot write output\n";
      return kExitInputError;
    }
  }
  return exit_code;
}

}  // namespace
}  // namespace xlite

int main(int argc, char** argv) { return xlite::Main(argc, argv); }
