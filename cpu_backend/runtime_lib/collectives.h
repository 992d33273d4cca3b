#ifndef XLITE_CPU_BACKEND_RUNTIME_LIB_COLLECTIVES_H_
#define XLITE_CPU_BACKEND_RUNTIME_LIB_COLLECTIVES_H_

// Collectives for generated CPU code: all-reduce (variadic too; also
// collective-reduce, which computes the same), all-gather, reduce-scatter,
// all-to-all (array and tuple forms), ragged-all-to-all, collective-permute
// and collective-broadcast, over a CollectiveExchange (collective_exchange.h)
// shared by the devices' threads. Semantics, group modes and reduction
// order are the evaluator's (hlo/evaluator/collectives.cc), which this
// library never calls.
//
// ABI (besides runtime_lib.h's): every function is
//
//   int32_t xlite_cpu_<op>(void* exchange, int64_t replica_id,
//                          int64_t partition_id, const char* name,
//                          const int64_t* plan, void* const* operands,
//                          void* const* results,
//                          const XliteCpuCombine* combiners);
//
// `exchange` is the CollectiveExchange (null: a lone device, for which only
// single-participant groups work); `name` the instruction's, for errors
// and for telling rounds apart; `operands` / `results` the instruction's
// arrays in operand / result-leaf order, in any layout (`plan` gives it);
// `combiners` one reduction function per operand for all-reduce and
// reduce-scatter, else null. Returns kStatusOk or a kStatusCollective*
// code; the exchange's error() then holds the located message. Results
// may alias operands.
//
// `plan`, compile-time constants (kPlan* name the slots):
//   [operand count n, result count m, dimension (-1: none), mode,
//    G, S, G*S ids (the expanded replica groups, or for collective-permute
//    the G source-target pairs with S = 2),
//    then per array (operands, then results):
//    element bytes, rank, dims[rank], minor_to_major[rank]]
// mode: 0 no channel id, 1 channel id, 2 channel id + use_global_device_ids.

#include <cstdint>
#include <utility>
#include <vector>

namespace xlite::cpu {

inline constexpr int64_t kPlanOperands = 0;
inline constexpr int64_t kPlanResults = 1;
inline constexpr int64_t kPlanDimension = 2;
inline constexpr int64_t kPlanMode = 3;
inline constexpr int64_t kPlanGroups = 4;
inline constexpr int64_t kPlanGroupSize = 5;
inline constexpr int64_t kPlanIds = 6;

inline constexpr int64_t kModeNoChannel = 0;
inline constexpr int64_t kModeChannel = 1;
inline constexpr int64_t kModeGlobalIds = 2;

/// The collective failed (see the exchange's error()): a bad group or
/// operand count, a deadlock or a timeout, or another device's failure.
inline constexpr int32_t kStatusCollectiveFailed = 100;

/// Every collective function and its address, for the JIT.
std::vector<std::pair<const char*, void*>> CollectiveSymbols();

}  // namespace xlite::cpu

extern "C" {

/// Reduces element-wise, in participant order: out[i] = f(...f(f(inputs[0]
/// [i], inputs[1][i]), inputs[2][i])...), i < count, with the
/// instruction's to_apply. `out` may be any of the inputs.
typedef void (*XliteCpuCombine)(const void* const* inputs, int64_t num_inputs,
                                void* out, int64_t count);

#define XLITE_CPU_COLLECTIVE(op)                                    \
  int32_t xlite_cpu_##op(                                           \
      void* exchange, int64_t replica_id, int64_t partition_id,     \
      const char* name, const int64_t* plan, void* const* operands, \
      void* const* results, const XliteCpuCombine* combiners)

XLITE_CPU_COLLECTIVE(all_reduce);
XLITE_CPU_COLLECTIVE(reduce_scatter);
XLITE_CPU_COLLECTIVE(all_gather);
XLITE_CPU_COLLECTIVE(all_to_all);
XLITE_CPU_COLLECTIVE(collective_permute);
XLITE_CPU_COLLECTIVE(collective_broadcast);
XLITE_CPU_COLLECTIVE(ragged_all_to_all);

}  // extern "C"

#endif  // XLITE_CPU_BACKEND_RUNTIME_LIB_COLLECTIVES_H_
