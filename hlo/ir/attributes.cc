#include "hlo/ir/attributes.h"

#include <algorithm>
#include <numeric>

#include "absl/algorithm/container.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xlite {
namespace {

template <typename Enum, size_t N>
std::optional<Enum> FindByName(
    const std::pair<Enum, absl::string_view> (&table)[N], absl::string_view s) {
  for (const auto& [value, name] : table) {
    if (name == s) return value;
  }
  return std::nullopt;
}

template <typename Enum, size_t N>
absl::string_view NameOf(const std::pair<Enum, absl::string_view> (&table)[N],
                         Enum e) {
  for (const auto& [value, name] : table) {
    if (value == e) return name;
  }
  return "?";
}

constexpr std::pair<ComparisonDirection, absl::string_view> kDirections[] = {
    {ComparisonDirection::kEq, "EQ"}, {ComparisonDirection::kNe, "NE"},
    {ComparisonDirection::kGe, "GE"}, {ComparisonDirection::kGt, "GT"},
    {ComparisonDirection::kLe, "LE"}, {ComparisonDirection::kLt, "LT"},
};
constexpr std::pair<ComparisonType, absl::string_view> kComparisonTypes[] = {
    {ComparisonType::kFloat, "FLOAT"},
    {ComparisonType::kTotalOrder, "TOTALORDER"},
    {ComparisonType::kSigned, "SIGNED"},
    {ComparisonType::kUnsigned, "UNSIGNED"},
};
constexpr std::pair<FusionKind, absl::string_view> kFusionKinds[] = {
    {FusionKind::kLoop, "kLoop"},
    {FusionKind::kInput, "kInput"},
    {FusionKind::kOutput, "kOutput"},
    {FusionKind::kCustom, "kCustom"},
};
constexpr std::pair<FftType, absl::string_view> kFftTypes[] = {
    {FftType::kFft, "FFT"},
    {FftType::kIfft, "IFFT"},
    {FftType::kRfft, "RFFT"},
    {FftType::kIrfft, "IRFFT"},
};
constexpr std::pair<RandomDistribution, absl::string_view> kDistributions[] = {
    {RandomDistribution::kUniform, "rng_uniform"},
    {RandomDistribution::kNormal, "rng_normal"},
};
constexpr std::pair<RandomAlgorithm, absl::string_view> kAlgorithms[] = {
    {RandomAlgorithm::kDefault, "rng_default"},
    {RandomAlgorithm::kThreeFry, "rng_three_fry"},
    {RandomAlgorithm::kPhilox, "rng_philox"},
};
constexpr std::pair<Precision, absl::string_view> kPrecisions[] = {
    {Precision::kDefault, "default"},
    {Precision::kHigh, "high"},
    {Precision::kHighest, "highest"},
    {Precision::kPackedNibble, "packed_nibble"},
};
constexpr std::pair<CustomCallApiVersion, absl::string_view> kApiVersions[] = {
    {CustomCallApiVersion::kUnspecified, "API_VERSION_UNSPECIFIED"},
    {CustomCallApiVersion::kOriginal, "API_VERSION_ORIGINAL"},
    {CustomCallApiVersion::kStatusReturning, "API_VERSION_STATUS_RETURNING"},
    {CustomCallApiVersion::kStatusReturningUnified,
     "API_VERSION_STATUS_RETURNING_UNIFIED"},
    {CustomCallApiVersion::kTypedFfi, "API_VERSION_TYPED_FFI"},
};
constexpr std::pair<CustomCallSchedule, absl::string_view> kSchedules[] = {
    {CustomCallSchedule::kNone, "SCHEDULE_NONE"},
    {CustomCallSchedule::kLatest, "SCHEDULE_LATEST"},
    {CustomCallSchedule::kEarliest, "SCHEDULE_EARLIEST"},
};
constexpr std::pair<PaddingType, absl::string_view> kPaddingTypes[] = {
    {PaddingType::kInvalid, "PADDING_INVALID"},
    {PaddingType::kValid, "PADDING_VALID"},
    {PaddingType::kSame, "PADDING_SAME"},
};
constexpr std::pair<TriangularSolveTranspose, absl::string_view> kTransposes[] =
    {
        {TriangularSolveTranspose::kInvalid, "TRANSPOSE_INVALID"},
        {TriangularSolveTranspose::kNoTranspose, "NO_TRANSPOSE"},
        {TriangularSolveTranspose::kTranspose, "TRANSPOSE"},
        {TriangularSolveTranspose::kAdjoint, "ADJOINT"},
};

std::string JoinX(const std::vector<WindowDimension>& dims,
                  int64_t WindowDimension::*field) {
  return absl::StrJoin(dims, "x",
                       [field](std::string* out, const WindowDimension& d) {
                         absl::StrAppend(out, d.*field);
                       });
}

}  // namespace

