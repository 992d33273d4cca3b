// Malformed HloModuleProtos never crash: each yields an error that names
// the file and says what is wrong (the computation and instruction, or the
// text-format line and column).
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "google/protobuf/text_format.h"
#include "hlo/analysis/verifier.h"
#include "hlo/proto/proto_convert.h"
#include "hlo/text/parser.h"

namespace xlite {
namespace {

constexpr char kModule[] = R"(
HloModule m

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY main {
  p = f32[4] parameter(0)
  c = f32[] constant(0)
  n = f32[4] negate(p)
  ROOT r = f32[] reduce(n, c), dimensions={0}, to_apply=add
}
)";

xla::HloModuleProto BaseProto() {
  auto module = ParseHloModule(kModule);
  EXPECT_TRUE(module.ok()) << module.status().message();
  auto proto = ModuleToProto(**module);
  EXPECT_TRUE(proto.ok());
  return *proto;
}

// Loads (and verifies) serialized bytes like hlo-opt; returns the error.
std::string Error(const std::string& bytes, bool text = false) {
  auto module = ModuleFromSerializedProto(bytes, text, "m.pb");
  absl::Status status = module.ok() ? VerifyModule(**module) : module.status();
  return status.ok() ? "OK" : std::string(status.message());
}

std::string ErrorAfter(const std::function<void(xla::HloModuleProto&)>& edit) {
  xla::HloModuleProto proto = BaseProto();
  edit(proto);
  return Error(SerializeDeterministic(proto));
}

xla::HloInstructionProto& Instruction(xla::HloModuleProto& p,
                                      const std::string& name) {
  for (auto& c : *p.mutable_computations()) {
    for (auto& i : *c.mutable_instructions()) {
      if (i.name() == name) return i;
    }
  }
  ADD_FAILURE() << "no instruction " << name;
  return *p.mutable_computations(0)->mutable_instructions(0);
}

TEST(MalformedProto, TheBaseModuleLoads) {
  EXPECT_EQ(ErrorAfter([](xla::HloModuleProto&) {}), "OK");
}

TEST(MalformedProto, EmptyAndGarbageBytes) {
  EXPECT_EQ(Error(""),
            "m.pb: error: not an HloModuleProto, HloProto or HloSnapshot "
            "(truncated, corrupt, or no computations)");
  EXPECT_NE(Error("\xff\xff\xff\xff garbage")
                .find("m.pb: error: not an "
                      "HloModuleProto"),
            std::string::npos);
}

TEST(MalformedProto, EveryTruncationFailsCleanly) {
  const std::string bytes = SerializeDeterministic(BaseProto());
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    // Protobuf has no end marker: a cut between fields can still be a
    // (smaller) valid module; anything else is a located error.
    const std::string error = Error(bytes.substr(0, cut));
    EXPECT_TRUE(error == "OK" || error.rfind("m.pb", 0) == 0)
        << cut << ": " << error;
  }
}

// Fuzz finding: a device assignment claiming 2^30 x 2^30 devices made the
// writer list one id per device until it ran out of memory.
TEST(MalformedProto, DeviceCountBeyondTheLimit) {
  EXPECT_EQ(ErrorAfter([](xla::HloModuleProto& p) {
              p.mutable_device_assignment()->set_replica_count(1 << 30);
              p.mutable_device_assignment()->set_computation_count(1 << 30);
            }),
            "m.pb: error: device_assignment: replica_count x "
            "computation_count must be at most 1048576");
  EXPECT_EQ(ErrorAfter([](xla::HloModuleProto& p) {
              p.mutable_device_assignment()->set_replica_count(1024);
              p.mutable_device_assignment()->set_computation_count(1024);
            }),
            "OK");
}

TEST(MalformedProto, WrongMessageType) {
  xla::ShapeProto shape;
  shape.set_element_type(xla::F32);
  shape.add_dimensions(4);
  EXPECT_NE(Error(shape.SerializeAsString()).find("not an HloModuleProto"),
            std::string::npos);
}

