#ifndef XLITE_RUNTIME_LITERAL_IO_H_
#define XLITE_RUNTIME_LITERAL_IO_H_

#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/ir/literal.h"
#include "hlo/ir/module.h"

namespace xlite {

// Literal files: NumPy .npy / .npz, HLO literal text, XLA's HloSnapshot.
// Every error names the file and says what is wrong.

/// Parses a .npy file's bytes. Standard dtypes map to XLA types (<f4 f32,
/// |b1 pred, <c8 c64, ...; big-endian and Fortran order are converted).
/// NumPy writes ml_dtypes arrays (bfloat16, float8_*, int4, ...) as raw
/// '<V1'/'<V2' (float8_e5m2 as '<f1'): `expected` (e.g. the parameter's
/// type) says which type such bytes hold; a typed dtype must match it.
absl::StatusOr<Literal> ParseNpy(
    absl::string_view bytes, const std::string& name,
    std::optional<PrimitiveType> expected = std::nullopt);
/// An array literal as a version 1.0 .npy file, byte-identical to what
/// numpy.save writes (ml_dtypes types as '<V1'/'<V2' raw data, sub-byte
/// types one element per byte as ml_dtypes stores them).
absl::StatusOr<std::string> SerializeNpy(const Literal& literal);

/// A .npz archive (numpy.savez or savez_compressed): its arrays in archive
/// order, keyed by name without ".npy".
using NamedLiterals = std::vector<std::pair<std::string, Literal>>;
absl::StatusOr<NamedLiterals> ParseNpz(
    absl::string_view bytes, const std::string& name,
    const std::vector<PrimitiveType>& expected = {});
/// Uncompressed .npz (as numpy.savez writes).
absl::StatusOr<std::string> SerializeNpz(const NamedLiterals& arrays);

/// Reads a literal from a file: .npy, or text holding one HLO literal with
/// its shape ("f32[2] {1, 2}", "(s32[] 1, f32[] 2)"). `expected` is the
/// shape the caller needs (types of raw .npy data; checked when given).
absl::StatusOr<Literal> ReadLiteralFile(const std::string& path,
                                        const Shape* expected = nullptr);
absl::Status WriteNpyFile(const Literal& literal, const std::string& path);
absl::StatusOr<NamedLiterals> ReadNpzFile(
    const std::string& path, const std::vector<PrimitiveType>& expected = {});
absl::Status WriteNpzFile(const NamedLiterals& arrays, const std::string& path);

/// XLA's HloSnapshot: a module with the arguments of one run and,
/// optionally, its result.
struct Snapshot {
  std::unique_ptr<HloModule> module;
  std::vector<Literal> arguments;
  std::optional<Literal> result;
};
absl::StatusOr<Snapshot> ReadHloSnapshotFile(const std::string& path);
absl::Status WriteHloSnapshotFile(const HloModule& module,
                                  const std::vector<Literal>& arguments,
                                  const Literal* result,
                                  const std::string& path);

/// A literal of `shape` filled from `gen` with values every opcode takes:
/// floats uniform in [-1, 1), integers 0..3, predicates 0/1.
Literal RandomLiteral(const Shape& shape, std::mt19937_64& gen);

}  // namespace xlite

#endif  // XLITE_RUNTIME_LITERAL_IO_H_
