#ifndef XLITE_HLO_IR_ATTRIBUTES_H_
#define XLITE_HLO_IR_ATTRIBUTES_H_

// Value types of instruction attributes, with XLA's text spellings.
// Parsing lives in the parser; each type prints itself exactly as XLA does.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "hlo/ir/shape.h"

namespace xlite {

/// `window={size=3x3 stride=2x2 pad=0_1x0_1 lhs_dilate=1x1 rhs_dilate=1x1
/// rhs_reversal=0x1}`.
struct WindowDimension {
  int64_t size = 1;
  int64_t stride = 1;
  int64_t padding_low = 0;
  int64_t padding_high = 0;
  int64_t window_dilation = 1;  // rhs_dilate
  int64_t base_dilation = 1;    // lhs_dilate
  bool window_reversal = false;
  bool operator==(const WindowDimension&) const = default;
};
struct Window {
  std::vector<WindowDimension> dimensions;
  bool operator==(const Window&) const = default;
  std::string ToString() const;  // without the braces
};

/// Convolution dimension numbers, printed as dim_labels `b01f_01io->b01f`.
struct ConvolutionDimensionNumbers {
  int64_t input_batch_dimension = 0;
  int64_t input_feature_dimension = 0;
  std::vector<int64_t> input_spatial_dimensions;
  int64_t kernel_input_feature_dimension = 0;
  int64_t kernel_output_feature_dimension = 0;
  std::vector<int64_t> kernel_spatial_dimensions;
  int64_t output_batch_dimension = 0;
  int64_t output_feature_dimension = 0;
  std::vector<int64_t> output_spatial_dimensions;
  bool operator==(const ConvolutionDimensionNumbers&) const = default;
  std::string ToString() const;  // "b01f_01io->b01f"
};

struct DotDimensionNumbers {
  std::vector<int64_t> lhs_contracting_dimensions;
  std::vector<int64_t> rhs_contracting_dimensions;
  std::vector<int64_t> lhs_batch_dimensions;
  std::vector<int64_t> rhs_batch_dimensions;
  bool operator==(const DotDimensionNumbers&) const = default;
};

/// The dimensions of a dot operand of rank `rank` that are neither batch
/// nor contracting dimensions (its free ones), in increasing order.
std::vector<int64_t> DotFreeDimensions(int64_t rank,
                                       absl::Span<const int64_t> batch,
                                       absl::Span<const int64_t> contracting);

struct RaggedDotDimensionNumbers {
  DotDimensionNumbers dot;
  std::vector<int64_t> lhs_ragged_dimensions;
  std::vector<int64_t> rhs_group_dimensions;
  bool operator==(const RaggedDotDimensionNumbers&) const = default;
};

struct GatherDimensionNumbers {
  std::vector<int64_t> offset_dims;
  std::vector<int64_t> collapsed_slice_dims;
  std::vector<int64_t> start_index_map;
  int64_t index_vector_dim = 0;
  std::vector<int64_t> operand_batching_dims;
  std::vector<int64_t> start_indices_batching_dims;
  bool operator==(const GatherDimensionNumbers&) const = default;
};

struct ScatterDimensionNumbers {
  std::vector<int64_t> update_window_dims;
  std::vector<int64_t> inserted_window_dims;
  std::vector<int64_t> scatter_dims_to_operand_dims;
  int64_t index_vector_dim = 0;
  std::vector<int64_t> input_batching_dims;
  std::vector<int64_t> scatter_indices_batching_dims;
  bool operator==(const ScatterDimensionNumbers&) const = default;
};

/// `padding=0_0x1_1` (low_high[_interior] per dimension).
struct PaddingDimension {
  int64_t edge_padding_low = 0;
  int64_t edge_padding_high = 0;
  int64_t interior_padding = 0;
  bool operator==(const PaddingDimension&) const = default;
};
struct PaddingConfig {
  std::vector<PaddingDimension> dimensions;
  bool operator==(const PaddingConfig&) const = default;
  std::string ToString() const;
};

/// `slice={[0:1], [0:1024:2]}`.
struct SliceDimension {
  int64_t start = 0;
  int64_t limit = 0;
  int64_t stride = 1;
  bool operator==(const SliceDimension&) const = default;
};

/// Replica groups in list form `{{0,1},{2,3}}` or iota form
/// `[2,4]<=[4,2]T(1,0)`; `iota` remembers which form was written.
struct ReplicaGroups {
  std::vector<std::vector<int64_t>> groups;  // list form
  bool iota = false;
  int64_t num_groups = 0;
  int64_t group_size = 0;
  std::vector<int64_t> reshape_dims;
  std::vector<int64_t> transpose_perm;
  /// XLA's mesh form (`mesh['a'=2,'b'=2] {'b'}`), canonically spelled, when
  /// the groups were written so; the fields above hold the same groups
  /// (iota or list form) and the mesh text is what prints.
  std::string mesh;
  bool operator==(const ReplicaGroups&) const = default;
  /// Device ids >= 0; the iota form well formed (ValidateIota).
  absl::Status Validate() const;
  /// The groups as explicit lists (expands the iota form).
  std::vector<std::vector<int64_t>> Expanded() const;
  std::string ToString() const;
};

/// Checks an iota device list `<=[reshape_dims]T(perm)`: dimensions >= 1
/// whose product (at most 2^40) is `devices`, and `perm` empty or a
/// permutation of the dimensions. `what` names it in the error.
absl::Status ValidateIota(const std::vector<int64_t>& reshape_dims,
                          const std::vector<int64_t>& perm, int64_t devices,
                          absl::string_view what);
/// The product of `dims` when every one is >= 0 and the product is at most
/// 2^40; -1 otherwise.
int64_t CheckedProduct(absl::Span<const int64_t> dims);

/// Expands an iota tile assignment: iota(prod(reshape)) reshaped to
/// `reshape_dims`, transposed by `perm` (identity when empty), flattened.
std::vector<int64_t> ExpandIota(const std::vector<int64_t>& reshape_dims,
                                const std::vector<int64_t>& perm);

/// `metadata={op_type="..." op_name="..." source_file="..." source_line=44}`.
struct OpMetadata {
  std::string op_type;
  std::string op_name;
  std::string source_file;
  int64_t source_line = 0;
  int64_t source_end_line = 0;
  int64_t source_column = 0;
  int64_t source_end_column = 0;
  std::vector<std::string> profile_type;
  std::string deduplicated_name;
  bool preserve_layout = false;
  int64_t stack_frame_id = 0;
  std::string scheduling_name;
  bool operator==(const OpMetadata&) const = default;
  bool empty() const { return *this == OpMetadata(); }
  std::string ToString() const;  // with the braces
};

/// `frontend_attributes={key="value",...}`, printed sorted by key.
using FrontendAttributes = std::map<std::string, std::string>;
std::string FrontendAttributesToString(const FrontendAttributes& attrs);

enum class ComparisonDirection { kEq, kNe, kGe, kGt, kLe, kLt };
enum class ComparisonType { kFloat, kTotalOrder, kSigned, kUnsigned };
absl::string_view ComparisonDirectionString(ComparisonDirection d);  // "LT"
absl::string_view ComparisonTypeString(ComparisonType t);  // "TOTALORDER"
std::optional<ComparisonDirection> ParseComparisonDirection(
    absl::string_view s);
std::optional<ComparisonType> ParseComparisonType(absl::string_view s);
/// XLA's default comparison type for an element type.
ComparisonType DefaultComparisonType(PrimitiveType type);

enum class FusionKind { kLoop, kInput, kOutput, kCustom };
absl::string_view FusionKindString(FusionKind k);  // "kLoop"
std::optional<FusionKind> ParseFusionKind(absl::string_view s);

enum class FftType { kFft, kIfft, kRfft, kIrfft };
absl::string_view FftTypeString(FftType t);  // "FFT"
std::optional<FftType> ParseFftType(absl::string_view s);

enum class RandomDistribution { kUniform = 1, kNormal = 2 };
absl::string_view RandomDistributionString(
    RandomDistribution d);  // rng_uniform
std::optional<RandomDistribution> ParseRandomDistribution(absl::string_view s);

enum class RandomAlgorithm { kDefault = 0, kThreeFry = 1, kPhilox = 2 };
absl::string_view RandomAlgorithmString(RandomAlgorithm a);  // rng_three_fry
std::optional<RandomAlgorithm> ParseRandomAlgorithm(absl::string_view s);

enum class Precision {
  kDefault = 0,
  kHigh = 1,
  kHighest = 2,
  kPackedNibble = 3
};
absl::string_view PrecisionString(Precision p);  // "default"
std::optional<Precision> ParsePrecision(absl::string_view s);

/// Custom-call API versions (XLA's proto values).
enum class CustomCallApiVersion {
  kUnspecified = 0,
  kOriginal = 1,
  kStatusReturning = 2,
  kStatusReturningUnified = 3,
  kTypedFfi = 4,
};
absl::string_view CustomCallApiVersionString(CustomCallApiVersion v);
std::optional<CustomCallApiVersion> ParseCustomCallApiVersion(
    absl::string_view s);

enum class CustomCallSchedule { kNone = 0, kLatest = 1, kEarliest = 2 };
absl::string_view CustomCallScheduleString(CustomCallSchedule s);
std::optional<CustomCallSchedule> ParseCustomCallSchedule(absl::string_view s);

enum class PaddingType { kInvalid = 0, kValid = 1, kSame = 2 };
absl::string_view PaddingTypeString(PaddingType p);  // "PADDING_VALID"
std::optional<PaddingType> ParsePaddingType(absl::string_view s);

enum class TriangularSolveTranspose {
  kInvalid = 0,
  kNoTranspose = 1,
  kTranspose = 2,
  kAdjoint = 3,
};
absl::string_view TriangularSolveTransposeString(TriangularSolveTranspose t);
std::optional<TriangularSolveTranspose> ParseTriangularSolveTranspose(
    absl::string_view s);

/// One entry of `output_to_operand_aliasing={{0}: (1, {})}`.
struct OutputOperandAlias {
  ShapeIndex output_index;
  int64_t operand_number = 0;
  ShapeIndex operand_index;
  bool operator==(const OutputOperandAlias&) const = default;
};
std::string OutputOperandAliasingToString(
    const std::vector<OutputOperandAlias>& aliasing);

/// True if `text` is one brace-balanced `{...}` (string-aware) that XLA
/// prints without quotes (backend_config, frontend attribute values).
bool LexesAsJsonDict(absl::string_view text);
/// Where the brace block that starts at text[0] == '{' ends (one past its
/// '}'), skipping braces inside JSON strings; npos if it never closes.
size_t BalancedBracesEnd(absl::string_view text);

/// Prints `{1,2,3}`.
std::string BracedList(const std::vector<int64_t>& values);

}  // namespace xlite

#endif  // XLITE_HLO_IR_ATTRIBUTES_H_
