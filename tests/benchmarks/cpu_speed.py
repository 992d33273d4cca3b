#!/usr/bin/env python3
"""CPU speed side by side (issue 14): xlite's CPU backend against XLA:CPU
(jaxlib) on every corpus program and on the benchmark set of
bench_programs.py (small, medium and bandwidth-bound programs), in one run,
with this machine's copy bandwidth measured in the same run. Figures only:
nothing here asserts a time.

  bazel build //tools:hlo-run //tools:hlo-opt
  ~/.cache/xlite-venv/bin/python tests/benchmarks/cpu_speed.py \
      [--iterations=N] [--set=all|corpus|bench] [NAME...]

Per program, the xlite and XLA columns are those of cpu_vs_xla.py (run:
min/median of N warm executions of the module alone; compile: one
`hlo-run` process, start included, against XLA's in-process compile; peak
RSS of that process), plus
  speed-up   XLA median / xlite median (above 1: xlite is faster)
  cached     the in-process load of the compiled module from xlite's
             compiled-module cache (hlo-run's `compile (cpu): X ms, loaded
             from the compiled-module cache`, a second run with the cache on)
  check      xlite's results against XLA's recorded outputs
  GB/s       the bytes a kernel must move at least (arguments + results)
             over xlite's min time, and that as % of the copy bandwidth
Then the geometric mean of the speed-ups over all programs and per group.

Copy bandwidth: the best of several numpy copies of 256 MiB, on one thread
and split over every core; a copy moves twice its size (read + write).
"""
import argparse
import glob
import json
import math
import re
import os
import statistics
import sys
import tempfile
import threading
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_programs  # noqa: E402
import cpu_vs_xla as side  # noqa: E402


CACHED_LINE = re.compile(r"compile \(cpu\): ([0-9.eE+-]+) ms, loaded from "
                         r"the compiled-module cache")


def cached_load_ms(directory, inputs, timeout):
    """The in-process load time of `directory`'s module from the compiled-
    module cache: one run fills the cache (if it must), the next loads."""
    argv = [side.HLO_RUN, "--platform=cpu", "--cache=true", "--iterations=2",
            os.path.join(directory, "before.hlo"),
            "--input=" + ",".join(inputs)]
    for _ in range(2):
        rc, err, _, _ = side.run_child(argv, timeout)
        m = CACHED_LINE.search(err or "") if rc == 0 else None
        if m:
            return float(m.group(1))
    return None


def copy_bandwidth(megabytes=256, repeats=5):
    """(single-thread GB/s, all-core GB/s) of a large memory copy."""
    n = megabytes * 2**20 // 4
    src = np.ones(n, np.float32)
    dst = np.empty_like(src)
    np.copyto(dst, src)  # touch every page first

    def best(threads):
        parts = np.array_split(np.arange(n), threads)
        bounds = [(p[0], p[-1] + 1) for p in parts if len(p)]
        times = []
        for _ in range(repeats):
            workers = [threading.Thread(target=np.copyto,
                                        args=(dst[a:b], src[a:b]))
                       for a, b in bounds]
            start = time.perf_counter()
            for w in workers:
                w.start()
            for w in workers:
                w.join()
            times.append(time.perf_counter() - start)
        return 2 * src.nbytes / min(times) / 1e9
    return best(1), best(os.cpu_count() or 1)


def check_outputs(directory, got_dir):
    """'ok', or what differs from XLA's recorded outputs."""
    bad = []
    for want_path in sorted(glob.glob(os.path.join(directory, "out_*.npy"))):
        name = os.path.basename(want_path)
        if not re.fullmatch(r"out_\d+\.npy", name):
            continue
        got_path = os.path.join(got_dir, name)
        if not os.path.exists(got_path):
            bad.append(f"{name} missing")
            continue
        try:
            want, got = np.load(want_path), np.load(got_path)
        except (TypeError, ValueError):
            # Narrow floats numpy cannot name ('<f1'; xlite writes '<V1'):
            # compare the data after the headers.
            def data(path):
                raw = open(path, "rb").read()
                return raw[raw.index(b"\n") + 1:]
            same = data(want_path) == data(got_path)
            if not same:
                bad.append(f"{name} differs (raw bytes)")
            continue
        if want.shape != got.shape:
            bad.append(f"{name} shape")
        elif want.dtype.kind in "fc":
            w = want.astype(np.complex128)
            g = got.astype(np.complex128)
            # By the width of the real part (complex64 is two f32).
            width = want.dtype.itemsize // (2 if want.dtype.kind == "c" else 1)
            tol = {2: 2e-2, 4: 1e-3, 8: 1e-9}.get(width, 2e-2)
            if not np.allclose(g, w, rtol=tol, atol=tol, equal_nan=True):
                bad.append(f"{name} max err {np.nanmax(np.abs(g - w)):.2g}")
        elif not np.array_equal(want, got):
            bad.append(f"{name} differs")
    return "; ".join(bad) if bad else "ok"


