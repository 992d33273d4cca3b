#!/usr/bin/env python3
"""Side by side: xlite's evaluator (evaluator_benchmark) and XLA:CPU (jax)
on the same operations and the corpus transformer block, one run, one
Markdown table for BENCHMARKS.md.

  bazel build -c opt //tests/benchmarks:evaluator_benchmark
  ~/.cache/xlite-venv/bin/python tests/benchmarks/compare_evaluator_xla.py
"""
import json
import os
import subprocess
import sys
import time

import numpy as np

os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import ml_dtypes  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "corpus"))


def best_seconds(fn, *args, repeats=20):
    jax.block_until_ready(fn(*args))  # compile and warm up
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        jax.block_until_ready(fn(*args))
        best = min(best, time.perf_counter() - start)
    return best


def xla_side():
    rng = np.random.RandomState(0)
    n = 1 << 22
    a = rng.uniform(-1, 1, n).astype(np.float32)
    b = rng.uniform(-1, 1, n).astype(np.float32)
    out = {}
    out["Elementwise/add_f32/4194304"] = n / best_seconds(jax.jit(jnp.add), a, b)
    ab, bb = a.astype(ml_dtypes.bfloat16), b.astype(ml_dtypes.bfloat16)
    out["Elementwise/multiply_bf16/4194304"] = n / best_seconds(
        jax.jit(jnp.multiply), ab, bb)
    out["Elementwise/exp_f32/4194304"] = n / best_seconds(jax.jit(jnp.exp), a)
    out["Elementwise/tanh_f32/4194304"] = n / best_seconds(jax.jit(jnp.tanh), a)
    for size, dtype, name in [(512, np.float32, "f32"), (1024, np.float32, "f32"),
                              (512, np.float64, "f64")]:
        if dtype == np.float64:
            jax.config.update("jax_enable_x64", True)
        x = rng.uniform(-1, 1, (size, size)).astype(dtype)
        y = rng.uniform(-1, 1, (size, size)).astype(dtype)
        seconds = best_seconds(jax.jit(jnp.dot), x, y)
        out[f"Dot/{name}/{size}"] = 2.0 * size ** 3 / seconds
    for name, dtype in [("f32", np.float32), ("bf16", ml_dtypes.bfloat16),
                        ("f16", np.float16)]:
        x = rng.uniform(-1, 1, (1024, 256)).astype(dtype)
        y = rng.uniform(-1, 1, (256, 1024)).astype(dtype)
        seconds = best_seconds(jax.jit(jnp.dot), x, y)
        out[f"MatMul/{name}/1024/256/1024"] = 2.0 * 1024 * 256 * 1024 / seconds
    for name, dtype in [("f32", np.float32), ("bf16", ml_dtypes.bfloat16)]:
        x = rng.uniform(-1, 1, (8, 64, 32, 32)).astype(dtype)
        k = rng.uniform(-1, 1, (64, 64, 3, 3)).astype(dtype)
        conv = jax.jit(lambda x, k: jax.lax.conv_general_dilated(
            x, k, (1, 1), ((1, 1), (1, 1))))
        out[f"Conv/{name}"] = 2.0 * 8 * 32 * 32 * 64 * 64 * 9 / best_seconds(
            conv, x, k)
    bf16 = ml_dtypes.bfloat16
    q, k, v = (rng.uniform(-1, 1, (8, 512, 64)).astype(bf16) for _ in range(3))

    def attention(q, k, v):
        s = jnp.einsum("bqd,bkd->bqk", q, k, preferred_element_type=bf16)
        m = jax.lax.reduce(s, bf16(-np.inf), jax.lax.max, (2,))
        x = jnp.exp(s - m[:, :, None])
        l = jax.lax.reduce(x, bf16(0), jax.lax.add, (2,))
        return jnp.einsum("bqk,bkd->bqd", x / l[:, :, None], v,
                          preferred_element_type=bf16)
    out["Attention"] = best_seconds(jax.jit(attention), q, k, v) * 1e3
    jax.config.update("jax_enable_x64", True)
    import generate  # the corpus programs
    generate.jax, generate.jnp, generate.lax = jax, jnp, jax.lax
    args = generate.transformer_args(21)
    out["TransformerBlock/after"] = best_seconds(
        jax.jit(generate.attention_block), *args) * 1e3
    return out


def xlite_side():
    binary = os.environ.get("XLITE_EVALUATOR_BENCHMARK", os.path.join(
        ROOT, "bazel-bin/tests/benchmarks/evaluator_benchmark"))
    run = subprocess.run([binary, "--benchmark_format=json",
                          "--benchmark_min_time=0.5"],
                         capture_output=True, text=True, cwd=ROOT, check=True)
    out = {}
    for b in json.loads(run.stdout)["benchmarks"]:
        if "items_per_second" in b:
            out[b["name"]] = b["items_per_second"]
        elif "FLOP/s" in b:
            out[b["name"]] = b["FLOP/s"]
        else:
            # ms of CPU time: the machine is shared, so wall time varies
            # with load (one thread: CPU time is the single-run time).
            out[b["name"]] = b["cpu_time"]
    return out


def main():
    xla = xla_side()
    xlite = xlite_side()
    print("| benchmark | xlite evaluator | XLA:CPU (jax) | unit |")
    print("|---|---|---|---|")
    for name in xla:
        unit = ("M elements/s" if name.startswith("Elementwise") else
                "GFLOP/s" if name.startswith(("Dot", "MatMul", "Conv"))
                else "ms")
        scale = 1e-6 if unit.startswith("M") else 1e-9 if unit == "GFLOP/s" else 1
        print(f"| {name} | {xlite.get(name, float('nan')) * scale:.1f} | "
              f"{xla[name] * scale:.1f} | {unit} |")


if __name__ == "__main__":
    main()
