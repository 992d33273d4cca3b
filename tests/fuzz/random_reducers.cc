// Scalar computations for the random module generator: reducers (for
// reduce, reduce-window and scatter), sort comparators and map functions.
//
// XLA defines a reduction only for a monoid: an associative reducer and
// an init value that is its identity (jax.lax.reduce: "if either is
// violated the result is undefined"; XLA's passes and its scan rewriter
// rely on it). By default the reducers are monoids — add, multiply,
// maximum, minimum, and, or, xor, element-wise tuples of those, arg-max
// with ties to the lower index — and come with their identities. With
// RandomModuleOptions::arbitrary_reducers they may be anything (subtract,
// select, random expressions) with any init: that probes xlite's
// stricter promise that the cpu backend reduces in the interpreter's
// (XLA:CPU's) order, which XLA itself does not make.

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tests/fuzz/random_module_internal.h"

namespace xlite::fuzz {
namespace {

using T = PrimitiveType;

ArrayShape Scalar(PrimitiveType type) {
  ArrayShape s;
  s.type = type;
  return s;
}

// The largest finite value of the float types without infinities.
std::string LargestFinite(PrimitiveType t) {
  switch (t) {
    case T::kF8E4M3FN:
      return "448";
    case T::kF8E4M3FNUZ:
      return "240";
    case T::kF8E4M3B11FNUZ:
      return "30";
    case T::kF8E5M2FNUZ:
      return "57344";
    case T::kF4E2M1FN:
      return "6";
    default:
      return "";
  }
}

// The identity of `op` on `type` as a literal ("" when there is none).
std::string Identity(const std::string& op, PrimitiveType type) {
  if (type == T::kPred) {
    return op == "and" || op == "minimum" ? "true" : "false";
  }
  if (IsComplex(type)) return op == "multiply" ? "(1, 0)" : "(0, 0)";
  if (op == "add" || op == "or" || op == "xor") {
    return type == T::kF8E8M0FNU ? "" : "0";
  }
  if (op == "multiply") return type == T::kS1 ? "" : "1";  // s1 has no 1
  if (IsInteger(type)) {
    const int bits = BitWidth(type);
    const bool is_signed = IsSignedInteger(type);
    const std::string max =
        bits >= 64 ? (is_signed ? "9223372036854775807"
                                : "18446744073709551615")
                   : absl::StrCat(is_signed ? (int64_t{1} << (bits - 1)) - 1
                                            : (int64_t{1} << bits) - 1);
    const std::string min =
        !is_signed   ? "0"
        : bits >= 64 ? "-9223372036854775808"
                     : absl::StrCat(-(int64_t{1} << (bits - 1)));
    if (op == "and") return is_signed ? "-1" : max;  // all bits set
    return op == "maximum" ? min : max;
  }
  // Floats: maximum and minimum.
  if (type == T::kF8E8M0FNU) return "";
  if (HasInfinity(type)) return op == "maximum" ? "-inf" : "inf";
  const std::string largest = LargestFinite(type);
  if (largest.empty()) return "";
  return op == "maximum" ? "-" + largest : largest;
}

// The monoid combiners of `type`, each with an identity.
std::vector<std::string> MonoidOps(PrimitiveType type) {
  std::vector<std::string> ops;
  for (const char* op : {"add", "multiply", "maximum", "minimum", "and",
                         "or", "xor"}) {
    const std::string o = op;
    const bool bitwise = o == "and" || o == "or" || o == "xor";
    if (bitwise && !InClass(type, kPredClass | kIntClass)) continue;
    if (!bitwise && type == T::kPred && o != "maximum" && o != "minimum") {
      continue;
    }
    if (IsComplex(type) && o != "add" && o != "multiply") continue;
    if (!Identity(o, type).empty()) ops.push_back(o);
  }
  if (ops.empty()) ops.push_back("multiply");
  // Sums most often.
  if (ops[0] == "add") ops.push_back("add");
  return ops;
}

// Any binary combiner (arbitrary mode).
std::string AnyCombiner(ChoiceSource& ch, PrimitiveType type) {
  if (type == T::kPred) {
    return ch.Pick(std::vector<std::string>{"and", "or", "xor", "maximum",
                                            "minimum"});
  }
  if (IsComplex(type)) {
    return ch.Pick(std::vector<std::string>{"add", "multiply", "subtract"});
  }
  std::vector<std::string> ops = {"add", "add", "multiply", "maximum",
                                  "minimum", "subtract"};
  if (IsInteger(type)) ops.insert(ops.end(), {"and", "or", "xor"});
  return ch.Pick(ops);
}

}  // namespace

std::string Generator::Reducer(const std::vector<PrimitiveType>& types,
                               std::vector<std::string>* identities) {
  Comp r;
  r.name = absl::StrCat("reducer.", next_computation_++);
  r.scalar_only = true;
  r.depth = options_.max_depth;
  const size_t n = types.size();
  identities->assign(n, "");
  std::vector<Value> acc, x;
  for (PrimitiveType t : types) acc.push_back(AddParameter(r, Scalar(t)));
  for (PrimitiveType t : types) x.push_back(AddParameter(r, Scalar(t)));
  std::vector<std::string> outs;
  const bool arbitrary = options_.arbitrary_reducers;
  // Arg-max needs two inputs, ordered ones; a monoid only over integers.
  const bool arg_max =
      n == 2 && !IsComplex(types[0]) && !IsComplex(types[1]) &&
      (arbitrary || (IsInteger(types[0]) && IsInteger(types[1])));
  const int style = ch_.Weighted({6, arg_max ? 2 : 0, arbitrary ? 2 : 0});
  if (style == 1) {
    // Arg-max/min: the first inputs decide; ties go to the smaller second
    // input (an index), which keeps it associative and commutative.
    const bool max = ch_.Chance(50);
    const Value wins = Emit(
        r, Scalar(T::kPred),
        absl::StrCat("compare(", acc[0].name, ", ", x[0].name,
                     "), direction=", max ? "GT" : "LT"));
    const Value tie = Emit(r, Scalar(T::kPred),
                           absl::StrCat("compare(", acc[0].name, ", ",
                                        x[0].name, "), direction=EQ"));
    const Value lower = Emit(r, Scalar(T::kPred),
                             absl::StrCat("compare(", acc[1].name, ", ",
                                          x[1].name, "), direction=LT"));
    const Value tie_lower = Emit(
        r, Scalar(T::kPred),
        absl::StrCat("and(", tie.name, ", ", lower.name, ")"));
    const Value pick = Emit(
        r, Scalar(T::kPred),
        absl::StrCat("or(", wins.name, ", ", tie_lower.name, ")"));
    for (size_t i = 0; i < n; ++i) {
      outs.push_back(Emit(r, Scalar(types[i]),
                          absl::StrCat("select(", pick.name, ", ",
                                       acc[i].name, ", ", x[i].name, ")"))
                         .name);
    }
    (*identities)[0] = Identity(max ? "maximum" : "minimum", types[0]);
    (*identities)[1] = Identity("minimum", types[1]);
    if (arbitrary) identities->assign(n, "");
  } else if (style == 2) {
    // Anything at all: a few random scalar operations.
    for (int64_t k = ch_.Range(1, 4); k > 0; --k) Step(r);
    for (size_t i = 0; i < n; ++i) {
      outs.push_back(Coerce(r, Any(r), types[i], {}).name);
    }
  } else {
    for (size_t i = 0; i < n; ++i) {
      const std::string op = arbitrary ? AnyCombiner(ch_, types[i])
                                       : ch_.Pick(MonoidOps(types[i]));
      if (!arbitrary) (*identities)[i] = Identity(op, types[i]);
      outs.push_back(Emit(r, Scalar(types[i]),
                          absl::StrCat(op, "(", acc[i].name, ", ",
                                       x[i].name, ")"))
                         .name);
    }
  }
  std::string root = outs[0];
  if (n > 1) {
    std::vector<std::string> shapes;
    for (PrimitiveType t : types) shapes.push_back(TypeText(t) + "[]");
    root = EmitRaw(r, absl::StrCat("(", absl::StrJoin(shapes, ", "), ")"),
                   absl::StrCat("tuple(", absl::StrJoin(outs, ", "), ")"));
  }
  return Finish(r, root);
}

std::vector<Value> Generator::InitValues(
    Comp& c, const std::vector<PrimitiveType>& types,
    const std::vector<std::string>& identities) {
  std::vector<Value> inits;
  for (size_t i = 0; i < types.size(); ++i) {
    inits.push_back(identities[i].empty()
                        ? Get(c, types[i], {})
                        : ScalarConstant(c, types[i], identities[i]));
  }
  return inits;
}

std::string Generator::Comparator(const std::vector<PrimitiveType>& types,
                                  int key, bool greater) {
  Comp r;
  r.name = absl::StrCat("comparator.", next_computation_++);
  r.scalar_only = true;
  std::vector<Value> params;
  for (PrimitiveType t : types) {
    params.push_back(AddParameter(r, Scalar(t)));
    params.push_back(AddParameter(r, Scalar(t)));
  }
  std::string rhs =
      absl::StrCat("compare(", params[2 * key].name, ", ",
                   params[2 * key + 1].name, "), direction=",
                   greater ? "GT" : "LT");
  if (IsFloatingPoint(types[key])) absl::StrAppend(&rhs, ", type=TOTALORDER");
  return Finish(r, Emit(r, Scalar(T::kPred), rhs).name);
}

std::string Generator::ScalarFunction(const std::vector<PrimitiveType>& params,
                                      PrimitiveType result) {
  Comp r;
  r.name = absl::StrCat("function.", next_computation_++);
  r.scalar_only = true;
  r.depth = options_.max_depth;
  for (PrimitiveType t : params) AddParameter(r, Scalar(t));
  for (int64_t k = ch_.Range(0, 3); k > 0; --k) Step(r);
  return Finish(r, Coerce(r, Any(r), result, {}).name);
}

}  // namespace xlite::fuzz
