#!/usr/bin/env python3
"""On the GPU machine: xlite (bin/hlo-run-gpu on SPEC.xlx) beside XLA:GPU
(jax: before.hlo -> HloModuleProto -> StableHLO -> compile_and_load on the
cuda device) for every program in a device bundle; one Markdown table of
min/median run times. Figures only; nothing here asserts a time.

  python3 xla_side_by_side.py BUNDLE_DIR [--spec=h100] [--iterations=N]
"""
import argparse
import glob
import os
import re
import statistics
import subprocess
import time

import numpy as np


def xlite_side(bundle, directory, spec, iterations):
    xlx = os.path.join(directory, f"{spec}.xlx")
    if not os.path.exists(xlx):
        return "no .xlx"
    inputs = sorted(glob.glob(os.path.join(directory, "in_*.npy")),
                    key=lambda p: int(re.findall(r"\d+", os.path.basename(p))[0]))
    argv = [os.path.join(bundle, "bin", "hlo-run-gpu"), f"--iterations={iterations}"]
    argv += [f"--input={p}" for p in inputs] + [xlx]
    p = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    m = re.search(r"min ([\d.e+-]+) ms, median ([\d.e+-]+) ms", p.stderr)
    if p.returncode != 0 or not m:
        return "error: " + p.stderr.strip().splitlines()[-1][:60] if p.stderr else "error"
    return float(m.group(1)), float(m.group(2))


def xla_side(directory, iterations):
    import jax
    from jax._src.lib import _jax, hlo
    from jax._src.lib import xla_client as xc
    text = open(os.path.join(directory, "before.hlo")).read()
    gpu = jax.devices("cuda")[:1]
    client = gpu[0].client
    proto = hlo.hlo_module_from_text(text).as_serialized_hlo_module_proto()
    stablehlo = _jax.mlir.hlo_to_stablehlo(proto)
    exe = client.compile_and_load(stablehlo, xc.DeviceList(tuple(gpu)),
                                  xc.CompileOptions())
    inputs = sorted(glob.glob(os.path.join(directory, "in_*.npy")),
                    key=lambda p: int(re.findall(r"\d+", os.path.basename(p))[0]))
    arrays = [np.load(f) for f in inputs]
    donates = "input_output_alias" in text.split("\n", 1)[0]
    buffers = [jax.device_put(a, gpu[0]) for a in arrays]
    times = []
    for i in range(iterations + 1):
        if donates:
            buffers = [jax.device_put(a, gpu[0]) for a in arrays]
            jax.block_until_ready(buffers)
        start = time.perf_counter()
        out = exe.execute_sharded(buffers)
        jax.block_until_ready(out.disassemble_into_single_device_arrays())
        if i:
            times.append((time.perf_counter() - start) * 1e3)
    return min(times), statistics.median(times)


def cell(r):
    return r if isinstance(r, str) else f"{r[0]:.3f} / {r[1]:.3f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bundle")
    ap.add_argument("--spec", default="h100")
    ap.add_argument("--iterations", type=int, default=20)
    a = ap.parse_args()
    print(f"\n| program | xlite ms (min / median) | XLA:GPU ms (min / median) |")
    print("|---|---|---|")
    for d in sorted(glob.glob(os.path.join(a.bundle, "programs", "*"))):
        if os.path.basename(d).startswith("gemm_"):
            continue  # gemm_bench.py's, with inputs made on the device
        ours = xlite_side(a.bundle, d, a.spec, a.iterations)
        try:
            theirs = xla_side(d, a.iterations)
        except Exception as e:  # noqa: BLE001 — a table cell, not a crash
            theirs = f"error: {str(e)[:60]}"
        print(f"| {os.path.basename(d)} | {cell(ours)} | {cell(theirs)} |")


if __name__ == "__main__":
    main()
