#ifndef XLITE_TESTS_FUZZ_RANDOM_MODULE_INTERNAL_H_
#define XLITE_TESTS_FUZZ_RANDOM_MODULE_INTERNAL_H_

// The random module generator's pieces, shared by its files: the shapes
// and values it tracks, the computations it writes as text, and the
// Generator whose opcode families live in random_*.cc.

#include <cstdint>
#include <string>
#include <vector>

#include "hlo/ir/primitive_type.h"
#include "tests/fuzz/choice_source.h"
#include "tests/fuzz/random_module.h"

namespace xlite::fuzz {

/// Element type classes, as bit masks (an opcode's accepted types).
enum TypeClass : unsigned {
  kPredClass = 1,
  kSignedClass = 2,
  kUnsignedClass = 4,
  kFloatClass = 8,
  kComplexClass = 16,
  kIntClass = kSignedClass | kUnsignedClass,
  kNumericClass = kIntClass | kFloatClass | kComplexClass,
  kAnyClass = kPredClass | kNumericClass,
};
unsigned ClassOf(PrimitiveType type);
inline bool InClass(PrimitiveType type, unsigned classes) {
  return (ClassOf(type) & classes) != 0;
}

/// An array shape as the generator tracks it.
struct ArrayShape {
  PrimitiveType type = PrimitiveType::kF32;
  std::vector<int64_t> dims;
  std::vector<int64_t> minor_to_major;  // empty: the default layout

  int64_t rank() const { return static_cast<int64_t>(dims.size()); }
  int64_t elements() const;
};

std::string TypeText(PrimitiveType type);
/// "f32[2,3]{0,1}" (the layout only when it is not the default).
std::string ShapeText(const ArrayShape& shape);
/// "{0,1}".
std::string ListText(const std::vector<int64_t>& values);
int64_t Product(const std::vector<int64_t>& dims);
/// "0" in `type` (false, (0, 0); 1 for f8e8m0fnu, which has no zero).
std::string ZeroLiteral(PrimitiveType type);
/// A random permutation of 0..n-1.
std::vector<int64_t> Permutation(ChoiceSource& ch, int64_t n);
/// A sorted random subset of 0..n-1 (each element with probability 1/2).
std::vector<int64_t> Subset(ChoiceSource& ch, int64_t n);

/// What is known of a value's elements (see Value).
struct Traits {
  bool clean = false;
  bool finite = false;
  Traits() = default;
  Traits(bool is_clean) : clean(is_clean) {}  // NOLINT: clean alone
  Traits(bool is_clean, bool is_finite)
      : clean(is_clean), finite(is_finite) {}
  Traits operator&(Traits o) const {
    return {clean && o.clean, finite && o.finite};
  }
};

/// An array value an instruction may use as an operand.
struct Value {
  std::string name;  // "%v3"
  ArrayShape shape;
  /// No element is a NaN whose sign or payload another implementation
  /// could compute differently (parameters, iotas, NaN-free constants,
  /// non-floats and data movement over those): only such values may be
  /// bitcast or compared in total order.
  bool clean = false;
  /// No NaN or infinity at all (parameters, finite constants, data
  /// movement over those): convolution operands, whose padding the
  /// interpreter multiplies as zeros (see random_contractions.cc).
  bool finite = false;
};
inline Traits Of(const Value& v) { return {v.clean, v.finite}; }
/// An iota's traits (clean; finite but in f8e8m0fnu).
Traits IotaTraits(PrimitiveType type);
/// The traits of `from` converted to `to`.
Traits ConvertTraits(const Value& from, PrimitiveType to);

/// A computation being written.
struct Comp {
  std::string name;
  bool is_entry = false;
  /// A fused computation: elementwise and data movement only.
  bool fused = false;
  /// A scalar function (reducer, comparator, map): elementwise only.
  bool scalar_only = false;
  int depth = 0;  // called computations nest one deeper than their caller
  int parameters = 0;
  std::vector<std::string> signature;  // "p0: f32[2]" per parameter
  std::vector<std::string> lines;
  std::vector<Value> pool;  // operand candidates
  std::vector<int> uses;    // per pool value
};

class Generator {
 public:
  Generator(ChoiceSource& choices, const RandomModuleOptions& options)
      : ch_(choices), options_(options) {}