std::string Window::ToString() const {
  std::string out;
  auto any = [&](auto pred) {
    return std::any_of(dimensions.begin(), dimensions.end(), pred);
  };
  absl::StrAppend(&out, "size=", JoinX(dimensions, &WindowDimension::size));
  if (any([](const WindowDimension& d) { return d.stride != 1; })) {
    absl::StrAppend(&out,
                    " stride=", JoinX(dimensions, &WindowDimension::stride));
  }
  if (any([](const WindowDimension& d) {
        return d.padding_low != 0 || d.padding_high != 0;
      })) {
    absl::StrAppend(&out, " pad=",
                    absl::StrJoin(dimensions, "x",
                                  [](std::string* o, const WindowDimension& d) {
                                    absl::StrAppend(o, d.padding_low, "_",
                                                    d.padding_high);
                                  }));
  }
  if (any([](const WindowDimension& d) { return d.base_dilation != 1; })) {
    absl::StrAppend(&out, " lhs_dilate=",
                    JoinX(dimensions, &WindowDimension::base_dilation));
  }
  if (any([](const WindowDimension& d) { return d.window_dilation != 1; })) {
    absl::StrAppend(&out, " rhs_dilate=",
                    JoinX(dimensions, &WindowDimension::window_dilation));
  }
  if (any([](const WindowDimension& d) { return d.window_reversal; })) {
    absl::StrAppend(&out, " rhs_reversal=",
                    absl::StrJoin(dimensions, "x",
                                  [](std::string* o, const WindowDimension& d) {
                                    absl::StrAppend(o,
                                                    d.window_reversal ? 1 : 0);
                                  }));
  }
  return out;
}

std::string ConvolutionDimensionNumbers::ToString() const {
  auto render = [](int64_t rank, int64_t a, char a_char, int64_t b, char b_char,
                   const std::vector<int64_t>& spatial) {
    std::string s(std::max<int64_t>(rank, 0), '?');
    auto put = [&](int64_t pos, char c) {
      if (pos >= 0 && pos < rank) s[pos] = c;
    };
    put(a, a_char);
    put(b, b_char);
    for (size_t i = 0; i < spatial.size(); ++i) {
      put(spatial[i], static_cast<char>('0' + i));
    }
    return s;
  };
  // As XLA: one label per position up to the highest one named; positions
  // no dimension names (written '?') print as '?'.
  auto rank_of = [](int64_t a, int64_t b, const std::vector<int64_t>& spatial) {
    int64_t highest = std::max(a, b);
    for (int64_t d : spatial) highest = std::max(highest, d);
    return highest + 1;
  };
  const int64_t input_rank = rank_of(
      input_batch_dimension, input_feature_dimension, input_spatial_dimensions);
  const int64_t kernel_rank =
      rank_of(kernel_input_feature_dimension, kernel_output_feature_dimension,
              kernel_spatial_dimensions);
  const int64_t output_rank =
      rank_of(output_batch_dimension, output_feature_dimension,
              output_spatial_dimensions);
  return absl::StrCat(
      render(input_rank, input_batch_dimension, 'b', input_feature_dimension,
             'f', input_spatial_dimensions),
      "_",
      render(kernel_rank, kernel_input_feature_dimension, 'i',
             kernel_output_feature_dimension, 'o', kernel_spatial_dimensions),
      "->",
      render(output_rank, output_batch_dimension, 'b', output_feature_dimension,
             'f', output_spatial_dimensions));
}

std::string PaddingConfig::ToString() const {
  const bool interior = std::any_of(
      dimensions.begin(), dimensions.end(),
      [](const PaddingDimension& d) { return d.interior_padding != 0; });
  return absl::StrJoin(
      dimensions, "x", [interior](std::string* out, const PaddingDimension& d) {
        absl::StrAppend(out, d.edge_padding_low, "_", d.edge_padding_high);
        if (interior) absl::StrAppend(out, "_", d.interior_padding);
      });
}

