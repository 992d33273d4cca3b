#!/usr/bin/env python3
"""Regenerates xlite's JAX corpus: real programs, compiled by XLA:CPU, with
XLA's own results — the ground truth later layers are tested against.

For each program, tests/corpus/programs/NAME/ holds:
  before.hlo, before.pb   the module as jitted (before XLA's optimizations),
                          text and binary HloModuleProto
  after.hlo, after.pb     the module after XLA:CPU's pipeline (what
                          --xla_dump_to writes as *after_optimizations*)
  in_K.npy / out_K.npy    arguments and results, one file per entry
                          parameter / flattened result, in order
  meta.json               shapes, dtypes, partitions, description
SPMD programs (shard_map over 4 or 8 host devices) store per-partition
arguments and results of the partitioned module: in_K.pP.npy, out_K.pP.npy.

Usage (creates ~/.cache/xlite-venv with pinned jax/jaxlib/numpy/ml_dtypes
on first use, then re-runs itself there):
  python3 tests/corpus/generate.py            # all programs
  python3 tests/corpus/generate.py mlp_train  # some, by name prefix
  python3 tests/corpus/generate.py --list
Deterministic: fixed seeds, fixed shapes; the same jax/jaxlib versions give
the same files (metadata records this file's line numbers).
"""
import os
import subprocess
import sys

VENV = os.path.expanduser("~/.cache/xlite-venv")
PINS = ["jax==0.10.2", "jaxlib==0.10.2", "numpy==2.4.6", "ml_dtypes==0.6.0",
        "scipy==1.17.1"]


def ensure_venv():
    """Re-executes this script inside the pinned virtualenv."""
    python = os.path.join(VENV, "bin", "python")
    if os.path.realpath(sys.prefix) == os.path.realpath(VENV):
        return
    if not os.path.exists(python):
        subprocess.check_call([sys.executable, "-m", "venv", VENV])
        subprocess.check_call([python, "-m", "pip", "install", "--quiet"] +
                              PINS)
    os.execv(python, [python] + sys.argv)


if __name__ == "__main__":
    ensure_venv()
    # Eight host devices for the SPMD programs; 64-bit types available.
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                               " --xla_force_host_platform_device_count=8")
    os.environ.setdefault("JAX_PLATFORMS", "cpu")

import json  # noqa: E402
import shutil  # noqa: E402

import numpy as np  # noqa: E402

if __name__ == "__main__":
    import jax  # noqa: E402
    import jax.numpy as jnp  # noqa: E402
    import ml_dtypes  # noqa: E402
    from jax import lax  # noqa: E402
    from jax.sharding import NamedSharding  # noqa: E402
    from jax.sharding import PartitionSpec as P  # noqa: E402

    jax.config.update("jax_enable_x64", True)

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs")
PROGRAMS = []


def program(description, spmd_devices=0):
    """Registers `fn() -> (function, args, in_specs, out_specs)`."""
    def register(fn):
        PROGRAMS.append((fn.__name__, description, spmd_devices, fn))
        return fn
    return register


def rng(seed):
    return np.random.RandomState(seed)


def normal(seed, shape, dtype=np.float32, scale=1.0):
    return (rng(seed).standard_normal(shape) * scale).astype(dtype)


def ints(seed, shape, low, high, dtype=np.int32):
    return rng(seed).randint(low, high, size=shape).astype(dtype)


# ------------------------------------------------------------------ models

def mlp(params, x):
    (w1, b1), (w2, b2) = params
    h = jax.nn.relu(x @ w1 + b1)
    return h @ w2 + b2


def mlp_params(seed):
    return ((normal(seed, (16, 32), scale=0.3), normal(seed + 1, (32,))),
            (normal(seed + 2, (32, 4), scale=0.3), normal(seed + 3, (4,))))


@program("MLP forward: dot, bias add, relu")
def mlp_forward():
    (w1, b1), (w2, b2) = mlp_params(1)
    f = lambda x, w1, b1, w2, b2: mlp(((w1, b1), (w2, b2)), x)  # noqa: E731
    return f, [normal(0, (8, 16)), w1, b1, w2, b2]


@program("MLP forward+backward with a softmax cross-entropy loss, SGD step")
def mlp_train_step():
    (w1, b1), (w2, b2) = mlp_params(3)

    def step(x, labels, w1, b1, w2, b2):
        def loss(p):
            logits = mlp(p, x)
            logp = jax.nn.log_softmax(logits)
            return -jnp.mean(jnp.take_along_axis(logp, labels[:, None], 1))
        params = ((w1, b1), (w2, b2))
        value, grads = jax.value_and_grad(loss)(params)
        new = jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)
        return value, new
    return step, [normal(2, (8, 16)), ints(4, (8,), 0, 4), w1, b1, w2, b2]


