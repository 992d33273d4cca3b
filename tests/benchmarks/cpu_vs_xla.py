#!/usr/bin/env python3
"""Side by side: xlite's CPU backend (hlo-run --platform=cpu) and XLA:CPU
(jaxlib) on every corpus program's before.hlo, same inputs, one run, one
Markdown table for BENCHMARKS.md. Figures only: nothing here asserts a time.

  bazel build -c opt //tools:hlo-run //tools:hlo-opt
  ~/.cache/xlite-venv/bin/python tests/benchmarks/cpu_vs_xla.py [--iterations=N]

Per program (tests/corpus/programs/*):
  xlite temp bytes  temp_size_in_bytes from
                    `hlo-opt --platform=cpu --stage=buffer-assignment`
  xlite compile+run wall time of one `hlo-run --iterations=1` process, timed
                    from Python: process start, parsing, .npy reading, the
                    CPU pipeline and codegen, and one run
  xlite run         min/median of `hlo-run --iterations=N` (its stderr line
                    `time (cpu, N runs): min X ms, median Y ms`)
  xlite RSS         peak RSS of that hlo-run process (/usr/bin/time -f %M)
  XLA temp bytes    compiled.get_compiled_memory_stats().temp_size_in_bytes
  XLA compile       in-process: HLO text -> HloModuleProto -> StableHLO ->
                    client.compile_and_load (no process start; jax is
                    imported and the client warmed up by one throwaway compile; each
                    program's XLA side runs in its own child process, so a
                    crash shows as an error cell)
  XLA run           min/median over N execute_sharded calls on device-resident
                    inputs, each waited for with block_until_ready

Programs whose meta.json says num_partitions > 1 are listed but not timed.
"""
import argparse
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)  # keep f64/s64 inputs as they are
from jax._src.lib import _jax, hlo  # noqa: E402
from jax._src.lib import xla_client as xc  # noqa: E402
from jax._src.lib import lapack  # noqa: E402

# jax fills in its LAPACK kernels' function pointers (from scipy) on the
# first linalg call it lowers; modules compiled from text skip that, and
# XLA:CPU would call through null pointers.
lapack._lapack.initialize()

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HLO_RUN = os.path.join(ROOT, "bazel-bin/tools/hlo-run")
HLO_OPT = os.path.join(ROOT, "bazel-bin/tools/hlo-opt")
TIME_LINE = re.compile(r"time \(cpu, (\d+) runs\): min ([0-9.eE+-]+) ms, "
                       r"median ([0-9.eE+-]+) ms")
TEMP_LINE = re.compile(r"temp_size_in_bytes=(\d+)")


def inputs_of(directory):
    files = glob.glob(os.path.join(directory, "in_*.npy"))
    files = [f for f in files if re.fullmatch(r"in_\d+\.npy", os.path.basename(f))]
    return sorted(files, key=lambda f: int(
        re.search(r"in_(\d+)", os.path.basename(f)).group(1)))


def run_child(argv, timeout, rss=False):
    """Runs argv; returns (rc, stderr text, wall seconds, peak RSS bytes).

    Peak RSS comes from /usr/bin/time: a child forked from this (large,
    jax-carrying) Python process reports the parent's pre-exec high-water
    mark in ru_maxrss, so os.wait4's figure would be jax's, not hlo-run's.
    """
    with tempfile.TemporaryFile(mode="w+") as err, \
            tempfile.NamedTemporaryFile(mode="w+") as rss_file:
        if rss:
            argv = ["/usr/bin/time", "-f", "%M", "-o", rss_file.name] + argv
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err,
                                cwd=ROOT)
        deadline = start + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                proc.kill()
                pid, status, usage = os.wait4(proc.pid, 0)
                proc.returncode = -9
                err.seek(0)
                return None, "timeout", time.perf_counter() - start, 0
            time.sleep(0.002)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        peak = None
        if rss:
            m = re.search(r"(\d+)\s*$", rss_file.read())
            peak = int(m.group(1)) * 1024 if m else None
        return proc.returncode, err.read(), wall, peak


