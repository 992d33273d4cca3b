#include "cpu_backend/tile_staging.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "codegen/loops.h"
#include "cpu_backend/kernel_loop_plan.h"
#include "hlo/ir/opcode.h"
#include "hlo/ir/primitive_type.h"

namespace xlite::cpu {

using codegen::Index;
using codegen::IrArray;

namespace {

// Whether `op` reads its operands at exactly the index OperandMap gives
// (no shift, no reversal).
bool ReadsAtMappedIndex(HloOpcode op) {
  switch (op) {
    case HloOpcode::kSlice:
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kPad:
    case HloOpcode::kReverse:
    case HloOpcode::kConcatenate:
      return false;
    default:
      return true;
  }
}

// How each fused parameter under `h` is read: its map to the result, or
// nullopt when some path reads it otherwise (or two paths differ).
using ParameterMaps =
    std::map<const HloInstruction*, std::optional<DimensionMap>>;

void MapParameters(
    const HloInstruction* h, const DimensionMap& to_out, bool exact,
    std::set<std::pair<const HloInstruction*, DimensionMap>>& seen,
    ParameterMaps& maps) {
  // An inexact visit carries the empty map: visited once per instruction.
  const DimensionMap& key = exact ? to_out : DimensionMap{};
  if (!seen.insert({h, key}).second) return;
  if (h->opcode() == HloOpcode::kParameter) {
    auto [it, fresh] = maps.try_emplace(
        h, exact ? std::optional<DimensionMap>(to_out) : std::nullopt);
    if (!fresh && (!exact || it->second != to_out)) it->second = std::nullopt;
    return;
  }
  for (int64_t k = 0; k < h->operand_count(); ++k) {
    std::optional<DimensionMap> m;
    if (exact && ReadsAtMappedIndex(h->opcode())) m = OperandMap(h, k, to_out);
    MapParameters(h->operand(k), m ? *m : DimensionMap{}, m.has_value(), seen,
                  maps);
  }
}

// The staging of `parameter` read through `to_out`, if it qualifies.
std::optional<StagedOperand> Stage(const HloInstruction* parameter,
                                   const DimensionMap& to_out,
                                   const codegen::Tiling& tiling) {
  const Shape& shape = parameter->shape();
  if (!shape.IsArray() || shape.rank() < 2 ||
      shape.ByteSizeOfElements() < kMinTiledOperandBytes) {
    return std::nullopt;
  }
  const int bytes = StorageBytes(shape.element_type());
  if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8) {
    return std::nullopt;
  }
  StagedOperand s;
  s.parameter = parameter;
  s.operand = parameter->parameter_number();
  s.to_out = to_out;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    if (to_out[d] < 0 && shape.dimensions(d) != 1) return std::nullopt;
    if (to_out[d] == tiling.minor) s.along_minor = d;
    if (to_out[d] == tiling.other) s.along_other = d;
  }
  if (s.along_minor < 0 || s.along_other < 0 ||
      codegen::LaneDimension(shape) != s.along_other) {
    return std::nullopt;
  }
  return s;
}

// Emits `if (condition) then() else otherwise()`.
absl::Status EmitIfElse(llvm::IRBuilderBase& b, llvm::Value* condition,
                        const std::function<absl::Status()>& then,
                        const std::function<absl::Status()>& otherwise) {
  llvm::Function* f = b.GetInsertBlock()->getParent();
  llvm::LLVMContext& c = b.getContext();
  auto* yes = llvm::BasicBlock::Create(c, "stage.whole", f);
  auto* no = llvm::BasicBlock::Create(c, "stage.edge", f);
  auto* join = llvm::BasicBlock::Create(c, "stage.done", f);
  b.CreateCondBr(condition, yes, no);
  b.SetInsertPoint(yes);
  absl::Status status = then();
  if (!status.ok()) return status;
  b.CreateBr(join);
  b.SetInsertPoint(no);
  status = otherwise();
  if (!status.ok()) return status;
  b.CreateBr(join);
  b.SetInsertPoint(join);
  return absl::OkStatus();
}

