#!/usr/bin/env python3
"""The CPU speed benchmark set (issue 14), generated the way the corpus is:
JAX programs jitted on XLA:CPU, their HLO before XLA's optimizations, the
arguments and XLA's results. Three groups:

  small      dispatch-bound: a 1000-step scan with a 3x3 carry, an MLP at
             batch 8, a tiny RNN, a gradient through a scan with many scalar
             leaves, a Newton while loop
  medium     a transformer block, a ResNet block, an MLP training step at
             batch 256
  bandwidth  a 6-op elementwise chain over 16M floats, row softmax and
             column sum over 4096x4096, transpose + add over 4096x4096

The inputs of the bandwidth group are hundreds of MB, so nothing here is
committed: programs go to ~/.cache/xlite-bench/programs/NAME/ (before.hlo,
in_K.npy, out_K.npy, meta.json with the group and the bytes a kernel must
move at least), made on first use by tests/benchmarks/cpu_speed.py or
directly:

  ~/.cache/xlite-venv/bin/python tests/benchmarks/bench_programs.py [NAME...]
"""
import json
import os
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")
import numpy as np  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

OUT = os.path.expanduser(os.environ.get("XLITE_BENCH_DIR",
                                        "~/.cache/xlite-bench/programs"))
PROGRAMS = []


def program(group):
    def register(fn):
        PROGRAMS.append((fn.__name__, group, fn))
        return fn
    return register


def normal(seed, shape, scale=1.0, dtype=np.float32):
    return (np.random.RandomState(seed).standard_normal(shape) * scale).astype(dtype)


# ------------------------------------------------------------------ small

@program("small")
def scan_1000_carry3x3():
    def f(w, xs, c0):
        def step(c, x):
            c = jnp.tanh(c @ w + x)
            return c, c[0, 0]
        return lax.scan(step, c0, xs)
    return f, [normal(1, (3, 3), 0.5), normal(2, (1000, 3, 3)), normal(3, (3, 3))]


def mlp(params, x):
    for w, b in params[:-1]:
        x = jax.nn.relu(x @ w + b)
    w, b = params[-1]
    return x @ w + b


def mlp_params(seed, sizes):
    params = []
    for i, (m, n) in enumerate(zip(sizes[:-1], sizes[1:])):
        params.append((normal(seed + 2 * i, (m, n), 1 / np.sqrt(m)),
                       normal(seed + 2 * i + 1, (n,), 0.1)))
    return params


@program("small")
def mlp_batch8():
    sizes = [128, 256, 256, 10]
    params = mlp_params(10, sizes)

    def f(w0, b0, w1, b1, w2, b2, x):
        return jax.nn.softmax(mlp([(w0, b0), (w1, b1), (w2, b2)], x))
    flat = [a for wb in params for a in wb]
    return f, flat + [normal(20, (8, 128))]


@program("small")
def tiny_rnn():
    def f(wx, wh, b, xs, h0):
        def step(h, x):
            h = jnp.tanh(x @ wx + h @ wh + b)
            return h, h
        return lax.scan(step, h0, xs)
    return f, [normal(30, (8, 16), 0.3), normal(31, (16, 16), 0.3),
               normal(32, (16,), 0.1), normal(33, (50, 1, 8)),
               np.zeros((1, 16), np.float32)]


@program("small")
def scan_grad_scalars():
    # A carry of 16 scalars: the gradient's loop state is 16 scalar leaves
    # plus their cotangents.
    def loss(params, xs):
        def step(carry, x):
            new = tuple(jnp.sin(c * p + x) for c, p in zip(carry, params))
            return new, sum(new)
        carry = tuple(jnp.float32(0.1 * i) for i in range(16))
        _, ys = lax.scan(step, carry, xs)
        return jnp.sum(ys ** 2)

    def f(params, xs):
        return jax.grad(loss)(tuple(params), xs)
    # Small weights keep each step a contraction: rounding differences
    # between implementations of sin are not amplified over 200 steps.
    return (lambda p, xs: f(list(p), xs)), [normal(40, (16,), 0.3),
                                            normal(41, (200,))]


@program("small")
def newton_while():
    def f(a):
        def cond(s):
            x, prev, k = s
            return (jnp.max(jnp.abs(x - prev)) > 1e-6) & (k < 100)

        def body(s):
            x, _, k = s
            return 0.5 * (x + a / x), x, k + 1
        x, _, k = lax.while_loop(cond, body, (a, a + 1.0, 0))
        return x, k
    return f, [np.abs(normal(50, (64,))) + 0.5]


# ----------------------------------------------------------------- medium

def layer_norm(x, g, b):
    m = jnp.mean(x, -1, keepdims=True)
    v = jnp.mean((x - m) ** 2, -1, keepdims=True)
    return (x - m) * lax.rsqrt(v + 1e-5) * g + b


