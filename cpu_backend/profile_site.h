#ifndef XLITE_CPU_BACKEND_PROFILE_SITE_H_
#define XLITE_CPU_BACKEND_PROFILE_SITE_H_

// What the profiler knows at compile time about one timed place of the
// generated code (a kernel, library call or collective): which instruction
// it runs and what one execution costs by the cost model. Site i is the
// one generated code reports as `site` i to xlite_cpu_profile_begin/end.

#include <string>

#include "hlo/analysis/cost_model.h"

namespace xlite::cpu {

struct ProfileSite {
  std::string name;         // the instruction's name
  std::string op;           // its opcode ("fusion" for fusions)
  std::string fusion_kind;  // "kLoop", ... for fusions, else empty
  std::string root;         // a fusion's root opcode, else empty
  HloCost cost;             // of one execution
};

}  // namespace xlite::cpu

#endif  // XLITE_CPU_BACKEND_PROFILE_SITE_H_