// The 8x8 transpose of `rows` (8 vectors of 8 lanes): unpack pairs, then
// pairs of pairs, then halves.
std::vector<llvm::Value*> Transpose8x8(llvm::IRBuilderBase& b,
                                       const std::vector<llvm::Value*>& r) {
  auto mix = [&](llvm::Value* x, llvm::Value* y, std::vector<int> mask) {
    return b.CreateShuffleVector(x, y, mask);
  };
  std::vector<llvm::Value*> t(8), u(8), o(8);
  for (int k = 0; k < 8; k += 2) {
    t[k] = mix(r[k], r[k + 1], {0, 8, 1, 9, 4, 12, 5, 13});
    t[k + 1] = mix(r[k], r[k + 1], {2, 10, 3, 11, 6, 14, 7, 15});
  }
  for (int k = 0; k < 8; k += 4) {
    for (int h = 0; h < 2; ++h) {
      u[k + 2 * h] = mix(t[k + h], t[k + h + 2], {0, 1, 8, 9, 4, 5, 12, 13});
      u[k + 2 * h + 1] =
          mix(t[k + h], t[k + h + 2], {2, 3, 10, 11, 6, 7, 14, 15});
    }
  }
  for (int k = 0; k < 4; ++k) {
    o[k] = mix(u[k], u[k + 4], {0, 1, 2, 3, 8, 9, 10, 11});
    o[k + 4] = mix(u[k], u[k + 4], {4, 5, 6, 7, 12, 13, 14, 15});
  }
  return o;
}

// One tile of an operand: its first element, its row (along the result's
// minor dimension) stride in bytes, and the copy it goes to, whose row
// (along the operand's minor dimension) holds `height` elements.
struct TileCopy {
  llvm::Value* source;
  int64_t row_stride;
  llvm::Value* target;
  llvm::Type* element;
  int64_t bytes;
  int64_t height;
};

llvm::Value* ByteOffset(llvm::IRBuilderBase& b, llvm::Value* base,
                        llvm::Value* bytes) {
  return b.CreateGEP(b.getInt8Ty(), base, bytes);
}

// The copy element by element: rows x cols (i64 values).
absl::Status CopyElements(llvm::IRBuilderBase& b, const TileCopy& t,
                          llvm::Value* rows, llvm::Value* cols) {
  return codegen::EmitForLoop(
      b, b.getInt64(0), rows, "stage.r", [&](llvm::Value* r) {
        return codegen::EmitForLoop(
            b, b.getInt64(0), cols, "stage.c", [&](llvm::Value* c) {
              llvm::Value* from = ByteOffset(
                  b, t.source,
                  b.CreateAdd(b.CreateMul(r, b.getInt64(t.row_stride)),
                              b.CreateMul(c, b.getInt64(t.bytes))));
              llvm::Value* to = ByteOffset(
                  b, t.target,
                  b.CreateMul(
                      b.CreateAdd(b.CreateMul(c, b.getInt64(t.height)), r),
                      b.getInt64(t.bytes)));
              b.CreateAlignedStore(
                  b.CreateAlignedLoad(t.element, from, llvm::Align(1)), to,
                  llvm::Align(1));
              return absl::OkStatus();
            });
      });
}

// The copy of a whole rows x cols tile of 4-byte elements, 8x8 blocks
// transposed in registers.
absl::Status CopyBlocks(llvm::IRBuilderBase& b, const TileCopy& t, int64_t rows,
                        int64_t cols) {
  llvm::Type* vector = llvm::FixedVectorType::get(t.element, 8);
  return codegen::EmitForLoop(
      b, b.getInt64(0), b.getInt64(rows / 8), "stage.rb", [&](llvm::Value* rb) {
        return codegen::EmitForLoop(
            b, b.getInt64(0), b.getInt64(cols / 8), "stage.cb",
            [&](llvm::Value* cb) {
              llvm::Value* r0 = b.CreateMul(rb, b.getInt64(8));
              llvm::Value* c0 = b.CreateMul(cb, b.getInt64(8));
              std::vector<llvm::Value*> lines;
              for (int k = 0; k < 8; ++k) {
                llvm::Value* at =
                    b.CreateAdd(b.CreateMul(b.CreateAdd(r0, b.getInt64(k)),
                                            b.getInt64(t.row_stride)),
                                b.CreateMul(c0, b.getInt64(t.bytes)));
                lines.push_back(b.CreateAlignedLoad(
                    vector, ByteOffset(b, t.source, at), llvm::Align(1)));
              }
              std::vector<llvm::Value*> columns = Transpose8x8(b, lines);
              for (int k = 0; k < 8; ++k) {
                llvm::Value* at = b.CreateMul(
                    b.CreateAdd(b.CreateMul(b.CreateAdd(c0, b.getInt64(k)),
                                            b.getInt64(t.height)),
                                r0),
                    b.getInt64(t.bytes));
                b.CreateAlignedStore(columns[k], ByteOffset(b, t.target, at),
                                     llvm::Align(t.bytes));
              }
              return absl::OkStatus();
            });
      });
}

