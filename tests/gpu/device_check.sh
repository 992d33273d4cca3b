#!/usr/bin/env bash
# On a GPU machine (NVIDIA driver, CUDA, JAX; no Bazel, no LLVM): checks the
# bundle from build_device_bundle.sh.
#   1. every programs/NAME/SPEC.xlx (SPEC: h100 or h200, picked from
#      nvidia-smi) run by bin/hlo-run-gpu on the recorded inputs, results
#      against XLA's recorded out_*.npy (a failure is retried with
#      XLITE_CUDA_GRAPHS=0 to tell graph capture apart)
#      (GEMMs autotuned on the device, the results kept in one cache)
#   2. compute-sanitizer memcheck on a few, when compute-sanitizer exists
#   3. GEMM autotuning: each program with a cuBLASLt GEMM timed with
#      cuBLASLt's first heuristic algorithm (--autotune=false) and with the
#      autotuned ones (from step 1's cache)
#   4. the side by side with XLA:GPU (xla_side_by_side.py) as a table
#   5. the roofline profile of the transformer blocks (hlo-run-gpu
#      --profile: per kernel and GEMM, CUDA-event times against the spec's
#      peaks), the tables on stdout, JSON and SVG charts in
#      $PROFILE_DIR (default: BUNDLE_DIR/profiles)
#   6. the tiled GEMM benchmark (gemm_bench.py): TFLOP/s of the tiled
#      kernels, the cuBLASLt calls and XLA:GPU on LLM shapes and fused
#      epilogues (programs/gemm_*, inputs made here)
#   7. --gemm-backend=auto's paths timed (gemm_path_tune.py over
#      gemm_paths/SPEC): the table on stderr, the GEMM path cache in
#      $PROFILE_DIR/gemm_paths.SPEC.txt for hlo-opt --gemm-path-cache
# Usage: device_check.sh BUNDLE_DIR [--iterations=N]
set -uo pipefail
BUNDLE=$(cd "${1:?usage: device_check.sh BUNDLE_DIR}" && pwd)
ITER=${2:---iterations=20}
export LD_LIBRARY_PATH="$BUNDLE/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
RUN="$BUNDLE/bin/hlo-run-gpu"
PY=${PYTHON:-python3}
# GEMM thunks dlopen cuBLASLt; JAX's CUDA wheels ship it under
# site-packages/nvidia/cublas/lib (no system CUDA needed).
if [[ -z "${XLITE_CUBLASLT:-}" ]]; then
  lt_dir=$("$PY" -c 'import nvidia.cublas, os; print(os.path.join(list(nvidia.cublas.__path__)[0], "lib"))' 2>/dev/null)
  for lib in "$lt_dir"/libcublasLt.so*; do
    if [[ -f "$lib" ]]; then export XLITE_CUBLASLT="$lib"; break; fi
  done
fi
echo "cuBLASLt: ${XLITE_CUBLASLT:-searched on the library path}"
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
case "$GPU" in *H200*) SPEC=h200 ;; *) SPEC=h100 ;; esac
echo "device: ${GPU:-none}; running the $SPEC executables"
WORK=$(mktemp -d)
CACHE="$WORK/gemm_autotune_cache.txt"
pass=0; fail=0; missing=0
# check NAME DIR: runs DIR's executable on its inputs and compares with
# XLA's recorded outputs; prints the failure, returns non-zero on one.
check() {
  local name=$1 dir=$2 out="$WORK/$1"
  local inputs
  inputs=$(ls "$dir"/in_*.npy 2>/dev/null | sort -V | sed 's/^/--input=/')
  # shellcheck disable=SC2086
  if ! "$RUN" $inputs --output="$out" --autotune-cache="$CACHE" \
      "$dir/$SPEC.xlx" 2>"$out.err"; then
    echo "$(head -c 300 "$out.err")"; return 1
  fi
  "$PY" - "$dir" "$out" <<'PYEOF'
import glob, os, sys
import numpy as np
want_dir, got_dir = sys.argv[1], sys.argv[2]
bad = []
for want_path in sorted(glob.glob(os.path.join(want_dir, "out_*.npy"))):
    got_path = os.path.join(got_dir, os.path.basename(want_path))
    want, got = np.load(want_path), np.load(got_path)
    if want.shape != got.shape:
        bad.append(f"{os.path.basename(want_path)}: shape {got.shape} vs {want.shape}")
    elif want.dtype.kind in "fc":
        width = want.dtype.itemsize // (2 if want.dtype.kind == "c" else 1)
        tol = {2: 2e-2, 4: 2e-4, 8: 1e-9}.get(width, 2e-2)
        w, g = want.astype(np.complex128), got.astype(np.complex128)
        if not np.allclose(g, w, rtol=tol, atol=tol, equal_nan=True):
            bad.append(f"{os.path.basename(want_path)}: max error {np.nanmax(np.abs(g - w))}")
    elif not np.array_equal(want, got):
        bad.append(f"{os.path.basename(want_path)}: differs")
print("vs XLA's recorded outputs: " + "; ".join(bad)) if bad else None
sys.exit(1 if bad else 0)
PYEOF
}

