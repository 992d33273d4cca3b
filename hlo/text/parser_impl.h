#ifndef XLITE_HLO_TEXT_PARSER_IMPL_H_
#define XLITE_HLO_TEXT_PARSER_IMPL_H_

// Internal to the parser (parser.cc, parser_values.cc): not a public API.

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "hlo/ir/module.h"
#include "hlo/ir/opcode_schema.h"
#include "hlo/text/parser.h"
#include "hlo/text/text_scanner.h"

namespace xlite {
namespace parser_internal {

/// A reference to a computation by name, resolved once all computations are
/// known (computations may be referenced before they are defined).
struct ComputationRef {
  HloInstruction* instruction;
  int64_t slot;
  std::string name;
  size_t position;
};

/// How deeply shapes and literals may nest: bounds the recursion on
/// hostile input.
inline constexpr int kMaxNesting = 200;

/// Whether `opcode` accepts attribute `name` (its opcode schema row).
bool Allowed(HloOpcode opcode, absl::string_view name);

class Parser;
/// Parses the value of one opcode-specific attribute (written `name`, at
/// `position`) into the instruction.
using AttributeParseFn = bool (*)(Parser& parser, HloInstruction* instruction,
                                  absl::string_view name, size_t position);

/// One parser per attribute of the opcode schema (attribute_parsers.cc).
const std::array<AttributeParseFn, kAttributeCount>& Parsers();

class Parser {
 public:
  Parser(absl::string_view text, const ParseOptions& options);

  absl::StatusOr<std::unique_ptr<HloModule>> ParseModule();
  absl::StatusOr<Shape> ParseShapeOnly();
  absl::StatusOr<Literal> ParseLiteralOnly();

  // ---- values (parser_values.cc)
  bool ParseShape(Shape* shape);
  bool ParseArrayShape(Shape* shape);
  bool ParseLayout(Shape* shape);
  /// Whether the '{' at `brace` (right after a shape) starts its layout.
  bool StartsLayout(size_t brace);
  /// True if a shape starts here (type name + '[' or a '(' tuple).
  bool AtShape();
  bool ParseLiteralValue(const Shape& shape, Literal* literal);
  bool ParseSelfDescribingLiteral(Literal* literal);
  bool ParseDenseArray(const Shape& shape, Literal* literal);
  bool ParseElement(const Shape& shape, int64_t index, Literal* literal);
  bool ParseBracedInts(std::vector<int64_t>* values, absl::string_view what);
  bool ParseBracedIntLists(std::vector<std::vector<int64_t>>* values,
                           absl::string_view what);
  bool ParseShapeIndex(ShapeIndex* index);
  bool ParseWindow(Window* window);
  bool ParseDimLabels(ConvolutionDimensionNumbers* dnums);
  bool ParsePadding(PaddingConfig* padding);
  bool ParseSliceRanges(std::vector<SliceDimension>* slice);
  bool ParseReplicaGroups(ReplicaGroups* groups);
  /// `mesh['a'=2,'b'=2] {'b'}` (parser_mesh.cc).
  bool ParseMeshReplicaGroups(ReplicaGroups* groups);
  bool ParseSharding(HloSharding* sharding);
  bool ParseSingleSharding(HloSharding* sharding);
  bool ParseMetadata(OpMetadata* metadata);
  bool ParseFrontendAttributes(FrontendAttributes* attrs);
  bool ParsePrecisionList(std::vector<Precision>* precisions);
  bool ParseOutputOperandAliasing(std::vector<OutputOperandAlias>* aliasing);
  bool ParseShapeList(std::vector<Shape>* shapes);
  bool ParseBoolList(std::vector<bool>* values, bool allow_single);
  bool ParseRawValue(std::string* raw);
  bool ParseResultAccuracy(std::string* raw);
  bool ParseStringOrJsonDict(std::string* value);
  template <typename Enum>
  bool ParseEnum(Enum* value, std::optional<Enum> (*parse)(absl::string_view),
                 absl::string_view what);

  /// The value of attribute `id` (attribute_parsers.cc).
  bool ParseAttributeValue(AttributeId id, HloInstruction* instruction,
                           absl::string_view name, size_t position);
  /// async_execution_thread= (async-update/done must repeat their start's).
  bool ParseAsyncExecutionThread(HloInstruction* instruction);
  /// domain={kind="sharding", entry=..., exit=...}.
  bool ParseDomain(HloInstruction* instruction, size_t position);
  /// A computation name (or one written in place) into callee `slot`.
  bool ParseComputationRef(HloInstruction* instruction, int64_t slot);
  /// `{%a, %b}` as the instruction's callees.
  bool ParseComputationRefList(HloInstruction* instruction);
  /// Records that `type=` was written on a compare (checked later).
  void NoteExplicitComparisonType(const HloInstruction* compare) {
    explicit_comparison_type_.insert(compare);
  }