// Copies `s`'s tile [start, end) from `source` to a stack buffer and
// binds its parameter to the copy.
absl::Status StageTile(llvm::IRBuilderBase& b,
                       codegen::ElementalEmitter& emitter,
                       const StagedOperand& s, const IrArray& source,
                       const codegen::Tiling& tiling, const Index& start,
                       const Index& end) {
  const Shape& shape = s.parameter->shape();
  const int64_t height = tiling.Side(tiling.minor);
  const int64_t width = tiling.Side(tiling.other);
  TileCopy t;
  t.bytes = StorageBytes(shape.element_type());
  t.element = b.getIntNTy(8 * t.bytes);
  t.height = height;
  t.row_stride = codegen::PhysicalStrides(shape)[s.along_minor] * t.bytes;
  Index at(shape.rank(), nullptr);
  for (int64_t d = 0; d < shape.rank(); ++d) {
    at[d] = s.to_out[d] < 0 ? b.getInt64(0) : start[s.to_out[d]];
  }
  t.source = source.EmitAddress(b, at);
  llvm::AllocaInst* buffer =
      codegen::EntryAlloca(b, llvm::ArrayType::get(t.element, height * width));
  buffer->setAlignment(llvm::Align(64));
  t.target = buffer;
  llvm::Value* rows = b.CreateSub(end[tiling.minor], start[tiling.minor]);
  llvm::Value* cols = b.CreateSub(end[tiling.other], start[tiling.other]);
  absl::Status status;
  if (t.bytes == 4 && height % 8 == 0 && width % 8 == 0) {
    llvm::Value* whole = b.CreateAnd(b.CreateICmpEQ(rows, b.getInt64(height)),
                                     b.CreateICmpEQ(cols, b.getInt64(width)));
    status = EmitIfElse(
        b, whole, [&] { return CopyBlocks(b, t, height, width); },
        [&] { return CopyElements(b, t, rows, cols); });
  } else {
    status = CopyElements(b, t, rows, cols);
  }
  if (!status.ok()) return status;
  llvm::SmallVector<int64_t, 6> strides(shape.rank(), 0);
  strides[s.along_minor] = 1;
  strides[s.along_other] = height;
  emitter.BindArray(s.parameter, -1, IrArray::View(buffer, shape, strides, at));
  return absl::OkStatus();
}

}  // namespace

std::vector<StagedOperand> PlanStaging(
    const HloInstruction* kernel,
    const std::vector<const HloInstruction*>& values,
    const codegen::Tiling& tiling, const Shape& out) {
  if (kernel->opcode() != HloOpcode::kFusion) return {};
  ParameterMaps maps;
  std::set<std::pair<const HloInstruction*, DimensionMap>> seen;
  DimensionMap identity(out.rank());
  for (int64_t d = 0; d < out.rank(); ++d) identity[d] = d;
  for (const HloInstruction* value : values) {
    const bool exact = value->shape().IsArray() &&
                       value->shape().dimensions() == out.dimensions();
    MapParameters(value, exact ? identity : DimensionMap{}, exact, seen, maps);
  }
  std::vector<StagedOperand> staged;
  for (const auto& [parameter, map] : maps) {
    if (!map) continue;
    std::optional<StagedOperand> s = Stage(parameter, *map, tiling);
    if (s) staged.push_back(std::move(*s));
  }
  std::sort(staged.begin(), staged.end(),
            [](const StagedOperand& x, const StagedOperand& y) {
              return x.operand < y.operand;
            });
  return staged;
}

void WidenForStaging(codegen::Tiling& tiling, const Shape& out) {
  tiling.tile = std::min<int64_t>(64, out.dimensions(tiling.other));
  tiling.minor_tile = std::min<int64_t>(128, out.dimensions(tiling.minor));
}

codegen::TileHook StagingHook(llvm::IRBuilderBase& b,
                              codegen::ElementalEmitter& emitter,
                              const std::vector<StagedOperand>& staged,
                              const std::vector<IrArray>& sources,
                              const codegen::Tiling& tiling) {
  return [&b, &emitter, &staged, &sources, tiling](
             const Index& start, const Index& end) -> absl::Status {
    for (size_t i = 0; i < staged.size(); ++i) {
      absl::Status status =
          StageTile(b, emitter, staged[i], sources[i], tiling, start, end);
      if (!status.ok()) return status;
    }
    return absl::OkStatus();
  };
}

}  // namespace xlite::cpu
