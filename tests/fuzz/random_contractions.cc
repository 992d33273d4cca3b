// Dot and convolution for the random module generator: dots over any
// split of an operand's dimensions into batch, contracting and free ones
// (in any order on either side), small convolutions with 0-2 spatial
// dimensions, any dim_labels permutation, padding (negative too),
// strides, dilations and feature or batch groups.

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tests/fuzz/random_module_internal.h"

namespace xlite::fuzz {
namespace {

using T = PrimitiveType;

// A wider result type now and then, as JAX writes for narrow inputs.
PrimitiveType ResultType(ChoiceSource& ch, PrimitiveType operand) {
  if (IsNarrowFloat(operand) && ch.Chance(30)) return T::kF32;
  if (operand == T::kS8 && ch.Chance(30)) return T::kS32;
  return operand;
}

}  // namespace

bool Generator::Dot(Comp& c) {
  const Value x = AnyOf(c, kIntClass | kFloatClass | kComplexClass);
  const int64_t r = x.shape.rank();
  std::vector<int64_t> batch, contracting, lhs_free;
  for (int64_t d = 0; d < r; ++d) {
    switch (ch_.Weighted({2, 3, 3})) {
      case 0:
        batch.push_back(d);
        break;
      case 1:
        contracting.push_back(d);
        break;
      default:
        lhs_free.push_back(d);
    }
  }
  // The pairing of lhs and rhs dimensions follows the lists' order.
  std::vector<int64_t> order = Permutation(ch_, batch.size());
  std::vector<int64_t> b2, c2;
  for (int64_t i : order) b2.push_back(batch[i]);
  order = Permutation(ch_, contracting.size());
  for (int64_t i : order) c2.push_back(contracting[i]);
  batch = b2;
  contracting = c2;
  const int64_t max_free = 4 - static_cast<int64_t>(batch.size() +
                                                    contracting.size());
  const int64_t rhs_free = ch_.Range(0, std::min<int64_t>(2, max_free));
  // rhs dimensions in "batch, contracting, free" order, then placed at
  // random positions.
  std::vector<int64_t> logical;
  for (int64_t d : batch) logical.push_back(x.shape.dims[d]);
  for (int64_t d : contracting) logical.push_back(x.shape.dims[d]);
  for (int64_t i = 0; i < rhs_free; ++i) logical.push_back(RandomDimSize());
  const std::vector<int64_t> place = Permutation(ch_, logical.size());
  std::vector<int64_t> rhs_dims(logical.size());
  for (size_t i = 0; i < logical.size(); ++i) rhs_dims[place[i]] = logical[i];
  std::vector<int64_t> rhs_batch, rhs_contracting, rhs_free_dims;
  for (size_t i = 0; i < logical.size(); ++i) {
    if (i < batch.size()) {
      rhs_batch.push_back(place[i]);
    } else if (i < batch.size() + contracting.size()) {
      rhs_contracting.push_back(place[i]);
    }
  }
  std::vector<int64_t> out;
  for (int64_t d : batch) out.push_back(x.shape.dims[d]);
  for (int64_t d : lhs_free) out.push_back(x.shape.dims[d]);
  for (int64_t p = 0; p < static_cast<int64_t>(rhs_dims.size()); ++p) {
    if (!std::count(rhs_batch.begin(), rhs_batch.end(), p) &&
        !std::count(rhs_contracting.begin(), rhs_contracting.end(), p)) {
      out.push_back(rhs_dims[p]);
    }
  }
  int64_t depth = 1;
  for (int64_t d : contracting) depth *= x.shape.dims[d];
  if (Product(out) > options_.max_elements || depth > 64 ||
      Product(rhs_dims) > options_.max_elements) {
    return false;
  }
  const Value y = Get(c, x.shape.type, rhs_dims);
  Use(c, x);
  Use(c, y);
  std::string rhs = absl::StrCat("dot(", x.name, ", ", y.name, ")");
  auto attribute = [&](const char* name, const std::vector<int64_t>& dims) {
    if (!dims.empty()) absl::StrAppend(&rhs, ", ", name, "=", ListText(dims));
  };
  attribute("lhs_batch_dims", batch);
  attribute("lhs_contracting_dims", contracting);
  attribute("rhs_batch_dims", rhs_batch);
  attribute("rhs_contracting_dims", rhs_contracting);
  Emit(c, WithLayout(ResultType(ch_, x.shape.type), out), rhs);
  return true;
}

bool Generator::Convolution(Comp& c) {
  const int64_t spatial = ch_.Chance(10) ? 0 : ch_.Range(1, 2);
  // Finite operands of types with a zero: the interpreter multiplies
  // padding and dilation holes as zeros (0 * inf = NaN) where XLA:CPU
  // skips them — a known difference of the evaluator, not tested here.
  PrimitiveType type = RandomType(kFloatClass | kSignedClass);
  if (type == T::kF8E8M0FNU) type = T::kF32;
  const int64_t groups = ch_.Chance(20) ? ch_.Range(2, 3) : 1;
  const int64_t batch_groups =
      groups == 1 && ch_.Chance(15) ? ch_.Range(2, 3) : 1;
  const int64_t group_in = ch_.Range(1, 3);
  const int64_t in_features = groups * group_in;
  const int64_t out_features = groups * batch_groups * ch_.Range(1, 2);
  const int64_t batch = batch_groups * ch_.Range(1, 2);
  struct Spatial {
    int64_t input, window, stride, lo, hi, base, dilation, output;
  };
  std::vector<Spatial> dims;
  for (int64_t i = 0; i < spatial; ++i) {
    Spatial s;
    s.input = ch_.Range(1, 6);
    s.window = ch_.Range(1, 3);
    s.stride = ch_.Chance(30) ? 2 : 1;
    s.lo = ch_.Chance(40) ? ch_.Range(-1, 2) : 0;
    s.hi = ch_.Chance(40) ? ch_.Range(-1, 2) : 0;
    s.base = ch_.Chance(15) ? 2 : 1;
    s.dilation = ch_.Chance(15) ? 2 : 1;
    const int64_t dilated = (s.input - 1) * s.base + 1;
    const int64_t padded = dilated + s.lo + s.hi;
    const int64_t window = (s.window - 1) * s.dilation + 1;
    s.output = padded < window ? 0 : (padded - window) / s.stride + 1;
    dims.push_back(s);
  }
  // Labels: one permutation per operand of (batch/out, feature/in,
  // spatial...).
  auto labels = [&](char first, char second, std::vector<int64_t>* sizes,
                    int64_t a, int64_t b, auto spatial_size) {
    const std::vector<int64_t> perm = Permutation(ch_, spatial + 2);
    std::string text(spatial + 2, ' ');
    sizes->assign(spatial + 2, 0);
    for (int64_t i = 0; i < spatial + 2; ++i) {
      const int64_t role = perm[i];
      if (role == 0) {
        text[i] = first;
        (*sizes)[i] = a;
      } else if (role == 1) {
        text[i] = second;
        (*sizes)[i] = b;
      } else {
        text[i] = static_cast<char>('0' + role - 2);
        (*sizes)[i] = spatial_size(dims[role - 2]);
      }
    }
    return text;
  };
  std::vector<int64_t> lhs_dims, rhs_dims, out_dims;
  const std::string lhs_labels =
      labels('b', 'f', &lhs_dims, batch, in_features,
             [](const Spatial& s) { return s.input; });
  const std::string rhs_labels =
      labels('o', 'i', &rhs_dims, out_features, group_in,
             [](const Spatial& s) { return s.window; });
  const std::string out_labels =
      labels('b', 'f', &out_dims, batch / batch_groups, out_features,
             [](const Spatial& s) { return s.output; });
  if (Product(lhs_dims) > options_.max_elements ||
      Product(out_dims) > options_.max_elements) {
    return false;
  }
  const Value lhs = FiniteValue(c, type, lhs_dims);
  const Value rhs = FiniteValue(c, type, rhs_dims);
  Use(c, lhs);
  Use(c, rhs);
  std::string text =
      absl::StrCat("convolution(", lhs.name, ", ", rhs.name, ")");
  if (spatial > 0) {
    std::vector<std::string> size, stride, pad, base, dilation;
    for (const Spatial& s : dims) {
      size.push_back(absl::StrCat(s.window));
      stride.push_back(absl::StrCat(s.stride));
      pad.push_back(absl::StrCat(s.lo, "_", s.hi));
      base.push_back(absl::StrCat(s.base));
      dilation.push_back(absl::StrCat(s.dilation));
    }
    absl::StrAppend(&text, ", window={size=", absl::StrJoin(size, "x"),
                    " stride=", absl::StrJoin(stride, "x"),
                    " pad=", absl::StrJoin(pad, "x"),
                    " lhs_dilate=", absl::StrJoin(base, "x"),
                    " rhs_dilate=", absl::StrJoin(dilation, "x"), "}");
  }
  absl::StrAppend(&text, ", dim_labels=", lhs_labels, "_", rhs_labels, "->",
                  out_labels);
  if (groups > 1) absl::StrAppend(&text, ", feature_group_count=", groups);
  if (batch_groups > 1) {
    absl::StrAppend(&text, ", batch_group_count=", batch_groups);
  }
  Emit(c, WithLayout(ResultType(ch_, type), out_dims), text);
  return true;
}

}  // namespace xlite::fuzz
