// Reading .xlx files: header checks (magic, format version, length,
// checksum), a bounds-checked parse, then validation of what the runtime
// will trust (allocation kinds and sizes, every slice inside its
// allocation, kernel launches, nesting depth).
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hlo/text/parser.h"
#include "runtime/gpu_image.h"
#include "runtime/gpu_image_wire.h"

namespace xlite::runtime {
namespace {

constexpr int kMaxNesting = 64;
constexpr int64_t kMaxIndexDepth = 64;

absl::Status Bad(absl::string_view name, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat(name, ": not a valid xlite GPU executable (", why, ")"));
}

bool ReadIndex(wire::Reader& r, ShapeIndex& index) {
  const uint64_t n = r.Count(8);
  if (n > kMaxIndexDepth) return false;
  for (uint64_t i = 0; i < n; ++i) index.push_back(r.I64());
  return r.ok();
}

Slice ReadSlice(wire::Reader& r) {
  Slice s;
  const int64_t allocation = r.I64();
  s.allocation = allocation < -1 || allocation > (1 << 30)
                     ? -2
                     : static_cast<int>(allocation);
  s.offset = r.I64();
  s.size = r.I64();
  return s;
}

// A library call's operand shapes, then its result shape, as text; false
// with `error` set (naming `what`) when one does not parse.
bool ReadCallShapes(wire::Reader& r, absl::string_view what,
                    std::vector<Shape>& operands, Shape& result,
                    std::string& error) {
  const uint64_t n = r.Count(8);
  for (uint64_t i = 0; i < n && r.ok(); ++i) {
    absl::StatusOr<Shape> shape = ParseShape(r.Bytes());
    if (!r.ok()) return false;
    if (!shape.ok()) {
      error = absl::StrCat("bad ", what, " operand shape");
      return false;
    }
    operands.push_back(*std::move(shape));
  }
  const std::string result_text = r.Bytes();
  if (!r.ok()) return false;
  absl::StatusOr<Shape> parsed = ParseShape(result_text);
  if (!parsed.ok()) {
    error = absl::StrCat("bad ", what, " result shape");
    return false;
  }
  result = *std::move(parsed);
  return true;
}

// A GEMM thunk's description, parsed and checked as the compiler did;
// false with `error` set when the record is malformed.
bool ReadGemm(wire::Reader& r, uint32_t version, Thunk& t, std::string& error) {
  if (r.U8() == 0) return r.ok();
  const std::string target = r.Bytes();
  const std::string config = r.Bytes();
  std::vector<Shape> operands;
  Shape result;
  if (!ReadCallShapes(r, "GEMM", operands, result, error)) return false;
  absl::StatusOr<GemmDescription> gemm =
      DescribeGemm(target, config, std::move(operands), std::move(result));
  if (!gemm.ok()) {
    error = absl::StrCat("bad GEMM of %", t.instruction, ": ",
                         gemm.status().message());
    return false;
  }
  t.gemm = std::make_shared<const GemmDescription>(*std::move(gemm));
  if (version < 4) return true;  // never autotuned
  if (r.U8() == 0) return r.ok();
  GemmAlgorithm algorithm;
  for (uint64_t& word : algorithm.data) word = r.U64();
  algorithm.label = r.Bytes();
  algorithm.tuned_for = r.Bytes();
  if (!r.ok()) return false;
  t.gemm_algorithm = std::move(algorithm);
  return true;
}

// A block-scaled dot thunk's description (format 5 on), checked as the
// compiler did; false with `error` set when the record is malformed.
bool ReadBlockScaledDot(wire::Reader& r, uint32_t version, Thunk& t,
                        std::string& error) {
  if (version < 5 || r.U8() == 0) return r.ok();
  std::vector<Shape> operands;
  Shape result;
  if (!ReadCallShapes(r, "block-scaled dot", operands, result, error)) {
    return false;
  }
  absl::StatusOr<BlockScaledDotDescription> dot =
      DescribeBlockScaledDot(std::move(operands), std::move(result));
  if (!dot.ok()) {
    error = absl::StrCat("bad block-scaled dot of %", t.instruction, ": ",
                         dot.status().message());
    return false;
  }
  t.block_scaled_dot =
      std::make_shared<const BlockScaledDotDescription>(*std::move(dot));
  return true;
}

// A count, then that many int64 values (a tensor map's dims, strides or
// box).
void ReadInts(wire::Reader& r, std::vector<int64_t>& values) {
  const uint64_t n = r.Count(8);
  for (uint64_t i = 0; i < n && r.ok(); ++i) values.push_back(r.I64());
}

// A thunk's TMA tensor maps (format 7 on); ValidateGpuImage checks them.
bool ReadTensorMaps(wire::Reader& r, uint32_t version, Thunk& t) {
  if (version < kGpuImageTensorMapVersion) return r.ok();
  // argument, element size, swizzle and three counts.
  const uint64_t n = r.Count(8 + 8 + 1 + 3 * 8);
  for (uint64_t i = 0; i < n && r.ok(); ++i) {
    TensorMapDescription map;
    map.argument = r.I64();
    map.element_bytes = r.I64();
    map.swizzle_128b = r.U8() != 0;
    ReadInts(r, map.dims);
    ReadInts(r, map.strides);
    ReadInts(r, map.box);
    t.tensor_maps.push_back(std::move(map));
  }
  return r.ok();
}

bool ReadThunks(wire::Reader& r, uint32_t version, ThunkSequence& thunks,
                int depth, std::string& error) {
  if (depth > kMaxNesting) return false;
  // The smallest thunk is well over 64 bytes on the wire.
  const uint64_t n = r.Count(64);
  for (uint64_t i = 0; i < n && r.ok(); ++i) {
    Thunk t;
    const uint8_t kind = r.U8();
    const Thunk::Kind last =
        version < 5 ? Thunk::Kind::kGemm : Thunk::Kind::kBlockScaledDot;
    if (kind > static_cast<uint8_t>(last)) return false;
    t.kind = static_cast<Thunk::Kind>(kind);
    t.instruction = r.Bytes();
    t.kernel = r.Bytes();
    t.grid = r.I64();
    t.block = r.I64();
    t.shared_bytes = r.I64();
    t.cooperative = r.U8() != 0;
    const uint64_t args = r.Count(24);
    for (uint64_t a = 0; a < args && r.ok(); ++a) {
      t.arguments.push_back(ReadSlice(r));
    }
    t.source = ReadSlice(r);
    t.destination = ReadSlice(r);
    t.byte = r.U8();
    t.predicate = ReadSlice(r);
    t.index_is_pred = r.U8() != 0;
    t.trip_count = r.I64();
    const uint64_t children = r.Count(8);
    for (uint64_t c = 0; c < children && r.ok(); ++c) {
      t.children.emplace_back();
      if (!ReadThunks(r, version, t.children.back(), depth + 1, error)) {
        return false;
      }
    }
    if (!ReadGemm(r, version, t, error)) return false;
    if (!ReadBlockScaledDot(r, version, t, error)) return false;
    if (version >= 6) {
      t.cost.bytes = r.I64();
      t.cost.flops = r.I64();
      t.cost.flop_type = r.Bytes();
      t.cost.label = r.Bytes();
    }
    if (!ReadTensorMaps(r, version, t)) return false;
    thunks.push_back(std::move(t));
  }
  return r.ok();
}

absl::StatusOr<Shape> ReadShape(wire::Reader& r, absl::string_view name) {
  const std::string text = r.Bytes();
  if (!r.ok()) return Bad(name, "truncated");
  absl::StatusOr<Shape> shape = ParseShape(text);
  if (!shape.ok()) return Bad(name, absl::StrCat("bad shape '", text, "'"));
  return shape;
}

}  // namespace

