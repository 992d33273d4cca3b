#ifndef XLITE_TESTS_MALFORMED_MALFORMED_CASE_H_
#define XLITE_TESTS_MALFORMED_MALFORMED_CASE_H_

// Shared by the text-input malformed suites (testonly): a case and the
// parse-then-verify run that yields the line it asserts.

#include <string>

namespace xlite::malformed {

/// A module text and the first line of the error it must give ("OK" for a
/// valid neighbour that must keep verifying).
struct Case {
  std::string name;
  std::string text;
  std::string expected;
};

/// Parses `text` as file "m.hlo" and verifies it like hlo-opt; returns the
/// first line of the error, or "OK".
std::string FirstErrorLine(const std::string& text);

}  // namespace xlite::malformed

#endif  // XLITE_TESTS_MALFORMED_MALFORMED_CASE_H_