  /// The module text.
  std::string Generate();

  // --- random types, shapes, literals (random_module.cc)
  ChoiceSource& ch() { return ch_; }
  const RandomModuleOptions& options() const { return options_; }
  PrimitiveType RandomType(unsigned classes);
  /// Dimensions of rank in [min_rank, max_rank] with at most `max_elements`.
  std::vector<int64_t> RandomDims(int64_t min_rank, int64_t max_rank);
  int64_t RandomDimSize();
  /// A layout for `rank` dimensions: usually the default, sometimes a
  /// random permutation.
  std::vector<int64_t> RandomLayout(int64_t rank);
  ArrayShape WithLayout(PrimitiveType type, std::vector<int64_t> dims);
  /// A scalar literal of `type` as HLO text: ordinary and edge values
  /// (signed extremes, -0, NaN and infinities where the type has them).
  /// `*nan` says whether it is a NaN.
  std::string ScalarLiteral(PrimitiveType type, bool* nan);

  // --- writing (random_module.cc)
  std::string NewName(const std::string& hint);
  /// Appends `%name = shape rhs`; adds the array value to the pool.
  Value Emit(Comp& c, const ArrayShape& shape, const std::string& rhs,
             Traits traits = {});
  /// Appends an instruction of any (tuple) shape; returns its name.
  std::string EmitRaw(Comp& c, const std::string& shape_text,
                      const std::string& rhs);
  /// Element i of a tuple-shaped instruction, as a pool value.
  Value GetTupleElement(Comp& c, const std::string& tuple,
                        const ArrayShape& shape, int64_t index, Traits traits);
  Value AddParameter(Comp& c, const ArrayShape& shape);
  /// Marks a value used (roots prefer unused values).
  void Use(Comp& c, const Value& v);
  /// Closes `c` with `root` (an instruction name) and records its text;
  /// returns its name.
  std::string Finish(Comp& c, const std::string& root);

  // --- operands (random_module.cc)
  /// Any pool value (recent ones more likely); a new leaf when the pool
  /// is empty.
  Value Any(Comp& c);
  /// A value of one of `classes` (converting one from the pool if need be).
  Value AnyOf(Comp& c, unsigned classes);
  /// A value of exactly this type and these dimensions: from the pool, a
  /// conversion or reshaping of a pool value, or a new leaf.
  Value Get(Comp& c, PrimitiveType type, const std::vector<int64_t>& dims);
  /// `v` converted and reshaped (flatten, slice or pad, reshape) to
  /// `type[dims]`.
  Value Coerce(Comp& c, const Value& v, PrimitiveType type,
               const std::vector<int64_t>& dims);
  /// A parameter (entry only), constant or iota of `shape`.
  Value NewLeaf(Comp& c, const ArrayShape& shape);
  Value Constant(Comp& c, const ArrayShape& shape);
  Value ScalarConstant(Comp& c, PrimitiveType type, const std::string& text);
  /// An integer scalar for dynamic-slice starts and conditional indices:
  /// a pool value, a parameter or an edge-case constant.
  Value IndexScalar(Comp& c, PrimitiveType type);
  /// A value without NaN or infinity of this type and these dimensions:
  /// from the pool, or a parameter or finite constant.
  Value FiniteValue(Comp& c, PrimitiveType type,
                    const std::vector<int64_t>& dims);

