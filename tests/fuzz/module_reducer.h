#ifndef XLITE_TESTS_FUZZ_MODULE_REDUCER_H_
#define XLITE_TESTS_FUZZ_MODULE_REDUCER_H_

// Shrinks a failing HLO module (text with one instruction per line, as
// the random generator writes it) while a predicate keeps holding: the
// root tuple loses elements, entry instructions become parameters,
// instructions of called computations become zero constants, and what
// is then dead goes (instructions, computations, entry parameters, which
// are renumbered). Each candidate must parse and verify before the
// predicate sees it. A greedy fixed point, in the manner of C-Reduce's
// line passes, not a minimal module.

#include <functional>
#include <string>

namespace xlite::fuzz {

/// The smallest module found for which `still_fails` holds (`text` itself
/// if nothing smaller does).
std::string ReduceModule(
    const std::string& text,
    const std::function<bool(const std::string&)>& still_fails);

/// `text` without its dead instructions and computations and with unused
/// entry parameters removed (the rest renumbered).
std::string RemoveDeadCode(const std::string& text);

}  // namespace xlite::fuzz

#endif  // XLITE_TESTS_FUZZ_MODULE_REDUCER_H_
