#!/usr/bin/env bash
# Builds everything the GPU machine needs into one directory (< 64 MiB):
#   bin/hlo-run-gpu       the runtime-only runner (no LLVM) and lib/ with the
#                         shared libraries it needs that a bare machine lacks
#   programs/NAME/        before.hlo, in_*.npy, XLA's out_*.npy and the .xlx
#                         compiled for h100 and h200 (sm_90a)
#   programs/gemm_NAME/  the tiled GEMM benchmark (gemm_bench_programs.py):
#                         before.hlo, meta.json, tiled.SPEC.xlx and
#                         cublaslt.SPEC.xlx (--gemm-backend=tiled/cublaslt)
#   gemm_paths/SPEC/     each GEMM region of those programs compiled along
#                         each --gemm-backend=auto path (hlo-opt
#                         --gemm-path-variants), for gemm_path_tune.py
#   device_check.sh, xla_side_by_side.py, gemm_bench.py, gemm_path_tune.py
# Usage: tests/gpu/build_device_bundle.sh [OUT_DIR]   (default shared/gpu_bundle)
#        DRY_RUN=1 tests/gpu/build_device_bundle.sh   (print the steps only)
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:-shared/gpu_bundle}
run() { if [[ -n "${DRY_RUN:-}" ]]; then echo "+ $*"; else "$@"; fi; }

run bazel build -c opt //tools:hlo-run-gpu //tools:hlo-opt
run rm -rf "$OUT"
run mkdir -p "$OUT/bin" "$OUT/lib" "$OUT/programs"
run cp bazel-bin/tools/hlo-run-gpu "$OUT/bin/"
run cp tests/gpu/device_check.sh tests/gpu/xla_side_by_side.py \
  tests/gpu/gemm_bench.py tests/gpu/gemm_path_tune.py "$OUT/"
if [[ -z "${DRY_RUN:-}" ]]; then
  if ldd bazel-bin/tools/hlo-run-gpu | grep -qi llvm; then
    echo "error: hlo-run-gpu links LLVM" >&2; exit 1
  fi
  # Non-libc dependencies (absl, protobuf, zlib) travel with the binary.
  ldd bazel-bin/tools/hlo-run-gpu | awk '/=> \// {print $3}' |
    grep -vE '/(libc|libm|libdl|libpthread|librt|libgcc_s|ld-linux)[.-]' |
    while read -r lib; do cp -L "$lib" "$OUT/lib/"; done
fi
for dir in tests/corpus/programs/*/; do
  name=$(basename "$dir")
  grep -qE '"num_partitions": ([2-9]|[1-9][0-9])' "$dir/meta.json" 2>/dev/null && continue
  run mkdir -p "$OUT/programs/$name"
  run cp "$dir"/before.hlo "$dir"/in_*.npy "$dir"/out_*.npy "$dir"/meta.json \
    "$OUT/programs/$name/" 2>/dev/null || true
  for spec in h100 h200; do
    if ! run bazel-bin/tools/hlo-opt --platform=gpu --gpu-spec=$spec \
        --stage=executable -o "$OUT/programs/$name/$spec.xlx" "$dir/before.hlo" \
        2>"$OUT/programs/$name/$spec.compile.log"; then
      echo "$name/$spec: not compiled ($(head -c 200 "$OUT/programs/$name/$spec.compile.log"))"
    fi
  done
done
run python3 tests/gpu/gemm_bench_programs.py "$OUT/programs"
for dir in "$OUT"/programs/gemm_*/; do
  [[ -d $dir ]] || continue
  for spec in h100 h200; do
    for backend in tiled cublaslt; do
      if ! run bazel-bin/tools/hlo-opt --platform=gpu --gpu-spec=$spec \
          --gemm-backend=$backend --stage=executable \
          -o "$dir/$backend.$spec.xlx" "$dir/before.hlo" \
          2>"$dir/$backend.$spec.compile.log"; then
        echo "$dir/$backend.$spec: not compiled ($(head -c 200 "$dir/$backend.$spec.compile.log"))"
      fi
    done
  done
done
# --gemm-backend=auto's paths for the benchmark's GEMMs, to be timed on
# the device (device_check.sh step 7): each region compiled along each path.
for spec in h100 h200; do
  run mkdir -p "$OUT/gemm_paths"
  for dir in "$OUT"/programs/gemm_*/; do
    [[ -d $dir ]] || continue
    if ! run bazel-bin/tools/hlo-opt --platform=gpu --gpu-spec=$spec \
        --gemm-path-variants="$OUT/gemm_paths/$spec" -o /dev/null \
        "$dir/before.hlo" 2>>"$OUT/gemm_paths/$spec.log"; then
      echo "$dir: no GEMM path variants for $spec (see gemm_paths/$spec.log)"
    fi
  done
done
if [[ -z "${DRY_RUN:-}" ]]; then
  size=$(du -sb "$OUT" | cut -f1)
  echo "bundle: $OUT, $((size / 1024 / 1024)) MiB ($size bytes)"
  if (( size >= 64 * 1024 * 1024 )); then
    echo "error: the bundle is over 64 MiB" >&2; exit 1
  fi
fi
