#include "hlo/module_equal.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "hlo/printer.h"

namespace xlite {
namespace {

std::vector<std::string> Names(const std::vector<HloInstruction*>& v) {
  std::vector<std::string> out;
  for (const HloInstruction* i : v) out.push_back(i->name());
  return out;
}

std::vector<std::string> Names(const std::vector<HloComputation*>& v) {
  std::vector<std::string> out;
  for (const HloComputation* c : v)
    out.push_back(c == nullptr ? "" : c->name());
  return out;
}

bool ComputationsEqual(const HloComputation& a, const HloComputation& b,
                       std::string* why) {
  if (a.execution_thread() != b.execution_thread() ||
      a.num_parameters() != b.num_parameters() ||
      a.instruction_count() != b.instruction_count() ||
      a.is_sugared_async_wrapper() != b.is_sugared_async_wrapper()) {
    *why = "thread, parameter count, instruction count or kind differ";
    return false;
  }
  if (a.root_instruction()->name() != b.root_instruction()->name()) {
    *why = absl::StrCat("root ", a.root_instruction()->name(), " vs ",
                        b.root_instruction()->name());
    return false;
  }
  absl::flat_hash_map<std::string, const HloInstruction*> by_name;
  for (const HloInstruction* i : b.instructions()) by_name[i->name()] = i;
  for (const HloInstruction* x : a.instructions()) {
    auto it = by_name.find(x->name());
    if (it == by_name.end()) {
      *why = absl::StrCat("instruction ", x->name(), " is missing");
      return false;
    }
    const HloInstruction* y = it->second;
    if (!x->IdenticalIgnoringOperands(*y, /*compare_metadata=*/true) ||
        Names(x->operands()) != Names(y->operands()) ||
        Names(x->control_predecessors()) != Names(y->control_predecessors()) ||
        Names(x->called_computations()) != Names(y->called_computations())) {
      *why = absl::StrCat("instruction differs:\n  ", PrintInstruction(*x),
                          "\n  ", PrintInstruction(*y));
      return false;
    }
  }
  return true;
}

}  // namespace

bool ModulesEqual(const HloModule& a, const HloModule& b,
                  std::string* difference) {
  std::string why;
  auto fail = [&](std::string message) {
    if (difference != nullptr) *difference = std::move(message);
    return false;
  };
  if (a.name() != b.name()) return fail("module names differ");
  if (!(a.config() == b.config())) return fail("module configurations differ");
  if (a.computation_count() != b.computation_count()) {
    return fail(
        absl::StrCat("computation counts differ: ", a.computation_count(),
                     " vs ", b.computation_count()));
  }
  if ((a.entry_computation() == nullptr) !=
          (b.entry_computation() == nullptr) ||
      (a.entry_computation() != nullptr &&
       a.entry_computation()->name() != b.entry_computation()->name())) {
    return fail("entry computations differ");
  }
  for (const HloComputation* ca : a.computations()) {
    const HloComputation* cb = b.GetComputationWithName(ca->name());
    if (cb == nullptr)
      return fail(absl::StrCat("computation ", ca->name(), " is missing"));
    if (!ComputationsEqual(*ca, *cb, &why)) {
      return fail(absl::StrCat("computation ", ca->name(), ": ", why));
    }
  }
  return true;
}

}  // namespace xlite
