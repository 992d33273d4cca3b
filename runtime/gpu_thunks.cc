#include "runtime/gpu_thunks.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/tensor_map.h"

namespace xlite::runtime {
namespace {

std::string SliceText(const Slice& s) {
  return absl::StrCat("{", s.allocation, ":", s.offset, "+", s.size, "}");
}

}  // namespace

std::string ThunkSequenceToString(const ThunkSequence& thunks, int indent) {
  std::string out;
  const std::string pad(indent, ' ');
  for (const Thunk& t : thunks) {
    switch (t.kind) {
      case Thunk::Kind::kKernel: {
        std::vector<std::string> args;
        for (const Slice& s : t.arguments) args.push_back(SliceText(s));
        absl::StrAppend(&out, pad, "kernel ", t.kernel, " grid=", t.grid,
                        " block=", t.block, " shared=", t.shared_bytes, " (",
                        absl::StrJoin(args, ", "), ")");
        for (const TensorMapDescription& map : t.tensor_maps) {
          absl::StrAppend(&out, " ", TensorMapToString(map));
        }
        out += '\n';
        break;
      }
      case Thunk::Kind::kMemcpy:
        absl::StrAppend(&out, pad, "memcpy ", SliceText(t.source), " -> ",
                        SliceText(t.destination), "\n");
        break;
      case Thunk::Kind::kMemset:
        absl::StrAppend(&out, pad, "memset ", SliceText(t.destination), " ",
                        t.byte, "\n");
        break;
      case Thunk::Kind::kWhile:
        absl::StrAppend(
            &out, pad, "while ", t.instruction, " pred ",
            SliceText(t.predicate),
            t.trip_count >= 0 ? absl::StrCat(" trip_count=", t.trip_count)
                              : std::string(),
            "\n", pad, " condition:\n",
            ThunkSequenceToString(t.children[0], indent + 2), pad, " body:\n",
            ThunkSequenceToString(t.children[1], indent + 2));
        break;
      case Thunk::Kind::kConditional:
        absl::StrAppend(&out, pad, "conditional ", t.instruction, " on ",
                        SliceText(t.predicate), "\n");
        for (size_t i = 0; i < t.children.size(); ++i) {
          absl::StrAppend(&out, pad, " branch ", i, ":\n",
                          ThunkSequenceToString(t.children[i], indent + 2));
        }
        break;
      case Thunk::Kind::kGemm: {
        std::vector<std::string> args;
        for (const Slice& s : t.arguments) args.push_back(SliceText(s));
        absl::StrAppend(&out, pad, "gemm ", t.instruction, " ",
                        t.gemm ? GemmDescriptionToString(*t.gemm) : "?", " (",
                        absl::StrJoin(args, ", "), ")");
        if (t.gemm_algorithm) {
          absl::StrAppend(&out, " algorithm=(",
                          t.gemm_algorithm->label.empty()
                              ? GemmAlgorithmWords(*t.gemm_algorithm)
                              : t.gemm_algorithm->label,
                          ")");
        }
        out += '\n';
        break;
      }
      case Thunk::Kind::kBlockScaledDot: {
        std::vector<std::string> args;
        for (const Slice& s : t.arguments) args.push_back(SliceText(s));
        absl::StrAppend(
            &out, pad, "block-scaled-dot ", t.instruction, " ",
            t.block_scaled_dot ? BlockScaledDotToString(*t.block_scaled_dot)
                               : "?",
            " (", absl::StrJoin(args, ", "), ")\n");
        break;
      }
    }
  }
  return out;
}

}  // namespace xlite::runtime
