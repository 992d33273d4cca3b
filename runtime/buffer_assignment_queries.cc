// What a BufferAssignment answers once built: slices, schedules, the
// report hlo-opt prints, and the final overlap check.

#include <algorithm>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/buffer_assignment.h"

namespace xlite::runtime {
namespace {

const char* KindName(Allocation::Kind kind) {
  switch (kind) {
    case Allocation::Kind::kParameter:
      return "parameter";
    case Allocation::Kind::kConstant:
      return "constant";
    case Allocation::Kind::kOutput:
      return "output";
    case Allocation::Kind::kTemp:
      return "temp";
  }
  return "?";
}

}  // namespace

int64_t BufferAssignment::temp_size() const {
  return temp_allocation_ < 0 ? 0 : allocations_[temp_allocation_].size;
}

absl::StatusOr<Slice> BufferAssignment::GetSlice(
    const HloInstruction* instruction, const ShapeIndex& index) const {
  auto it = slices_.find({instruction, index});
  if (it == slices_.end()) {
    return absl::NotFoundError(absl::StrCat(
        "no slice for %", instruction->name(), ShapeIndexToString(index),
        ": not an array leaf of an instruction of a sequential computation"));
  }
  return it->second;
}

const std::vector<const HloInstruction*>& BufferAssignment::Schedule(
    const HloComputation* computation) const {
  static const auto* const kEmpty = new std::vector<const HloInstruction*>();
  auto it = schedules_.find(computation);
  return it == schedules_.end() ? *kEmpty : it->second;
}

bool BufferAssignment::IsSequential(const HloComputation* computation) const {
  return schedules_.contains(computation);
}

absl::Status BufferAssignment::VerifyNoOverlap() const {
  std::vector<const ValueInfo*> placed;
  for (const ValueInfo& v : values_) {
    if (v.slice.size > 0 && v.slice.allocation >= 0) placed.push_back(&v);
  }
  std::sort(placed.begin(), placed.end(),
            [](const ValueInfo* a, const ValueInfo* b) {
              return a->start != b->start ? a->start < b->start
                                          : a->buffer < b->buffer;
            });
  std::vector<const ValueInfo*> active;
  for (const ValueInfo* v : placed) {
    std::erase_if(active,
                  [&](const ValueInfo* a) { return a->end < v->start; });
    for (const ValueInfo* a : active) {
      if (a->buffer == v->buffer ||
          a->slice.allocation != v->slice.allocation) {
        continue;
      }
      if (a->slice.offset < v->slice.offset + v->slice.size &&
          v->slice.offset < a->slice.offset + a->slice.size) {
        return absl::InternalError(absl::StrCat(
            "%", v->instruction->name(), ShapeIndexToString(v->index),
            " and %", a->instruction->name(), ShapeIndexToString(a->index),
            " are live together and overlap in allocation ",
            v->slice.allocation));
      }
    }
    active.push_back(v);
  }
  return absl::OkStatus();
}

std::string BufferAssignment::ToString() const {
  std::string out = absl::StrCat("BufferAssignment for module ",
                                 module_->name(), ": ", allocations_.size(),
                                 " allocations\n");
  std::vector<std::vector<const ValueInfo*>> held(allocations_.size());
  for (const ValueInfo& v : values_) {
    if (v.slice.allocation >= 0) held[v.slice.allocation].push_back(&v);
  }
  for (size_t i = 0; i < allocations_.size(); ++i) {
    const Allocation& a = allocations_[i];
    absl::StrAppend(&out, "allocation ", i, ": ", KindName(a.kind),
                    " size=", a.size);
    if (a.kind == Allocation::Kind::kParameter) {
      absl::StrAppend(&out, " parameter=", a.parameter_number,
                      ShapeIndexToString(a.parameter_index));
    }
    if (a.constant != nullptr) {
      absl::StrAppend(&out, " constant=%", a.constant->name());
    }
    if (!a.output_indices.empty()) {
      absl::StrAppend(
          &out, " output=",
          absl::StrJoin(a.output_indices, ",",
                        [](std::string* s, const ShapeIndex& index) {
                          s->append(ShapeIndexToString(index));
                        }));
    }
    out += "\n";
    for (const ValueInfo* v : held[i]) {
      absl::StrAppend(&out, "  %", v->instruction->name(),
                      ShapeIndexToString(v->index), " offset=",
                      v->slice.offset, " size=", v->slice.size, " live=[",
                      v->start, ",", v->end, "]", v->is_phi ? " phi" : "",
                      "\n");
    }
  }
  absl::StrAppend(&out, "temp_size_in_bytes=", temp_size(), "\n",
                  "peak_live_temp_bytes=", peak_live_temp_bytes_, "\n");
  return out;
}

}  // namespace xlite::runtime
