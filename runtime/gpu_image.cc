#include "runtime/gpu_image.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "runtime/gpu_image_wire.h"

namespace xlite::runtime {
namespace {

void WriteIndex(wire::Writer& w, const ShapeIndex& index) {
  w.U64(index.size());
  for (int64_t i : index) w.I64(i);
}

void WriteSlice(wire::Writer& w, const Slice& s) {
  w.I64(s.allocation);
  w.I64(s.offset);
  w.I64(s.size);
}

// A GEMM thunk's description: the target, the config's JSON, the shapes'
// text (layouts included), which the reader parses and checks again; then
// the autotuned algorithm when there is one.
void WriteGemm(wire::Writer& w, uint32_t version, const Thunk& t) {
  w.U8(t.gemm != nullptr ? 1 : 0);
  if (t.gemm == nullptr) return;
  w.Bytes(GemmTargetName(t.gemm->target));
  w.Bytes(GemmBackendConfigToJson(t.gemm->config));
  w.U64(t.gemm->operands.size());
  for (const Shape& s : t.gemm->operands) w.Bytes(s.ToString(true));
  w.Bytes(t.gemm->result.ToString(true));
  if (version < 4) return;
  w.U8(t.gemm_algorithm ? 1 : 0);
  if (!t.gemm_algorithm) return;
  for (uint64_t word : t.gemm_algorithm->data) w.U64(word);
  w.Bytes(t.gemm_algorithm->label);
  w.Bytes(t.gemm_algorithm->tuned_for);
}

// A block-scaled dot thunk's description: the shapes' text, which the
// reader checks again (format 5 on).
void WriteBlockScaledDot(wire::Writer& w, uint32_t version, const Thunk& t) {
  if (version < 5) return;
  const BlockScaledDotDescription* dot = t.block_scaled_dot.get();
  w.U8(dot != nullptr ? 1 : 0);
  if (dot == nullptr) return;
  w.U64(dot->operands.size());
  for (const Shape& s : dot->operands) w.Bytes(s.ToString(true));
  w.Bytes(dot->result.ToString(true));
}

// A thunk's TMA tensor maps (format 7 on): argument, element size,
// swizzle, rank, then dims, strides and box.
void WriteTensorMaps(wire::Writer& w, uint32_t version, const Thunk& t) {
  if (version < kGpuImageTensorMapVersion) return;
  w.U64(t.tensor_maps.size());
  for (const TensorMapDescription& map : t.tensor_maps) {
    w.I64(map.argument);
    w.I64(map.element_bytes);
    w.U8(map.swizzle_128b ? 1 : 0);
    w.U64(map.dims.size());
    for (int64_t d : map.dims) w.I64(d);
    w.U64(map.strides.size());
    for (int64_t s : map.strides) w.I64(s);
    w.U64(map.box.size());
    for (int64_t b : map.box) w.I64(b);
  }
}

bool HasTensorMaps(const ThunkSequence& thunks) {
  for (const Thunk& t : thunks) {
    if (!t.tensor_maps.empty()) return true;
    for (const ThunkSequence& child : t.children) {
      if (HasTensorMaps(child)) return true;
    }
  }
  return false;
}

void WriteThunks(wire::Writer& w, uint32_t version,
                 const ThunkSequence& thunks) {
  w.U64(thunks.size());
  for (const Thunk& t : thunks) {
    w.U8(static_cast<uint8_t>(t.kind));
    w.Bytes(t.instruction);
    w.Bytes(t.kernel);
    w.I64(t.grid);
    w.I64(t.block);
    w.I64(t.shared_bytes);
    w.U8(t.cooperative ? 1 : 0);
    w.U64(t.arguments.size());
    for (const Slice& s : t.arguments) WriteSlice(w, s);
    WriteSlice(w, t.source);
    WriteSlice(w, t.destination);
    w.U8(t.byte);
    WriteSlice(w, t.predicate);
    w.U8(t.index_is_pred ? 1 : 0);
    w.I64(t.trip_count);
    w.U64(t.children.size());
    for (const ThunkSequence& child : t.children) {
      WriteThunks(w, version, child);
    }
    WriteGemm(w, version, t);
    WriteBlockScaledDot(w, version, t);
    if (version >= 6) {
      w.I64(t.cost.bytes);
      w.I64(t.cost.flops);
      w.Bytes(t.cost.flop_type);
      w.Bytes(t.cost.label);
    }
    WriteTensorMaps(w, version, t);
  }
}

}  // namespace

uint32_t wire::Crc32(absl::string_view bytes) {
  uLong crc = crc32(0, nullptr, 0);
  while (!bytes.empty()) {
    const size_t n = std::min<size_t>(bytes.size(), 1u << 30);
    crc = crc32(crc, reinterpret_cast<const Bytef*>(bytes.data()),
                static_cast<uInt>(n));
    bytes.remove_prefix(n);
  }
  return static_cast<uint32_t>(crc);
}

bool LooksLikeGpuImage(absl::string_view bytes) {
  return bytes.size() >= sizeof(wire::kMagic) &&
         std::memcmp(bytes.data(), wire::kMagic, sizeof(wire::kMagic)) == 0;
}

std::string SerializeGpuImage(const GpuImage& image, uint32_t version) {
  if (HasTensorMaps(image.thunks)) {
    version = std::max(version, kGpuImageTensorMapVersion);
  }
  wire::Writer w;
  w.Bytes(image.xlite_version);
  w.Bytes(image.module_name);
  w.Bytes(image.spec_name);
  w.Bytes(image.sm_name);
  w.U64(image.parameter_shapes.size());
  for (const Shape& s : image.parameter_shapes) w.Bytes(s.ToString(true));
  w.Bytes(image.result_shape.ToString(true));
  w.U64(image.allocations.size());
  for (const GpuImageAllocation& a : image.allocations) {
    w.U8(static_cast<uint8_t>(a.kind));
    w.I64(a.size);
    w.I64(a.parameter_number);
    WriteIndex(w, a.parameter_index);
    w.Bytes(a.constant_bytes);
  }
  w.U64(image.outputs.size());
  for (const GpuImageOutput& o : image.outputs) {
    WriteIndex(w, o.index);
    WriteSlice(w, o.slice);
  }
  WriteThunks(w, version, image.thunks);
  w.Bytes(image.ptx);
  w.U64(image.cubins.size());
  for (const auto& [sm, cubin] : image.cubins) {
    w.Bytes(sm);
    w.Bytes(cubin);
  }
  w.Bytes(image.emulator_ir);

  const std::string& payload = w.out();
  wire::Writer file;
  file.out().append(wire::kMagic, sizeof(wire::kMagic));
  file.U32(version);
  file.U64(payload.size());
  file.U32(wire::Crc32(payload));
  file.out().append(payload);
  return std::move(file.out());
}

absl::StatusOr<GpuImage> ReadGpuImageFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open ", path));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return DeserializeGpuImage(buffer.str(), path);
}

absl::Status WriteGpuImageFile(const GpuImage& image, const std::string& path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  const std::string bytes = SerializeGpuImage(image);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) return absl::InternalError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

}  // namespace xlite::runtime
