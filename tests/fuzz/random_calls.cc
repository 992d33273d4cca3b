// Called computations for the random module generator: bodies of calls,
// conditional branches, while loops (bounded trip counts) and fusions,
// and the instructions that call them; rng-bit-generator, whose tuple
// result is unpacked like theirs. (Reducers, comparators and scalar
// functions: random_reducers.cc.)

#include <algorithm>

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

}  // namespace

std::string Generator::Body(const std::vector<ArrayShape>& params, bool tuple,
                            const std::vector<ArrayShape>& results,
                            bool tuple_result, int depth, bool count_first) {
  Comp b;
  b.name = absl::StrCat("body.", next_computation_++);
  b.depth = depth;
  std::vector<Value> in;
  if (tuple) {
    in = AddTupleParameter(b, params);
  } else {
    for (const ArrayShape& p : params) in.push_back(AddParameter(b, p));
  }
  for (int64_t k = ch_.Range(0, 3); k > 0; --k) Step(b);
  std::vector<std::string> outs;
  for (size_t i = 0; i < results.size(); ++i) {
    if (count_first && i == 0) {
      const Value one = ScalarConstant(b, T::kS32, "1");
      outs.push_back(Emit(b, Scalar(T::kS32),
                          absl::StrCat("add(", in[0].name, ", ", one.name,
                                       ")"))
                         .name);
      continue;
    }
    const ArrayShape& want = results[i];
    std::vector<size_t> exact;
    for (size_t j = 0; j < b.pool.size(); ++j) {
      if (b.pool[j].shape.type == want.type &&
          b.pool[j].shape.dims == want.dims) {
        exact.push_back(j);
      }
    }
    Value v = !exact.empty() && ch_.Chance(60)
                  ? b.pool[ch_.Pick(exact)]
                  : Coerce(b, Any(b), want.type, want.dims);
    // The result's declared shape is the caller's, layout included.
    if (ShapeText(v.shape) != ShapeText(want)) {
      v = Emit(b, want, absl::StrCat("copy(", v.name, ")"), Of(v));
    }
    outs.push_back(v.name);
  }
  std::string root = outs[0];
  if (tuple_result || results.size() > 1) {
    std::vector<std::string> shapes;
    for (const ArrayShape& s : results) shapes.push_back(ShapeText(s));
    root = EmitRaw(b, absl::StrCat("(", absl::StrJoin(shapes, ", "), ")"),
                   absl::StrCat("tuple(", absl::StrJoin(outs, ", "), ")"));
  }
  return Finish(b, root);
}

bool Generator::While(Comp& c) {
  std::vector<ArrayShape> shapes = {Scalar(T::kS32)};
  std::vector<std::string> init = {ScalarConstant(c, T::kS32, "0").name};
  for (int64_t k = ch_.Range(1, 2); k > 0; --k) {
    const Value v = Any(c);
    Use(c, v);
    shapes.push_back(v.shape);
    init.push_back(v.name);
  }
  std::vector<std::string> texts;
  for (const ArrayShape& s : shapes) texts.push_back(ShapeText(s));
  const std::string tuple_shape =
      absl::StrCat("(", absl::StrJoin(texts, ", "), ")");
  const std::string state = EmitRaw(
      c, tuple_shape, absl::StrCat("tuple(", absl::StrJoin(init, ", "), ")"));
  // The condition: counter < trip count.
  Comp cond = NewComputation("condition", c);
  const std::vector<Value> p = AddTupleParameter(cond, shapes);
  const Value limit =
      ScalarConstant(cond, T::kS32, absl::StrCat(ch_.Range(0, 4)));
  const Value go = Emit(cond, Scalar(T::kPred),
                        absl::StrCat("compare(", p[0].name, ", ", limit.name,
                                     "), direction=LT"));
  const std::string condition = Finish(cond, go.name);
  const std::string body =
      Body(shapes, true, shapes, true, c.depth + 1, /*count_first=*/true);
  EmitResults(c, shapes, true,
              absl::StrCat("while(", state, "), condition=", condition,
                           ", body=", body),
              false);
  return true;
}

