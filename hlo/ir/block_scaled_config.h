#ifndef XLITE_HLO_IR_BLOCK_SCALED_CONFIG_H_
#define XLITE_HLO_IR_BLOCK_SCALED_CONFIG_H_

// Facts about block-scaled dots that the evaluator and the block-scaling
// rewriter must read the same way, so hlo-run and a rewritten module agree:
// the explicit block size of the block-scaled custom calls
// (__op$block_scaled_dot, __op$quantize, __op$dequantize) and the type
// scaled-dot dequantizes in.

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/ir/primitive_type.h"

namespace xlite {

/// The block size in
/// `backend_config={"block_scaled_dot_backend_config":{"block_size":N}}`.
/// Read as XLA reads its backend-config proto from JSON: the key may be
/// unquoted (`{block_size:32}`, as XLA's own tests write it) and N may be a
/// number or a string ("32", proto JSON's spelling of an int64).
/// nullopt when the config is empty or names no block size; an error when
/// the config is not JSON or N is not a positive integer.
absl::StatusOr<std::optional<int64_t>> BlockSizeFromBackendConfig(
    absl::string_view backend_config);

/// The type one side of a scaled-dot is dequantized in (data * scale), as
/// XLA's scaled-dot rewriter picks it: bf16 when data and scale are both
/// narrower than 16 bits, their type when they agree, f32 when they are
/// equally wide but differ, else the wider of the two.
PrimitiveType ScaledDotDequantizeType(PrimitiveType data, PrimitiveType scale);

}  // namespace xlite

#endif  // XLITE_HLO_IR_BLOCK_SCALED_CONFIG_H_
