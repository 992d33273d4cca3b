// Literal files: dispatch by extension, HLO literal text, HloSnapshot.

#include "runtime/literal_io.h"

#include <fstream>
#include <random>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "hlo/module_io.h"
#include "hlo/proto/proto_convert.h"
#include "hlo/text/parser.h"

namespace xlite {
namespace {

absl::Status WriteBytes(const std::string& bytes, const std::string& path) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
  out.close();
  if (!out) {
    return absl::PermissionDeniedError(
        absl::StrCat(path, ": error: cannot write file"));
  }
  return absl::OkStatus();
}

bool IsNpyPath(absl::string_view path) { return absl::EndsWith(path, ".npy"); }

// The element type `expected` gives .npy data (nullopt for tuples).
std::optional<PrimitiveType> ExpectedType(const Shape* expected) {
  if (expected == nullptr || !expected->IsArray()) return std::nullopt;
  return expected->element_type();
}

}  // namespace

absl::StatusOr<Literal> ReadLiteralFile(const std::string& path,
                                        const Shape* expected) {
  absl::StatusOr<std::string> bytes = ReadFileBytes(path);
  if (!bytes.ok()) return bytes.status();
  absl::StatusOr<Literal> literal;
  if (IsNpyPath(path) || absl::StartsWith(*bytes, "\x93NUMPY")) {
    literal = ParseNpy(*bytes, path, ExpectedType(expected));
  } else {
    ParseOptions options;
    options.filename = path;
    literal = ParseLiteral(*bytes, options);
  }
  if (!literal.ok()) return literal.status();
  if (expected != nullptr && !ShapesCompatible(literal->shape(), *expected)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": error: holds ", literal->shape().ToString(false),
                     ", expected ", expected->ToString(false)));
  }
  return literal;
}

absl::Status WriteNpyFile(const Literal& literal, const std::string& path) {
  absl::StatusOr<std::string> bytes = SerializeNpy(literal);
  if (!bytes.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": error: ", bytes.status().message()));
  }
  return WriteBytes(*bytes, path);
}

absl::StatusOr<NamedLiterals> ReadNpzFile(
    const std::string& path, const std::vector<PrimitiveType>& expected) {
  absl::StatusOr<std::string> bytes = ReadFileBytes(path);
  if (!bytes.ok()) return bytes.status();
  return ParseNpz(*bytes, path, expected);
}

absl::Status WriteNpzFile(const NamedLiterals& arrays,
                          const std::string& path) {
  absl::StatusOr<std::string> bytes = SerializeNpz(arrays);
  if (!bytes.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": error: ", bytes.status().message()));
  }
  return WriteBytes(*bytes, path);
}

absl::StatusOr<Snapshot> ReadHloSnapshotFile(const std::string& path) {
  absl::StatusOr<std::string> bytes = ReadFileBytes(path);
  if (!bytes.ok()) return bytes.status();
  xla::HloSnapshot proto;
  if (!proto.ParseFromString(*bytes) || !proto.has_hlo() ||
      proto.hlo().hlo_module().computations_size() == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(path,
                     ": error: not an HloSnapshot (a module with its "
                     "arguments)"));
  }
  Snapshot snapshot;
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ModuleFromProto(proto.hlo().hlo_module(), path);
  if (!module.ok()) return module.status();
  snapshot.module = *std::move(module);
  for (int i = 0; i < proto.arguments_size(); ++i) {
    absl::StatusOr<Literal> argument = LiteralFromProto(proto.arguments(i));
    if (!argument.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": error: argument ", i, ": ", argument.status().message()));
    }
    snapshot.arguments.push_back(*std::move(argument));
  }
  if (proto.has_result()) {
    absl::StatusOr<Literal> result = LiteralFromProto(proto.result());
    if (!result.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": error: result: ", result.status().message()));
    }
    snapshot.result = *std::move(result);
  }
  return snapshot;
}

absl::Status WriteHloSnapshotFile(const HloModule& module,
                                  const std::vector<Literal>& arguments,
                                  const Literal* result,
                                  const std::string& path) {
  xla::HloSnapshot proto;
  absl::StatusOr<xla::HloModuleProto> module_proto = ModuleToProto(module);
  if (!module_proto.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": error: ", module_proto.status().message()));
  }
  *proto.mutable_hlo()->mutable_hlo_module() = *std::move(module_proto);
  for (const Literal& argument : arguments) {
    absl::StatusOr<xla::LiteralProto> p = LiteralToProto(argument);
    if (!p.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": error: ", p.status().message()));
    }
    *proto.add_arguments() = *std::move(p);
  }
  if (result != nullptr) {
    absl::StatusOr<xla::LiteralProto> p = LiteralToProto(*result);
    if (!p.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": error: ", p.status().message()));
    }
    *proto.mutable_result() = *std::move(p);
  }
  return WriteBytes(SerializeDeterministic(proto), path);
}

// Uniform in [-1, 1) for floats (both parts of complex), 0..3 for
// integers, 0/1 for predicates: small values every opcode accepts.
Literal RandomLiteral(const Shape& shape, std::mt19937_64& gen) {
  if (shape.IsTuple()) {
    std::vector<Literal> elements;
    for (const Shape& e : shape.tuple_shapes()) {
      elements.push_back(RandomLiteral(e, gen));
    }
    return Literal::Tuple(std::move(elements));
  }
  Literal out(shape);
  if (!shape.IsArray()) return out;
  const PrimitiveType type = shape.element_type();
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int64_t> small(0, 3);
  for (int64_t i = 0; i < out.element_count(); ++i) {
    if (type == PrimitiveType::kPred) {
      out.SetFromInt64(i, small(gen) & 1);
    } else if (IsComplex(type)) {
      out.SetFromComplex(i, {real(gen), real(gen)});
    } else if (IsFloatingPoint(type)) {
      out.SetFromDouble(i, real(gen));
    } else {
      out.SetFromInt64(i, small(gen));
    }
  }
  return out;
}

}  // namespace xlite
