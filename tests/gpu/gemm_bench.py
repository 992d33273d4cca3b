#!/usr/bin/env python3
"""On the GPU machine: the tiled GEMM issue's benchmark. For every
gemm_NAME program of a device bundle (gemm_bench_programs.py): random
inputs made here (bf16/f8 through ml_dtypes), then min times of
  xlite tiled   (bin/hlo-run-gpu on tiled.SPEC.xlx),
  xlite cuBLASLt (cublaslt.SPEC.xlx: the GEMM rewriter's calls),
  XLA:GPU       (jax, the same HLO),
as TFLOP/s in one Markdown table, with the tiled/cuBLASLt and tiled/XLA
ratios. Figures only; nothing here asserts a time.

  python3 gemm_bench.py BUNDLE_DIR [--spec=h100] [--iterations=N]
"""
import argparse
import glob
import json
import os
import re
import subprocess
import tempfile

import numpy as np


def make_inputs(directory, work):
    import ml_dtypes
    meta = json.load(open(os.path.join(directory, "meta.json")))
    rng = np.random.default_rng(0)
    paths = []
    for i, p in enumerate(meta["params"]):
        dtype = {"bf16": ml_dtypes.bfloat16, "f8e4m3fn": ml_dtypes.float8_e4m3fn,
                 "f32": np.float32, "f16": np.float16}[p["dtype"]]
        x = (rng.standard_normal(p["shape"], dtype=np.float32) * 0.5).astype(dtype)
        path = os.path.join(work, f"in_{i}.npy")
        np.save(path, x)
        paths.append(path)
    return meta, paths


def xlite_ms(bundle, xlx, inputs, iterations):
    if not os.path.exists(xlx):
        return None
    argv = [os.path.join(bundle, "bin", "hlo-run-gpu"), f"--iterations={iterations}"]
    argv += [f"--input={p}" for p in inputs] + [xlx]
    p = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    m = re.search(r"min ([\d.e+-]+) ms", p.stderr)
    return float(m.group(1)) if p.returncode == 0 and m else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bundle")
    ap.add_argument("--spec", default="h100")
    ap.add_argument("--iterations", type=int, default=20)
    args = ap.parse_args()
    import sys
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from xla_side_by_side import xla_side
    rows = []
    for directory in sorted(glob.glob(os.path.join(args.bundle, "programs", "gemm_*"))):
        name = os.path.basename(directory)
        with tempfile.TemporaryDirectory() as work:
            meta, inputs = make_inputs(directory, work)
            tiled = xlite_ms(args.bundle, os.path.join(directory, f"tiled.{args.spec}.xlx"),
                             inputs, args.iterations)
            lt = xlite_ms(args.bundle, os.path.join(directory, f"cublaslt.{args.spec}.xlx"),
                          inputs, args.iterations)
            # xla_side reads in_*.npy from the program directory.
            for p in inputs:
                os.replace(p, os.path.join(directory, os.path.basename(p)))
            try:
                xla = xla_side(directory, args.iterations)
                xla = xla[0] if isinstance(xla, tuple) else None
            except Exception as e:  # a figure missing is reported, not fatal
                print(f"{name}: XLA:GPU failed: {e}")
                xla = None
            for p in glob.glob(os.path.join(directory, "in_*.npy")):
                os.remove(p)
        tf = lambda ms: meta["flops"] / (ms * 1e-3) / 1e12 if ms else None
        rows.append((name, meta, tiled, lt, xla, tf(tiled), tf(lt), tf(xla)))
    fmt = lambda x: f"{x:.1f}" if x else "-"
    ratio = lambda a, b: f"{a / b:.2f}" if a and b else "-"
    print(f"| GEMM ({args.spec}) | M x N x K | tiled TFLOP/s | cuBLASLt TFLOP/s "
          "| XLA:GPU TFLOP/s | tiled/cuBLASLt | tiled/XLA |")
    print("|---|---|---|---|---|---|---|")
    for name, meta, tiled, lt, xla, t1, t2, t3 in rows:
        print(f"| {name[5:]} | {meta['m']} x {meta['n']} x {meta['k']} | {fmt(t1)} "
              f"| {fmt(t2)} | {fmt(t3)} | {ratio(t1, t2)} | {ratio(t1, t3)} |")


if __name__ == "__main__":
    main()
