"""Whole JAX programs under the xlite plugin against XLA:CPU.

program_cases.py holds the programs (training steps, attention, conv nets,
scans and loops, gathers and scatters, integer and conversion semantics,
RNG, linear algebra), program_cases_2.py and program_cases_3.py more of
them (jnp.linalg, jnp.fft, sorting and sets, jax.nn, jax.random, custom
derivatives, padding and resizing, small algorithms); each is jitted on
the xlite device and on the CPU device of one process and compared as
lax_coverage.py compares.

  run_in_venv.sh tests/jax/program_coverage.py PLUGIN [-k SUBSTR]

Exits non-zero when a program fails and names it.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lax_coverage import run_on, xlite_problem  # noqa: E402  (sets up jax)

import jax  # noqa: E402
import program_cases  # noqa: E402
import program_cases_2  # noqa: E402
import program_cases_3  # noqa: E402


def all_cases():
    for module in (program_cases, program_cases_2, program_cases_3):
        yield from module.all_cases()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-k", default="")
    flags = parser.parse_args()
    xlite, cpu = jax.devices("xlite")[0], jax.devices("cpu")[0]
    cases = [c for c in all_cases() if flags.k in c[0]]
    failures = {}
    for name, f, args, loose in cases:
        try:
            want = run_on(cpu, f, args)
        except Exception as e:  # the program itself is wrong
            failures[name] = f"XLA:CPU fails: {type(e).__name__}: {e}"[:300]
            continue
        problem = xlite_problem(xlite, f, args, want, loose)
        if problem:
            failures[name] = problem
    print(f"programs: {len(cases) - len(failures)} of {len(cases)} match "
          "XLA:CPU")
    for name, problem in sorted(failures.items()):
        print(f"  FAIL {name}: {problem}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
