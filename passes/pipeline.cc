#include "passes/pipeline.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hlo/analysis/verifier.h"
#include "hlo/ir/denormal_mode.h"
#include "hlo/text/printer.h"

namespace xlite {
namespace {

// XLA sanitizes module names for file names: anything but [A-Za-z0-9_.-]
// becomes '_'.
std::string FileSafe(absl::string_view name) {
  std::string out(name);
  for (char& c : out) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
    if (!ok) c = '_';
  }
  return out;
}

absl::Status Dump(const HloModule& module, const PipelineRunOptions& options,
                  absl::string_view suffix) {
  std::error_code error;
  std::filesystem::create_directories(options.dump_to, error);
  const std::string path =
      absl::StrFormat("%s/module_%04d.%s.%s.txt", options.dump_to,
                      options.module_index, FileSafe(module.name()), suffix);
  std::ofstream out(path);
  out << PrintModule(module);
  if (!out) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": error: cannot write the dump"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<bool> Pipeline::Run(HloModule& module,
                                   const PipelineRunOptions& options) const {
  const bool dumping = !options.dump_to.empty();
  if (dumping) {
    absl::Status s = Dump(module, options, "before_optimizations");
    if (!s.ok()) return s;
  }
  // Passes compute (fold constants, simplify) as XLA compiles: with IEEE
  // gradual underflow, whatever the caller's mode.
  ScopedDenormalMode ieee(DenormalMode::kIeee);
  bool changed = false;
  int step = 0;
  const int rounds = max_iterations_ > 0 ? max_iterations_ : 1;
  for (int round = 0; round < rounds; ++round) {
    bool round_changed = false;
    for (const auto& pass : passes_) {
      const auto start = std::chrono::steady_clock::now();
      absl::StatusOr<bool> result = pass->Run(module);
      const double ms = std::chrono::duration<double, std::milli>(
                            std::chrono::steady_clock::now() - start)
                            .count();
      if (!result.ok()) {
        return absl::Status(result.status().code(),
                            absl::StrCat("pass ", pass->name(), ": ",
                                         result.status().message()));
      }
      if (*result && module.config().is_scheduled) {
        for (HloComputation* c : module.computations()) c->Resequence();
      }
      if (options.timing != nullptr) {
        *options.timing << absl::StrFormat(
            "pass %-36s %10.3f ms  %s\n", pass->name(), ms,
            *result ? "changed" : "unchanged");
      }
      if (options.verify_each) {
        absl::Status verified = VerifyModule(module);
        if (!verified.ok()) {
          return absl::InternalError(
              absl::StrCat("verifier failed after pass ", pass->name(), ": ",
                           verified.message()));
        }
      }
      ++step;
      if (dumping) {
        absl::Status s = Dump(
            module, options,
            absl::StrFormat("%04d.%s.after_%s", step, FileSafe(name_),
                            FileSafe(pass->name())));
        if (!s.ok()) return s;
      }
      round_changed |= *result;
    }
    changed |= round_changed;
    if (!round_changed) break;
  }
  if (dumping) {
    absl::Status s = Dump(module, options, "after_optimizations");
    if (!s.ok()) return s;
  }
  return changed;
}

}  // namespace xlite
