#include "gpu_backend/gemm_path_variants.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <set>

#include "absl/strings/str_cat.h"
#include "codegen/gpu/kernel_emitter.h"
#include "gpu_backend/gemm_backend_choice.h"
#include "gpu_backend/gemm_path_cache.h"
#include "gpu_backend/gpu_pipeline.h"
#include "gpu_backend/image_writer.h"
#include "gpu_backend/tiled_gemm_tiling.h"
#include "hlo/ir/computation.h"
#include "hlo/ir/opcode.h"
#include "hlo/text/printer.h"
#include "runtime/gpu_image.h"
#include "runtime/literal_io.h"

namespace xlite::gpu {
namespace {

// The heuristic's first proposals timed (the rest are its fallbacks).
constexpr size_t kMaxTilings = 4;

// Regions whose inputs take more leave them to gemm_path_tune.py.
constexpr int64_t kMaxInputBytes = 4 << 20;

HloInstruction* FindDot(const HloComputation& c) {
  for (HloInstruction* h : c.instructions()) {
    if (h->opcode() == HloOpcode::kDot) return h;
  }
  return nullptr;
}

// The heuristic's proposals for the region's dot as the tiled path fuses
// (and splits) it.
absl::StatusOr<std::vector<TiledGemmConfig>> Proposals(
    const HloModule& region, const GpuTargetSpec& spec) {
  std::unique_ptr<HloModule> copy = region.Clone();
  HloInstruction* dot = FindDot(*copy->entry_computation());
  if (dot == nullptr) return absl::InternalError("a region without a dot");
  absl::StatusOr<HloInstruction*> fusion = FuseTiledGemmDot(dot, spec);
  if (!fusion.ok()) return fusion.status();
  const HloInstruction& fused = *FindDot(*(*fusion)->fused_computation());
  absl::StatusOr<std::vector<TiledGemmConfig>> proposed =
      ProposeTiledGemmConfigs(fused, spec);
  if (!proposed.ok()) return proposed.status();
  std::vector<TiledGemmConfig> out;
  for (size_t i = 0; i < proposed->size() && out.size() < kMaxTilings; ++i) {
    out.push_back((*proposed)[i]);
  }
  // The TMA and warp-specialized forms of the warpgroup pipelines among
  // them, which the heuristic does not propose until a device has timed
  // them (here).
  const size_t first = out.size();
  for (size_t i = 0; i < first; ++i) {
    TiledGemmConfig tma = out[i];
    if (!tma.warpgroups() || tma.stages < 3 || tma.tma == 1) continue;
    tma.tma = 1;
    if (!tma.IsValid() || !codegen::gpu::TiledGemmTakesTensorMaps(fused, tma)) {
      continue;
    }
    out.push_back(tma);
    tma.ws = 1;
    if (tma.IsValid()) out.push_back(tma);
  }
  // On Blackwell, tcgen05 tilings (128 x 128 and 128 x 256, 128 bytes of
  // K, 4 and 3 stages, by cp.async and by TMA), likewise not proposed
  // before a device has timed them.
  const std::optional<TensorCoreInput> input = TensorCoreInputOf(fused);
  for (int64_t n : {256, 128}) {
    for (int64_t stages : {4, 3}) {
      for (int64_t tma : {0, 1}) {
        if (!input.has_value()) break;
        TiledGemmConfig c;
        c.block_m = 128;
        c.block_n = n;
        c.warps_m = c.warps_n = 1;
        c.wgmma = c.tcgen05 = 1;
        c.stages = stages;
        c.tma = tma;
        // The tiles' element: f8 as it is, tf32 in 4 bytes, s8 in 1.
        const int64_t bytes = codegen::gpu::TiledGemmTakesF8(fused, c) ? 1
                              : *input == TensorCoreInput::kTF32       ? 4
                              : *input == TensorCoreInput::kS8         ? 1
                                                                       : 2;
        c.block_k = 128 / bytes;
        if (TilingSuits(fused, c, spec) &&
            (tma == 0 || codegen::gpu::TiledGemmTakesTensorMaps(fused, c))) {
          out.push_back(c);
        }
      }
    }
  }
  return out;
}

absl::Status WriteFile(const std::filesystem::path& path,
                       const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (!out) {
    return absl::PermissionDeniedError(
        absl::StrCat(path.string(), ": error: cannot write"));
  }
  return absl::OkStatus();
}

// Compiles `region` along one path into `file` under `at`; false (with
// the reason in `why`) when that path cannot compile it.
absl::StatusOr<bool> WriteVariant(const HloModule& region,
                                  const GpuTargetSpec& spec, bool device,
                                  const std::optional<TiledGemmConfig>& tiling,
                                  const std::filesystem::path& file,
                                  std::string& why) {
  GpuImageOptions options;
  options.spec = spec;
  options.run_passes = false;
  options.nvptx = device;
  options.cubins = device;
  options.emulator_ir = !device;
  options.gemm_backend =
      tiling.has_value() ? GemmBackend::kTiled : GemmBackend::kCublasLt;
  options.tiled_gemm_config = tiling;
  absl::StatusOr<runtime::GpuImage> image = CompileGpuImage(region, options);
  if (!image.ok()) {
    why = std::string(image.status().message());
    std::replace(why.begin(), why.end(), '\n', ' ');
    return false;
  }
  if (absl::Status s = runtime::WriteGpuImageFile(*image, file.string());
      !s.ok()) {
    return s;
  }
  return true;
}

absl::Status WriteRegion(const HloModule& region, const GpuTargetSpec& spec,
                         bool device, const std::filesystem::path& at) {
  std::error_code error;
  std::filesystem::create_directories(at, error);
  if (error) {
    return absl::PermissionDeniedError(
        absl::StrCat(at.string(), ": error: ", error.message()));
  }
  if (absl::Status s = WriteFile(at / "region.hlo", PrintModule(region));
      !s.ok()) {
    return s;
  }
  // The same inputs for every path: uniform in [-1, 1), seeded; left to
  // the device's script when they are large.
  std::mt19937_64 gen(42);
  const HloComputation& entry = *region.entry_computation();
  int64_t input_bytes = 0;
  for (const HloInstruction* p : entry.parameter_instructions()) {
    input_bytes += p->shape().ByteSizeOfElements();
  }
  for (int64_t i = 0;
       input_bytes <= kMaxInputBytes && i < entry.num_parameters(); ++i) {
    const Literal input =
        RandomLiteral(entry.parameter_instruction(i)->shape(), gen);
    if (absl::Status s =
            WriteNpyFile(input, (at / absl::StrCat("in_", i, ".npy")).string());
        !s.ok()) {
      return s;
    }
  }
  std::string paths;
  std::string why;
  absl::StatusOr<bool> library = WriteVariant(
      region, spec, device, std::nullopt, at / "cublaslt.xlx", why);
  if (!library.ok()) return library.status();
  if (!*library) {
    // Nothing to measure against: the region is listed, not timed.
    return WriteFile(at / "paths.txt",
                     absl::StrCat("# cublaslt.xlx cublaslt  (", why, ")\n"));
  }
  absl::StrAppend(&paths, "cublaslt.xlx cublaslt\n");
  absl::StatusOr<std::vector<TiledGemmConfig>> proposals =
      Proposals(region, spec);
  if (!proposals.ok()) return proposals.status();
  for (size_t i = 0; i < proposals->size(); ++i) {
    const TiledGemmConfig& c = (*proposals)[i];
    const std::string file = absl::StrCat("tiled_", i, ".xlx");
    absl::StatusOr<bool> written =
        WriteVariant(region, spec, device, c, at / file, why);
    if (!written.ok()) return written.status();
    absl::StrAppend(&paths, *written ? "" : "# ", file, " ", c.ToString(),
                    *written ? "" : absl::StrCat("  (", why, ")"), "\n");
  }
  return WriteFile(at / "paths.txt", paths);
}

}  // namespace

absl::StatusOr<std::vector<std::unique_ptr<HloModule>>> CollectGemmRegions(
    const HloModule& module, const GpuTargetSpec& spec,
    const GemmPathCache* cache) {
  std::unique_ptr<HloModule> copy = module.Clone();
  std::vector<std::unique_ptr<HloModule>> all;
  GpuPipelineOptions options;
  options.gemm_regions = &all;
  options.gemm_path_cache = cache;
  if (absl::Status s = PrepareForGpu(*copy, spec, options); !s.ok()) return s;
  std::vector<std::unique_ptr<HloModule>> distinct;
  std::set<std::string> seen;
  for (std::unique_ptr<HloModule>& region : all) {
    if (seen.insert(GemmRegionFingerprint(*region)).second) {
      distinct.push_back(std::move(region));
    }
  }
  return distinct;
}

absl::StatusOr<int64_t> WriteGemmPathVariants(const HloModule& module,
                                              const GpuTargetSpec& spec,
                                              const std::string& dir,
                                              bool device,
                                              const GemmPathCache* cache) {
  absl::StatusOr<std::vector<std::unique_ptr<HloModule>>> regions =
      CollectGemmRegions(module, spec, cache);
  if (!regions.ok()) return regions.status();
  const std::filesystem::path root(dir);
  std::error_code error;
  std::filesystem::create_directories(root, error);
  if (error) {
    return absl::PermissionDeniedError(
        absl::StrCat(dir, ": error: ", error.message()));
  }
  if (absl::Status s = WriteFile(root / "gpu.txt", spec.name + "\n"); !s.ok()) {
    return s;
  }
  for (const std::unique_ptr<HloModule>& region : *regions) {
    if (absl::Status s = WriteRegion(*region, spec, device,
                                     root / GemmRegionFingerprint(*region));
        !s.ok()) {
      return s;
    }
  }
  return static_cast<int64_t>(regions->size());
}

}  // namespace xlite::gpu