int64_t CheckedProduct(absl::Span<const int64_t> dims) {
  constexpr int64_t kLimit = int64_t{1} << 40;
  for (int64_t d : dims) {
    if (d < 0) return -1;
    if (d == 0) return 0;
  }
  int64_t product = 1;
  for (int64_t d : dims) {
    if (product > kLimit / d) return -1;
    product *= d;
  }
  return product;
}

absl::Status ValidateIota(const std::vector<int64_t>& reshape_dims,
                          const std::vector<int64_t>& perm, int64_t devices,
                          absl::string_view what) {
  if (reshape_dims.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": iota needs reshape dimensions"));
  }
  for (int64_t d : reshape_dims) {
    if (d < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": iota reshape dimension ", d, " is not >= 1"));
    }
  }
  const int64_t total = CheckedProduct(reshape_dims);
  if (total < 0 || total != devices) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": iota <=[", absl::StrJoin(reshape_dims, ","), "] has ",
        total < 0 ? std::string("too many") : absl::StrCat(total),
        " devices, expected ", devices));
  }
  if (!perm.empty()) {
    std::vector<bool> seen(reshape_dims.size(), false);
    bool ok = perm.size() == reshape_dims.size();
    for (int64_t p : perm) {
      ok = ok && p >= 0 && p < static_cast<int64_t>(seen.size()) && !seen[p];
      if (ok) seen[p] = true;
    }
    if (!ok) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": iota transpose T(", absl::StrJoin(perm, ","),
          ") is not a permutation of ", reshape_dims.size(), " dimensions"));
    }
  }
  return absl::OkStatus();
}

absl::Status ReplicaGroups::Validate() const {
  if (!iota) {
    for (const auto& group : groups) {
      for (int64_t id : group) {
        if (id < 0) {
          return absl::InvalidArgumentError(
              absl::StrCat("replica groups name device ", id));
        }
      }
    }
    return absl::OkStatus();
  }
  const int64_t devices = CheckedProduct({num_groups, group_size});
  if (num_groups < 1 || group_size < 1 || devices < 0) {
    return absl::InvalidArgumentError(absl::StrCat("iota replica groups [",
                                                   num_groups, ",", group_size,
                                                   "] need positive sizes"));
  }
  return ValidateIota(reshape_dims, transpose_perm, devices, "replica groups");
}

std::vector<int64_t> ExpandIota(const std::vector<int64_t>& reshape_dims,
                                const std::vector<int64_t>& perm) {
  if (!ValidateIota(reshape_dims, perm, CheckedProduct(reshape_dims), "")
           .ok()) {
    return {};
  }
  const int64_t total = CheckedProduct(reshape_dims);
  if (total > (int64_t{1} << 32)) return {};
  std::vector<int64_t> out(total);
  const size_t rank = reshape_dims.size();
  std::vector<int64_t> p = perm;
  if (p.empty()) {
    p.resize(rank);
    std::iota(p.begin(), p.end(), 0);
  }
  if (p.size() != rank) return {};
  // Transposed dims and the strides of the source for each output dim.
  std::vector<int64_t> src_strides(rank, 1);
  for (int64_t i = static_cast<int64_t>(rank) - 2; i >= 0; --i) {
    src_strides[i] = src_strides[i + 1] * reshape_dims[i + 1];
  }
  std::vector<int64_t> out_dims(rank), out_strides(rank);
  for (size_t i = 0; i < rank; ++i) {
    if (p[i] < 0 || p[i] >= static_cast<int64_t>(rank)) return {};
    out_dims[i] = reshape_dims[p[i]];
    out_strides[i] = src_strides[p[i]];
  }
  std::vector<int64_t> index(rank, 0);
  for (int64_t linear = 0; linear < total; ++linear) {
    int64_t src = 0;
    for (size_t i = 0; i < rank; ++i) src += index[i] * out_strides[i];
    out[linear] = src;
    for (int64_t i = static_cast<int64_t>(rank) - 1; i >= 0; --i) {
      if (++index[i] < out_dims[i]) break;
      index[i] = 0;
    }
  }
  return out;
}