def conv(x, w, stride=1, dilation=1, groups=1, padding="SAME"):
    return lax.conv_general_dilated(
        x, w, (stride, stride), padding, rhs_dilation=(dilation, dilation),
        feature_group_count=groups, dimension_numbers=("NHWC", "HWIO", "NHWC"))


@program("CNN forward: strided, dilated and grouped convolutions, max and "
         "average pooling (reduce-window), batch norm, global pooling")
def cnn_forward():
    def f(x, w1, w2, w3, gamma, beta):
        h = jax.nn.relu(conv(x, w1, stride=2))
        h = conv(h, w2, dilation=2)
        mean = jnp.mean(h, axis=(0, 1, 2))
        var = jnp.var(h, axis=(0, 1, 2))
        h = (h - mean) * lax.rsqrt(var + 1e-5) * gamma + beta
        h = lax.reduce_window(h, -jnp.inf, lax.max, (1, 2, 2, 1),
                              (1, 2, 2, 1), "VALID")
        h = conv(h, w3, groups=2, padding="VALID")
        h = lax.reduce_window(h, 0.0, lax.add, (1, 2, 2, 1), (1, 1, 1, 1),
                              "SAME") / 4.0
        return jnp.mean(h, axis=(1, 2))
    return f, [normal(5, (2, 16, 16, 3)), normal(6, (3, 3, 3, 8), scale=0.3),
               normal(7, (3, 3, 8, 8), scale=0.2),
               normal(8, (2, 2, 4, 6), scale=0.3), normal(9, (8,)),
               normal(10, (8,))]


@program("CNN training step: convolution gradients (transposed, batch-group "
         "convolutions), select-and-scatter from the max-pool gradient")
def cnn_train_step():
    def step(x, y, w1, w2):
        def loss(w1, w2):
            h = jax.nn.relu(conv(x, w1, stride=2))
            h = lax.reduce_window(h, -jnp.inf, lax.max, (1, 2, 2, 1),
                                  (1, 2, 2, 1), "VALID")
            h = conv(h, w2, groups=2)
            return jnp.mean((jnp.mean(h, axis=(1, 2)) - y) ** 2)
        l, (g1, g2) = jax.value_and_grad(loss, argnums=(0, 1))(w1, w2)
        return l, w1 - 0.05 * g1, w2 - 0.05 * g2
    return step, [normal(11, (2, 12, 12, 4)), normal(12, (2, 6)),
                  normal(13, (3, 3, 4, 6), scale=0.3),
                  normal(14, (3, 3, 3, 6), scale=0.3)]


@program("1-D and 3-D convolutions, transposed convolution, explicit padding")
def conv_variants():
    def f(x1, w1, x3, w3, xt, wt):
        a = lax.conv_general_dilated(x1, w1, (2,), [(1, 2)],
                                     dimension_numbers=("NCH", "OIH", "NCH"))
        b = lax.conv_general_dilated(x3, w3, (1, 1, 1), "SAME",
                                     dimension_numbers=("NDHWC", "DHWIO",
                                                        "NDHWC"))
        c = lax.conv_transpose(xt, wt, (2, 2), "SAME",
                               dimension_numbers=("NHWC", "HWIO", "NHWC"))
        return a, b, c
    return f, [normal(15, (2, 3, 20)), normal(16, (5, 3, 4)),
               normal(17, (1, 5, 5, 5, 2)), normal(18, (2, 2, 2, 2, 3)),
               normal(19, (1, 6, 6, 3)), normal(20, (3, 3, 3, 2))]


def layer_norm(x, g, b):
    mean = jnp.mean(x, -1, keepdims=True)
    var = jnp.mean((x - mean) ** 2, -1, keepdims=True)
    return (x - mean) * lax.rsqrt(var + 1e-6) * g + b


