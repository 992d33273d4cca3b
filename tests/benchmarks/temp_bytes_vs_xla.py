#!/usr/bin/env python3
"""Peak temporary bytes, xlite's CPU backend beside XLA:CPU, for every
corpus program (tests/corpus/programs/*). Figures only: nothing asserts.

  bazel build //tools:hlo-opt
  ~/.cache/xlite-venv/bin/python tests/benchmarks/temp_bytes_vs_xla.py

xlite: `hlo-opt --platform=cpu --stage=buffer-assignment`'s
temp_size_in_bytes on before.hlo. XLA: get_compiled_memory_stats()
.temp_size_in_bytes of the same before.hlo compiled by jaxlib (each in a
child process, so a crash is an error cell, not a lost table).

Programs with num_partitions > 1 (meta.json): XLA partitions before.hlo
(Shardy, N host devices) and reports one device's temporaries; xlite has no
SPMD partitioner, so its figure is for XLA's partitioned per-device module
(after.hlo), the same program one device runs.
"""
import glob
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HLO_OPT = os.path.join(ROOT, "bazel-bin/tools/hlo-opt")


def xla_temp(directory):
    """Child process: compile before.hlo with XLA:CPU, print temp bytes."""
    os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax
    jax.config.update("jax_enable_x64", True)
    from jax._src.lib import _jax, hlo
    from jax._src.lib import xla_client as xc
    meta = json.load(open(os.path.join(directory, "meta.json")))
    n = meta.get("num_partitions", 1)
    text = open(os.path.join(directory, "before.hlo")).read()
    proto = hlo.hlo_module_from_text(text).as_serialized_hlo_module_proto()
    options = xc.CompileOptions()
    if n > 1:
        build = options.executable_build_options
        build.num_partitions = n
        build.num_replicas = 1
        build.use_spmd_partitioning = True
        build.use_shardy_partitioner = True
    devices = xc.DeviceList(tuple(jax.devices()[:n]))
    executable = jax.devices()[0].client.compile_and_load(
        _jax.mlir.hlo_to_stablehlo(proto), devices, options)
    print(executable.get_compiled_memory_stats().temp_size_in_bytes)


def xlite_temp(path):
    out = subprocess.run([HLO_OPT, "--platform=cpu", "--stage=buffer-assignment",
                          path], capture_output=True, text=True)
    m = re.search(r"temp_size_in_bytes=(\d+)", out.stdout)
    return int(m.group(1)) if m else None


def main():
    rows, under, compared = [], 0, 0
    for directory in sorted(glob.glob(os.path.join(ROOT, "tests/corpus/programs/*/"))):
        name = os.path.basename(directory.rstrip("/"))
        meta = json.load(open(os.path.join(directory, "meta.json")))
        spmd = meta.get("num_partitions", 1) > 1
        mine = xlite_temp(os.path.join(directory, "after.hlo" if spmd else "before.hlo"))
        child = subprocess.run([sys.executable, os.path.abspath(__file__), directory],
                               capture_output=True, text=True, timeout=600)
        theirs = int(child.stdout.split()[-1]) if child.returncode == 0 else None
        if mine is not None and theirs is not None:
            compared += 1
            under += mine <= theirs
        cell = lambda v: "–" if v is None else f"{v:,}"
        note = " (per device)" if spmd else ""
        rows.append(f"| {name}{note} | {cell(mine)} | {cell(theirs)} |")
    print("| program | xlite temp bytes | XLA:CPU temp bytes |")
    print("|---|---:|---:|")
    print("\n".join(rows))
    print(f"\nxlite at or under XLA:CPU on {under} of {compared} programs")


if __name__ == "__main__":
    if len(sys.argv) == 2:
        xla_temp(sys.argv[1])
    else:
        main()