std::vector<std::vector<int64_t>> ReplicaGroups::Expanded() const {
  if (!iota) return groups;
  std::vector<int64_t> flat = ExpandIota(reshape_dims, transpose_perm);
  std::vector<std::vector<int64_t>> out;
  if (num_groups <= 0 || group_size <= 0 ||
      static_cast<int64_t>(flat.size()) != num_groups * group_size) {
    return out;
  }
  for (int64_t g = 0; g < num_groups; ++g) {
    out.emplace_back(flat.begin() + g * group_size,
                     flat.begin() + (g + 1) * group_size);
  }
  return out;
}

std::string ReplicaGroups::ToString() const {
  if (!mesh.empty()) return mesh;
  if (iota) {
    std::string out = absl::StrCat("[", num_groups, ",", group_size, "]<=[",
                                   absl::StrJoin(reshape_dims, ","), "]");
    if (!transpose_perm.empty()) {
      absl::StrAppend(&out, "T(", absl::StrJoin(transpose_perm, ","), ")");
    }
    return out;
  }
  return absl::StrCat(
      "{",
      absl::StrJoin(groups, ",",
                    [](std::string* out, const std::vector<int64_t>& g) {
                      absl::StrAppend(out, "{", absl::StrJoin(g, ","), "}");
                    }),
      "}");
}

std::string OpMetadata::ToString() const {
  std::vector<std::string> parts;
  if (!op_type.empty()) {
    parts.push_back(absl::StrCat("op_type=\"", absl::CEscape(op_type), "\""));
  }
  if (!op_name.empty()) {
    parts.push_back(absl::StrCat("op_name=\"", absl::CEscape(op_name), "\""));
  }
  if (!source_file.empty()) {
    parts.push_back(
        absl::StrCat("source_file=\"", absl::CEscape(source_file), "\""));
  }
  if (source_line != 0)
    parts.push_back(absl::StrCat("source_line=", source_line));
  if (source_end_line != 0) {
    parts.push_back(absl::StrCat("source_end_line=", source_end_line));
  }
  if (source_column != 0) {
    parts.push_back(absl::StrCat("source_column=", source_column));
  }
  if (source_end_column != 0) {
    parts.push_back(absl::StrCat("source_end_column=", source_end_column));
  }
  if (!profile_type.empty()) {
    parts.push_back(
        absl::StrCat("profile_type={", absl::StrJoin(profile_type, ","), "}"));
  }
  if (!deduplicated_name.empty()) {
    parts.push_back(absl::StrCat("deduplicated_name=\"",
                                 absl::CEscape(deduplicated_name), "\""));
  }
  if (preserve_layout) parts.push_back("preserve_layout=true");
  if (stack_frame_id != 0) {
    parts.push_back(absl::StrCat("stack_frame_id=", stack_frame_id));
  }
  if (!scheduling_name.empty()) {
    parts.push_back(absl::StrCat("scheduling_name=\"",
                                 absl::CEscape(scheduling_name), "\""));
  }
  return absl::StrCat("{", absl::StrJoin(parts, " "), "}");
}

size_t BalancedBracesEnd(absl::string_view text) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}') {
      if (--depth == 0) return i + 1;
    }
  }
  return absl::string_view::npos;
}

bool LexesAsJsonDict(absl::string_view text) {
  return !text.empty() && text.front() == '{' &&
         BalancedBracesEnd(text) == text.size();
}

