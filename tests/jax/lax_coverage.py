"""A sweep over jax.lax under the xlite plugin against XLA:CPU.

Every elementwise operation over every dtype JAX offers that accepts it,
reductions, dots, convolutions, gathers and scatters, sorts, control flow,
RNG, windows, FFT and linear algebra (eigh and svd through the LAPACK
calls the plugin registers jax's CPU lowering of): each case is jitted on the xlite device and on the
CPU device of one process and compared (integers and booleans exactly,
floats to the dtype's tolerance, NaNs where XLA:CPU has them).

  run_in_venv.sh tests/jax/lax_coverage.py PLUGIN [--markdown] [-k SUBSTR]

Exits non-zero when a case fails that is not in EXPECTED_FAILURES (a
regression) and names it; prints the pass rate and every failure.
"""

import argparse
import os
import sys
import traceback

os.environ["JAX_PLATFORMS"] = "xlite,cpu"

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402

jax.config.update("jax_enable_x64", True)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lax_cases import all_cases  # noqa: E402

# Cases known to fail, each with the reason (BENCHMARKS.md lists them).
EXPECTED_FAILURES = {}

TOLERANCE = {
    np.dtype(np.float16): 2e-3,
    np.dtype(ml_dtypes.bfloat16): 1.6e-2,
    np.dtype(np.float32): 2e-6,
    np.dtype(np.float64): 1e-13,
    np.dtype(np.complex64): 2e-6,
    np.dtype(np.complex128): 1e-13,
}


def run_on(device, f, args):
    with jax.default_device(device):
        placed = [jax.device_put(a, device) for a in args]
        out = jax.jit(f)(*placed)
        return [np.asarray(x) for x in jax.tree_util.tree_leaves(out)]


def compare(got, want, loose):
    if len(got) != len(want):
        return f"{len(got)} results, XLA:CPU gives {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        if g.dtype != w.dtype or g.shape != w.shape:
            return f"result {i}: {g.dtype}{g.shape} vs {w.dtype}{w.shape}"
        if w.dtype in TOLERANCE:
            tol = TOLERANCE[w.dtype] * loose
            gf = g.astype(np.complex128 if np.iscomplexobj(g) else np.float64)
            wf = w.astype(gf.dtype)
            scale = max(1.0, float(np.max(np.abs(wf[np.isfinite(wf)]),
                                          initial=0.0)))
            # Complex numbers part by part (an infinite part stays equal).
            ok = np.ones(gf.shape, bool)
            for part in ((np.real, np.imag) if np.iscomplexobj(gf)
                         else (lambda v: v,)):
                ok &= np.isclose(part(gf), part(wf), rtol=tol,
                                 atol=tol * scale * 1e-3, equal_nan=True)
            if not ok.all():
                bad = np.argwhere(~ok)[0]
                return (f"result {i} at {tuple(bad)}: {gf[tuple(bad)]} vs "
                        f"{wf[tuple(bad)]} ({(~ok).sum()} of {ok.size})")
        elif w.dtype.kind == "V" or "float" in w.dtype.name:
            # ml_dtypes' narrow floats: exactly, NaN equal to NaN.
            if not np.array_equal(g.astype(np.float32), w.astype(np.float32),
                                  equal_nan=True):
                bad = np.argwhere(g.astype(np.float32) !=
                                  w.astype(np.float32))[0]
                return (f"result {i} at {tuple(bad)}: {g[tuple(bad)]} vs "
                        f"{w[tuple(bad)]}")
        elif not np.array_equal(g, w):
            bad = np.argwhere(g != w)[0] if g.shape else ()
            return (f"result {i} at {tuple(bad)}: {g[tuple(bad)]} vs "
                    f"{w[tuple(bad)]}")
    return None


def xlite_problem(xlite, f, args, want, loose):
    """How f's result on the xlite device differs from `want` (XLA:CPU's),
    or the error it raised; falsy when they match."""
    try:
        return compare(run_on(xlite, f, args), want, loose)
    except Exception as e:
        return f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("-k", default="")
    flags = parser.parse_args()
    xlite, cpu = jax.devices("xlite")[0], jax.devices("cpu")[0]
    cases = [c for c in all_cases() if flags.k in c[0]]
    failures = {}
    skipped = []
    for name, f, args, loose in cases:
        try:
            want = run_on(cpu, f, args)
        except Exception:  # XLA:CPU rejects it too: not a case
            skipped.append(name)
            continue
        problem = xlite_problem(xlite, f, args, want, loose)
        if problem:
            failures[name] = problem
    ran = len(cases) - len(skipped)
    passed = ran - len(failures)
    if skipped:
        print(f"skipped (XLA:CPU rejects them too): {', '.join(skipped)}")
    print(f"lax coverage: {passed} of {ran} cases match XLA:CPU "
          f"({100.0 * passed / max(ran, 1):.1f}%)")
    for name, problem in sorted(failures.items()):
        mark = "expected" if name in EXPECTED_FAILURES else "FAIL"
        if flags.markdown:
            print(f"| `{name}` | {problem} |")
        else:
            print(f"  {mark} {name}: {problem}")
    regressions = [n for n in failures if n not in EXPECTED_FAILURES]
    fixed = [n for n in EXPECTED_FAILURES if n not in failures and
             any(n == c[0] for c in cases)]
    for n in fixed:
        print(f"  now passing (remove from EXPECTED_FAILURES): {n}")
    return 1 if regressions else 0


if __name__ == "__main__":
    sys.exit(main())