def xlite_side(directory, inputs, iterations, timeout):
    out = {}
    opt = subprocess.run([HLO_OPT, "--platform=cpu", "--stage=buffer-assignment",
                          os.path.join(directory, "before.hlo")],
                         capture_output=True, text=True, cwd=ROOT)
    m = TEMP_LINE.search(opt.stdout + opt.stderr)
    out["temp"] = int(m.group(1)) if m else None
    # --cache=false: "compile+run" times a compile, not a cache hit.
    argv = [HLO_RUN, "--platform=cpu", "--cache=false",
            os.path.join(directory, "before.hlo"),
            "--input=" + ",".join(inputs)]
    rc, err, wall, _ = run_child(argv + ["--iterations=1"], timeout)
    if rc != 0:
        out["error"] = (err.strip().splitlines() or ["rc=%s" % rc])[-1][:80]
        return out
    out["first_ms"] = wall * 1e3
    rc, err, wall, rss = run_child(argv + ["--iterations=%d" % iterations],
                                   timeout, rss=os.access("/usr/bin/time", os.X_OK))
    m = TIME_LINE.search(err or "")
    if rc != 0 or not m:
        out["error"] = (err.strip().splitlines() or ["rc=%s" % rc])[-1][:80]
        return out
    out["min_ms"], out["median_ms"] = float(m.group(2)), float(m.group(3))
    out["rss"] = rss
    return out


def load_input(path, directory, index):
    """An input .npy; ml_dtypes floats (saved as '<f1' or '|V2', which
    numpy cannot read back as such) as the dtype meta.json names."""
    try:
        array = np.load(path)
        if array.dtype.kind != "V":
            return array
    except ValueError:
        array = None
    import ml_dtypes
    with open(os.path.join(directory, "meta.json")) as f:
        meta = json.load(f)["inputs"][index]
    if array is not None:  # bf16 and the like load as raw bytes ('|V2')
        return array.view(getattr(ml_dtypes, meta["dtype"]))
    with open(path, "rb") as f:
        data = f.read()
    # magic (6 bytes), version (2), header length (2 bytes in version 1, 4
    # after), header; then the elements in C order.
    length_bytes = 2 if data[6] == 1 else 4
    start = 8 + length_bytes + int.from_bytes(data[8:8 + length_bytes],
                                              "little")
    return np.frombuffer(data[start:], dtype=getattr(ml_dtypes, meta["dtype"])
                         ).reshape(meta["shape"])


def xla_side(directory, inputs, iterations):
    out = {}
    text = open(os.path.join(directory, "before.hlo")).read()
    client = jax.devices()[0].client
    devices = xc.DeviceList(tuple(jax.devices()[:1]))
    start = time.perf_counter()
    proto = hlo.hlo_module_from_text(text).as_serialized_hlo_module_proto()
    stablehlo = _jax.mlir.hlo_to_stablehlo(proto)
    executable = client.compile_and_load(stablehlo, devices, xc.CompileOptions())
    out["compile_ms"] = (time.perf_counter() - start) * 1e3
    stats = executable.get_compiled_memory_stats()
    out["temp"] = stats.temp_size_in_bytes
    out["total"] = (stats.argument_size_in_bytes + stats.output_size_in_bytes
                    + stats.temp_size_in_bytes - stats.alias_size_in_bytes)
    arrays = [load_input(f, directory, i) for i, f in enumerate(inputs)]
    donates = "input_output_alias" in text.split("\n", 1)[0]
    buffers = [jax.device_put(a) for a in arrays]
    times = []
    for i in range(iterations + 1):  # the first run is a warm-up
        if donates:
            buffers = [jax.device_put(a) for a in arrays]
            jax.block_until_ready(buffers)
        start = time.perf_counter()
        results = executable.execute_sharded(buffers)
        jax.block_until_ready(results.disassemble_into_single_device_arrays())
        if i:
            times.append((time.perf_counter() - start) * 1e3)
    out["min_ms"], out["median_ms"] = min(times), statistics.median(times)
    return out


