"""Whole JAX programs under the xlite plugin against XLA:CPU.

program_cases.py holds the programs (training steps, attention, conv nets,
scans and loops, gathers and scatters, integer and conversion semantics,
RNG, linear algebra); each is jitted on the xlite device and on the CPU
device of one process and compared as lax_coverage.py compares.

  run_in_venv.sh tests/jax/program_coverage.py PLUGIN [-k SUBSTR]

Exits non-zero when a program fails and names it.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lax_coverage import compare, run_on  # noqa: E402  (sets up jax)

import jax  # noqa: E402
from program_cases import all_cases  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-k", default="")
    flags = parser.parse_args()
    xlite, cpu = jax.devices("xlite")[0], jax.devices("cpu")[0]
    cases = [c for c in all_cases() if flags.k in c[0]]
    failures = {}
    for name, f, args, loose in cases:
        want = run_on(cpu, f, args)
        try:
            got = run_on(xlite, f, args)
            problem = compare(got, want, loose)
        except Exception as e:
            problem = f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
        if problem:
            failures[name] = problem
    print(f"programs: {len(cases) - len(failures)} of {len(cases)} match "
          "XLA:CPU")
    for name, problem in sorted(failures.items()):
        print(f"  FAIL {name}: {problem}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