bool Generator::Conditional(Comp& c) {
  std::vector<ArrayShape> results;
  for (int64_t k = ch_.Chance(30) ? 2 : 1; k > 0; --k) {
    results.push_back(
        WithLayout(RandomType(kAnyClass),
                   ch_.Chance(50) ? Any(c).shape.dims : RandomDims(0, 3)));
  }
  const bool tuple = results.size() > 1 || ch_.Chance(20);
  const bool by_pred = ch_.Chance(50);
  const int64_t branches = by_pred ? 2 : ch_.Range(1, 3);
  const Value selector = by_pred ? Get(c, T::kPred, {})
                                 : IndexScalar(c, T::kS32);
  Use(c, selector);
  std::vector<std::string> operands = {selector.name};
  std::vector<std::string> computations;
  for (int64_t i = 0; i < branches; ++i) {
    const Value v = Any(c);
    Use(c, v);
    operands.push_back(v.name);
    computations.push_back(
        Body({v.shape}, false, results, tuple, c.depth + 1));
  }
  std::string rhs =
      absl::StrCat("conditional(", absl::StrJoin(operands, ", "), "), ");
  if (by_pred) {
    absl::StrAppend(&rhs, "true_computation=", computations[0],
                    ", false_computation=", computations[1]);
  } else {
    absl::StrAppend(&rhs, "branch_computations={",
                    absl::StrJoin(computations, ", "), "}");
  }
  EmitResults(c, results, tuple, rhs, false);
  return true;
}

bool Generator::Call(Comp& c) {
  std::vector<ArrayShape> params;
  std::vector<std::string> operands;
  for (int64_t k = ch_.Range(1, 3); k > 0; --k) {
    const Value v = Any(c);
    Use(c, v);
    params.push_back(v.shape);
    operands.push_back(v.name);
  }
  std::vector<ArrayShape> results = {
      WithLayout(RandomType(kAnyClass), ch_.Chance(50) ? params[0].dims
                                                       : RandomDims(0, 3))};
  if (ch_.Chance(20)) results.push_back(params.back());
  const bool tuple = results.size() > 1 || ch_.Chance(10);
  const std::string callee = Body(params, false, results, tuple, c.depth + 1);
  EmitResults(c, results, tuple,
              absl::StrCat("call(", absl::StrJoin(operands, ", "),
                           "), to_apply=", callee),
              false);
  return true;
}

bool Generator::Fusion(Comp& c) {
  std::vector<Value> operands;
  for (int64_t k = ch_.Range(1, 3); k > 0; --k) {
    const Value v = Any(c);
    bool seen = false;
    for (const Value& o : operands) seen |= o.name == v.name;
    if (!seen) operands.push_back(v);
  }
  Comp f = NewComputation("fused_computation", c);
  f.fused = true;
  for (const Value& v : operands) AddParameter(f, v.shape);
  for (int64_t k = ch_.Range(1, 4); k > 0; --k) Step(f);
  const bool input_fusion = ch_.Chance(30);
  std::vector<ArrayShape> results;
  std::string root;
  if (input_fusion) {
    const Value x = Any(f);
    root = EmitReduce(f, {x}, Subset(ch_, x.shape.rank()), &results);
  } else {
    const Value x = f.pool.back();
    results.push_back(x.shape);
    root = x.name;
    if (ch_.Chance(15) && f.pool.size() > 1) {
      // A multi-output loop fusion.
      const Value y = f.pool[ch_.Below(f.pool.size() - 1)];
      results.push_back(y.shape);
      root = EmitRaw(f,
                     absl::StrCat("(", ShapeText(x.shape), ", ",
                                  ShapeText(y.shape), ")"),
                     absl::StrCat("tuple(", x.name, ", ", y.name, ")"));
    }
  }
  const std::string fused = Finish(f, root);
  std::vector<std::string> names;
  for (const Value& v : operands) {
    Use(c, v);
    names.push_back(v.name);
  }
  EmitResults(c, results, false,
              absl::StrCat("fusion(", absl::StrJoin(names, ", "), "), kind=",
                           input_fusion ? "kInput" : "kLoop",
                           ", calls=", fused),
              false);
  return true;
}

bool Generator::RngBitGenerator(Comp& c) {
  const int algorithm = ch_.Weighted({1, 1, 1});
  const int64_t state_size = algorithm == 0 ? 2 : ch_.Range(2, 3);
  const Value state = Get(c, T::kU64, {state_size});
  const PrimitiveType type =
      ch_.Pick(std::vector<PrimitiveType>{T::kU32, T::kU64, T::kU8, T::kU16});
  Use(c, state);
  EmitResults(c,
              {WithLayout(T::kU64, {state_size}),
               WithLayout(type, RandomDims(0, 3))},
              true,
              absl::StrCat("rng-bit-generator(", state.name, "), algorithm=",
                           algorithm == 0   ? "rng_three_fry"
                           : algorithm == 1 ? "rng_philox"
                                            : "rng_default"),
              true);
  return true;
}

}  // namespace xlite::fuzz