namespace {

// [a-zA-Z_][a-zA-Z0-9_.-]*: written bare; anything else is quoted.
bool IsPlainName(absl::string_view s) {
  if (s.empty() || !(absl::ascii_isalpha(s[0]) || s[0] == '_')) return false;
  for (char c : s) {
    if (!(absl::ascii_isalnum(c) || c == '_' || c == '.' || c == '-')) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::string FrontendAttributesToString(const FrontendAttributes& attrs) {
  return absl::StrCat(
      "{",
      absl::StrJoin(
          attrs, ",",
          [](std::string* out,
             const std::pair<const std::string, std::string>& kv) {
            if (IsPlainName(kv.first)) {
              out->append(kv.first);
            } else {
              absl::StrAppend(out, "\"", absl::CEscape(kv.first), "\"");
            }
            if (LexesAsJsonDict(kv.second)) {
              absl::StrAppend(out, "=", kv.second);
            } else {
              absl::StrAppend(out, "=\"", absl::CEscape(kv.second), "\"");
            }
          }),
      "}");
}

absl::string_view ComparisonDirectionString(ComparisonDirection d) {
  return NameOf(kDirections, d);
}
absl::string_view ComparisonTypeString(ComparisonType t) {
  return NameOf(kComparisonTypes, t);
}
std::optional<ComparisonDirection> ParseComparisonDirection(
    absl::string_view s) {
  return FindByName(kDirections, s);
}
std::optional<ComparisonType> ParseComparisonType(absl::string_view s) {
  return FindByName(kComparisonTypes, s);
}
ComparisonType DefaultComparisonType(PrimitiveType type) {
  if (IsFloatingPoint(type) || IsComplex(type)) return ComparisonType::kFloat;
  if (IsSignedInteger(type)) return ComparisonType::kSigned;
  return ComparisonType::kUnsigned;
}

absl::string_view FusionKindString(FusionKind k) {
  return NameOf(kFusionKinds, k);
}
std::optional<FusionKind> ParseFusionKind(absl::string_view s) {
  return FindByName(kFusionKinds, s);
}
absl::string_view FftTypeString(FftType t) { return NameOf(kFftTypes, t); }
std::optional<FftType> ParseFftType(absl::string_view s) {
  return FindByName(kFftTypes, s);
}
absl::string_view RandomDistributionString(RandomDistribution d) {
  return NameOf(kDistributions, d);
}
std::optional<RandomDistribution> ParseRandomDistribution(absl::string_view s) {
  return FindByName(kDistributions, s);
}
absl::string_view RandomAlgorithmString(RandomAlgorithm a) {
  return NameOf(kAlgorithms, a);
}
std::optional<RandomAlgorithm> ParseRandomAlgorithm(absl::string_view s) {
  return FindByName(kAlgorithms, s);
}
absl::string_view PrecisionString(Precision p) {
  return NameOf(kPrecisions, p);
}
std::optional<Precision> ParsePrecision(absl::string_view s) {
  return FindByName(kPrecisions, s);
}
absl::string_view CustomCallApiVersionString(CustomCallApiVersion v) {
  return NameOf(kApiVersions, v);
}
std::optional<CustomCallApiVersion> ParseCustomCallApiVersion(
    absl::string_view s) {
  return FindByName(kApiVersions, s);
}
absl::string_view CustomCallScheduleString(CustomCallSchedule s) {
  return NameOf(kSchedules, s);
}
std::optional<CustomCallSchedule> ParseCustomCallSchedule(absl::string_view s) {
  return FindByName(kSchedules, s);
}
absl::string_view PaddingTypeString(PaddingType p) {
  return NameOf(kPaddingTypes, p);
}
std::optional<PaddingType> ParsePaddingType(absl::string_view s) {
  return FindByName(kPaddingTypes, s);
}
absl::string_view TriangularSolveTransposeString(TriangularSolveTranspose t) {
  return NameOf(kTransposes, t);
}
std::optional<TriangularSolveTranspose> ParseTriangularSolveTranspose(
    absl::string_view s) {
  return FindByName(kTransposes, s);
}

std::string OutputOperandAliasingToString(
    const std::vector<OutputOperandAlias>& aliasing) {
  return absl::StrCat(
      "{",
      absl::StrJoin(aliasing, ", ",
                    [](std::string* out, const OutputOperandAlias& a) {
                      absl::StrAppend(out, ShapeIndexToString(a.output_index),
                                      ": (", a.operand_number, ", ",
                                      ShapeIndexToString(a.operand_index), ")");
                    }),
      "}");
}

std::string BracedList(const std::vector<int64_t>& values) {
  return absl::StrCat("{", absl::StrJoin(values, ","), "}");
}

std::vector<int64_t> DotFreeDimensions(int64_t rank,
                                       absl::Span<const int64_t> batch,
                                       absl::Span<const int64_t> contracting) {
  std::vector<int64_t> free;
  for (int64_t d = 0; d < rank; ++d) {
    if (!absl::c_linear_search(batch, d) &&
        !absl::c_linear_search(contracting, d)) {
      free.push_back(d);
    }
  }
  return free;
}

}  // namespace xlite