@program("medium")
def transformer_block():
    batch, seq, d, heads, ff = 4, 128, 256, 4, 1024

    def f(x, wq, wk, wv, wo, w1, w2, g1, b1, g2, b2):
        h = layer_norm(x, g1, b1)
        q = (h @ wq).reshape(batch, seq, heads, d // heads)
        k = (h @ wk).reshape(batch, seq, heads, d // heads)
        v = (h @ wv).reshape(batch, seq, heads, d // heads)
        s = jnp.einsum("bqhd,bkhd->bhqk", q, k) / np.sqrt(d // heads)
        mask = jnp.tril(jnp.ones((seq, seq), bool))
        s = jnp.where(mask, s, -1e9)
        a = jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(s, -1), v)
        x = x + a.reshape(batch, seq, d) @ wo
        h = layer_norm(x, g2, b2)
        return x + jax.nn.gelu(h @ w1) @ w2
    s = 1 / np.sqrt(d)
    return f, [normal(60, (batch, seq, d)), normal(61, (d, d), s),
               normal(62, (d, d), s), normal(63, (d, d), s),
               normal(64, (d, d), s), normal(65, (d, ff), s),
               normal(66, (ff, d), 1 / np.sqrt(ff)),
               np.ones(d, np.float32), np.zeros(d, np.float32),
               np.ones(d, np.float32), np.zeros(d, np.float32)]


@program("medium")
def resnet_block():
    def conv(x, w):
        return lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                        dimension_numbers=("NHWC", "HWIO", "NHWC"))

    def bn(x, scale, shift):
        m = jnp.mean(x, (0, 1, 2))
        v = jnp.var(x, (0, 1, 2))
        return (x - m) * lax.rsqrt(v + 1e-5) * scale + shift

    def f(x, w1, s1, t1, w2, s2, t2):
        h = jax.nn.relu(bn(conv(x, w1), s1, t1))
        return jax.nn.relu(x + bn(conv(h, w2), s2, t2))
    c = 64
    s = 1 / np.sqrt(9 * c)
    return f, [normal(70, (8, 32, 32, c)), normal(71, (3, 3, c, c), s),
               np.ones(c, np.float32), np.zeros(c, np.float32),
               normal(72, (3, 3, c, c), s), np.ones(c, np.float32),
               np.zeros(c, np.float32)]


@program("medium")
def mlp_train_step_256():
    sizes = [784, 512, 512, 10]
    params = mlp_params(80, sizes)

    def loss(p, x, y):
        logits = mlp(p, x)
        return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * y, -1))

    def f(w0, b0, w1, b1, w2, b2, x, y):
        p = [(w0, b0), (w1, b1), (w2, b2)]
        g = jax.grad(loss)(p, x, y)
        return [(w - 0.01 * gw, b - 0.01 * gb) for (w, b), (gw, gb) in zip(p, g)]
    labels = np.eye(10, dtype=np.float32)[np.random.RandomState(90).randint(0, 10, 256)]
    flat = [a for wb in params for a in wb]
    return f, flat + [normal(91, (256, 784)), labels]


# -------------------------------------------------------------- bandwidth

@program("bandwidth")
def elementwise_chain_16m():
    def f(x, y):
        z = x * 1.5 + y
        z = jnp.maximum(z, 0.0)
        z = z * y - x
        return jnp.abs(z) + 1.0
    n = 16 * 1024 * 1024
    return f, [normal(100, (n,)), normal(101, (n,))]


@program("bandwidth")
def row_softmax_4096():
    return (lambda x: jax.nn.softmax(x, axis=-1)), [normal(110, (4096, 4096))]


@program("bandwidth")
def column_sum_4096():
    return (lambda x: jnp.sum(x, axis=0)), [normal(120, (4096, 4096))]


@program("bandwidth")
def transpose_add_4096():
    return (lambda x, y: x.T + y), [normal(130, (4096, 4096)),
                                    normal(131, (4096, 4096))]


# ----------------------------------------------------------------- driver

def nbytes(values):
    return int(sum(np.asarray(v).nbytes for v in values))


def generate(name, group, builder, out=OUT):
    directory = os.path.join(out, name)
    os.makedirs(directory, exist_ok=True)
    fn, args = builder()
    jitted = jax.jit(fn)
    lowered = jitted.lower(*args)
    results = jax.tree_util.tree_leaves(jitted(*args))
    from jax._src.lib import hlo as xla_hlo
    options = xla_hlo.HloPrintOptions()
    options.print_large_constants = True
    with open(os.path.join(directory, "before.hlo"), "w") as f:
        f.write(lowered.compiler_ir("hlo").get_hlo_module().to_string(options))
    for k, a in enumerate(args):
        np.save(os.path.join(directory, f"in_{k}.npy"), np.asarray(a))
    for k, r in enumerate(results):
        np.save(os.path.join(directory, f"out_{k}.npy"), np.asarray(r))
    meta = {"name": name, "group": group, "jax": jax.__version__,
            "num_partitions": 1,
            "min_bytes_moved": nbytes(args) + nbytes(results)}
    with open(os.path.join(directory, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
        f.write("\n")
    return directory


def ensure(names=None, out=OUT):
    """Generates the programs (all, or those named) that are missing."""
    made = []
    for name, group, builder in PROGRAMS:
        if names and name not in names:
            continue
        directory = os.path.join(out, name)
        if not os.path.exists(os.path.join(directory, "meta.json")):
            print(f"generating {name}", file=sys.stderr, flush=True)
            generate(name, group, builder, out)
        made.append(directory)
    return made


if __name__ == "__main__":
    for d in ensure(sys.argv[1:] or None):
        print(d)
