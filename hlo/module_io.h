#ifndef XLITE_HLO_MODULE_IO_H_
#define XLITE_HLO_MODULE_IO_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/ir/module.h"

namespace xlite {

/// How a module is stored: XLA's text format, or an HloModuleProto (also
/// HloProto / HloSnapshot) in binary or protobuf text format.
enum class ModuleFormat { kText, kProto, kProtoText };

/// "hlo", "pb" or "pbtxt".
absl::StatusOr<ModuleFormat> ModuleFormatFromName(absl::string_view name);
/// From the file name: *.pb -> kProto, *.pbtxt / *.textproto -> kProtoText,
/// anything else (and "-" for stdin) -> kText.
ModuleFormat ModuleFormatFromPath(absl::string_view path);

/// Reads a whole file ("-" reads stdin). Errors name the file.
absl::StatusOr<std::string> ReadFileBytes(const std::string& path);

/// Builds a module from the bytes of a file in `format`; errors say
/// "FILENAME:LINE:COL: error: ..." (text) or "FILENAME: error: ..." (proto).
/// `line_offset` shifts reported text lines (pieces of a split file).
/// The module is not verified; run VerifyModule next.
absl::StatusOr<std::unique_ptr<HloModule>> ModuleFromBytes(
    const std::string& bytes, ModuleFormat format, const std::string& filename,
    int line_offset = 0);

/// Reads, parses and verifies a module file; the format comes from the
/// extension.
absl::StatusOr<std::unique_ptr<HloModule>> LoadVerifiedModule(
    const std::string& path);

}  // namespace xlite

#endif  // XLITE_HLO_MODULE_IO_H_
