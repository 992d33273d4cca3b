#ifndef XLITE_CPU_BACKEND_AOT_C_HEADER_H_
#define XLITE_CPU_BACKEND_AOT_C_HEADER_H_

// The C header of an ahead-of-time library: the two functions
// (c_function_emitter.h), what each parameter and result is (element type,
// dimensions, bytes) as comments, macros and tables, and how to call and
// link the library. Valid C99 and C++, with no warnings under -Wall.

#include <cstdint>
#include <string>

#include "cpu_backend/aot/c_function_emitter.h"
#include "cpu_backend/aot/c_interface.h"

namespace xlite::cpu {

struct CHeaderFacts {
  /// The arena NAME_with_temp takes and the donated results.
  CFunctionsLayout layout;
  /// The input file the module came from, for the comment.
  std::string source;
  /// The CPU the code was compiled for (name and "+feature,..." list).
  std::string cpu_name;
  std::string cpu_features;
};

/// The header text for the library of `c`.
std::string RenderCHeader(const CInterface& c, const CHeaderFacts& facts);

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_AOT_C_HEADER_H_
