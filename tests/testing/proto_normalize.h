#ifndef XLITE_TESTS_TESTING_PROTO_NORMALIZE_H_
#define XLITE_TESTS_TESTING_PROTO_NORMALIZE_H_

#include "hlo/ir/module.h"

namespace xlite::testing {

/// Makes a module read from text comparable with the same module read from
/// XLA's HloModuleProto: drops the header settings HloModuleProto has no
/// field for (allow_spmd_sharding_propagation_*, alias_passthrough_params,
/// verbatim attributes; replica_count and num_partitions unless the proto
/// carries a device assignment) and applies XLA's async sugar rule, which
/// decides how async ops print.
void NormalizeAsProto(HloModule& module, bool keep_partition_counts);

}  // namespace xlite::testing

#endif  // XLITE_TESTS_TESTING_PROTO_NORMALIZE_H_
