// Bad input never crashes: each case yields one located error whose first
// line is asserted exactly (FILE:LINE:COL: error: message).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/malformed/malformed_case.h"

namespace xlite {
namespace {

using malformed::Case;
using malformed::FirstErrorLine;

const std::vector<Case>& Cases() {
  static const auto* const kCases = new std::vector<Case>{
      {"EmptyInput", "",
       "m.hlo:1:1: error: empty input: expected 'HloModule name'"},
      {"OnlyHeader", "HloModule m\n",
       "m.hlo:1:1: error: module has no computations"},
      {"MissingModuleName",
       "HloModule\nENTRY e { ROOT p = f32[] parameter(0) }",
       "m.hlo:2:1: error: expected a module name after HloModule"},
      {"UnknownModuleAttribute",
       "HloModule m, foo=1\nENTRY e { ROOT p = f32[] parameter(0) }",
       "m.hlo:1:14: error: unknown module attribute 'foo'; expected "
       "is_scheduled, input_output_alias, buffer_donor, "
       "alias_passthrough_params, entry_computation_layout, "
       "allow_spmd_sharding_propagation_to_parameters, "
       "allow_spmd_sharding_propagation_to_output, replica_count, "
       "num_partitions, frontend_attributes"},
      {"TooManyDevices",
       "HloModule m, replica_count=1048576, num_partitions=2\n"
       "ENTRY e { ROOT p = f32[] parameter(0) }",
       "m.hlo:1:37: error: replica_count x num_partitions must be at most "
       "1048576"},
      {"BareValueForAnEmptyArray",
       "HloModule m\nENTRY e { ROOT c = f32[0,3] constant(0) }",
       "m.hlo:2:38: error: a single value cannot set element 0 of f32[0,3], "
       "which has no elements"},
      {"UnknownOpcode",
       "HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] "
       "frobnicate(p)\n}",
       "m.hlo:4:18: error: unknown opcode 'frobnicate'"},
      {"UnknownElementType",
       "HloModule m\nENTRY e {\n  ROOT p = f31[] parameter(0)\n}",
       "m.hlo:3:12: error: unknown element type 'f31'"},
      {"UnknownAttribute",
       "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n  ROOT r = f32[2] "
       "negate(p), dimension={0}\n}",
       "m.hlo:4:30: error: unexpected attribute 'dimension' for negate (it "
       "takes only common attributes like metadata, sharding, backend_config)"},
      {"UnknownAttributeListsValid",
       "HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[2] "
       "broadcast(p), dimension={}\n}",
       "m.hlo:4:33: error: unexpected attribute 'dimension' for broadcast; "
       "valid: dimensions"},
      // Each opcode takes the attributes of its schema row: all-reduce has
      // no dimensions (reduce-scatter and all-gather do).
      {"AllReduceTakesNoDimensions",
       "HloModule m\nadd {\n  x = f32[] parameter(0)\n  y = f32[] "
       "parameter(1)\n  ROOT s = f32[] add(x, y)\n}\nENTRY e {\n  p = f32[4] "
       "parameter(0)\n  ROOT r = f32[4] all-reduce(p), replica_groups={}, "
       "dimensions={0}, to_apply=add\n}",
       "m.hlo:9:53: error: unexpected attribute 'dimensions' for all-reduce; "
       "valid: channel_id, replica_groups, constrain_layout, "
       "use_global_device_ids, mode, to_apply"},
      // As XLA's parser: all-to-all takes no use_global_device_ids (xlite
      // used to accept it and drop it when printing).
      {"AllToAllTakesNoGlobalDeviceIds",
       "HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT r = f32[4] "
       "all-to-all(p), replica_groups={{0}}, dimensions={0}, "
       "use_global_device_ids=true\n}",
       "m.hlo:4:72: error: unexpected attribute 'use_global_device_ids' for "
       "all-to-all; valid: channel_id, replica_groups, constrain_layout, "
       "dimensions"},
      {"DuplicateAttribute",
       "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n  ROOT r = f32[2] "
       "reverse(p), dimensions={0}, dimensions={0}\n}",
       "m.hlo:4:47: error: attribute 'dimensions' is given more than once"},
      {"MissingRequiredAttribute",
       "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n  ROOT r = f32[2] "
       "reverse(p)\n}",
       "m.hlo:4:19: error: reverse requires attribute 'dimensions'"},
      {"DuplicateInstructionName",
       "HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n  p = f32[] "
       "negate(p)\n  ROOT r = f32[] negate(p)\n}",
       "m.hlo:4:3: error: instruction name 'p' is already used in this "
       "computation (line 3:3)"},
      {"UseBeforeDefinition",
       "HloModule m\nENTRY e {\n  a = f32[] negate(b)\n  b = f32[] "
       "parameter(0)\n  ROOT r = f32[] negate(a)\n}",
       "m.hlo:3:20: error: instruction 'b' is used before its definition"},
      {"UndefinedOperand",
       "HloModule m\nENTRY e {\n  ROOT a = f32[] negate(%nothere)\n}",
       "m.hlo:3:25: error: instruction 'nothere' is not defined"},
      {"MissingToApply",
       "HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n  z = f32[] "
       "constant(0)\n  ROOT r = f32[] reduce(p, z), dimensions={0}, "
       "to_apply=%missing\n}",
       "m.hlo:5:57: error: computation 'missing' is not defined"},
      {"ComputationCycle",
       "HloModule m\nf {\n  p = f32[] parameter(0)\n  ROOT c = f32[] call(p), "
       "to_apply=g\n}\ng {\n  p = f32[] parameter(0)\n  ROOT c = f32[] "
       "call(p), "
       "to_apply=f\n}\nENTRY e {\n  p = f32[] parameter(0)\n  ROOT c = f32[] "
       "call(p), to_apply=f\n}",
       "m.hlo:8:8: error: computations call each other in a cycle: f -> g -> "
       "f"},
      {"SelfRecursion",
       "HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n  ROOT c = f32[] "
       "call(p), to_apply=e\n}",
       "m.hlo:4:8: error: computations call each other in a cycle: e -> e"},
      {"ControlDependencyCycle",
       "HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n  a = f32[] "
       "negate(p), control-predecessors={p}\n  ROOT b = f32[] negate(a)\n}",
       "OK"},
      {"WrongOperandCountUnary",
       "HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] "
       "negate(p, p)\n}",
       "m.hlo:4:24: error: negate expects 1 operand, but has 2"},
      {"WrongOperandCountBinary",
       "HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] "
       "add(p)\n}",
       "m.hlo:4:21: error: add expects 2 operands, but has 1"},
      {"ReshapeElementCount",
       "HloModule m\nENTRY e {\n  p = f32[2,3] parameter(0)\n  ROOT r = f32[7] "
       "reshape(p)\n}",
       "m.hlo:4:8: error: %r: reshape from f32[2,3] to f32[7] changes the "
       "number of elements (6 vs 7) or the element type"},
      {"BinaryShapeMismatch",
       "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n  q = f32[3] "
       "parameter(1)\n  ROOT r = f32[2] add(p, q)\n}",
       "m.hlo:5:8: error: %r: add operands must have the same dimensions, got "
       "f32[2] and f32[3]"},
      {"ElementTypeMismatch",
       "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n  q = s32[2] "
       "parameter(1)\n  ROOT r = f32[2] add(p, q)\n}",
       "m.hlo:5:8: error: %r: add operands must have the same element type, "
       "got f32[2] and s32[2]"},
      {"DeclaredShapeWrong",
       "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n  ROOT r = f32[3] "
       "negate(p)\n}",
       "m.hlo:4:8: error: %r: shape f32[3] does not match the shape f32[2] "
       "inferred from its operands"},
      {"TruncatedMidWord", "HloModule m\nENTRY e {\n  p = f32[2] param",
       "m.hlo:3:14: error: unknown opcode 'param'"},
      {"TruncatedOperands",
       "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n  ROOT r = f32[2] "
       "negate(",
       "m.hlo:4:26: error: expected an operand name"},
      {"TruncatedComputation",
       "HloModule m\nENTRY e {\n  ROOT p = f32[2] parameter(0)\n",
       "m.hlo:4:1: error: unexpected end of input in computation e; expected "
       "'}'"},
      {"BinaryGarbage",
       std::string("HloModule m\n\x01\x02\xff\xfe garbage"),
       "m.hlo:2:1: error: expected a computation name"},
      {"GarbageOnly",
       std::string("\x7f"
                   "ELF\x02\x01\x01\x00",
                   8),
       "m.hlo:1:1: error: expected a computation name"},
      {"UnterminatedString",
       "HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(0), "
       "metadata={op_name=\"abc}\n}",
       "m.hlo:3:50: error: unterminated string for op_name"},
      {"UnterminatedComment", "HloModule m /* never closed",
       "m.hlo:1:13: error: unterminated /* comment"},
      {"BadLayout",
       "HloModule m\nENTRY e {\n  ROOT p = f32[2,3]{0,0} parameter(0)\n}",
       "m.hlo:3:12: error: layout {0,0} is not a permutation of the dimensions "
       "of f32[2,3]"},
      {"LayoutRankMismatch",
       "HloModule m\nENTRY e {\n  ROOT p = f32[2,3]{0} parameter(0)\n}",
       "m.hlo:3:12: error: layout {0} has 1 dimensions but shape f32[2,3] has "
       "rank 2"},
      {"NegativeDimension",
       "HloModule m\nENTRY e {\n  ROOT p = f32[-2] parameter(0)\n}",
       "m.hlo:3:16: error: negative dimension size -2"},
      {"ConstantTooManyElements",
       "HloModule m\nENTRY e {\n  ROOT c = f32[2] constant({1, 2, 3})\n}",
       "m.hlo:3:35: error: expects 2 elements on the minor-most dimension, but "
       "sees more"},
      {"ConstantTooFewElements",
       "HloModule m\nENTRY e {\n  ROOT c = f32[3] constant({1, 2})\n}",
       "m.hlo:3:33: error: expects 3 elements in the []th element, but sees 2"},
      {"ConstantOutOfRange",
       "HloModule m\nENTRY e {\n  ROOT c = s8[] constant(300)\n}",
       "m.hlo:3:26: error: value 300 is out of range for s8 [-128, 127]"},
      {"ConstantUnsignedNegative",
       "HloModule m\nENTRY e {\n  ROOT c = u8[] constant(-1)\n}",
       "m.hlo:3:26: error: value -1 is out of range for u8"},
      {"ConstantFloatOverflow",
       "HloModule m\nENTRY e {\n  ROOT c = f16[] constant(1e10)\n}",
       "m.hlo:3:27: error: value 1e10 is out of range for f16"},
      // XLA rejects a finite number past the double range instead of
      // reading infinity; for narrower types, one that rounds to infinity.
      {"ConstantDoubleOverflow",
       "HloModule m\nENTRY e {\n  ROOT c = f64[] constant(1.8e308)\n}",
       "m.hlo:3:27: error: value 1.8e308 is out of range for f64"},
      {"ConstantDoubleOverflowNegative",
       "HloModule m\nENTRY e {\n  ROOT c = f32[2] constant({1, -2e400})\n}",
       "m.hlo:3:32: error: value -2e400 is out of range for f32"},
      {"ConstantBf16Overflow",
       "HloModule m\nENTRY e {\n  ROOT c = bf16[] constant(3.4e38)\n}",
       "m.hlo:3:28: error: value 3.4e38 is out of range for bf16"},
      {"ConstantComplexOverflow",
       "HloModule m\nENTRY e {\n  ROOT c = c128[] constant((1e999, 0))\n}",
       "m.hlo:3:29: error: real part 1e999 is out of range for c128"},
      {"ResultAccuracyUnknownMode",
       "HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] "
       "exponential(p), result_accuracy={mode=fastest}\n}",
       "m.hlo:4:56: error: unknown result_accuracy mode 'fastest'; expected "
       "default, highest or tolerance"},
      {"ResultAccuracyUnknownKey",
       "HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] "
       "exponential(p), result_accuracy={precision=1}\n}",
       "m.hlo:4:51: error: expected mode= or tolerance= in result_accuracy, "
       "found 'precision'"},
      {"ResultAccuracyUnknownToleranceField",
       "HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] "
       "exponential(p), result_accuracy={tolerance={atol=1,eps=2}}\n}",
       "m.hlo:4:69: error: unknown tolerance field 'eps'; expected atol, rtol "
       "or ulps"},
      {"ResultAccuracyNotANumber",
       "HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] "
       "exponential(p), result_accuracy={tolerance={ulps=x}}\n}",
       "m.hlo:4:67: error: expected a number for ulps"},
      {"ConstantDecimalForInt",
       "HloModule m\nENTRY e {\n  ROOT c = s32[] constant(1.5)\n}",
       "m.hlo:3:27: error: expected an integer for s32, found 1.5"},
      {"ConstantBadPred",
       "HloModule m\nENTRY e {\n  ROOT c = pred[] constant(2)\n}",
       "m.hlo:3:28: error: value 2 is out of range for pred"},
      {"GteOutOfRange",
       "HloModule m\nENTRY e {\n  p = (f32[], f32[]) parameter(0)\n  ROOT g = "
       "f32[] get-tuple-element(p), index=2\n}",
       "m.hlo:4:8: error: %g: tuple index 2 is out of range for (f32[], "
       "f32[])"},
      {"DuplicateParameterNumber",
       "HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n  q = f32[] "
       "parameter(0)\n  ROOT r = f32[] add(p, q)\n}",
       "m.hlo:4:22: error: parameter number 0 is already used by p"},
      {"MissingParameterNumber",
       "HloModule m\nENTRY e {\n  p = f32[] parameter(1)\n  ROOT r = f32[] "
       "negate(p)\n}",
       "m.hlo:2:7: error: computation e has no parameter(0) but has "
       "parameter(1)"},
      {"TwoRoots",
       "HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(0)\n  ROOT r = "
       "f32[] "
       "negate(p)\n}",
       "m.hlo:4:3: error: computation e has a second ROOT (the first is at "
       "line "
       "3:3)"},
      {"TwoEntries",
       "HloModule m\nENTRY a {\n  ROOT p = f32[] parameter(0)\n}\nENTRY b {\n  "
       "ROOT p = f32[] parameter(0)\n}",
       "m.hlo:5:1: error: more than one ENTRY computation (the first is 'a')"},
      {"DuplicateComputation",
       "HloModule m\na {\n  ROOT p = f32[] parameter(0)\n}\na {\n  ROOT p = "
       "f32[] parameter(0)\n}",
       "m.hlo:5:1: error: computation 'a' is already defined at line 2:1"},
      {"EmptyComputation", "HloModule m\nENTRY e {\n}",
       "m.hlo:2:7: error: computation e has no instructions"},
      {"BadDimLabels",
       "HloModule m\nENTRY e {\n  a = f32[1,4,4,1] parameter(0)\n  b = "
       "f32[2,2,1,1] parameter(1)\n  ROOT c = f32[1,3,3,1] convolution(a, b), "
       "window={size=2x2}, dim_labels=b01x_01io->b01f\n}",
       "m.hlo:5:74: error: invalid dim_labels 'b01x_01io->b01f': each side "
       "needs its two letters (b/f, i/o, b/f) once and spatial digits 0..n-1"},
      {"BadWindowField",
       "HloModule m\nENTRY e {\n  a = f32[4] parameter(0)\n  z = f32[] "
       "constant(0)\n  ROOT c = f32[2] reduce-window(a, z), window={size=2 "
       "strides=2}, to_apply=add\n}",
       "m.hlo:5:55: error: unknown window field 'strides'; expected size, "
       "stride, pad, lhs_dilate, rhs_dilate or rhs_reversal"},
      {"BadPadding",
       "HloModule m\nENTRY e {\n  a = f32[4] parameter(0)\n  z = f32[] "
       "constant(0)\n  ROOT c = f32[6] pad(a, z), padding=1-1\n}",
       "m.hlo:5:38: error: invalid padding '1-1'; expected low_high[_interior] "
       "per dimension, joined by 'x'"},
      {"BadSharding",
       "HloModule m\nENTRY e {\n  ROOT p = f32[4] parameter(0), "
       "sharding={devices=[2]0,1,2}\n}",
       "m.hlo:3:42: error: sharding lists 3 devices, tile assignment needs 2"},
      {"BadComparisonDirection",
       "HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n  ROOT c = pred[] "
       "compare(p, p), direction=LESS\n}",
       "m.hlo:4:44: error: unknown comparison direction (EQ, NE, GE, GT, LE, "
       "LT) 'LESS'"},
      {"CallSignatureMismatch",
       "HloModule m\nf {\n  ROOT p = f32[2] parameter(0)\n}\nENTRY e {\n  p = "
       "f32[3] parameter(0)\n  ROOT c = f32[2] call(p), to_apply=f\n}",
       "m.hlo:7:8: error: %c: to_apply f parameter 0 has shape f32[2], but is "
       "given f32[3]"},
      {"WhileBodyMismatch",
       "HloModule m\nc {\n  p = s32[] parameter(0)\n  ROOT r = pred[] "
       "compare(p, p), direction=LT\n}\nb {\n  p = s32[] parameter(0)\n  ROOT "
       "r "
       "= f32[] convert(p)\n}\nENTRY e {\n  i = s32[] parameter(0)\n  ROOT w = "
       "s32[] while(i), condition=c, body=b\n}",
       "m.hlo:12:8: error: %w: while body returns f32[] but the loop state is "
       "s32[]"},
      {"SignatureResultMismatch",
       "HloModule m\nENTRY e (p: f32[]) -> s32[] {\n  ROOT p = f32[] "
       "parameter(0)\n}",
       "m.hlo:2:9: error: computation e declares result s32[] but its root p "
       "has shape f32[]"},
      {"NestingTooDeep",
       "HloModule m\nENTRY e {\n  ROOT p = " + std::string(300, '(') + "f32[]" +
           std::string(300, ')') + " parameter(0)\n}",
       "m.hlo:3:211: error: shape nested too deeply"},
      {"DynamicSliceIndexCount",
       "HloModule m\nENTRY e {\n  p = f32[4,4] parameter(0)\n  i = s32[] "
       "parameter(1)\n  ROOT d = f32[2,2] dynamic-slice(p, i), "
       "dynamic_slice_sizes={2,2}\n}",
       "m.hlo:5:8: error: %d: dynamic-slice of f32[4,4] needs 2 start indices, "
       "got 1"},
      {"BroadcastBadDimensions",
       "HloModule m\nENTRY e {\n  p = f32[3] parameter(0)\n  ROOT b = f32[2,4] "
       "broadcast(p), dimensions={1}\n}",
       "m.hlo:4:8: error: %b: broadcast operand dimension 0 (3) does not match "
       "result dimension 1 (4)"},
      {"EntryLayoutMismatch",
       "HloModule m, entry_computation_layout={(f32[3]{0})->f32[3]{0}}\nENTRY "
       "e "
       "{\n  ROOT p = f32[2] parameter(0)\n}",
       "m.hlo:3:8: error: %p: entry_computation_layout parameter 0 f32[3]{0} "
       "does not fit parameter f32[2]{0}"},
      {"AliasOutOfRange",
       "HloModule m, input_output_alias={ {1}: (0, {}, may-alias) }\nENTRY e "
       "{\n  ROOT p = f32[2] parameter(0)\n}",
       "m.hlo:2:7: error: input_output_alias output index {1} does not exist "
       "in f32[2]{0}"},
      {"AsyncDoneWrongOperand",
       "HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n  ROOT d = f32[] "
       "custom-call-done(p)\n}",
       "m.hlo:4:34: error: custom-call-done expects a single async-start or "
       "async-update operand"},
      {"HugeParameterNumber",
       "HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(666666661)\n}",
       "m.hlo:3:27: error: parameter number 666666661 is larger than any "
       "computation can have"},
      {"InvalidNanPayload",
       "HloModule m\nENTRY e {\n  ROOT c = bf16[] constant(nan(0x1000))\n}",
       "m.hlo:3:28: error: NaN payload nan(0x1000) does not fit bf16"},
  };
  return *kCases;
}

class MalformedTest : public ::testing::TestWithParam<Case> {};

TEST_P(MalformedTest, GivesTheLocatedError) {
  EXPECT_EQ(FirstErrorLine(GetParam().text), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(All, MalformedTest, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return info.param.name;
                         });

TEST(Malformed, SuiteIsLarge) {
  int errors = 0;
  for (const Case& c : Cases()) errors += c.expected != "OK";
  EXPECT_GE(errors, 40);
}

}  // namespace
}  // namespace xlite