TEST(MalformedProto, DanglingOperand) {
  EXPECT_EQ(ErrorAfter([](xla::HloModuleProto& p) {
              Instruction(p, "n").set_operand_ids(0, 9999);
            }),
            "m.pb: error: computation main, instruction n: operand id 9999 is "
            "not an earlier instruction of the computation");
}

// The comparison type defaults from the operands' type: a compare with no
// operands (and no type) is an error, not a read past its operand list.
TEST(MalformedProto, CompareWithoutOperands) {
  EXPECT_EQ(ErrorAfter([](xla::HloModuleProto& p) {
              xla::HloInstructionProto& n = Instruction(p, "n");
              n.set_opcode("compare");
              n.clear_operand_ids();
              n.set_comparison_direction("LT");
              n.mutable_shape()->set_element_type(xla::PRED);
            }),
            "m.pb: error: %n: compare expects 2 operands, but has 0");
}

TEST(MalformedProto, OperandDefinedLater) {
  EXPECT_NE(ErrorAfter([](xla::HloModuleProto& p) {
              const int64_t r = Instruction(p, "r").id();
              Instruction(p, "n").set_operand_ids(0, r);
            }).find("is not an earlier instruction"),
            std::string::npos);
}

TEST(MalformedProto, DanglingCalledComputation) {
  EXPECT_EQ(ErrorAfter([](xla::HloModuleProto& p) {
              Instruction(p, "r").set_called_computation_ids(0, 777);
            }),
            "m.pb: error: computation main, instruction r: called "
            "computation id 777 does not exist");
}

TEST(MalformedProto, MissingCalledComputation) {
  EXPECT_EQ(ErrorAfter([](xla::HloModuleProto& p) {
              Instruction(p, "r").clear_called_computation_ids();
            }),
            "m.pb: error: %r: reduce calls 0 computations, expected 1");
}

TEST(MalformedProto, CallCycle) {
  EXPECT_NE(ErrorAfter([](xla::HloModuleProto& p) {
              // add's root calls main, which calls add.
              auto& s = Instruction(p, "s");
              s.set_opcode("call");
              s.add_called_computation_ids(p.entry_computation_id());
            }).find("in a cycle of computation calls"),
            std::string::npos);
}

TEST(MalformedProto, DanglingRoot) {
  EXPECT_EQ(ErrorAfter([](xla::HloModuleProto& p) {
              p.mutable_computations(1)->set_root_id(4242);
            }),
            "m.pb: error: computation main: root id 4242 is not an "
            "instruction");
}

TEST(MalformedProto, DuplicateIds) {
  EXPECT_NE(ErrorAfter([](xla::HloModuleProto& p) {
              Instruction(p, "n").set_id(Instruction(p, "p").id());
            }).find("is used twice"),
            std::string::npos);
  EXPECT_NE(ErrorAfter([](xla::HloModuleProto& p) {
              p.mutable_computations(1)->set_id(p.computations(0).id());
            }).find("is used twice"),
            std::string::npos);
}

TEST(MalformedProto, UnknownOpcode) {
  EXPECT_EQ(ErrorAfter([](xla::HloModuleProto& p) {
              Instruction(p, "n").set_opcode("frobnicate");
            }),
            "m.pb: error: computation main, instruction n: unknown opcode "
            "'frobnicate'");
}

TEST(MalformedProto, WrongOperandCount) {
  EXPECT_EQ(ErrorAfter([](xla::HloModuleProto& p) {
              Instruction(p, "n").add_operand_ids(Instruction(p, "p").id());
            }),
            "m.pb: error: %n: negate expects 1 operands, but has 2");
}