def xlite_outputs(directory, inputs, timeout):
    with tempfile.TemporaryDirectory() as out:
        argv = [side.HLO_RUN, "--platform=cpu",
                os.path.join(directory, "before.hlo"),
                "--input=" + ",".join(inputs), "--output=" + out]
        rc, err, _, _ = side.run_child(argv, timeout)
        if rc != 0:
            return "run failed"
        return check_outputs(directory, out)


def geomean(values):
    values = [v for v in values if v and v > 0]
    if not values:
        return None
    return math.exp(sum(math.log(v) for v in values) / len(values))


def program_dirs(which, names):
    dirs = []
    if which in ("all", "corpus"):
        for d in sorted(glob.glob(os.path.join(side.ROOT,
                                               "tests/corpus/programs/*/"))):
            dirs.append(("corpus", d.rstrip("/")))
    if which in ("all", "bench"):
        for d in bench_programs.ensure():
            meta = json.load(open(os.path.join(d, "meta.json")))
            dirs.append((meta["group"], d))
    if names:
        dirs = [(g, d) for g, d in dirs if os.path.basename(d) in names]
    return dirs


def fmt(x, digits=3):
    if x is None:
        return "–"
    return f"{x:.{digits}g}" if x < 100 else f"{x:.0f}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--set", default="all", choices=["all", "corpus", "bench"])
    parser.add_argument("programs", nargs="*")
    args = parser.parse_args()
    for tool in (side.HLO_RUN, side.HLO_OPT):
        if not os.access(tool, os.X_OK):
            sys.exit(f"{tool} missing: bazel build //tools:hlo-run //tools:hlo-opt")
    one, every = copy_bandwidth()
    copy_gbs = max(one, every)
    rows, skipped = [], []
    for group, d in program_dirs(args.set, args.programs):
        name = os.path.basename(d)
        meta = json.load(open(os.path.join(d, "meta.json")))
        if meta.get("num_partitions", 1) > 1:
            skipped.append(name)
            continue
        inputs = side.inputs_of(d)
        xl = side.xlite_side(d, inputs, args.iterations, args.timeout)
        xa = side.xla_in_child(d, args.iterations, args.timeout)
        xl["check"] = (xlite_outputs(d, inputs, args.timeout)
                       if "min_ms" in xl else "–")
        if "min_ms" in xl:
            xl["cached_ms"] = cached_load_ms(d, inputs, args.timeout)
        moved = meta.get("min_bytes_moved")
        if moved and xl.get("min_ms"):
            xl["gbs"] = moved / (xl["min_ms"] * 1e-3) / 1e9
        if xl.get("median_ms") and xa.get("median_ms"):
            xl["speedup"] = xa["median_ms"] / xl["median_ms"]
        rows.append((group, name, xl, xa))
        print(f"{name}: xlite {xl} XLA {xa}", file=sys.stderr, flush=True)

    print(f"Copy bandwidth (numpy, 256 MiB, read + write): {one:.1f} GB/s on "
          f"one thread, {every:.1f} GB/s on {os.cpu_count()} threads.")
    print(f"N = {args.iterations} timed runs per program.\n")
    print("| group | program | xlite run min/median (ms) | XLA run min/median (ms) "
          "| speed-up | xlite compile+run (ms) | xlite cached load (ms) "
          "| XLA compile (ms) "
          "| xlite peak RSS (MiB) | xlite GB/s (% of copy) | check |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for group, name, xl, xa in rows:
        xl_run = (f"{fmt(xl.get('min_ms'))} / {fmt(xl.get('median_ms'))}"
                  if "min_ms" in xl else f"error: {xl.get('error', '?')}")
        xa_run = (f"{fmt(xa.get('min_ms'))} / {fmt(xa.get('median_ms'))}"
                  if "min_ms" in xa else f"error: {xa.get('error', '?')}")
        rss = f"{xl['rss'] / 2**20:.0f}" if xl.get("rss") else "–"
        gbs = (f"{xl['gbs']:.1f} ({100 * xl['gbs'] / copy_gbs:.0f}%)"
               if group == "bandwidth" and xl.get("gbs") else "")
        speed = f"{xl['speedup']:.2f}x" if xl.get("speedup") else "–"
        print(f"| {group} | {name} | {xl_run} | {xa_run} | {speed} "
              f"| {fmt(xl.get('first_ms'))} | {fmt(xl.get('cached_ms'))} "
              f"| {fmt(xa.get('compile_ms'))} "
              f"| {rss} | {gbs} | {xl.get('check', '–')} |")
    print()
    groups = ["all"] + sorted({g for g, _, _, _ in rows})
    for g in groups:
        ups = [xl.get("speedup") for gg, _, xl, _ in rows if g in ("all", gg)]
        gm = geomean(ups)
        slower = [n for gg, n, xl, _ in rows if g in ("all", gg)
                  and xl.get("speedup") and xl["speedup"] < 0.9]
        print(f"- {g}: geometric mean speed-up "
              f"{'–' if gm is None else f'{gm:.2f}x'} over "
              f"{sum(1 for u in ups if u)} programs"
              + (f"; slower than XLA:CPU by more than 10%: {', '.join(slower)}"
                 if slower else ""))
    if skipped:
        print("\nNot timed (num_partitions > 1): " + ", ".join(skipped) + ".")


if __name__ == "__main__":
    main()
