#!/usr/bin/env python3
"""Times --gemm-backend=auto's paths on a device and writes a GEMM path cache.

  hlo-opt --platform=gpu --gpu-spec=h100 --gemm-path-variants=DIR m.hlo
  (on the device)  gemm_path_tune.py DIR --runner=bin/hlo-run-gpu > paths.txt
  hlo-opt --platform=gpu --gpu-spec=h100 --gemm-path-cache=paths.txt ...

For every region under DIR (see gpu_backend/gemm_path_variants.h), each
executable paths.txt lists is run by RUNNER on the region's inputs
(in_<i>.npy) with --profile_json; its time is the kernels' and
GEMM calls' device time per run (CUDA events on a GPU; the emulator's host
wall time under `hlo-run --platform=gpu-emulator`, which says nothing about
a GPU). A path whose result differs from the library path's by more than
--rtol/--atol (relative to the result's largest finite magnitude; NaN
matches NaN) is not taken; a region whose library path does not run is
skipped. The fastest path that agrees is written as the region's cache
entry, a tiled one only when faster than --margin times the library's
time, for the GPU named in DIR/gpu.txt; a table goes to stderr. Plain Python
unless a region's inputs were too large to write beside it: those are
made here with numpy.
"""

import argparse
import json
import math
import os
import re
import shlex
import subprocess
import sys
import tempfile

NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|inf|nan)")


def literal_numbers(text):
    """The numbers of a printed literal, shapes' sizes left out."""
    body = re.sub(r"[a-z0-9]+\[[0-9,]*\](\{[0-9,]*\})?", " ", text)
    return [float(x) for x in NUMBER.findall(body)]


PARAMETER = re.compile(r"=\s*([a-z0-9]+)\[([0-9,]*)\]\S*\s+parameter\((\d+)\)")


def make_inputs(region_dir):
    """Writes in_<i>.npy for region.hlo's parameters (uniform in [-1, 1),
    integers 0..3), for regions too large to carry them. Needs numpy (and
    ml_dtypes for narrow floats), as on the GPU machine."""
    import numpy as np  # pylint: disable=import-outside-toplevel
    with open(os.path.join(region_dir, "region.hlo")) as f:
        text = f.read().split("ENTRY", 1)[-1]
    rng = np.random.default_rng(42)
    for dtype, dims, number in PARAMETER.findall(text):
        shape = [int(d) for d in dims.split(",") if d]
        if dtype.startswith(("s", "u")):
            value = rng.integers(0, 4, size=shape).astype(np.dtype(
                {"s8": "int8", "s32": "int32", "u8": "uint8"}[dtype]))
        else:
            value = rng.uniform(-1, 1, size=shape).astype(np.float32)
            if dtype != "f32":
                import ml_dtypes  # pylint: disable=import-outside-toplevel
                kind = {"bf16": ml_dtypes.bfloat16, "f16": np.float16,
                        "f8e4m3fn": ml_dtypes.float8_e4m3fn,
                        "f8e5m2": ml_dtypes.float8_e5m2}[dtype]
                value = value.astype(kind)
        np.save(os.path.join(region_dir, f"in_{number}.npy"), value)


def inputs(region_dir):
    """--input flags for the region's in_<i>.npy, in parameter order."""
    if not any(re.fullmatch(r"in_\d+\.npy", f)
               for f in os.listdir(region_dir)):
        make_inputs(region_dir)
    files = [f for f in os.listdir(region_dir) if re.fullmatch(r"in_\d+\.npy", f)]
    files.sort(key=lambda f: int(f[3:-4]))
    return [f"--input={os.path.join(region_dir, f)}" for f in files]


def numpy_or_none():
    try:
        import numpy  # pylint: disable=import-outside-toplevel
        return numpy
    except ImportError:
        return None


ROOT_TYPE = re.compile(r"ROOT\s+\S+\s*=\s*([a-z0-9]+)\[")


def root_type(region_dir):
    """The element type of the region's result ("bf16", "f8e4m3fn", ...)."""
    with open(os.path.join(region_dir, "region.hlo")) as f:
        found = ROOT_TYPE.findall(f.read())
    return found[-1] if found else ""


def as_float(np, array, dtype):
    """float64 values of a result array; narrow floats (stored as void by
    xlite's .npy writer) through ml_dtypes, by the region's result type."""
    if array.dtype.kind == "V":
        import ml_dtypes  # pylint: disable=import-outside-toplevel
        kind = {"bf16": ml_dtypes.bfloat16,
                "f8e4m3fn": ml_dtypes.float8_e4m3fn,
                "f8e5m2": ml_dtypes.float8_e5m2}[dtype]
        array = array.view(kind)
    return array.astype(np.float64)