TEST(MalformedProto, BadShapes) {
  EXPECT_NE(ErrorAfter([](xla::HloModuleProto& p) {
              Instruction(p, "n").mutable_shape()->set_dimensions(0, -3);
            }).find("m.pb: error: computation main, instruction n:"),
            std::string::npos);
  EXPECT_NE(ErrorAfter([](xla::HloModuleProto& p) {
              Instruction(p, "n").mutable_shape()->set_element_type(
                  static_cast<xla::PrimitiveType>(999));
            }).find("m.pb: error: computation main, instruction n:"),
            std::string::npos);
  // A layout naming a dimension twice.
  EXPECT_NE(ErrorAfter([](xla::HloModuleProto& p) {
              auto* layout =
                  Instruction(p, "n").mutable_shape()->mutable_layout();
              layout->clear_minor_to_major();
              layout->add_minor_to_major(0);
              layout->add_minor_to_major(0);
            }).find("m.pb: error: computation main, instruction n:"),
            std::string::npos);
}

TEST(MalformedProto, ShapeDisagreesWithOperands) {
  EXPECT_EQ(ErrorAfter([](xla::HloModuleProto& p) {
              Instruction(p, "n").mutable_shape()->set_dimensions(0, 5);
            }).rfind("m.pb: error: %n:", 0),
            0u);
}

TEST(MalformedProto, LiteralOfTheWrongSize) {
  EXPECT_NE(ErrorAfter([](xla::HloModuleProto& p) {
              Instruction(p, "c").mutable_literal()->add_f32s(1.0f);
            }).find("m.pb: error: computation main, instruction c:"),
            std::string::npos);
}

TEST(MalformedProto, ParameterNumbers) {
  EXPECT_NE(ErrorAfter([](xla::HloModuleProto& p) {
              Instruction(p, "y").set_parameter_number(0);
            }).find("bad or repeated parameter number 0"),
            std::string::npos);
  EXPECT_NE(ErrorAfter([](xla::HloModuleProto& p) {
              Instruction(p, "y").set_parameter_number(5);
            }).find("has no parameter"),
            std::string::npos);
}

TEST(MalformedProto, BadReplicaGroupsAndShardings) {
  EXPECT_NE(ErrorAfter([](xla::HloModuleProto& p) {
              auto& n = Instruction(p, "n");
              n.set_opcode("all-reduce");
              n.add_called_computation_ids(p.computations(0).id());
              auto* iota = n.mutable_collective_device_list()
                               ->mutable_iota_replica_group_list();
              iota->set_num_replica_groups(8);
              iota->set_num_devices_per_group(0);
              iota->add_iota_reshape_dims(128);
            }).find("iota replica groups [8,0] need positive sizes"),
            std::string::npos);
  EXPECT_NE(ErrorAfter([](xla::HloModuleProto& p) {
              auto* s = Instruction(p, "n").mutable_sharding();
              s->set_type(xla::OpSharding::OTHER);
              s->add_tile_assignment_dimensions(2);
              s->add_tile_assignment_devices(0);
            }).find("sharding lists 1 devices, tile assignment needs 2"),
            std::string::npos);
}

TEST(MalformedProto, TextFormatErrorsAreLocated) {
  EXPECT_EQ(Error("name: \"m\"\ncomputations {\n  name: 7 oops\n}\n", true)
                .substr(0, 12),
            "m.pb:3:9: er");
  EXPECT_EQ(Error("name: \"m\"\n", true),
            "m.pb: error: not an HloModuleProto, HloProto or HloSnapshot (the "
            "text format holds no computations)");
}

TEST(MalformedProto, HloProtoAndSnapshotWrappersLoad) {
  xla::HloProto hlo;
  *hlo.mutable_hlo_module() = BaseProto();
  EXPECT_EQ(Error(hlo.SerializeAsString()), "OK");
  xla::HloSnapshot snapshot;
  *snapshot.mutable_hlo() = hlo;
  EXPECT_EQ(Error(snapshot.SerializeAsString()), "OK");
}

}  // namespace
}  // namespace xlite
