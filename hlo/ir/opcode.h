#ifndef XLITE_HLO_IR_OPCODE_H_
#define XLITE_HLO_IR_OPCODE_H_

#include <optional>

#include "absl/strings/string_view.h"

namespace xlite {

// X(enum name, text spelling, operand count (kVariadic for "any"), family).
// The family says which shape rule and which evaluator family handle the
// opcode; its attributes, operands and callees are its row in
// opcode_schema.cc. Adding an opcode: see hlo/README.md.
#define XLITE_HLO_OPCODE_LIST(X)                                           \
  X(kAbs, "abs", 1, kElementwise)                                          \
  X(kAcos, "acos", 1, kElementwise)                                        \
  X(kAcosh, "acosh", 1, kElementwise)                                      \
  X(kAdd, "add", 2, kElementwise)                                          \
  X(kAddDependency, "add-dependency", 2, kTupleAndToken)                   \
  X(kAfterAll, "after-all", kVariadic, kTupleAndToken)                     \
  X(kAllGather, "all-gather", kVariadic, kCollective)                      \
  X(kAllGatherDone, "all-gather-done", 1, kAsync)                          \
  X(kAllGatherStart, "all-gather-start", kVariadic, kCollective)           \
  X(kAllReduce, "all-reduce", kVariadic, kCollective)                      \
  X(kAllReduceDone, "all-reduce-done", 1, kAsync)                          \
  X(kAllReduceStart, "all-reduce-start", kVariadic, kCollective)           \
  X(kAllToAll, "all-to-all", kVariadic, kCollective)                       \
  X(kAnd, "and", 2, kElementwise)                                          \
  X(kAsin, "asin", 1, kElementwise)                                        \
  X(kAsinh, "asinh", 1, kElementwise)                                      \
  X(kAsyncDone, "async-done", 1, kAsync)                                   \
  X(kAsyncStart, "async-start", kVariadic, kAsync)                         \
  X(kAsyncUpdate, "async-update", 1, kAsync)                               \
  X(kAtan, "atan", 1, kElementwise)                                        \
  X(kAtan2, "atan2", 2, kElementwise)                                      \
  X(kAtanh, "atanh", 1, kElementwise)                                      \
  X(kBatchNormGrad, "batch-norm-grad", 5, kLinearAlgebra)                  \
  X(kBatchNormInference, "batch-norm-inference", 5, kLinearAlgebra)        \
  X(kBatchNormTraining, "batch-norm-training", 3, kLinearAlgebra)          \
  X(kBitcast, "bitcast", 1, kDataMovement)                                 \
  X(kBitcastConvert, "bitcast-convert", 1, kConversion)                    \
  X(kBroadcast, "broadcast", 1, kDataMovement)                             \
  X(kCall, "call", kVariadic, kControlFlow)                                \
  X(kCbrt, "cbrt", 1, kElementwise)                                        \
  X(kCeil, "ceil", 1, kElementwise)                                        \
  X(kCholesky, "cholesky", 1, kLinearAlgebra)                              \
  X(kClamp, "clamp", 3, kElementwise)                                      \
  X(kClz, "count-leading-zeros", 1, kElementwise)                          \
  X(kCollectiveBroadcast, "collective-broadcast", kVariadic, kCollective)  \
  X(kCollectivePermute, "collective-permute", kVariadic, kCollective)      \
  X(kCollectivePermuteDone, "collective-permute-done", 1, kAsync)          \
  X(kCollectivePermuteStart, "collective-permute-start", kVariadic,        \
    kCollective)                                                           \
  X(kCollectiveReduce, "collective-reduce", kVariadic, kCollective)        \
  X(kComplex, "complex", 2, kElementwise)                                  \
  X(kCompare, "compare", 2, kElementwise)                                  \
  X(kConcatenate, "concatenate", kVariadic, kDataMovement)                 \
  X(kConditional, "conditional", kVariadic, kControlFlow)                  \
  X(kConstant, "constant", 0, kGenerator)                                  \
  X(kConvert, "convert", 1, kConversion)                                   \
  X(kConvolution, "convolution", 2, kContraction)                          \
  X(kCopy, "copy", 1, kDataMovement)                                       \
  X(kCopyDone, "copy-done", 1, kAsync)                                     \
  X(kCopyStart, "copy-start", 1, kAsync)                                   \
  X(kCos, "cosine", 1, kElementwise)                                       \
  X(kCosh, "cosh", 1, kElementwise)                                        \
  X(kCustomCall, "custom-call", kVariadic, kCustomCall)                    \
  X(kDivide, "divide", 2, kElementwise)                                    \
  X(kDomain, "domain", 1, kTupleAndToken)                                  \
  X(kDot, "dot", 2, kContraction)                                          \
  X(kDynamicReshape, "dynamic-reshape", kVariadic, kDataMovement)          \
  X(kDynamicSlice, "dynamic-slice", kVariadic, kDataMovement)              \
  X(kDynamicUpdateSlice, "dynamic-update-slice", kVariadic, kDataMovement) \
  X(kErf, "erf", 1, kElementwise)                                          \
  X(kExp, "exponential", 1, kElementwise)                                  \
  X(kExpm1, "exponential-minus-one", 1, kElementwise)                      \
  X(kFft, "fft", 1, kLinearAlgebra)                                        \
  X(kFloor, "floor", 1, kElementwise)                                      \
  X(kFusion, "fusion", kVariadic, kControlFlow)                            \
  X(kGather, "gather", 2, kGatherScatter)                                  \
  X(kGetDimensionSize, "get-dimension-size", 1, kDataMovement)             \
  X(kGetTupleElement, "get-tuple-element", 1, kTupleAndToken)              \
  X(kImag, "imag", 1, kElementwise)                                        \
  X(kInfeed, "infeed", 1, kHostTransfer)                                   \
  X(kIota, "iota", 0, kGenerator)                                          \
  X(kIsFinite, "is-finite", 1, kElementwise)                               \
  X(kLog, "log", 1, kElementwise)                                          \
  X(kLog1p, "log-plus-one", 1, kElementwise)                               \
  X(kLogistic, "logistic", 1, kElementwise)                                \
  X(kMap, "map", kVariadic, kReduction)                                    \
  X(kMaximum, "maximum", 2, kElementwise)                                  \
  X(kMinimum, "minimum", 2, kElementwise)                                  \
  X(kMulhi, "mulhi", 2, kElementwise)                                      \
  X(kMultiply, "multiply", 2, kElementwise)                                \
  X(kNegate, "negate", 1, kElementwise)                                    \
  X(kNot, "not", 1, kElementwise)                                          \
  X(kOptimizationBarrier, "opt-barrier", 1, kTupleAndToken)                \
  X(kOr, "or", 2, kElementwise)                                            \
  X(kOutfeed, "outfeed", 2, kHostTransfer)                                 \
  X(kPad, "pad", 2, kDataMovement)                                         \
  X(kParameter, "parameter", 0, kGenerator)                                \
  X(kPartitionId, "partition-id", 0, kGenerator)                           \
  X(kPopulationCount, "popcnt", 1, kElementwise)                           \
  X(kPower, "power", 2, kElementwise)                                      \
  X(kRaggedAllToAll, "ragged-all-to-all", 6, kCollective)                  \
  X(kRaggedDot, "ragged-dot", 3, kContraction)                             \
  X(kReal, "real", 1, kElementwise)                                        \
  X(kRecv, "recv", 1, kHostTransfer)                                       \
  X(kRecvDone, "recv-done", 1, kHostTransfer)                              \
  X(kReduce, "reduce", kVariadic, kReduction)                              \
  X(kReducePrecision, "reduce-precision", 1, kConversion)                  \
  X(kReduceScatter, "reduce-scatter", kVariadic, kCollective)              \
  X(kReduceWindow, "reduce-window", kVariadic, kReduction)                 \
  X(kRemainder, "remainder", 2, kElementwise)                              \
  X(kReplicaId, "replica-id", 0, kGenerator)                               \
  X(kReshape, "reshape", 1, kDataMovement)                                 \
  X(kReverse, "reverse", 1, kDataMovement)                                 \
  X(kRng, "rng", 2, kRandom)                                               \
  X(kRngBitGenerator, "rng-bit-generator", 1, kRandom)                     \
  X(kRngGetAndUpdateState, "rng-get-and-update-state", 0, kGenerator)      \
  X(kRoundNearestAfz, "round-nearest-afz", 1, kElementwise)                \
  X(kRoundNearestEven, "round-nearest-even", 1, kElementwise)              \
  X(kRsqrt, "rsqrt", 1, kElementwise)                                      \
  X(kScaledDot, "scaled-dot", kVariadic, kContraction)                     \
  X(kScan, "scan", kVariadic, kReduction)                                  \
  X(kScatter, "scatter", kVariadic, kGatherScatter)                        \
  X(kSelect, "select", 3, kElementwise)                                    \
  X(kSelectAndScatter, "select-and-scatter", 3, kReduction)                \
  X(kSend, "send", 2, kHostTransfer)                                       \
  X(kSendDone, "send-done", 1, kHostTransfer)                              \
  X(kSetDimensionSize, "set-dimension-size", 2, kDataMovement)             \
  X(kShiftLeft, "shift-left", 2, kElementwise)                             \
  X(kShiftRightArithmetic, "shift-right-arithmetic", 2, kElementwise)      \
  X(kShiftRightLogical, "shift-right-logical", 2, kElementwise)            \
  X(kShuffle, "shuffle", kVariadic, kDataMovement)                         \
  X(kSign, "sign", 1, kElementwise)                                        \
  X(kSin, "sine", 1, kElementwise)                                         \
  X(kSinh, "sinh", 1, kElementwise)                                        \
  X(kSlice, "slice", 1, kDataMovement)                                     \
  X(kSort, "sort", kVariadic, kSort)                                       \
  X(kSqrt, "sqrt", 1, kElementwise)                                        \
  X(kStochasticConvert, "stochastic-convert", 2, kConversion)              \
  X(kSubtract, "subtract", 2, kElementwise)                                \
  X(kTan, "tan", 1, kElementwise)                                          \
  X(kTanh, "tanh", 1, kElementwise)                                        \
  X(kTopK, "topk", 1, kSort)                                               \
  X(kTranspose, "transpose", 1, kDataMovement)                             \
  X(kTriangularSolve, "triangular-solve", 2, kLinearAlgebra)               \
  X(kTuple, "tuple", kVariadic, kTupleAndToken)                            \
  X(kWhile, "while", 1, kControlFlow)                                      \
  X(kXor, "xor", 2, kElementwise)

inline constexpr int kVariadic = -1;

/// Opcode families. Each has one shape-inference function and one
/// evaluator function; the family of an opcode is its column above.
enum class OpcodeFamily {
  kElementwise,    // unary, binary and ternary math, compare, select, clamp
  kConversion,     // convert, bitcast-convert, reduce-precision, ...
  kGenerator,      // constant, parameter, iota, replica/partition id
  kDataMovement,   // reshape, broadcast, transpose, slice, pad, ...
  kTupleAndToken,  // tuple, get-tuple-element, after-all, domain, ...
  kGatherScatter,  // gather, scatter
  kReduction,      // reduce, reduce-window, select-and-scatter, map, scan
  kSort,           // sort, topk
  kContraction,    // dot, scaled-dot, ragged-dot, convolution
  kLinearAlgebra,  // cholesky, triangular-solve, fft, batch-norm
  kRandom,         // rng, rng-bit-generator
  kCollective,     // all-reduce, all-gather, all-to-all, ...
  kAsync,          // async-start/update/done and the -done forms
  kControlFlow,    // call, fusion, while, conditional
  kCustomCall,     // custom-call
  kHostTransfer,   // infeed, outfeed, send, recv
};

/// Every HLO opcode XLA prints. Names follow XLA's HloOpcode.
enum class HloOpcode : int {
#define XLITE_DECLARE_OPCODE(enum_name, text, arity, family) enum_name,
  XLITE_HLO_OPCODE_LIST(XLITE_DECLARE_OPCODE)
#undef XLITE_DECLARE_OPCODE
};

inline constexpr int kHloOpcodeCount = 0
#define XLITE_COUNT_OPCODE(enum_name, text, arity, family) +1
    XLITE_HLO_OPCODE_LIST(XLITE_COUNT_OPCODE)
#undef XLITE_COUNT_OPCODE
    ;

/// The text spelling, e.g. "get-tuple-element".
absl::string_view HloOpcodeString(HloOpcode opcode);
/// Parses a text spelling; nullopt if it is not an opcode.
std::optional<HloOpcode> StringToHloOpcode(absl::string_view text);
/// Fixed operand count, or kVariadic.
int HloOpcodeArity(HloOpcode opcode);
/// The opcode's family (shape rule and evaluator function).
OpcodeFamily HloOpcodeFamily(HloOpcode opcode);

/// Instructions that only name buffers other instructions wrote (or
/// nothing): parameter, constant, tuple, get-tuple-element, bitcast,
/// opt-barrier, add-dependency, domain, after-all. Backends emit no code
/// for them.
bool OnlyNamesBuffers(HloOpcode opcode);

/// Element-wise ops whose result element depends only on the operands'
/// elements at the same index (unary, binary, ternary math; convert; ...).
bool IsElementwiseOpcode(HloOpcode opcode);
bool IsElementwiseUnary(HloOpcode opcode);
bool IsElementwiseBinary(HloOpcode opcode);
/// The async family (-start/-update/-done of any kind).
bool IsAsyncOpcode(HloOpcode opcode);
/// How many computations an instruction of this opcode calls: 2 for while
/// and select-and-scatter, 1 for fusion, call, map, reduce, reduce-window,
/// sort, scatter, scan, the reducing collectives and async ops, 0 for the
/// rest. Conditional (one per branch) and custom-call (any) return -1.
/// Counted from the opcode's row in opcode_schema.cc.
int HloOpcodeCalledComputationCount(HloOpcode opcode);
/// all-reduce, all-gather, ... including their -start forms.
bool IsCollectiveOpcode(HloOpcode opcode);

}  // namespace xlite

#endif  // XLITE_HLO_IR_OPCODE_H_