def run(runner, xlx, iterations):
    """(microseconds per run, result numbers) of one executable: the
    results as float arrays with numpy (written as .npy), else parsed from
    the printed literals."""
    np = numpy_or_none()
    with tempfile.TemporaryDirectory() as tmp:
        profile = os.path.join(tmp, "profile.json")
        results = [f"--output={tmp}"] if np else ["--print_literals"]
        cmd = shlex.split(runner) + [
            xlx, f"--iterations={iterations}", f"--profile_json={profile}"
        ] + results + inputs(os.path.dirname(xlx))
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(done.stderr.strip().splitlines()[-1]
                               if done.stderr.strip() else
                               f"exit {done.returncode}")
        with open(profile) as f:
            report = json.load(f)
        if np:
            files = sorted(f for f in os.listdir(tmp) if f.endswith(".npy"))
            dtype = root_type(os.path.dirname(xlx))
            numbers = np.concatenate([
                as_float(np, np.load(os.path.join(tmp, f)), dtype).ravel()
                for f in files]) if files else np.zeros(0)
        else:
            numbers = literal_numbers(done.stdout)
    runs = max(1, int(report.get("runs", 1)))
    total = float(report["totals"]["total_us"])
    return total / runs, numbers


def agrees(got, want, rtol, atol):
    """Every element within atol + rtol * (the reference's largest
    magnitude)."""
    if len(got) != len(want):
        return False
    np = numpy_or_none()
    if np is not None and isinstance(want, np.ndarray):
        finite = np.isfinite(want)
        scale = float(np.max(np.abs(want[finite]))) if finite.any() else 0.0
        close = np.abs(got - want) <= atol + rtol * scale
        # NaN matches NaN and an infinity the same infinity.
        same = (np.isnan(got) & np.isnan(want)) | (got == want)
        return bool(np.all(close | same))
    finite = [abs(w) for w in want if math.isfinite(w)]
    scale = max(finite + [1e-30])
    return all(g == w or (math.isnan(g) and math.isnan(w)) or
               abs(g - w) <= atol + rtol * scale for g, w in zip(got, want))


def tune_region(region_dir, args):
    """[(path, us, note)] and the winner's (path, us) or None."""
    rows, reference, best = [], None, None
    listing = os.path.join(region_dir, "paths.txt")
    if not os.path.exists(listing):
        return [("-", None, "no paths.txt")], None
    with open(listing) as f:
        entries = [l.split(" ", 1) for l in f.read().splitlines()
                   if l and not l.startswith("#") and " " in l]
    for file, path in entries:
        try:
            us, numbers = run(args.runner, os.path.join(region_dir, file),
                              args.iterations)
        except (RuntimeError, OSError, KeyError, ValueError, TypeError,
                ImportError) as e:
            rows.append((path, None, f"failed: {e}"))
            if reference is None:  # no library result to check against
                return rows, None
            continue
        if reference is None:  # the library path comes first
            reference = (path, us, numbers)
        elif not agrees(numbers, reference[2], args.rtol, args.atol):
            rows.append((path, us, "wrong result"))
            continue
        rows.append((path, us, ""))
        # A tiled path must beat the library's time by the margin, as the
        # cost model asks of its estimates; else the library stays.
        if best is None or (us < best[1] and us < args.margin * reference[1]):
            best = (path, us)
    return rows, best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir")
    parser.add_argument("--runner", default="hlo-run-gpu")
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--rtol", type=float, default=2e-2)
    parser.add_argument("--atol", type=float, default=1e-3)
    parser.add_argument("--margin", type=float, default=0.97,
                        help="a tiled path is taken when faster than this "
                        "fraction of the library path's time")
    args = parser.parse_args()
    with open(os.path.join(args.dir, "gpu.txt")) as f:
        gpu = f.read().strip()
    print("xlite-gemm-path-cache 1")
    print(f"# measured by gemm_path_tune.py with {args.runner}")
    for name in sorted(os.listdir(args.dir)):
        region_dir = os.path.join(args.dir, name)
        if not os.path.isdir(region_dir):
            continue
        rows, best = tune_region(region_dir, args)
        for path, us, note in rows:
            time = "-" if us is None else f"{us:.2f} us"
            mark = "*" if best and path == best[0] else " "
            print(f"{mark} {name} {path:40s} {time:>12s} {note}",
                  file=sys.stderr)
        if best is None:
            print(f"{name}: no path ran", file=sys.stderr)
            continue
        print(f'gpu="{gpu}" region={name} path="{best[0]}" us={best[1]:.3f}')
    return 0


if __name__ == "__main__":
    sys.exit(main())
