#include "hlo/module_io.h"

#include <fstream>
#include <iostream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "hlo/analysis/verifier.h"
#include "hlo/proto/proto_convert.h"
#include "hlo/text/parser.h"
#include "hlo/text/text_scanner.h"

namespace xlite {

absl::StatusOr<ModuleFormat> ModuleFormatFromName(absl::string_view name) {
  if (name == "hlo") return ModuleFormat::kText;
  if (name == "pb") return ModuleFormat::kProto;
  if (name == "pbtxt") return ModuleFormat::kProtoText;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown format '", name, "'; expected hlo, pb or pbtxt"));
}

ModuleFormat ModuleFormatFromPath(absl::string_view path) {
  if (absl::EndsWith(path, ".pb")) return ModuleFormat::kProto;
  if (absl::EndsWith(path, ".pbtxt") || absl::EndsWith(path, ".textproto")) {
    return ModuleFormat::kProtoText;
  }
  return ModuleFormat::kText;
}

absl::StatusOr<std::string> ReadFileBytes(const std::string& path) {
  std::ostringstream buffer;
  if (path == "-") {
    buffer << std::cin.rdbuf();
    return buffer.str();
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(absl::StrCat(path, ": error: cannot open file"));
  }
  buffer << in.rdbuf();
  if (in.bad()) {
    return absl::DataLossError(absl::StrCat(path, ": error: cannot read file"));
  }
  return buffer.str();
}

absl::StatusOr<std::unique_ptr<HloModule>> ModuleFromBytes(
    const std::string& bytes, ModuleFormat format, const std::string& filename,
    int line_offset) {
  if (format == ModuleFormat::kText) {
    ParseOptions options;
    options.filename = filename;
    options.line_offset = line_offset;
    return ParseHloModule(bytes, options);
  }
  return ModuleFromSerializedProto(bytes, format == ModuleFormat::kProtoText,
                                   filename);
}

absl::StatusOr<std::unique_ptr<HloModule>> LoadVerifiedModule(
    const std::string& path) {
  absl::StatusOr<std::string> bytes = ReadFileBytes(path);
  if (!bytes.ok()) return bytes.status();
  const ModuleFormat format = ModuleFormatFromPath(path);
  const std::string filename = path == "-" ? "<stdin>" : path;
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ModuleFromBytes(*bytes, format, filename);
  if (!module.ok()) return module.status();
  absl::Status status = VerifyModule(**module);
  if (!status.ok()) {
    return format == ModuleFormat::kText ? AddSourceExcerpt(status, *bytes, 0)
                                         : status;
  }
  return module;
}

}  // namespace xlite