absl::StatusOr<GpuImage> DeserializeGpuImage(absl::string_view bytes,
                                             absl::string_view name) {
  if (!LooksLikeGpuImage(bytes)) return Bad(name, "no .xlx magic");
  wire::Reader header(bytes.substr(sizeof(wire::kMagic)));
  const uint32_t version = header.U32();
  const uint64_t length = header.U64();
  const uint32_t checksum = header.U32();
  if (!header.ok()) return Bad(name, "truncated header");
  if (version < kGpuImageOldestReadableVersion ||
      version > kGpuImageFormatVersion) {
    return Bad(name, absl::StrCat("format version ", version, "; this xlite (",
                                  kXliteVersion, ") reads versions ",
                                  kGpuImageOldestReadableVersion, " to ",
                                  kGpuImageFormatVersion));
  }
  const absl::string_view payload = bytes.substr(wire::kHeaderSize);
  if (payload.size() != length) {
    return Bad(name, absl::StrCat("truncated: ", payload.size(), " of ", length,
                                  " payload bytes"));
  }
  if (wire::Crc32(payload) != checksum) return Bad(name, "checksum mismatch");

  wire::Reader r(payload);
  GpuImage image;
  image.xlite_version = r.Bytes();
  image.module_name = r.Bytes();
  image.spec_name = r.Bytes();
  image.sm_name = r.Bytes();
  const uint64_t params = r.Count(8);
  for (uint64_t i = 0; i < params && r.ok(); ++i) {
    absl::StatusOr<Shape> shape = ReadShape(r, name);
    if (!shape.ok()) return shape.status();
    image.parameter_shapes.push_back(*std::move(shape));
  }
  absl::StatusOr<Shape> result = ReadShape(r, name);
  if (!result.ok()) return result.status();
  image.result_shape = *std::move(result);
  const uint64_t allocations = r.Count(33);
  for (uint64_t i = 0; i < allocations && r.ok(); ++i) {
    GpuImageAllocation a;
    const uint8_t kind = r.U8();
    if (kind > static_cast<uint8_t>(Allocation::Kind::kTemp)) {
      return Bad(name, "unknown allocation kind");
    }
    a.kind = static_cast<Allocation::Kind>(kind);
    a.size = r.I64();
    a.parameter_number = r.I64();
    if (!ReadIndex(r, a.parameter_index)) return Bad(name, "truncated");
    a.constant_bytes = r.Bytes();
    image.allocations.push_back(std::move(a));
  }
  const uint64_t outputs = r.Count(32);
  for (uint64_t i = 0; i < outputs && r.ok(); ++i) {
    GpuImageOutput o;
    if (!ReadIndex(r, o.index)) return Bad(name, "truncated");
    o.slice = ReadSlice(r);
    image.outputs.push_back(std::move(o));
  }
  if (std::string error; !ReadThunks(r, version, image.thunks, 0, error)) {
    return Bad(name, error.empty() ? "bad thunk sequence" : error);
  }
  image.ptx = r.Bytes();
  const uint64_t cubins = r.Count(16);
  for (uint64_t i = 0; i < cubins && r.ok(); ++i) {
    std::string sm = r.Bytes();
    image.cubins[sm] = r.Bytes();
  }
  image.emulator_ir = r.Bytes();
  if (!r.ok()) return Bad(name, "truncated payload");
  if (r.remaining() != 0) return Bad(name, "trailing bytes in the payload");
  if (absl::Status s = ValidateGpuImage(image, name); !s.ok()) return s;
  return image;
}

}  // namespace xlite::runtime