  TextScanner& scanner() { return scanner_; }
  /// Reports a located warning (see ParseOptions::warnings).
  void Warn(size_t position, absl::string_view message);

 private:
  // ---- structure (parser.cc)
  bool ParseModuleHeader(HloModule* module);
  bool ParseStackFrameIndex(HloModule* module);
  bool ParseComputation(HloModule* module);
  /// "{ instruction* }": the body of `computation`, which is pending.
  bool ParseInstructionList(HloComputation* computation, size_t name_pos);
  /// A computation written in place of a name ("to_apply={ ... }").
  bool ParseNestedComputation(HloInstruction* instruction, int64_t slot);
  bool ParseInstruction(HloComputation* computation, bool* is_root,
                        HloInstruction** instruction);
  /// The opcode after the (optional) shape; `<op>-start/-update/-done`
  /// gives the async opcode and `async_wrapped` = <op>.
  bool ParseOpcode(bool have_shape, std::string* text, HloOpcode* opcode,
                   std::optional<HloOpcode>* async_wrapped);
  /// `(N)` of a parameter; nullptr after reporting an error.
  std::unique_ptr<HloInstruction> ParseParameter(HloComputation* computation,
                                                 const Shape& shape);
  /// `(literal)` of a constant; nullptr after reporting an error.
  std::unique_ptr<HloInstruction> ParseConstant(const Shape& shape);
  /// Links a sugared async op (`all-gather-start`, ...) to the computation
  /// wrapping its op: a new one for the start (whose root is `*wrapped`),
  /// the start's for -update/-done.
  bool SetUpAsyncSugar(HloInstruction* instruction, HloOpcode wrapped_opcode,
                       absl::string_view opcode_text, size_t opcode_pos,
                       size_t operands_pos, HloInstruction** wrapped);
  bool SetUpAsyncStart(HloInstruction* start, HloOpcode wrapped_opcode,
                       absl::string_view opcode_text, size_t opcode_pos,
                       HloInstruction** wrapped);
  HloInstruction* ParseInstructionRhs(HloComputation* computation,
                                      const std::string& name,
                                      size_t name_position,
                                      bool allow_attributes);
  bool ParseOperands(HloComputation* computation,
                     std::vector<HloInstruction*>* operands);
  bool ParseAttributes(HloInstruction* instruction, HloInstruction* wrapped,
                       size_t opcode_position);
  bool ParseOneAttribute(HloInstruction* instruction, HloInstruction* wrapped,
                         const std::string& name, size_t position);
  bool ParseOpcodeAttribute(HloInstruction* instruction,
                            const std::string& name, size_t position,
                            bool* handled);
  bool ParseInstructionNames(HloComputation* computation,
                             std::vector<HloInstruction*>* instructions);
  bool CheckRequiredAttributes(HloInstruction* instruction,
                               const absl::flat_hash_set<std::string>& seen,
                               size_t position);
  bool FinishInstruction(HloInstruction* instruction, size_t position);
  bool InferMissingShape(HloInstruction* instruction, size_t position);
  bool ResolveComputationRefs(HloModule* module);
  bool CheckCallGraphAcyclic(HloModule* module);
  HloInstruction* AddNamedInstruction(
      HloComputation* computation, std::unique_ptr<HloInstruction> instruction,
      std::string name, size_t position);
  std::string UniqueAnonymousName(HloComputation* computation,
                                  absl::string_view base);

  TextScanner scanner_;
  ParseOptions options_;
  HloModule* module_ = nullptr;
  std::vector<std::unique_ptr<HloComputation>> pending_computations_;
  absl::flat_hash_map<std::string, HloComputation*> computations_by_name_;
  absl::flat_hash_map<std::string, size_t> computation_positions_;
  std::vector<ComputationRef> refs_;
  // Instruction names in the current computation, with their position.
  absl::flat_hash_map<std::string, std::pair<HloInstruction*, size_t>> names_;
  absl::flat_hash_set<HloInstruction*> anonymous_;
  // Text position of every parsed instruction (for errors found later).
  absl::flat_hash_map<const HloInstruction*, size_t> positions_;
  std::string entry_name_;
  absl::flat_hash_set<const HloInstruction*> explicit_comparison_type_;
  int64_t anonymous_counter_ = 0;
  int recursion_depth_ = 0;
};

}  // namespace parser_internal
}  // namespace xlite

#endif  // XLITE_HLO_TEXT_PARSER_IMPL_H_