  // --- called computations (random_calls.cc)
  /// A reducer over N types: (a_0..a_N-1, b_0..b_N-1) -> N values; sets
  /// `identities` to its identity per type ("" where any init will do:
  /// arbitrary reducers, random_reducers.cc).
  std::string Reducer(const std::vector<PrimitiveType>& types,
                      std::vector<std::string>* identities);
  /// Init values: the identities where given, else any scalars.
  std::vector<Value> InitValues(Comp& c, const std::vector<PrimitiveType>& types,
                                const std::vector<std::string>& identities);
  /// A strict weak order over the scalars of N operands, keyed on
  /// operand `key` (clean floats compare in total order).
  std::string Comparator(const std::vector<PrimitiveType>& types, int key,
                         bool greater);
  /// A random scalar function of `params` returning `result`.
  std::string ScalarFunction(const std::vector<PrimitiveType>& params,
                             PrimitiveType result);
  /// A computation taking `params` (as one tuple parameter when `tuple`)
  /// and returning `results` (a tuple when `tuple_result` or more than
  /// one), after a few random instructions.
  /// With `count_first`, parameter and result 0 are an s32 loop
  /// counter that the body increments.
  std::string Body(const std::vector<ArrayShape>& params, bool tuple,
                   const std::vector<ArrayShape>& results, bool tuple_result,
                   int depth, bool count_first = false);
  /// A new computation named after `hint`, one level below `caller`.
  Comp NewComputation(const std::string& hint, const Comp& caller);
  /// Declares a tuple parameter and adds its elements to the pool.
  std::vector<Value> AddTupleParameter(Comp& c,
                                       const std::vector<ArrayShape>& shapes);
  /// Writes reduce(inputs..., inits...) over `dims` with a random reducer;
  /// returns its name and sets `*shapes` to its result arrays.
  std::string EmitReduce(Comp& c, const std::vector<Value>& inputs,
                         const std::vector<int64_t>& dims,
                         std::vector<ArrayShape>* shapes);
  /// Writes an instruction returning `shapes`: one array (added to the
  /// pool) or, when `tuple` or several, a tuple whose elements are
  /// extracted into the pool. Returns the instruction's name.
  std::string EmitResults(Comp& c, const std::vector<ArrayShape>& shapes,
                          bool tuple, const std::string& rhs, Traits traits);

  // --- the opcode families; each returns false when it does not apply.
  // random_elementwise.cc
  bool Unary(Comp& c);
  bool Binary(Comp& c);
  bool Compare(Comp& c);
  bool Select(Comp& c);
  bool Clamp(Comp& c);
  bool Convert(Comp& c);
  bool BitcastConvert(Comp& c);
  bool ReducePrecision(Comp& c);
  bool Iota(Comp& c);
  bool MakeConstant(Comp& c);
  // random_data_movement.cc
  bool Broadcast(Comp& c);
  bool Reshape(Comp& c);
  std::optional<Value> TileSizedOperand(Comp& c);
  bool Transpose(Comp& c);
  bool Slice(Comp& c);
  bool DynamicSlice(Comp& c);
  bool DynamicUpdateSlice(Comp& c);
  bool Pad(Comp& c);
  bool Concatenate(Comp& c);
  bool Reverse(Comp& c);
  bool Copy(Comp& c);
  bool TupleRoundTrip(Comp& c);
  // random_gather_scatter.cc
  bool Gather(Comp& c);
  bool Scatter(Comp& c);
  // random_reductions.cc
  bool Reduce(Comp& c);
  bool ReduceWindow(Comp& c);
  bool Sort(Comp& c);
  bool TopK(Comp& c);
  bool Map(Comp& c);
  // random_contractions.cc
  bool Dot(Comp& c);
  bool Convolution(Comp& c);
  // random_dot_fusions.cc: one dot with operand producers, an epilogue and
  // maybe a second user (RandomModuleOptions::dot_fusions).
  bool DotFusion(Comp& c);
  // random_calls.cc
  bool While(Comp& c);
  bool Conditional(Comp& c);
  bool Call(Comp& c);
  bool Fusion(Comp& c);
  bool RngBitGenerator(Comp& c);

  /// One random instruction (family chosen by weight; fused computations
  /// and deep nesting draw from fewer families).
  void Step(Comp& c);

 private:
  ChoiceSource& ch_;
  RandomModuleOptions options_;
  int next_name_ = 0;
  int next_computation_ = 0;
  std::vector<std::string> computations_;  // finished, callees first
};

}  // namespace xlite::fuzz

#endif  // XLITE_TESTS_FUZZ_RANDOM_MODULE_INTERNAL_H_
