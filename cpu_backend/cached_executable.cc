// CpuExecutable to and from the compile cache's entries (cache_entry.h).
// Loading runs no pass and no LLVM code generation: it parses the optimized
// module back, rebuilds its buffer assignment, checks both against what was
// stored, links the kept object file and copies the constants' bytes.

#include <cstring>

#include "absl/strings/str_cat.h"
#include "cpu_backend/cache_entry.h"
#include "cpu_backend/executable.h"
#include "hlo/text/parser.h"
#include "hlo/text/printer.h"

namespace xlite::cpu {

namespace {

// Large constants print as {...}: their bytes are stored beside the text.
PrintOptions StoredTextOptions() {
  PrintOptions options;
  options.print_large_constants = false;
  return options;
}

}  // namespace

CacheEntry CpuExecutable::ToCacheEntry(std::string object) const {
  CacheEntry entry;
  // Buffer assignment breaks ties by instruction order, and an unscheduled
  // module prints in post order: print it as scheduled, which prints the
  // instructions in their order, and keep the flag beside the text.
  entry.scheduled = module_->config().is_scheduled;
  module_->config().is_scheduled = true;
  entry.hlo_text = PrintModule(*module_, StoredTextOptions());
  module_->config().is_scheduled = entry.scheduled;
  entry.object = std::move(object);
  entry.assignment_digest = Sha256Hex(assignment_->ToString());
  const auto& allocations = assignment_->allocations();
  for (size_t i = 0; i < allocations.size(); ++i) {
    if (constants_[i] == nullptr) continue;
    entry.constants.push_back(
        {static_cast<int64_t>(i),
         std::string(reinterpret_cast<const char*>(constants_[i]->data()),
                     allocations[i].size)});
  }
  return entry;
}

absl::StatusOr<std::unique_ptr<CpuExecutable>>
CpuExecutable::RebuildFromCacheEntry(const CacheEntry& entry) {
  ParseOptions parse;
  parse.filename = "<compile cache>";
  std::vector<std::string> warnings;  // elided constants are expected
  parse.warnings = &warnings;
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(entry.hlo_text, parse);
  if (!module.ok()) return module.status();
  // The object addresses allocations by index and offset: the module and
  // its assignment must be exactly the ones it was compiled against.
  if (!(*module)->config().is_scheduled ||
      PrintModule(**module, StoredTextOptions()) != entry.hlo_text) {
    return absl::DataLossError(
        "the cached module does not print back as stored");
  }
  (*module)->config().is_scheduled = entry.scheduled;
  absl::StatusOr<runtime::BufferAssignment> assignment =
      runtime::BufferAssignment::Build(**module, {/*alignment=*/64});
  if (!assignment.ok()) return assignment.status();
  if (Sha256Hex(assignment->ToString()) != entry.assignment_digest) {
    return absl::DataLossError(
        "the cached module's buffer assignment differs from the stored one");
  }
  auto exe = std::unique_ptr<CpuExecutable>(new CpuExecutable());
  exe->assignment_ =
      std::make_unique<runtime::BufferAssignment>(std::move(*assignment));
  exe->module_ = *std::move(module);
  return exe;
}

absl::StatusOr<std::unique_ptr<CpuExecutable>> CpuExecutable::FromCacheEntry(
    const CacheEntry& entry) {
  absl::StatusOr<std::unique_ptr<CpuExecutable>> exe =
      RebuildFromCacheEntry(entry);
  if (!exe.ok()) return exe.status();
  if (absl::Status s = (*exe)->LinkObject(entry.object); !s.ok()) return s;
  if (absl::Status s = (*exe)->LayOutConstants(&entry); !s.ok()) return s;
  (*exe)->MakeBufferPool();
  (*exe)->from_cache_ = true;
  return exe;
}

}  // namespace xlite::cpu