def attention_block(x, wq, wk, wv, wo, w1, w2, g1, b1, g2, b2, mask):
    h = layer_norm(x, g1, b1)
    q, k, v = h @ wq, h @ wk, h @ wv
    B, T, D = q.shape
    heads = 2
    q = q.reshape(B, T, heads, D // heads)
    k = k.reshape(B, T, heads, D // heads)
    v = v.reshape(B, T, heads, D // heads)
    s = jnp.einsum("bthd,bshd->bhts", q, k) / float(np.sqrt(D // heads))
    s = jnp.where(mask, s, -1e9)
    p = jax.nn.softmax(s, axis=-1)
    o = jnp.einsum("bhts,bshd->bthd", p, v).reshape(B, T, D)
    x = x + o @ wo
    h = layer_norm(x, g2, b2)
    return x + jax.nn.gelu(h @ w1, approximate=False) @ w2


def transformer_args(seed):
    D, F = 16, 32
    return [normal(seed, (2, 8, D)), normal(seed + 1, (D, D), scale=0.25),
            normal(seed + 2, (D, D), scale=0.25),
            normal(seed + 3, (D, D), scale=0.25),
            normal(seed + 4, (D, D), scale=0.25),
            normal(seed + 5, (D, F), scale=0.25),
            normal(seed + 6, (F, D), scale=0.2), np.ones(D, np.float32),
            np.zeros(D, np.float32), np.ones(D, np.float32),
            np.zeros(D, np.float32), np.tril(np.ones((8, 8), np.bool_))]


@program("Transformer block forward: causal attention with softmax and "
         "masking, layer norm, exact GELU (erf)")
def transformer_forward():
    return attention_block, transformer_args(21)


@program("Transformer block backward: gradients of all weights, tanh GELU")
def transformer_backward():
    def f(*args):
        def loss(*weights):
            return jnp.sum(attention_block(args[0], *weights, args[-1]) ** 2)
        return jax.grad(loss, argnums=tuple(range(10)))(*args[1:-1])
    return f, transformer_args(31)


# ------------------------------------------------------------ control flow

@program("lax.scan: a recurrent cell over 6 steps (while with a tuple state, "
         "dynamic-slice / dynamic-update-slice of the sequence)")
def scan_rnn():
    def f(xs, h0, w, u):
        def cell(h, x):
            h = jnp.tanh(h @ w + x @ u)
            return h, h * 2.0
        return lax.scan(cell, h0, xs)
    return f, [normal(40, (6, 3, 5)), normal(41, (3, 4)),
               normal(42, (4, 4), scale=0.5), normal(43, (5, 4), scale=0.5)]


@program("lax.fori_loop: Newton iterations for sqrt with an integer counter")
def fori_loop_newton():
    def f(a):
        return lax.fori_loop(0, 8, lambda i, x: 0.5 * (x + a / x) + 0 * i,
                             jnp.ones_like(a))
    return f, [np.abs(normal(44, (7,))) + 0.5]


@program("lax.while_loop with a data-dependent trip count (Collatz steps)")
def while_collatz():
    def f(n):
        def cond(s):
            return jnp.any(s[0] != 1)
        def body(s):
            x, steps = s
            nxt = jnp.where(x % 2 == 0, x // 2, 3 * x + 1)
            return jnp.where(x == 1, 1, nxt), steps + (x != 1)
        return lax.while_loop(cond, body, (n, jnp.zeros_like(n)))
    return f, [np.array([1, 6, 7, 27, 97], np.int32)]


@program("lax.cond (conditional on pred) and lax.switch (conditional on an "
         "index, three branches)")
def cond_switch():
    def f(p, i, x):
        a = lax.cond(p, lambda v: jnp.sin(v), lambda v: jnp.cos(v) * 2, x)
        b = lax.switch(i, [lambda v: v + 1, lambda v: v * v,
                           lambda v: -v], x)
        return a, b
    return f, [np.array(True), np.array(2, np.int32), normal(45, (4,))]


@program("Nested control flow: a scan whose body holds a cond and a "
         "fori_loop")
def nested_control_flow():
    def f(xs):
        def body(c, x):
            y = lax.cond(x.sum() > 0, lambda v: v * 2, lambda v: v - 1, x)
            y = lax.fori_loop(0, 3, lambda i, v: v + i, y)
            return c + y.sum(), y
        return lax.scan(body, 0.0, xs)
    return f, [normal(46, (5, 3))]


# ---------------------------------------------------- sort, scans, indexing

@program("sort (stable, multi-operand), argsort, descending sort with NaNs")
def sort_argsort():
    def f(x, keys, vals):
        a = jnp.sort(x)
        b = jnp.argsort(x, stable=True)
        c = lax.sort((keys, vals), num_keys=1)
        d = jnp.sort(x)[::-1]
        return a, b, c, d
    x = normal(47, (9,))
    x[3] = np.nan
    return f, [x, ints(48, (6,), 0, 3), normal(49, (6,))]


@program("lax.top_k and argmax/argmin (variadic reduce)")
def top_k_argmax():
    def f(x):
        v, i = lax.top_k(x, 3)
        return v, i, jnp.argmax(x, axis=-1), jnp.argmin(x, axis=0)
    return f, [normal(50, (4, 10))]


@program("cumsum, cumprod, cummax, logcumsumexp")
def cumulative():
    def f(x, n):
        return (jnp.cumsum(x, axis=1), jnp.cumprod(x, axis=0),
                lax.cummax(x, axis=1), jax.nn.logsumexp(x, axis=1),
                jnp.cumsum(n))
    return f, [normal(51, (3, 8), scale=0.5), ints(52, (10,), -5, 5)]


@program("Embedding lookup (gather) and its gradient (scatter-add)")
def embedding_gather():
    def f(table, ids):
        def loss(t):
            return jnp.sum(jnp.take(t, ids, axis=0) ** 2)
        return jnp.take(table, ids, axis=0), jax.grad(loss)(table)
    return f, [normal(53, (10, 4)), ints(54, (3, 5), 0, 10)]


@program(".at[].add / .max / .min / .set / .mul with repeated indices, "
         "segment_sum")
def scatter_updates():
    def f(x, idx, upd, seg):
        return (x.at[idx].add(upd), x.at[idx].max(upd), x.at[idx].min(upd),
                x.at[idx].set(upd), x.at[idx].mul(upd),
                jax.ops.segment_sum(upd, seg, num_segments=4))
    return f, [normal(55, (6,)), np.array([0, 2, 2, 5, 1], np.int32),
               normal(56, (5,)), np.array([0, 0, 1, 3, 3], np.int32)]


@program("Advanced indexing: 2-D gathers, take_along_axis, boolean where, "
         "out-of-bounds clamping")
def gather_advanced():
    def f(x, i, j):
        return (x[i, j], x[:, i], jnp.take_along_axis(x, jnp.argsort(x, axis=0), 0),
                x[i + 10, 0], jnp.where(x > 0, x, 0))
    return f, [normal(57, (5, 6)), np.array([0, 4, 2], np.int32),
               np.array([1, 5, 3], np.int32)]


@program("dynamic_slice, dynamic_update_slice (clamped starts), slices with "
         "strides, reverse, pad with interior padding, concatenate")
def slicing():
    def f(x, i, u):
        a = lax.dynamic_slice(x, (i, i + 1), (2, 3))
        b = lax.dynamic_update_slice(x, u, (i, i * 0 + 5))
        c = x[::2, 1::3]
        d = jnp.flip(x, axis=(0, 1))
        e = lax.pad(x, np.float32(0.5), [(1, 2, 1), (0, -1, 0)])
        g = jnp.concatenate([x, -x, x * 2], axis=1)
        return a, b, c, d, e, g
    return f, [normal(58, (4, 6)), np.array(1, np.int32), normal(59, (2, 2))]


@program("Reshape, transpose, broadcast_in_dim, iota, select, clamp, "
         "compare with every direction")
def shape_ops():
    def f(x, y):
        t = jnp.transpose(x.reshape(2, 3, 4), (2, 0, 1))
        b = jnp.broadcast_to(y[:, None], (4, 5))
        io = lax.broadcasted_iota(jnp.int32, (3, 4), 1)
        s = lax.select(x[:3] > 0, x[:3], jnp.zeros_like(x[:3]))
        c = jnp.clip(x, -0.5, 0.5)
        cmp = (x == y[0], x != y[0], x < y[1], x <= y[1], x > y[2],
               x >= y[2])
        return (t, b, io, s, c) + cmp
    return f, [normal(60, (6, 4)), normal(61, (4,))]


@program("Reductions: sum/prod/max/min over several axes, all/any, mean "
         "of integers, variadic reduce")
def reductions():
    def f(x, n, p):
        return (jnp.sum(x, axis=(0, 2)), jnp.prod(x, axis=1),
                jnp.max(x), jnp.min(x, axis=0), jnp.all(p), jnp.any(p, 0),
                jnp.sum(n), jnp.max(n, axis=1))
    return f, [normal(62, (2, 3, 4), scale=0.7), ints(63, (3, 5), -9, 9),
               rng(64).rand(3, 4) > 0.3]


@program("dot_general: batched matmul, einsum with several contractions, "
         "matrix-vector, outer product, integer dot, precision HIGHEST")
def dot_general():
    def f(a, b, v, m, n):
        return (jnp.matmul(a, b),
                jnp.einsum("bij,bjk->bik", a, b),
                jnp.einsum("bij,bij->b", a, a),
                a[0] @ v, jnp.outer(v, v),
                jnp.dot(m, n, preferred_element_type=jnp.int32),
                jnp.dot(a[0], b[0], precision=lax.Precision.HIGHEST))
    return f, [normal(65, (3, 4, 5)), normal(66, (3, 5, 2)), normal(67, (5,)),
               ints(68, (3, 4), -4, 4, np.int8), ints(69, (4, 2), -4, 4,
                                                       np.int8)]


# ---------------------------------------------------- elementwise and types

@program("Integer and bitwise ops: and/or/xor/not, shifts (left, right "
         "arithmetic and logical, out of range), population count, count "
         "leading zeros, division and remainder of negatives")
def integer_bitwise():
    def f(a, b, u, s):
        return (a & b, a | b, a ^ b, ~a, a << s, a >> s,
                lax.shift_right_logical(a, s), lax.population_count(a),
                lax.clz(a), a // b, a % b, lax.div(a, b), lax.rem(a, b),
                jnp.abs(a), jnp.sign(a), jnp.maximum(a, b),
                u >> 3, u * u, lax.clz(u), lax.population_count(u))
    a = ints(70, (8,), -100, 100)
    b = ints(71, (8,), 1, 9) * np.array([1, -1] * 4, np.int32)
    s = np.array([0, 1, 5, 31, 32, 33, 2, 40], np.int32)
    return f, [a, b, ints(72, (8,), 0, 60000, np.uint16), s]


@program("Integer types: s8/u8/s16/u16/s64/u64 arithmetic with wrap-around")
def integer_types():
    def f(a8, b8, a16, a64, b64):
        return (a8 + b8, a8 * b8, b8 - a8, a16 * a16, a64 * b64,
                a64 // 7, b64 >> 60)
    return f, [ints(73, (6,), -128, 128, np.int8),
               ints(74, (6,), 0, 256, np.uint8).astype(np.int8),
               ints(75, (6,), -30000, 30000, np.int16),
               ints(76, (6,), -2**40, 2**40, np.int64),
               rng(77).randint(0, 2**62, size=6).astype(np.uint64)]


@program("Float unary and binary math: exp, expm1, log, log1p, sqrt, rsqrt, "
         "cbrt, sin/cos/tan, tanh, atan2, pow, floor/ceil, round half away "
         "and half even, is_finite, logistic, erf, abs, sign, nextafter")
def float_math():
    def f(x, y):
        return (jnp.exp(x), jnp.expm1(x), jnp.log(jnp.abs(x) + 0.1),
                jnp.log1p(jnp.abs(x)), jnp.sqrt(jnp.abs(x)),
                lax.rsqrt(jnp.abs(x) + 1), jnp.cbrt(x), jnp.sin(x),
                jnp.cos(x), jnp.tan(x), jnp.tanh(x), jnp.arctan2(x, y),
                jnp.power(jnp.abs(x), y), jnp.floor(x * 3), jnp.ceil(x * 3),
                lax.round(x * 4, lax.RoundingMethod.AWAY_FROM_ZERO),
                lax.round(x * 4, lax.RoundingMethod.TO_NEAREST_EVEN),
                jnp.isfinite(x / (x - x[0])), jax.nn.sigmoid(x),
                lax.erf(x), jnp.abs(x), jnp.sign(x), jnp.nextafter(x, y),
                jnp.maximum(x, jnp.nan), jnp.minimum(x, y), x % y,
                jnp.arcsin(jnp.tanh(x)), jnp.arccosh(jnp.abs(x) + 1),
                jnp.sinh(x), lax.erf_inv(jnp.tanh(x) * 0.9),
                lax.lgamma(jnp.abs(x) + 0.5), lax.digamma(jnp.abs(x) + 0.5))
    x = normal(78, (10,))
    x[4] = 0.0
    return f, [x, normal(79, (10,))]


@program("f64 math and f16 arithmetic with their rounding")
def float_widths():
    def f(d, h):
        return (jnp.exp(d) * d, jnp.sqrt(jnp.abs(d)), h * h + h,
                (h / 3).astype(jnp.float32), jnp.sum(h))
    return f, [normal(80, (5,), np.float64), normal(81, (6,), np.float16)]


@program("Conversions to and from every narrow float (bf16, f16, f8e4m3fn, "
         "f8e5m2, f8e4m3, f8e3m4, f4e2m1fn, f8e8m0fnu) and integers, with "
         "saturation, NaN and rounding cases")
def narrow_float_casts():
    types = [jnp.bfloat16, jnp.float16, ml_dtypes.float8_e4m3fn,
             ml_dtypes.float8_e5m2, ml_dtypes.float8_e4m3,
             ml_dtypes.float8_e3m4, ml_dtypes.float4_e2m1fn,
             ml_dtypes.float8_e8m0fnu]

    def f(x):
        outs = []
        for t in types:
            narrow = x.astype(t)
            outs.append(narrow)
            outs.append(narrow.astype(jnp.float32))
        outs.append(x.astype(jnp.int32))
        outs.append(x.astype(jnp.uint8))
        outs.append(x.astype(jnp.bfloat16).astype(ml_dtypes.float8_e4m3fn))
        return tuple(outs)
    x = np.array([0, 1, -1.5, 0.1, 3.14159, 1000, -1e6, 1e-5, 2.5, 448,
                  0.0078125, np.inf, -np.inf, np.nan, 65504, 7.9375],
                 np.float32)
    return f, [x]


@program("Arithmetic in narrow floats: bf16 and f16 matmuls accumulating in "
         "f32, f8e4m3fn x f8e5m2 dot, int4 / uint8 widening")
def narrow_float_arithmetic():
    def f(a, b, c, d, i4):
        return (jnp.dot(a, b, preferred_element_type=jnp.float32),
                (a * b.T).sum(),
                jnp.dot(c, d, preferred_element_type=jnp.float32),
                (i4.astype(jnp.int32) * 3), i4 + i4)
    return f, [normal(82, (4, 6)).astype(ml_dtypes.bfloat16),
               normal(83, (6, 4)).astype(ml_dtypes.bfloat16),
               normal(84, (3, 4)).astype(ml_dtypes.float8_e4m3fn),
               normal(85, (4, 2)).astype(ml_dtypes.float8_e5m2),
               np.array([-8, -1, 0, 3, 7], ml_dtypes.int4)]


@program("bitcast_convert between f32/s32/u16x2, reduce_precision "
         "(bf16-like and f8-like exponent/mantissa widths)")
def bitcast_reduce_precision():
    def f(x):
        return (lax.bitcast_convert_type(x, jnp.int32),
                lax.bitcast_convert_type(x, jnp.uint16),
                lax.reduce_precision(x, exponent_bits=8, mantissa_bits=7),
                lax.reduce_precision(x, exponent_bits=4, mantissa_bits=3),
                lax.reduce_precision(x, exponent_bits=5, mantissa_bits=10))
    x = normal(86, (8,)) * 100
    x[0] = np.nan
    x[1] = 1e-40
    return f, [x]


@program("Complex numbers: construction, real/imag, conj, abs, exp, log, "
         "complex matmul, c128")
def complex_math():
    def f(re, im, z):
        c = lax.complex(re, im)
        return (c * c, jnp.conj(c), jnp.abs(c), jnp.exp(c), jnp.log(c),
                jnp.real(c @ c.T), jnp.imag(c), z * z, jnp.sqrt(z))
    return f, [normal(87, (3, 3)), normal(88, (3, 3)),
               (normal(89, (4,), np.float64) +
                1j * normal(90, (4,), np.float64)).astype(np.complex128)]


@program("FFT: fft, ifft, rfft, irfft, 2-D fft")
def fft_ops():
    def f(x, z):
        return (jnp.fft.fft(z), jnp.fft.ifft(z), jnp.fft.rfft(x),
                jnp.fft.irfft(jnp.fft.rfft(x), n=8), jnp.fft.fft2(z[None]))
    return f, [normal(91, (8,)),
               (normal(92, (8,)) + 1j * normal(93, (8,))).astype(np.complex64)]


@program("rng_bit_generator with Threefry and Philox, and jax.random "
         "(threefry in HLO ops) uniform/normal/bits")
def random_bits():
    def f(key, seed):
        k1, a = lax.rng_bit_generator(key, (4, 3), dtype=jnp.uint32,
                                      algorithm=lax.RandomAlgorithm.RNG_THREE_FRY)
        k2, b = lax.rng_bit_generator(key, (5,), dtype=jnp.uint64,
                                      algorithm=lax.RandomAlgorithm.RNG_PHILOX)
        r = jax.random.key(seed, impl="threefry2x32")
        return (k1, a, k2, b, jax.random.uniform(r, (4,)),
                jax.random.normal(r, (3,)), jax.random.bits(r, (2,)))
    return f, [np.array([1, 2], np.uint64), np.array(42, np.uint32)]


@program("Numerics at the edges: NaN propagation in max/min/sort/compare, "
         "signed zeros, infinities, subnormals, integer overflow")
def edge_numerics():
    def f(x, i):
        return (jnp.max(x), jnp.min(x), jnp.sort(x), x == x, x < 0,
                1.0 / x, x * 0, jnp.nanmax(x), i + jnp.int32(2**31 - 1),
                -i, jnp.abs(jnp.int32(-2**31) + i * 0))
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -3.0],
                 np.float32)
    return f, [x, np.array([0, 1, -1, 5, 7, 9, 11], np.int32)]


@program("Softmax, log-softmax, logsumexp, one-hot and a small loss with "
         "stop_gradient and optimization_barrier")
def softmax_family():
    def f(x, labels):
        y = lax.optimization_barrier(x)
        oh = jax.nn.one_hot(labels, 5)
        return (jax.nn.softmax(y), jax.nn.log_softmax(y),
                jax.nn.logsumexp(y, axis=0),
                jnp.sum(oh * lax.stop_gradient(y)))
    return f, [normal(94, (3, 5)), np.array([0, 4, 2], np.int32)]


@program("Remat (checkpoint) of an MLP: the gradient recomputes the forward")
def remat_mlp():
    (w1, b1), (w2, b2) = mlp_params(95)

    def f(x, w1, b1, w2, b2):
        g = jax.checkpoint(lambda p: jnp.sum(mlp(p, x) ** 2))
        return jax.grad(g)(((w1, b1), (w2, b2)))
    return f, [normal(99, (4, 16)), w1, b1, w2, b2]


@program("Linear algebra built from HLO ops: triangular solve and Cholesky "
         "(lowered with lax.linalg on CPU), QR via Householder in a loop")
def linalg_small():
    def f(a, b):
        spd = a @ a.T + 4 * jnp.eye(4, dtype=a.dtype)
        l = lax.linalg.cholesky(spd, symmetrize_input=False)
        x = lax.linalg.triangular_solve(l, b, left_side=True, lower=True)
        return l, x
    return f, [normal(100, (4, 4)), normal(101, (4, 2))]


@program("A while loop that writes rows into a buffer with "
         "dynamic-update-slice (the in-place DUS pattern)")
def while_dus_buffer():
    def f(x):
        buf = jnp.zeros((6, 3), x.dtype)

        def body(i, b):
            return lax.dynamic_update_slice(b, (x * i)[None], (i, 0))
        return lax.fori_loop(0, 6, body, buf)
    return f, [normal(102, (3,))]


@program("vmap of a function with a scan and a gather inside (batched "
         "while, batched gather)")
def vmap_scan_gather():
    def single(x, i):
        s = lax.scan(lambda c, v: (c * 0.5 + v, c), 0.0, x)[1]
        return s[i]
    return jax.vmap(single), [normal(103, (4, 6)),
                              np.array([0, 5, 2, 3], np.int32)]


@program("Map over rows with lax.map and a reduce inside; reduce with a "
         "custom (non-add) combiner via lax.reduce")
def map_and_custom_reduce():
    def f(x):
        m = lax.map(lambda r: jnp.sum(jnp.sin(r)), x)
        r = lax.reduce(x, np.float32(1), lambda a, b: a * b + 0 * a, (1,))
        ninf = np.float32(-np.inf)
        mx = lax.reduce((x, -x), (ninf, ninf),
                        lambda a, b: (jnp.maximum(a[0], b[0]),
                                      jnp.maximum(a[1], b[1])), (0,))
        return m, r, mx
    return f, [normal(104, (5, 4), scale=0.5)]


@program("Boolean logic on pred arrays: and/or/xor/not, select_n, "
         "count_nonzero")
def pred_logic():
    def f(a, b, x):
        return (a & b, a | b, a ^ b, ~a, lax.select_n(a, x, -x),
                jnp.count_nonzero(a), jnp.logical_and(a, x > 0))
    return f, [rng(105).rand(6) > 0.5, rng(106).rand(6) > 0.5,
               normal(107, (6,))]


@program("Batch-norm training step with running statistics (the "
         "mean/variance pattern JAX emits, no batch-norm opcode)")
def batch_norm_train():
    def f(x, gamma, beta, rmean, rvar):
        def loss(gamma, beta):
            mean = jnp.mean(x, axis=0)
            var = jnp.var(x, axis=0)
            y = (x - mean) / jnp.sqrt(var + 1e-5) * gamma + beta
            return jnp.sum(y ** 3), (mean, var)
        (l, (m, v)), g = jax.value_and_grad(loss, argnums=(0, 1),
                                            has_aux=True)(gamma, beta)
        return l, g, 0.9 * rmean + 0.1 * m, 0.9 * rvar + 0.1 * v
    return f, [normal(108, (8, 4)), np.ones(4, np.float32),
               np.zeros(4, np.float32), np.zeros(4, np.float32),
               np.ones(4, np.float32)]


# ------------------------------------------------------------ collectives

def spmd(devices, fn, in_specs, out_specs):
    mesh = jax.make_mesh((devices,), ("x",), devices=jax.devices()[:devices])
    mapped = jax.shard_map(fn, mesh=mesh, in_specs=in_specs,
                           out_specs=out_specs, check_vma=False)
    return mapped, mesh, in_specs


@program("shard_map over 4 devices: psum, pmax, pmin, all_gather, "
         "psum_scatter, axis_index", spmd_devices=4)
def collectives_4():
    def f(x):
        i = lax.axis_index("x")
        return (lax.psum(x, "x"), lax.pmax(x, "x"), lax.pmin(x, "x"),
                lax.all_gather(x, "x", tiled=True),
                lax.psum_scatter(x, "x", tiled=True), (x * 0 + i))
    return spmd(4, f, P("x"), (P(), P(), P(), P(), P("x"), P("x"))), \
        [normal(110, (16, 4))]


@program("shard_map over 8 devices: all_to_all, ppermute (ring shift), "
         "psum inside a matmul (tensor parallel)", spmd_devices=8)
def collectives_8():
    def f(x, w):
        a = lax.all_to_all(x, "x", 1, 0, tiled=True)
        perm = [(i, (i + 1) % 8) for i in range(8)]
        b = lax.ppermute(x, "x", perm)
        c = lax.psum(x @ w, "x")
        return a, b, c
    return spmd(8, f, (P("x"), P()), (P("x"), P("x"), P())), \
        [normal(111, (16, 8)), normal(112, (8, 3))]


@program("Data-parallel SGD step over 4 devices: per-shard gradients "
         "averaged with pmean", spmd_devices=4)
def data_parallel_sgd():
    def f(x, y, w):
        g = jax.grad(lambda w: jnp.mean((x @ w - y) ** 2))(w)
        g = lax.pmean(g, "x")
        return w - 0.1 * g
    return spmd(4, f, (P("x"), P("x"), P()), P()), \
        [normal(113, (8, 5)), normal(114, (8, 2)), normal(115, (5, 2))]


@program("Gradient accumulation over 4 devices: a fori_loop over 4 "
         "microbatches psums each microbatch's gradient into an accumulator "
         "(what while-loop-all-reduce-code-motion turns into one psum)",
         spmd_devices=4)
def grad_accumulation_scan():
    def f(xs, ys, w):
        def step(k, acc):
            x = lax.dynamic_index_in_dim(xs, k, keepdims=False)
            y = lax.dynamic_index_in_dim(ys, k, keepdims=False)
            g = jax.grad(lambda w: jnp.mean((x @ w - y) ** 2))(w)
            return acc + lax.psum(g, "x")
        total = lax.fori_loop(0, 4, step, jnp.zeros_like(w))
        return w - 0.01 * total
    return spmd(4, f, (P(None, "x"), P(None, "x"), P()), P()), \
        [normal(116, (4, 8, 5)), normal(117, (4, 8, 2)), normal(118, (5, 2))]


# ---------------------------------------------------------------- driver

def flatten(tree):
    return jax.tree_util.tree_leaves(tree)


def save_array(path, value):
    np.save(path, np.asarray(value))


def describe(value):
    a = np.asarray(value)
    return {"shape": list(a.shape), "dtype": str(a.dtype)}


def generate(name, description, spmd_devices, builder):
    directory = os.path.join(OUT, name)
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    built = builder()
    meta = {"name": name, "description": description,
            "jax": jax.__version__, "num_partitions": spmd_devices or 1}
    if spmd_devices:
        (fn, mesh, in_specs), args = built
        jitted = jax.jit(fn)
        # Place each argument as its in_spec says.
        if not isinstance(in_specs, tuple):
            in_specs = (in_specs,) * len(args)
        shardings = [NamedSharding(mesh, s) for s in in_specs]
        placed = [jax.device_put(a, s) for a, s in zip(args, shardings)]
        lowered = jitted.lower(*placed)
        results = flatten(jitted(*placed))
    else:
        fn, args = built
        jitted = jax.jit(fn)
        lowered = jitted.lower(*args)
        results = flatten(jitted(*args))
        placed = args
    compiled = lowered.compile()
    # Full constants: the corpus text must hold every value.
    from jax._src.lib import hlo as xla_hlo
    options = xla_hlo.HloPrintOptions()
    options.print_large_constants = True
    before = lowered.compiler_ir("hlo")
    with open(os.path.join(directory, "before.hlo"), "w") as f:
        f.write(before.get_hlo_module().to_string(options))
    with open(os.path.join(directory, "before.pb"), "wb") as f:
        f.write(before.as_serialized_hlo_module_proto())
    after = compiled.runtime_executable().hlo_modules()[0]
    with open(os.path.join(directory, "after.hlo"), "w") as f:
        f.write(after.to_string(options))
    with open(os.path.join(directory, "after.pb"), "wb") as f:
        f.write(after.as_serialized_hlo_module_proto())
    meta["inputs"] = [describe(a) for a in args]
    meta["outputs"] = [describe(r) for r in results]
    for k, a in enumerate(args):
        save_array(os.path.join(directory, f"in_{k}.npy"), a)
    for k, r in enumerate(results):
        save_array(os.path.join(directory, f"out_{k}.npy"), r)
    if spmd_devices:
        # Per-partition arguments and results of the partitioned module.
        for k, a in enumerate(placed):
            for shard in a.addressable_shards:
                save_array(os.path.join(
                    directory, f"in_{k}.p{shard.device.id}.npy"), shard.data)
        for k, r in enumerate(results):
            for shard in r.addressable_shards:
                save_array(os.path.join(
                    directory, f"out_{k}.p{shard.device.id}.npy"), shard.data)
    with open(os.path.join(directory, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
        f.write("\n")


def main(argv):
    if "--list" in argv:
        for name, description, _, _ in PROGRAMS:
            print(f"{name}: {description}")
        return 0
    wanted = [a for a in argv if not a.startswith("-")]
    os.makedirs(OUT, exist_ok=True)
    failed = []
    for name, description, spmd_devices, builder in PROGRAMS:
        if wanted and not any(name.startswith(w) for w in wanted):
            continue
        print(f"generating {name}", flush=True)
        try:
            generate(name, description, spmd_devices, builder)
        except Exception as e:  # report every failing program at the end
            failed.append(name)
            print(f"FAILED {name}: {type(e).__name__}: {e}"[:2000], flush=True)
    if failed:
        print("failed:", " ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