for dir in "$BUNDLE"/programs/*/; do
  name=$(basename "$dir")
  [[ $name == gemm_* ]] && continue  # step 6's, no recorded outputs
  if [[ ! -s "$dir/$SPEC.xlx" ]]; then missing=$((missing + 1)); continue; fi
  if why=$(check "$name" "$dir"); then
    pass=$((pass + 1)); echo "ok   $name"; continue
  fi
  fail=$((fail + 1))
  # Tell CUDA-graph trouble apart: the same run with every thunk eager.
  if XLITE_CUDA_GRAPHS=0 check "$name" "$dir" >/dev/null; then
    echo "FAIL $name (with CUDA graphs; eager ok): $why"
  else
    echo "FAIL $name: $why"
  fi
done
echo "conformance: $pass passed, $fail failed, $missing without a $SPEC.xlx"

if command -v compute-sanitizer >/dev/null; then
  for name in $(ls "$BUNDLE/programs" | head -3); do
    dir="$BUNDLE/programs/$name"; [[ -s "$dir/$SPEC.xlx" ]] || continue
    inputs=$(ls "$dir"/in_*.npy 2>/dev/null | sort -V | sed 's/^/--input=/')
    # shellcheck disable=SC2086
    if compute-sanitizer --tool memcheck --error-exitcode 3 "$RUN" $inputs \
        "$dir/$SPEC.xlx" >"$WORK/$name.memcheck" 2>&1; then
      echo "memcheck ok   $name"
    else
      echo "memcheck FAIL $name: $(grep -m3 -E 'ERROR|Invalid' "$WORK/$name.memcheck")"
    fi
  done
else
  echo "compute-sanitizer not found: memcheck skipped"
fi

# min_ms FILE: the minimum time hlo-run-gpu reported on stderr.
min_ms() { sed -n 's/.*runs): min \([0-9.e+-]*\) ms.*/\1/p' "$1" | head -1; }
for dir in "$BUNDLE"/programs/*/; do
  name=$(basename "$dir"); xlx="$dir/$SPEC.xlx"
  [[ -s "$xlx" ]] && grep -aqF 'cublas$lt$matmul' "$xlx" || continue
  inputs=$(ls "$dir"/in_*.npy 2>/dev/null | sort -V | sed 's/^/--input=/')
  # shellcheck disable=SC2086
  "$RUN" $inputs --autotune=false "$ITER" "$xlx" >/dev/null 2>"$WORK/$name.first"
  # shellcheck disable=SC2086
  "$RUN" $inputs --autotune-cache="$CACHE" "$ITER" "$xlx" >/dev/null \
    2>"$WORK/$name.tuned"
  first=$(min_ms "$WORK/$name.first"); tuned=$(min_ms "$WORK/$name.tuned")
  echo "gemm autotuning $name: first heuristic ${first:-?} ms, autotuned" \
    "${tuned:-?} ms ($(grep -m1 'note: GEMM' "$WORK/$name.tuned" | cut -c7-))"
done

"$PY" "$BUNDLE/xla_side_by_side.py" "$BUNDLE" --spec="$SPEC" "$ITER" || \
  echo "side by side with XLA:GPU failed"

PROFILE_DIR=${PROFILE_DIR:-$BUNDLE/profiles}
mkdir -p "$PROFILE_DIR"
for name in transformer_forward transformer_backward; do
  dir="$BUNDLE/programs/$name"; [[ -s "$dir/$SPEC.xlx" ]] || continue
  inputs=$(ls "$dir"/in_*.npy 2>/dev/null | sort -V | sed 's/^/--input=/')
  echo "profile of $name ($SPEC):"
  # shellcheck disable=SC2086
  "$RUN" $inputs --iterations=10 --profile \
    --profile_json="$PROFILE_DIR/$name.$SPEC.json" "$dir/$SPEC.xlx" \
    2>&1 >/dev/null || echo "profile of $name failed"
done
"$PY" "$BUNDLE/gemm_bench.py" "$BUNDLE" --spec="$SPEC" "$ITER" || \
  echo "tiled GEMM benchmark failed"
if [[ -d "$BUNDLE/gemm_paths/$SPEC" ]]; then
  echo "GEMM paths measured for --gemm-backend=auto ($SPEC):"
  "$PY" "$BUNDLE/gemm_path_tune.py" "$BUNDLE/gemm_paths/$SPEC" \
    --runner="$RUN" "$ITER" > "$PROFILE_DIR/gemm_paths.$SPEC.txt" || \
    echo "GEMM path tuning failed"
  cat "$PROFILE_DIR/gemm_paths.$SPEC.txt"
fi
[[ $fail -eq 0 ]]
