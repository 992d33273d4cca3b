#include "tests/testing/proto_normalize.h"

namespace xlite::testing {

void NormalizeAsProto(HloModule& module, bool keep_partition_counts) {
  HloModuleConfig& config = module.config();
  config.allow_spmd_sharding_propagation_to_parameters.clear();
  config.allow_spmd_sharding_propagation_to_output.clear();
  config.alias_passthrough_params = false;
  config.kept_attributes.clear();
  if (!keep_partition_counts) {
    config.replica_count = 1;
    config.num_partitions = 1;
  }
  module.SugarAsyncOpsLikeXla();
}

}  // namespace xlite::testing
