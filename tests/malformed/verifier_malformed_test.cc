// Modules XLA rejects (its parser or HloVerifier) and xlite must reject too,
// each with one located error whose first line is asserted exactly, plus a
// few valid neighbours that must keep verifying. The rules and their
// sources are listed in hlo/analysis/verifier_internal.h.
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
      {"ConditionalPredWithBranchComputations",
       "HloModule m\n"
       "f {\n"
       "  p = f32[] parameter(0)\n"
       "  ROOT n = f32[] negate(p)\n"
       "}\n"
       "ENTRY e {\n"
       "  c = pred[] parameter(0)\n"
       "  x = f32[] parameter(1)\n"
       "  ROOT r = f32[] conditional(c, x, x), branch_computations={f, f}\n"
       "}",
       "m.hlo:9:18: error: a conditional on a pred names its branches with "
       "true_computation= and false_computation=, not branch_computations="},
      {"ConditionalS32WithTrueComputation",
       "HloModule m\n"
       "f {\n"
       "  p = f32[] parameter(0)\n"
       "  ROOT n = f32[] negate(p)\n"
       "}\n"
       "ENTRY e {\n"
       "  c = s32[] parameter(0)\n"
       "  x = f32[] parameter(1)\n"
       "  ROOT r = f32[] conditional(c, x, x), true_computation=f, "
       "false_computation=f\n"
       "}",
       "m.hlo:9:18: error: true_computation=/false_computation= need a pred "
       "branch index; an s32 index takes branch_computations="},
      {"LayoutPartsOutOfOrder",
       "HloModule m\n"
       "ENTRY e {\n"
       "  ROOT p = f32[8]{0:S(1)T(4)} parameter(0)\n"
       "}",
       "m.hlo:3:25: error: layout part T must come before S (XLA's order: T, "
       "L, #, *, E, S, SC, P, M)"},
      {"LayoutPartTwice",
       "HloModule m\n"
       "ENTRY e {\n"
       "  ROOT p = f32[8]{0:T(4)T(2)} parameter(0)\n"
       "}",
       "m.hlo:3:25: error: layout part T is given twice (XLA's order: T, L, #, "
       "*, E, S, SC, P, M)"},
      {"EntryLayoutIndexType",
       "HloModule m\n"
       "ENTRY e {\n"
       "  ROOT p = f32[8]{0:T(4)#(u32)} parameter(0)\n"
       "}",
       "m.hlo:3:8: error: %p: layout {0:T(4)#(u32)} of f32[8] has an index "
       "type #(...), which only sparse arrays have"},
      {"LayoutPhysicalShapeOnDenseArray",
       "HloModule m\n"
       "ENTRY e {\n"
       "  ROOT p = f32[8]{0:P(f32[8])} parameter(0)\n"
       "}",
       "m.hlo:3:12: error: layout {0:P(f32[8]{0})} of f32[8] has a physical "
       "shape P(...), which only sparse arrays have"},
      {"EntryLayoutZeroTile",
       "HloModule m\n"
       "ENTRY e {\n"
       "  ROOT p = f32[8]{0:T(4,0)S(1)} parameter(0)\n"
       "}",
       "m.hlo:3:8: error: %p: layout {0:T(4,0)S(1)} of f32[8] has an empty "
       "tile or a tile dimension of 0"},
      {"LayoutAllPartsInOrder",
       "HloModule m\n"
       "ENTRY e {\n"
       "  ROOT p = f32[8]{0:T(8)(2,1)L(2)E(32)S(1)SC(0:4)M(8)} parameter(0)\n"
       "}",
       "OK"},
      {"AsyncComputationSharedByTwoStarts",
       "HloModule m\n"
       "w {\n"
       "  p = f32[2] parameter(0)\n"
       "  ROOT n = f32[2] negate(p)\n"
       "}\n"
       "ENTRY e {\n"
       "  x = f32[2] parameter(0)\n"
       "  st1 = ((f32[2]), f32[2], s32[]) async-start(x), calls=w\n"
       "  dn1 = f32[2] async-done(st1), calls=w\n"
       "  st2 = ((f32[2]), f32[2], s32[]) async-start(dn1), calls=w\n"
       "  ROOT dn2 = f32[2] async-done(st2), calls=w\n"
       "}",
       "m.hlo:10:3: error: %st2: computation w is already wrapped by the "
       "async-start %st1"},
      {"AsyncDoneThreadMismatch",
       "HloModule m\n"
       "w {\n"
       "  p = f32[2] parameter(0)\n"
       "  ROOT n = f32[2] negate(p)\n"
       "}, execution_thread=\"side\"\n"
       "ENTRY e {\n"
       "  x = f32[2] parameter(0)\n"
       "  st = ((f32[2]), f32[2], s32[]) async-start(x), "
       "async_execution_thread=\"side\", calls=w\n"
       "  ROOT dn = f32[2] async-done(st), async_execution_thread=\"main\", "
       "calls=w\n"
       "}",
       "m.hlo:9:59: error: async_execution_thread=\"main\" differs from the "
       "thread \"side\" of its async-start %st"},
      {"AsyncDoneThreadRepeated",
       "HloModule m\n"
       "w {\n"
       "  p = f32[2] parameter(0)\n"
       "  ROOT n = f32[2] negate(p)\n"
       "}, execution_thread=\"side\"\n"
       "ENTRY e {\n"
       "  x = f32[2] parameter(0)\n"
       "  st = ((f32[2]), f32[2], s32[]) async-start(x), "
       "async_execution_thread=\"side\", calls=w\n"
       "  ROOT dn = f32[2] async-done(st), async_execution_thread=\"side\", "
       "calls=w\n"
       "}",
       "OK"},
      {"InfeedNonTuple",
       "HloModule m\n"
       "ENTRY e {\n"
       "  t = token[] after-all()\n"
       "  ROOT i = pred[] infeed(t)\n"
       "}",
       "m.hlo:4:8: error: %i: infeed must have a tuple shape (data, token[]), "
       "got pred[]"},
      {"CollectivePermuteDuplicateSource",
       "HloModule m\n"
       "ENTRY e {\n"
       "  x = f32[2] parameter(0)\n"
       "  ROOT c = f32[2] collective-permute(x), "
       "source_target_pairs={{0,1},{0,2}}\n"
       "}",
       "m.hlo:4:8: error: %c: collective-permute source 0 appears more than "
       "once in source_target_pairs"},
      {"CollectivePermuteDuplicateTarget",
       "HloModule m\n"
       "ENTRY e {\n"
       "  x = f32[2] parameter(0)\n"
       "  ROOT c = f32[2] collective-permute(x), "
       "source_target_pairs={{0,1},{2,1}}\n"
       "}",
       "m.hlo:4:8: error: %c: collective-permute target 1 appears more than "
       "once in source_target_pairs"},
      {"CollectivePermuteTargetOutOfRange",
       "HloModule m, replica_count=2\n"
       "ENTRY e {\n"
       "  x = f32[2] parameter(0)\n"
       "  ROOT c = f32[2] collective-permute(x), "
       "source_target_pairs={{0,1},{1,2}}\n"
       "}",
       "m.hlo:4:8: error: %c: collective-permute target 2 is out of range: "
       "cross-replica mode has 2 replicas"},
      {"CollectivePermuteInPlace",
       "HloModule m\n"
       "ENTRY e {\n"
       "  in = f32[8,4] parameter(0)\n"
       "  out = f32[8,4] parameter(1)\n"
       "  i = s32[] parameter(2)\n"
       "  o = (s32[], s32[]) tuple(i, i)\n"
       "  ROOT c = f32[8,4] collective-permute(in, out, o, o), "
       "source_target_pairs={{0,1},{1,0}}, slice_sizes={{2,4}}\n"
       "}",
       "OK"},
      {"CollectivePermuteInPlaceOffsetRank",
       "HloModule m\n"
       "ENTRY e {\n"
       "  in = f32[8,4] parameter(0)\n"
       "  out = f32[8,4] parameter(1)\n"
       "  i = s32[] parameter(2)\n"
       "  o = (s32[]) tuple(i)\n"
       "  ROOT c = f32[8,4] collective-permute(in, out, o, o), "
       "source_target_pairs={{0,1},{1,0}}, slice_sizes={{2,4}}\n"
       "}",
       "m.hlo:7:8: error: %c: collective-permute input offsets give 1 indices "
       "for the rank-2 buffer f32[8,4]"},
      {"CollectivePermuteInPlaceOffsetNotTuple",
       "HloModule m\n"
       "ENTRY e {\n"
       "  in = f32[8,4] parameter(0)\n"
       "  out = f32[8,4] parameter(1)\n"
       "  i = s32[2] parameter(2)\n"
       "  ROOT c = f32[8,4] collective-permute(in, out, i, i), "
       "source_target_pairs={{0,1},{1,0}}, slice_sizes={{2,4}}\n"
       "}",
       "m.hlo:6:8: error: %c: collective-permute input offsets must be a "
       "tuple, got s32[2]"},
      {"CompareFloatTypeSigned",
       "HloModule m\n"
       "ENTRY e {\n"
       "  x = f32[2] parameter(0)\n"
       "  ROOT c = pred[2] compare(x, x), direction=LT, type=SIGNED\n"
       "}",
       "m.hlo:4:8: error: %c: compare type=SIGNED does not fit f32[2] "
       "operands; expected FLOAT or TOTALORDER"},
      {"CompareIntTypeFloat",
       "HloModule m\n"
       "ENTRY e {\n"
       "  x = s32[2] parameter(0)\n"
       "  ROOT c = pred[2] compare(x, x), direction=LT, type=FLOAT\n"
       "}",
       "m.hlo:4:8: error: %c: compare type=FLOAT does not fit s32[2] operands; "
       "expected SIGNED"},
      {"CompareUnsignedTypeSigned",
       "HloModule m\n"
       "ENTRY e {\n"
       "  x = u8[2] parameter(0)\n"
       "  ROOT c = pred[2] compare(x, x), direction=LT, type=SIGNED\n"
       "}",
       "m.hlo:4:8: error: %c: compare type=SIGNED does not fit u8[2] operands; "
       "expected UNSIGNED"},
      {"CompareFloatTotalOrder",
       "HloModule m\n"
       "ENTRY e {\n"
       "  x = bf16[2] parameter(0)\n"
       "  ROOT c = pred[2] compare(x, x), direction=LT, type=TOTALORDER\n"
       "}",
       "OK"},
      {"CopyDoneWithoutCopyStart",
       "HloModule m\n"
       "ENTRY e {\n"
       "  x = (f32[2], f32[2], u32[]) parameter(0)\n"
       "  ROOT d = f32[2] copy-done(x)\n"
       "}",
       "m.hlo:4:8: error: %d: copy-done's operand must be copy-start, but %x "
       "is parameter"},
      {"CopyStartWithoutDone",
       "HloModule m\n"
       "ENTRY e {\n"
       "  x = f32[2] parameter(0)\n"
       "  cs = (f32[2], f32[2], u32[]) copy-start(x)\n"
       "  ROOT r = f32[2] negate(x)\n"
       "}",
       "m.hlo:4:3: error: %cs: copy-start must have exactly one user "
       "(copy-done), but has 0"},
      {"CopyStartTwoDones",
       "HloModule m\n"
       "ENTRY e {\n"
       "  x = f32[2] parameter(0)\n"
       "  cs = (f32[2], f32[2], u32[]) copy-start(x)\n"
       "  d0 = f32[2] copy-done(cs)\n"
       "  d1 = f32[2] copy-done(cs)\n"
       "  ROOT r = f32[2] add(d0, d1)\n"
       "}",
       "m.hlo:4:3: error: %cs: copy-start must have exactly one user "
       "(copy-done), but has 2"},
      {"AsyncStartWithoutDone",
       "HloModule m\n"
       "w {\n"
       "  p = f32[2] parameter(0)\n"
       "  ROOT n = f32[2] negate(p)\n"
       "}\n"
       "ENTRY e {\n"
       "  x = f32[2] parameter(0)\n"
       "  st = ((f32[2]), f32[2], s32[]) async-start(x), calls=w\n"
       "  ROOT r = f32[2] negate(x)\n"
       "}",
       "m.hlo:8:3: error: %st: async-start must have exactly one user "
       "(async-update or async-done), but has 0"},
      {"AsyncStartUsedByTuple",
       "HloModule m\n"
       "w {\n"
       "  p = f32[2] parameter(0)\n"
       "  ROOT n = f32[2] negate(p)\n"
       "}\n"
       "ENTRY e {\n"
       "  x = f32[2] parameter(0)\n"
       "  st = ((f32[2]), f32[2], s32[]) async-start(x), calls=w\n"
       "  ROOT t = (((f32[2]), f32[2], s32[])) tuple(st)\n"
       "}",
       "m.hlo:8:3: error: %st: async-start's user must be async-update or "
       "async-done, but %t is tuple"},
      {"AllReduceStartTwoDones",
       "HloModule m\n"
       "add {\n"
       "  a = f32[] parameter(0)\n"
       "  b = f32[] parameter(1)\n"
       "  ROOT s = f32[] add(a, b)\n"
       "}\n"
       "ENTRY e {\n"
       "  x = f32[2] parameter(0)\n"
       "  ars = f32[2] all-reduce-start(x), to_apply=add\n"
       "  d0 = f32[2] all-reduce-done(ars)\n"
       "  d1 = f32[2] all-reduce-done(ars)\n"
       "  ROOT r = f32[2] add(d0, d1)\n"
       "}",
       "m.hlo:9:3: error: %ars: all-reduce-start must have exactly one user "
       "(all-reduce-done), but has 2"},
      {"CollectivePermuteDoneWithoutStart",
       "HloModule m\n"
       "ENTRY e {\n"
       "  x = (f32[2], f32[2]) parameter(0)\n"
       "  ROOT d = f32[2] collective-permute-done(x)\n"
       "}",
       "m.hlo:4:8: error: %d: collective-permute-done's operand must be "
       "collective-permute-start, but %x is parameter"},
      {"RecvWithoutDone",
       "HloModule m\n"
       "ENTRY e {\n"
       "  t = token[] after-all()\n"
       "  rv = (f32[2], u32[], token[]) recv(t), channel_id=1\n"
       "  ROOT r = f32[2] constant({1, 2})\n"
       "}",
       "m.hlo:4:3: error: %rv: recv must have exactly one user (recv-done or "
       "tuple), but has 0"},
      {"SendDoneWithoutSend",
       "HloModule m\n"
       "ENTRY e {\n"
       "  t = token[] after-all()\n"
       "  ROOT sd = token[] send-done(t), channel_id=1\n"
       "}",
       "m.hlo:4:8: error: %sd: send-done's operand must be send or "
       "get-tuple-element, but %t is after-all"},
      {"RngNonScalarOperand",
       "HloModule m\n"
       "ENTRY e {\n"
       "  a = f32[2] parameter(0)\n"
       "  b = f32[] parameter(1)\n"
       "  ROOT r = f32[3] rng(a, b), distribution=rng_uniform\n"
       "}",
       "m.hlo:5:8: error: %r: rng operands must be scalars, got f32[2]"},
      {"RngTypeMismatch",
       "HloModule m\n"
       "ENTRY e {\n"
       "  a = f32[] parameter(0)\n"
       "  b = f32[] parameter(1)\n"
       "  ROOT r = s32[3] rng(a, b), distribution=rng_uniform\n"
       "}",
       "m.hlo:5:8: error: %r: rng operands f32[], f32[] and result s32[3] must "
       "have the same element type"},
      {"RngNormalInteger",
       "HloModule m\n"
       "ENTRY e {\n"
       "  a = s32[] parameter(0)\n"
       "  b = s32[] parameter(1)\n"
       "  ROOT r = s32[3] rng(a, b), distribution=rng_normal\n"
       "}",
       "m.hlo:5:8: error: %r: rng_normal needs a floating-point type, got s32"},
      {"CompositeWithoutAttributes",
       "HloModule m\n"
       "f {\n"
       "  p = f32[] parameter(0)\n"
       "  ROOT n = f32[] negate(p)\n"
       "}\n"
       "ENTRY e {\n"
       "  x = f32[] parameter(0)\n"
       "  ROOT c = f32[] call(x), to_apply=f, is_composite=true\n"
       "}",
       "m.hlo:8:8: error: %c: a composite call (is_composite=true) needs "
       "frontend_attributes with composite.name"},
      {"CompositeEmptyName",
       "HloModule m\n"
       "f {\n"
       "  p = f32[] parameter(0)\n"
       "  ROOT n = f32[] negate(p)\n"
       "}\n"
       "ENTRY e {\n"
       "  x = f32[] parameter(0)\n"
       "  ROOT c = f32[] call(x), to_apply=f, is_composite=true, "
       "frontend_attributes={composite.name=\"\",composite.version=\"1\"}\n"
       "}",
       "m.hlo:8:8: error: %c: a composite call (is_composite=true) needs a "
       "non-empty composite.name frontend attribute"},
      {"CompositeBadVersion",
       "HloModule m\n"
       "f {\n"
       "  p = f32[] parameter(0)\n"
       "  ROOT n = f32[] negate(p)\n"
       "}\n"
       "ENTRY e {\n"
       "  x = f32[] parameter(0)\n"
       "  ROOT c = f32[] call(x), to_apply=f, is_composite=true, "
       "frontend_attributes={composite.name=\"foo.bar\",composite.version=\"-"
       "1\"}\n"
       "}",
       "m.hlo:8:8: error: %c: a composite call's composite.version must be a "
       "non-negative integer, got \"-1\""},
      {"CompositeEmptyAttributes",
       "HloModule m\n"
       "f {\n"
       "  p = f32[] parameter(0)\n"
       "  ROOT n = f32[] negate(p)\n"
       "}\n"
       "ENTRY e {\n"
       "  x = f32[] parameter(0)\n"
       "  ROOT c = f32[] call(x), to_apply=f, is_composite=true, "
       "frontend_attributes={composite.attributes=\"\",composite.name=\"foo."
       "bar\"}\n"
       "}",
       "m.hlo:8:8: error: %c: a composite call's composite.attributes must be "
       "{} or non-empty"},
      {"CompositeValid",
       "HloModule m\n"
       "f {\n"
       "  p = f32[] parameter(0)\n"
       "  ROOT n = f32[] negate(p)\n"
       "}\n"
       "ENTRY e {\n"
       "  x = f32[] parameter(0)\n"
       "  ROOT c = f32[] call(x), to_apply=f, is_composite=true, "
       "frontend_attributes={composite.attributes={n = 1 : "
       "i32},composite.name=\"foo.bar\",composite.version=\"1\"}\n"
       "}",
       "OK"},
      {"ShardingRankMismatch",
       "HloModule m\n"
       "ENTRY e {\n"
       "  ROOT x = f32[4] parameter(0), sharding={devices=[2,2]0,1,2,3}\n"
       "}",
       "m.hlo:3:8: error: %x: sharding {devices=[2,2]0,1,2,3} tiles 2 "
       "dimensions, but the shape f32[4] has rank 1"},
      {"ShardingRankWithReplicatedSubgroup",
       "HloModule m\n"
       "ENTRY e {\n"
       "  ROOT x = f32[4] parameter(0), sharding={devices=[2,2]0,1,2,3 "
       "last_tile_dim_replicate}\n"
       "}",
       "OK"},
      {"TupleShardingLeafCount",
       "HloModule m\n"
       "ENTRY e {\n"
       "  ROOT x = (f32[4], f32[4]) parameter(0), sharding={{replicated}}\n"
       "}",
       "m.hlo:3:8: error: %x: tuple sharding has 1 element, but the shape "
       "(f32[4], f32[4]) has 2 leaves"},
      {"ShardingSingleDeviceTile",
       "HloModule m\n"
       "ENTRY e {\n"
       "  ROOT x = f32[4] parameter(0), sharding={devices=[1]0}\n"
       "}",
       "m.hlo:3:8: error: %x: sharding {devices=[1]0} tiles over a single "
       "device; write {replicated} or {maximal device=N} instead"},
      {"RaggedAllToAllOffsetRank",
       "HloModule m\n"
       "ENTRY e {\n"
       "  in = f32[8] parameter(0)\n"
       "  out = f32[8] parameter(1)\n"
       "  io = s32[2] parameter(2)\n"
       "  ss = s32[2] parameter(3)\n"
       "  oo = s32[2] parameter(4)\n"
       "  rs = s32[2,2,2] parameter(5)\n"
       "  ROOT r = f32[8] ragged-all-to-all(in, out, io, ss, oo, rs), "
       "replica_groups={{0,1}}\n"
       "}",
       "m.hlo:9:8: error: %r: ragged-all-to-all operand 5 must have rank 1 or "
       "2, got s32[2,2,2]"},
      {"RaggedAllToAllOffsetShapes",
       "HloModule m\n"
       "ENTRY e {\n"
       "  in = f32[8] parameter(0)\n"
       "  out = f32[8] parameter(1)\n"
       "  io = s32[2] parameter(2)\n"
       "  ss = s32[2] parameter(3)\n"
       "  oo = s32[2] parameter(4)\n"
       "  rs = s32[3] parameter(5)\n"
       "  ROOT r = f32[8] ragged-all-to-all(in, out, io, ss, oo, rs), "
       "replica_groups={{0,1}}\n"
       "}",
       "m.hlo:9:8: error: %r: ragged-all-to-all offsets and sizes must share "
       "one shape: operand 5 is s32[3], operand 2 is s32[2]"},
      {"ReplicaIdOutsideReplicaCount",
       "HloModule m, replica_count=2\n"
       "add {\n"
       "  a = f32[] parameter(0)\n"
       "  b = f32[] parameter(1)\n"
       "  ROOT s = f32[] add(a, b)\n"
       "}\n"
       "ENTRY e {\n"
       "  x = f32[2] parameter(0)\n"
       "  ROOT r = f32[2] all-reduce(x), replica_groups={{0,5}}, to_apply=add\n"
       "}",
       "m.hlo:9:8: error: %r: replica_groups name 2 ids, so they must be 0..1, "
       "but 1 is missing"},
      {"ReplicaGroupsMissReplicas",
       "HloModule m, replica_count=4\n"
       "add {\n"
       "  a = f32[] parameter(0)\n"
       "  b = f32[] parameter(1)\n"
       "  ROOT s = f32[] add(a, b)\n"
       "}\n"
       "ENTRY e {\n"
       "  x = f32[2] parameter(0)\n"
       "  ROOT r = f32[2] all-reduce(x), replica_groups={{0,1}}, to_apply=add\n"
       "}",
       "m.hlo:9:8: error: %r: replica_groups name 2 ids, but in cross-replica "
       "mode they must name 4 (replicas)"},
      {"ReplicaGroupsBeyondReplicaCount",
       "HloModule m, replica_count=2\n"
       "add {\n"
       "  a = f32[] parameter(0)\n"
       "  b = f32[] parameter(1)\n"
       "  ROOT s = f32[] add(a, b)\n"
       "}\n"
       "ENTRY e {\n"
       "  x = f32[2] parameter(0)\n"
       "  ROOT r = f32[2] all-reduce(x), replica_groups={{0,1},{2,3}}, "
       "to_apply=add\n"
       "}",
       "m.hlo:9:8: error: %r: replica_groups name 4 ids, but in cross-replica "
       "mode they must name 2 (replicas)"},
      {"ReplicaGroupsCrossPartitionCount",
       "HloModule m, num_partitions=4\n"
       "ENTRY e {\n"
       "  x = f32[4] parameter(0)\n"
       "  ROOT r = f32[4] all-to-all(x), channel_id=1, replica_groups={{0,1}}, "
       "dimensions={0}\n"
       "}",
       "m.hlo:4:8: error: %r: replica_groups name 2 ids, but in "
       "cross-partition mode they must name 4 (partitions)"},
      {"GlobalDeviceIdsEmptyGroups",
       "HloModule m\n"
       "add {\n"
       "  a = f32[] parameter(0)\n"
       "  b = f32[] parameter(1)\n"
       "  ROOT s = f32[] add(a, b)\n"
       "}\n"
       "ENTRY e {\n"
       "  x = f32[2] parameter(0)\n"
       "  ROOT r = f32[2] all-reduce(x), channel_id=1, replica_groups={}, "
       "use_global_device_ids=true, to_apply=add\n"
       "}",
       "m.hlo:9:8: error: %r: replica_groups must be given in flattened-id "
       "mode (use_global_device_ids=true)"},
      {"GlobalDeviceIdsWithoutChannel",
       "HloModule m\n"
       "add {\n"
       "  a = f32[] parameter(0)\n"
       "  b = f32[] parameter(1)\n"
       "  ROOT s = f32[] add(a, b)\n"
       "}\n"
       "ENTRY e {\n"
       "  x = f32[2] parameter(0)\n"
       "  ROOT r = f32[2] all-reduce(x), replica_groups={{0,1}}, "
       "use_global_device_ids=true, to_apply=add\n"
       "}",
       "m.hlo:9:8: error: %r: use_global_device_ids=true needs a channel_id "
       "(device ids are global only across partitions)"},
      {"GlobalDeviceIdsFlattenedCount",
       "HloModule m, replica_count=2, num_partitions=2\n"
       "add {\n"
       "  a = f32[] parameter(0)\n"
       "  b = f32[] parameter(1)\n"
       "  ROOT s = f32[] add(a, b)\n"
       "}\n"
       "ENTRY e {\n"
       "  x = f32[2] parameter(0)\n"
       "  ROOT r = f32[2] all-reduce(x), channel_id=1, "
       "replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=add\n"
       "}",
       "OK"},
      {"DotStartShapeCheckIsLocated",
       "HloModule m\n"
       "ENTRY e {\n"
       "  a = f32[2,3] parameter(0)\n"
       "  b = f32[4,5] parameter(1)\n"
       "  ds = ((f32[2,3], f32[4,5]), f32[2,5]) dot-start(a, b), "
       "lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
       "  ROOT d = f32[2,5] dot-done(ds)\n"
       "}",
       "m.hlo:5:3: error: %dot: dot contracting dimensions differ: lhs "
       "f32[2,3] dim 1 is 3, rhs f32[4,5] dim 0 is 4"},
  };
  return *kCases;
}

class VerifierMalformedTest : public ::testing::TestWithParam<Case> {};

TEST_P(VerifierMalformedTest, GivesTheLocatedError) {
  EXPECT_EQ(FirstErrorLine(GetParam().text), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(All, VerifierMalformedTest,
                         ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace xlite
