#include "hlo/text/module_equal.h"

#include <algorithm>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "hlo/text/printer.h"

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

// The line of `text` around position `at`.
std::string LineAt(const std::string& text, size_t at) {
  const size_t start = at == 0 ? 0 : text.rfind('\n', at - 1) + 1;
  const size_t end = text.find('\n', at);
  return text.substr(start, end == std::string::npos ? end : end - start);
}

}  // namespace

std::string PrintModuleComputationsByName(const HloModule& module) {
  const std::string printed = PrintModule(module);
  // Each computation the module prints is a block that starts a line and
  // reads as PrintComputation gives it; one not found (not printed on its
  // own) stays where it is.
  struct Block {
    size_t at;
    std::string name;
    std::string text;
  };
  std::vector<Block> blocks;
  for (const HloComputation* c : module.computations()) {
    std::string text = PrintComputation(*c);
    const size_t at = printed.find(absl::StrCat("\n", text));
    if (at == std::string::npos) continue;
    blocks.push_back({at + 1, c->name(), std::move(text)});
  }
  std::sort(blocks.begin(), blocks.end(),
            [](const Block& x, const Block& y) { return x.at < y.at; });
  std::string rest;
  size_t from = 0;
  std::vector<Block> moved;
  for (Block& b : blocks) {
    if (b.at < from) continue;  // Inside another block: leave it there.
    rest.append(printed, from, b.at - from);
    from = b.at + b.text.size();
    moved.push_back(std::move(b));
  }
  rest.append(printed, from, std::string::npos);
  blocks = std::move(moved);
  std::sort(blocks.begin(), blocks.end(), [](const Block& x, const Block& y) {
    return std::tie(x.name, x.text) < std::tie(y.name, y.text);
  });
  for (const Block& b : blocks) absl::StrAppend(&rest, "\n", b.text);
  return rest;
}

bool PrintsEqualUpToComputationOrder(const HloModule& a, const HloModule& b,
                                     std::string* difference) {
  const std::string x = PrintModuleComputationsByName(a);
  const std::string y = PrintModuleComputationsByName(b);
  if (x == y) return true;
  if (difference != nullptr) {
    const size_t at =
        std::mismatch(x.begin(), x.begin() + std::min(x.size(), y.size()),
                      y.begin())
            .first -
        x.begin();
    *difference =
        absl::StrCat("first:  ", LineAt(x, at), "\nsecond: ", LineAt(y, at));
  }
  return false;
}

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
