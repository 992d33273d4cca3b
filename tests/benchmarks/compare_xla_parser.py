#!/usr/bin/env python3
"""Side-by-side: xlite's text parser vs XLA's (via jaxlib) on one module.

Writes the generated >=200k-instruction module with xlite's benchmark
binary, then in one run times
  - XLA: jaxlib's hlo_module_from_text (XLA's HloParser) and to_string;
  - xlite: BM_Parse / BM_ParseVerifyPrint from parser_benchmark (JSON);
and prints a Markdown table for BENCHMARKS.md.

  bazel build -c opt //tests/benchmarks:parser_benchmark
  python3 tests/benchmarks/compare_xla_parser.py [--instructions=200000]
(needs jax/jaxlib; e.g. the virtualenv of tests/corpus).
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time


def time_best(fn, repeats):
    best = float("inf")
    result = None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def resident_bytes():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def xla_side(path, repeats):
    """Runs in a child process so its peak RSS is XLA's alone."""
    from jax._src.lib import hlo  # pylint: disable=import-outside-toplevel
    text = open(path).read()
    before = resident_bytes()
    kept = hlo.hlo_module_from_text(text)
    module_bytes = resident_bytes() - before
    del kept
    parse, module = time_best(lambda: hlo.hlo_module_from_text(text), repeats)
    to_string, _ = time_best(module.to_string, repeats)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({"parse": parse, "print": to_string, "rss": rss,
                      "module_bytes": module_bytes}))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--instructions", type=int, default=200000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--binary", default="bazel-bin/tests/benchmarks/parser_benchmark")
    parser.add_argument("--xla-child", default="")
    args = parser.parse_args()
    if args.xla_child:
        xla_side(args.xla_child, args.repeats)
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "module.hlo")
        subprocess.run([args.binary, f"--instructions={args.instructions}",
                        f"--write_module={path}"], check=True)
        size = os.path.getsize(path)
        xla = json.loads(subprocess.run(
            [sys.executable, __file__, f"--xla-child={path}",
             f"--repeats={args.repeats}"],
            check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1])
        out = subprocess.run(
            [args.binary, f"--module={path}", "--benchmark_format=json",
             "--benchmark_filter=BM_Parse/|BM_ParseVerifyPrint|BM_Print",
             "--benchmark_min_time=1"],
            check=True, capture_output=True, text=True).stdout
        bench = {b["name"].split("/")[0]: b for b in json.loads(out)["benchmarks"]}
        memory = subprocess.run([args.binary, f"--module={path}", "--memory"],
                                check=True, capture_output=True, text=True).stdout
        n = int(bench["BM_Parse"]["instructions"])

    def row(name, seconds):
        return f"| {name} | {seconds * 1e3:.0f} ms | {size / seconds / 1e6:.1f} MB/s | {n / seconds / 1e3:.0f}k/s |"

    x_parse = bench["BM_Parse"]["real_time"] / 1e3
    x_all = bench["BM_ParseVerifyPrint"]["real_time"] / 1e3
    x_print = bench["BM_Print"]["real_time"] / 1e3
    print(f"module: {n} instructions, {size / 1e6:.1f} MB of text\n")
    print("| step | time | text throughput | instructions |")
    print("|---|---|---|---|")
    print(row("XLA (jaxlib) parse", xla["parse"]))
    print(row("xlite parse", x_parse))
    print(row("XLA (jaxlib) print", xla["print"]))
    print(row("xlite print", x_print))
    print(row("xlite parse + verify + print", x_all))
    print(f"\nparse speed-up xlite / XLA: {xla['parse'] / x_parse:.2f}x")
    print(f"XLA peak RSS (python + jaxlib + module): {xla['rss'] / 1e6:.0f} MB")
    print(f"XLA module: resident growth while parsing {xla['module_bytes'] / 1e6:.0f} MB"
          f" = {xla['module_bytes'] / n:.0f} bytes/instruction")
    print(memory)


if __name__ == "__main__":
    main()
