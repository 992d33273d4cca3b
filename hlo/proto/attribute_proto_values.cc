// Proto functions of the attributes that hold values: scalars and enums,
// parameter replication, aliasing, custom calls, async ops, domains, and
// the called computations (no field of their own).
//
// proto3 writes no scalar that holds 0 or false, so the writers set
// scalars unconditionally; messages are created only where XLA writes them.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hlo/proto/attribute_proto.h"
#include "hlo/proto/proto_convert.h"
#include "hlo/proto/proto_import_internal.h"

namespace xlite::attribute_proto {
namespace {

using A = AttributeId;
using Hlo = HloInstruction;
using Proto = xla::HloInstructionProto;

// ---- compare, rng, parameter

absl::Status ReadComparisonDirection(const Proto& p, Hlo* h) {
  std::optional<ComparisonDirection> d =
      ParseComparisonDirection(p.comparison_direction());
  if (!d.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown comparison direction '", p.comparison_direction(), "'"));
  }
  h->mutable_attrs().direction = *d;
  return absl::OkStatus();
}

// An empty type is the default for the operands' element type. A compare
// without operands keeps XLA's float default; the verifier rejects its
// operand count.
absl::Status ReadComparisonType(const Proto& p, Hlo* h) {
  if (p.comparison_type().empty()) {
    if (h->operand_count() > 0) {
      h->mutable_attrs().comparison_type =
          DefaultComparisonType(h->operand(0)->shape().element_type());
    }
    return absl::OkStatus();
  }
  std::optional<ComparisonType> t = ParseComparisonType(p.comparison_type());
  if (!t.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown comparison type '", p.comparison_type(), "'"));
  }
  h->mutable_attrs().comparison_type = *t;
  return absl::OkStatus();
}

absl::Status ReadDistribution(const Proto& p, Hlo* h) {
  absl::Status status = ReadEnum(p.distribution(), 2, "rng distribution",
                                 &h->mutable_attrs().distribution);
  if (!status.ok()) return status;
  if (p.distribution() == 0) {
    return absl::InvalidArgumentError("rng needs a distribution");
  }
  return absl::OkStatus();
}

void AddCompareRngAndParameterAttributes(FunctionTable* t) {
  t->Set(
      A::kParameterReplication,
      [](const Hlo& h, Proto* p) {
        const auto& replication = h.attrs().parameter_replication;
        if (replication.has_value()) {
          for (bool b : *replication) {
            p->mutable_parameter_replication()->add_replicated_at_leaf_buffers(
                b);
          }
        }
        return absl::OkStatus();
      },
      [](const Proto& p, Hlo* h) {
        if (p.has_parameter_replication()) {
          const auto& leaves =
              p.parameter_replication().replicated_at_leaf_buffers();
          h->mutable_attrs().parameter_replication =
              std::vector<bool>(leaves.begin(), leaves.end());
        }
        return absl::OkStatus();
      });
  t->Set(
      A::kDirection,
      [](const Hlo& h, Proto* p) {
        p->set_comparison_direction(
            std::string(ComparisonDirectionString(h.attrs().direction)));
        return absl::OkStatus();
      },
      ReadComparisonDirection);
  t->Set(
      A::kComparisonType,
      [](const Hlo& h, Proto* p) {
        p->set_comparison_type(
            std::string(ComparisonTypeString(h.attrs().comparison_type)));
        return absl::OkStatus();
      },
      ReadComparisonType);
  t->Set(
      A::kDistribution,
      [](const Hlo& h, Proto* p) {
        p->set_distribution(
            static_cast<xla::RandomDistribution>(h.attrs().distribution));
        return absl::OkStatus();
      },
      ReadDistribution);
  t->Set(
      A::kRngAlgorithm,
      [](const Hlo& h, Proto* p) {
        p->set_rng_algorithm(
            static_cast<xla::RandomAlgorithm>(h.attrs().rng_algorithm));
        return absl::OkStatus();
      },
      [](const Proto& p, Hlo* h) {
        return ReadEnum(p.rng_algorithm(), 2, "rng algorithm",
                        &h->mutable_attrs().rng_algorithm);
      });
}

// ---- scalars that map one to one onto a proto field

// `field` names the HloAttributes member and the proto field alike.
#define XLITE_SCALAR(id, field)               \
  t->Set(                                     \
      A::id,                                  \
      [](const Hlo& h, Proto* p) {            \
        p->set_##field(h.attrs().field);      \
        return absl::OkStatus();              \
      },                                      \
      [](const Proto& p, Hlo* h) {            \
        h->mutable_attrs().field = p.field(); \
        return absl::OkStatus();              \
      })

void AddScalarAttributes(FunctionTable* t) {
  XLITE_SCALAR(kDelta, delta);
  XLITE_SCALAR(kExponentBits, exponent_bits);
  XLITE_SCALAR(kMantissaBits, mantissa_bits);
  XLITE_SCALAR(kEpsilon, epsilon);
  XLITE_SCALAR(kFeatureIndex, feature_index);
  XLITE_SCALAR(kIsStable, is_stable);
  XLITE_SCALAR(kK, k);
  XLITE_SCALAR(kLargest, largest);
  XLITE_SCALAR(kIsComposite, is_composite);
  XLITE_SCALAR(kIsHostTransfer, is_host_transfer);
  XLITE_SCALAR(kNumCarries, num_carries);
  XLITE_SCALAR(kIsReverse, is_reverse);
  // Written either way, as XLA's parser sets it and its proto writer writes
  // it.
  t->Set(
      A::kIsAssociative,
      [](const Hlo& h, Proto* p) {
        p->set_is_associative(h.attrs().is_associative ? xla::TRI_STATE_TRUE
                                                       : xla::TRI_STATE_FALSE);
        return absl::OkStatus();
      },
      [](const Proto& p, Hlo* h) {
        h->mutable_attrs().is_associative =
            p.is_associative() == xla::TRI_STATE_TRUE;
        return absl::OkStatus();
      });
  t->Set(
      A::kCrossProgramPrefetchIndex,
      [](const Hlo& h, Proto* p) {
        const std::optional<int64_t>& index =
            h.attrs().cross_program_prefetch_index;
        if (index.has_value()) {
          p->set_cross_program_prefetch_index(static_cast<int32_t>(*index));
        }
        return absl::OkStatus();
      },
      [](const Proto& p, Hlo* h) {
        if (p.optional_cross_program_prefetch_index_case() ==
            Proto::kCrossProgramPrefetchIndex) {
          h->mutable_attrs().cross_program_prefetch_index =
              p.cross_program_prefetch_index();
        }
        return absl::OkStatus();
      });
}

#undef XLITE_SCALAR

// ---- triangular-solve, cholesky (which share `lower`), fusion, aliasing

// One flag of triangular_solve_options, read when the proto has them.
#define XLITE_TRIANGULAR_FLAG(id, field)                                     \
  t->Set(                                                                    \
      A::id,                                                                 \
      [](const Hlo& h, Proto* p) {                                           \
        p->mutable_triangular_solve_options()->set_##field(h.attrs().field); \
        return absl::OkStatus();                                             \
      },                                                                     \
      [](const Proto& p, Hlo* h) {                                           \
        if (p.has_triangular_solve_options()) {                              \
          h->mutable_attrs().field = p.triangular_solve_options().field();   \
        }                                                                    \
        return absl::OkStatus();                                             \
      })

void AddLinearAlgebraAndFusionAttributes(FunctionTable* t) {
  XLITE_TRIANGULAR_FLAG(kLeftSide, left_side);
  XLITE_TRIANGULAR_FLAG(kLower, lower);
  XLITE_TRIANGULAR_FLAG(kUnitDiagonal, unit_diagonal);
  t->Set(
      A::kTransposeA,
      [](const Hlo& h, Proto* p) {
        p->mutable_triangular_solve_options()->set_transpose_a(
            static_cast<xla::TriangularSolveOptions::Transpose>(
                h.attrs().transpose_a));
        return absl::OkStatus();
      },
      [](const Proto& p, Hlo* h) {
        if (!p.has_triangular_solve_options()) return absl::OkStatus();
        return ReadEnum(p.triangular_solve_options().transpose_a(), 3,
                        "triangular-solve transpose",
                        &h->mutable_attrs().transpose_a);
      });
  t->Set(
      A::kCholeskyLower,
      [](const Hlo& h, Proto* p) {
        p->mutable_cholesky_options()->set_lower(h.attrs().lower);
        return absl::OkStatus();
      },
      [](const Proto& p, Hlo* h) {
        if (p.has_cholesky_options()) {
          h->mutable_attrs().lower = p.cholesky_options().lower();
        }
        return absl::OkStatus();
      });
  t->Set(
      A::kFusionKind,
      [](const Hlo& h, Proto* p) {
        p->set_fusion_kind(
            std::string(FusionKindString(h.attrs().fusion_kind)));
        return absl::OkStatus();
      },
      [](const Proto& p, Hlo* h) {
        std::optional<FusionKind> kind = ParseFusionKind(p.fusion_kind());
        if (!kind.has_value()) {
          return absl::InvalidArgumentError(
              absl::StrCat("unknown fusion kind '", p.fusion_kind(), "'"));
        }
        h->mutable_attrs().fusion_kind = *kind;
        return absl::OkStatus();
      });
  t->Set(
      A::kOutputToOperandAliasing,
      [](const Hlo& h, Proto* p) {
        for (const OutputOperandAlias& alias :
             h.attrs().output_to_operand_aliasing) {
          auto* o = p->add_output_operand_aliasing();
          for (int64_t i : alias.output_index) o->add_output_shape_index(i);
          o->set_operand_index(alias.operand_number);
          for (int64_t i : alias.operand_index) o->add_operand_shape_index(i);
        }
        return absl::OkStatus();
      },
      [](const Proto& p, Hlo* h) {
        using proto_import_internal::ToIndex;
        for (const auto& alias : p.output_operand_aliasing()) {
          h->mutable_attrs().output_to_operand_aliasing.push_back(
              {ToIndex(alias.output_shape_index()), alias.operand_index(),
               ToIndex(alias.operand_shape_index())});
        }
        return absl::OkStatus();
      });
}

#undef XLITE_TRIANGULAR_FLAG

// ---- custom-call

absl::Status WriteOperandLayoutConstraints(const Hlo& h, Proto* p) {
  const auto& shapes = h.attrs().custom_call->operand_layout_constraints;
  if (!shapes.has_value()) return absl::OkStatus();
  p->set_constrain_layout(true);
  for (const Shape& s : *shapes) {
    *p->add_operand_shapes_with_layout() = ShapeToProto(s);
  }
  return absl::OkStatus();
}

absl::Status ReadOperandLayoutConstraints(const Proto& p, Hlo* h) {
  if (!p.constrain_layout()) return absl::OkStatus();
  std::vector<Shape> shapes;
  for (const auto& s : p.operand_shapes_with_layout()) {
    absl::StatusOr<Shape> shape = ShapeFromProto(s);
    if (!shape.ok()) return shape.status();
    shapes.push_back(*shape);
  }
  h->mutable_attrs().custom_call->operand_layout_constraints =
      std::move(shapes);
  return absl::OkStatus();
}

absl::Status WriteLiteral(const Hlo& h, Proto* p) {
  if (!h.attrs().literal.has_value()) return absl::OkStatus();
  absl::StatusOr<xla::LiteralProto> literal =
      LiteralToProto(*h.attrs().literal);
  if (!literal.ok()) return literal.status();
  *p->mutable_literal() = *std::move(literal);
  return absl::OkStatus();
}

absl::Status ReadLiteral(const Proto& p, Hlo* h) {
  if (!p.has_literal()) return absl::OkStatus();
  absl::StatusOr<Literal> literal = LiteralFromProto(p.literal());
  if (!literal.ok()) return literal.status();
  h->mutable_attrs().literal = *std::move(literal);
  return absl::OkStatus();
}

// An unspecified API version reads as the original one.
absl::Status ReadApiVersion(const Proto& p, Hlo* h) {
  CustomCallAttributes& cc = *h->mutable_attrs().custom_call;
  absl::Status status = ReadEnum(p.custom_call_api_version(), 4,
                                 "custom-call API version", &cc.api_version);
  if (!status.ok()) return status;
  if (cc.api_version == CustomCallApiVersion::kUnspecified) {
    cc.api_version = CustomCallApiVersion::kOriginal;
  }
  return absl::OkStatus();
}

void AddCustomCallAttributes(FunctionTable* t) {
  t->Set(
      A::kCustomCallTarget,
      [](const Hlo& h, Proto* p) {
        p->set_custom_call_target(h.attrs().custom_call->target);
        return absl::OkStatus();
      },
      [](const Proto& p, Hlo* h) {
        h->mutable_attrs().custom_call->target = p.custom_call_target();
        return absl::OkStatus();
      });
  t->Set(A::kOperandLayoutConstraints, WriteOperandLayoutConstraints,
         ReadOperandLayoutConstraints);
  t->Set(
      A::kCustomCallHasSideEffect,
      [](const Hlo& h, Proto* p) {
        p->set_custom_call_has_side_effect(
            h.attrs().custom_call->has_side_effect);
        return absl::OkStatus();
      },
      [](const Proto& p, Hlo* h) {
        h->mutable_attrs().custom_call->has_side_effect =
            p.custom_call_has_side_effect();
        return absl::OkStatus();
      });
  t->Set(A::kLiteral, WriteLiteral, ReadLiteral);
  t->Set(
      A::kSchedule,
      [](const Hlo& h, Proto* p) {
        p->set_custom_call_schedule(static_cast<xla::CustomCallSchedule>(
            h.attrs().custom_call->schedule));
        return absl::OkStatus();
      },
      [](const Proto& p, Hlo* h) {
        return ReadEnum(p.custom_call_schedule(), 2, "custom-call schedule",
                        &h->mutable_attrs().custom_call->schedule);
      });
  t->Set(
      A::kApiVersion,
      [](const Hlo& h, Proto* p) {
        p->set_custom_call_api_version(static_cast<xla::CustomCallApiVersion>(
            h.attrs().custom_call->api_version));
        return absl::OkStatus();
      },
      ReadApiVersion);
}

// ---- async ops, domain, called computations

// The thread is the async-start's: XLA checks that its update and done ops
// repeat it, and leaves it out for the main thread.
absl::Status WriteAsyncExecutionThread(const Hlo& h, Proto* p) {
  const HloInstruction* start = &h;
  while (start->opcode() != HloOpcode::kAsyncStart &&
         start->operand_count() == 1 &&
         IsAsyncOpcode(start->operand(0)->opcode())) {
    start = start->operand(0);
  }
  const std::string& thread = start->attrs().async_execution_thread();
  if (thread != "main") p->set_async_execution_thread(thread);
  return absl::OkStatus();
}

// Only the async-start keeps the thread; its update and done ops share it.
absl::Status ReadAsyncExecutionThread(const Proto& p, Hlo* h) {
  if (h->opcode() != HloOpcode::kAsyncStart) return absl::OkStatus();
  h->mutable_attrs().set_async_execution_thread(
      p.async_execution_thread().empty() ? "main" : p.async_execution_thread());
  return absl::OkStatus();
}

// The proto's entry side is the operand's, which the text calls `exit=`
// (see ExportMetadataAndShardings in proto_export.cc).
absl::Status ReadDomain(const Proto& p, Hlo* h) {
  DomainAttributes& domain = *h->mutable_attrs().domain;
  domain.kind = "sharding";
  if (p.has_domain_entry_sharding()) {
    domain.exit =
        proto_import_internal::ImportSharding(p.domain_entry_sharding());
  }
  if (p.has_domain_exit_sharding()) {
    domain.entry =
        proto_import_internal::ImportSharding(p.domain_exit_sharding());
  }
  return absl::OkStatus();
}

void AddAsyncDomainAndCalleeAttributes(FunctionTable* t) {
  t->Set(A::kAsyncExecutionThread, WriteAsyncExecutionThread,
         ReadAsyncExecutionThread);
  // Written with the instruction's other shardings, whose errors come
  // before those of the kept attributes.
  t->Set(A::kDomain, WriteNothing, ReadDomain);
  // Called computations are one repeated field, written and read with the
  // instruction's operands.
  for (AttributeId id :
       {A::kToApply, A::kCalls, A::kCondition, A::kBody, A::kSelect,
        A::kScatterComputation, A::kTrueComputation, A::kFalseComputation,
        A::kBranchComputations, A::kCalledComputations}) {
    t->Set(id, WriteNothing, ReadNothing);
  }
}

}  // namespace

void AddValueAttributes(FunctionTable* table) {
  AddCompareRngAndParameterAttributes(table);
  AddScalarAttributes(table);
  AddLinearAlgebraAndFusionAttributes(table);
  AddCustomCallAttributes(table);
  AddAsyncDomainAndCalleeAttributes(table);
}

}  // namespace xlite::attribute_proto