def warm_up_xla():
    """One throwaway compile, so the first program's XLA compile time does
    not carry the client's one-off start-up."""
    d = os.path.join(ROOT, "tests/corpus/programs/mlp_forward")
    if os.path.isdir(d):
        xla_side(d, inputs_of(d), 1)


def xla_in_child(directory, iterations, timeout):
    """XLA side in a child process of this script: a program that crashes
    XLA (some custom calls do when loaded from bare HLO) must not end the
    whole run. The child warms the client up before it times anything."""
    try:
        run = subprocess.run([sys.executable, os.path.abspath(__file__),
                              "--xla-child", directory,
                              "--iterations=%d" % iterations],
                             capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": "timeout"}
    if run.returncode != 0:
        last = (run.stderr.strip().splitlines() or [""])[-1][:60]
        return {"error": f"rc={run.returncode} {last}".strip()}
    return json.loads(run.stdout.strip().splitlines()[-1])


def fmt_bytes(n):
    return "–" if n is None else f"{n:,}"


def fmt_ms(x):
    if x is None:
        return "–"
    return f"{x:.3g}" if x < 100 else f"{x:.0f}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--timeout", type=float, default=300,
                        help="seconds per hlo-run process")
    parser.add_argument("--xla-child", help=argparse.SUPPRESS)
    parser.add_argument("programs", nargs="*",
                        help="program names (default: all in the corpus)")
    args = parser.parse_args()
    if args.xla_child:
        warm_up_xla()
        try:
            result = xla_side(args.xla_child, inputs_of(args.xla_child),
                              args.iterations)
        except Exception as e:  # noqa: BLE001 - report, keep going
            result = {"error": str(e).strip().splitlines()[0][:80]}
        print(json.dumps(result))
        return
    for tool in (HLO_RUN, HLO_OPT):
        if not os.access(tool, os.X_OK):
            sys.exit(f"{tool} missing: bazel build -c opt //tools:hlo-run "
                     "//tools:hlo-opt")
    dirs = sorted(glob.glob(os.path.join(ROOT, "tests/corpus/programs/*/")))
    if args.programs:
        dirs = [d for d in dirs if os.path.basename(d.rstrip("/")) in args.programs]
    rows, skipped = [], []
    for d in dirs:
        name = os.path.basename(d.rstrip("/"))
        meta = json.load(open(os.path.join(d, "meta.json")))
        if meta.get("num_partitions", 1) > 1:
            skipped.append((name, meta["num_partitions"]))
            continue
        inputs = inputs_of(d)
        xl = xlite_side(d, inputs, args.iterations, args.timeout)
        xa = xla_in_child(d, args.iterations, args.timeout)
        rows.append((name, xl, xa))
        print(f"{name}: xlite {xl} XLA {xa}", file=sys.stderr, flush=True)

    print(f"N = {args.iterations} timed runs per program (min/median).\n")
    print("| program | xlite temp bytes | XLA temp bytes | xlite compile+run (ms) "
          "| XLA compile (ms) | xlite run min/median (ms) "
          "| XLA run min/median (ms) | xlite peak RSS (MiB) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, xl, xa in rows:
        xl_run = (f"{fmt_ms(xl.get('min_ms'))} / {fmt_ms(xl.get('median_ms'))}"
                  if "min_ms" in xl else f"error: {xl.get('error', '?')}")
        xa_run = (f"{fmt_ms(xa.get('min_ms'))} / {fmt_ms(xa.get('median_ms'))}"
                  if "min_ms" in xa else f"error: {xa.get('error', '?')}")
        rss = f"{xl['rss'] / 2**20:.0f}" if xl.get("rss") else "–"
        print(f"| {name} | {fmt_bytes(xl.get('temp'))} | {fmt_bytes(xa.get('temp'))} "
              f"| {fmt_ms(xl.get('first_ms'))} | {fmt_ms(xa.get('compile_ms'))} "
              f"| {xl_run} | {xa_run} | {rss} |")
    if skipped:
        print("\nNot timed (num_partitions > 1): " + ", ".join(
            f"{n} ({p} partitions)" for n, p in skipped) + ".")


if __name__ == "__main__":
    main()
