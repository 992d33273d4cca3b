"""Whole JAX programs for program_coverage.py: (name, function, arguments,
tolerance factor). Where lax_cases.py sweeps one operation at a time, these
are the shapes real models take (training steps with grads and Adam,
attention, norms in bf16, conv nets, scans, while loops over dynamic slices,
gathers and scatters with modes, vmapped programs, RNG, linear algebra), so
the CPU backend's fusions, kernel chains, in-place buffers and layouts meet
one another."""

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
from jax import lax

BF16 = ml_dtypes.bfloat16
_rng = np.random.default_rng(7)


def normal(*shape, dtype=np.float32, scale=1.0):
    return (_rng.standard_normal(shape) * scale).astype(dtype)


def ints(lo, hi, *shape, dtype=np.int32):
    return _rng.integers(lo, hi, shape).astype(dtype)


# --- Models -----------------------------------------------------------------


def _mlp_params(sizes):
    return [(normal(a, b, scale=a ** -0.5), normal(b, scale=0.1))
            for a, b in zip(sizes[:-1], sizes[1:])]


def _mlp(params, x):
    for w, b in params[:-1]:
        x = jax.nn.gelu(x @ w + b)
    w, b = params[-1]
    return x @ w + b


def _adam(params, grads, m, v, step, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8):
    m = jax.tree_util.tree_map(lambda m, g: b1 * m + (1 - b1) * g, m, grads)
    v = jax.tree_util.tree_map(lambda v, g: b2 * v + (1 - b2) * g * g, v,
                               grads)
    mh = jax.tree_util.tree_map(lambda m: m / (1 - b1 ** step), m)
    vh = jax.tree_util.tree_map(lambda v: v / (1 - b2 ** step), v)
    params = jax.tree_util.tree_map(
        lambda p, m, v: p - lr * m / (jnp.sqrt(v) + eps), params, mh, vh)
    return params, m, v


def mlp_adam_step(params, x, labels):
    def loss(p):
        logits = _mlp(p, x)
        logp = jax.nn.log_softmax(logits)
        return -jnp.mean(jnp.take_along_axis(logp, labels[:, None], 1))
    l, g = jax.value_and_grad(loss)(params)
    zeros = jax.tree_util.tree_map(jnp.zeros_like, params)
    p, m, v = _adam(params, g, zeros, zeros, 1.0)
    return l, p, m, v


def _layer_norm(x, g, b, eps=1e-5):
    xf = x.astype(jnp.float32)
    mu = xf.mean(-1, keepdims=True)
    var = ((xf - mu) ** 2).mean(-1, keepdims=True)
    return ((xf - mu) * lax.rsqrt(var + eps) * g + b).astype(x.dtype)


def _rms_norm(x, g, eps=1e-6):
    xf = x.astype(jnp.float32)
    r = lax.rsqrt(jnp.mean(xf * xf, -1, keepdims=True) + eps)
    return (xf * r).astype(x.dtype) * g


def _attention(q, k, v, mask):
    s = jnp.einsum("bhqd,bhkd->bhqk", q, k) / np.sqrt(q.shape[-1]).astype(
        q.dtype)
    s = jnp.where(mask, s, jnp.finfo(s.dtype).min)
    p = jax.nn.softmax(s.astype(jnp.float32), -1).astype(q.dtype)
    return jnp.einsum("bhqk,bhkd->bhqd", p, v)


def transformer_block(x, wqkv, wo, w1, w2, g1, g2):
    b, t, d = x.shape
    h = 4
    y = _layer_norm(x, g1, 0.0)
    qkv = (y @ wqkv).reshape(b, t, 3, h, d // h).transpose(2, 0, 3, 1, 4)
    mask = jnp.tril(jnp.ones((t, t), bool))[None, None]
    a = _attention(qkv[0], qkv[1], qkv[2], mask)
    x = x + a.transpose(0, 2, 1, 3).reshape(b, t, d) @ wo
    y = _rms_norm(x, g2)
    return x + jax.nn.silu(y @ w1) @ w2


def _transformer_args(dtype):
    d = 32
    return [normal(2, 8, d, dtype=dtype), normal(d, 3 * d, dtype=dtype,
                                                 scale=0.2),
            normal(d, d, dtype=dtype, scale=0.2),
            normal(d, 4 * d, dtype=dtype, scale=0.2),
            normal(4 * d, d, dtype=dtype, scale=0.1),
            normal(d, scale=0.1) + 1, normal(d, dtype=dtype, scale=0.1) + 1]


def transformer_grad(*args):
    f = lambda *a: jnp.sum(transformer_block(*a) ** 2)
    return jax.grad(f, argnums=(0, 1, 2, 3, 4))(*args)


def padded_attention(q, k, v, lengths):
    kpos = jnp.arange(k.shape[2])
    mask = kpos[None, None, None, :] < lengths[:, None, None, None]
    return _attention(q, k, v, mask)


def _conv(x, w, stride=1, dilation=1, groups=1, padding="SAME",
          dn=("NHWC", "HWIO", "NHWC")):
    return lax.conv_general_dilated(
        x, w, (stride, stride), padding, rhs_dilation=(dilation, dilation),
        dimension_numbers=dn, feature_group_count=groups)


def cnn_step(x, w1, w2, w3, labels):
    def loss(ws):
        a, b, c = ws
        h = jax.nn.relu(_conv(x, a, stride=2))
        h = lax.reduce_window(h, -jnp.inf, lax.max, (1, 3, 3, 1),
                              (1, 2, 2, 1), "SAME")
        h = jax.nn.relu(_conv(h, b, groups=4, dilation=2))
        h = h.mean((1, 2))
        logits = h @ c
        return -jnp.mean(jax.nn.log_softmax(logits)[jnp.arange(4), labels])
    return jax.value_and_grad(loss)((w1, w2, w3))


def conv_nchw_grad(x, w):
    f = lambda x, w: jnp.sum(jnp.tanh(_conv(
        x, w, stride=2, padding=((1, 2), (0, 1)),
        dn=("NCHW", "OIHW", "NCHW"))))
    return jax.grad(f, argnums=(0, 1))(x, w)


def conv_transpose(x, w):
    return lax.conv_transpose(x, w, (2, 2), "SAME",
                              dimension_numbers=("NHWC", "HWIO", "NHWC"))


def depthwise_conv_1d(x, w):
    return lax.conv_general_dilated(
        x, w, (1,), ((2, 0),), dimension_numbers=("NWC", "WIO", "NWC"),
        feature_group_count=x.shape[-1])


def lstm_scan(params, xs):
    wx, wh, b = params

    def cell(carry, x):
        h, c = carry
        z = x @ wx + h @ wh + b
        i, f, g, o = jnp.split(z, 4, -1)
        c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
        h = jax.nn.sigmoid(o) * jnp.tanh(c)
        return (h, c), h
    n = wh.shape[0]
    init = (jnp.zeros((xs.shape[1], n), xs.dtype),) * 2
    (h, c), hs = lax.scan(cell, init, xs)
    return h, c, hs


def lstm_grad(params, xs):
    return jax.grad(lambda p: jnp.sum(lstm_scan(p, xs)[2] ** 2))(params)


def rnn_reverse_scan(w, xs):
    def cell(h, x):
        h = jnp.tanh(h @ w + x)
        return h, h.sum()
    return lax.scan(cell, jnp.zeros(w.shape[0], w.dtype), xs, reverse=True)


def while_dynamic_slices(x, k):
    def body(state):
        i, acc, buf = state
        row = lax.dynamic_slice(x, (i, 0), (2, x.shape[1]))
        buf = lax.dynamic_update_slice(buf, row * k, (i * 2 % 7, 1))
        return i + 1, acc + row.sum(0), buf
    return lax.while_loop(lambda s: s[0] < x.shape[0] - 1, body,
                          (0, jnp.zeros(x.shape[1], x.dtype),
                           jnp.zeros((8, x.shape[1] + 2), x.dtype)))


def fori_cumulative(x):
    def body(i, c):
        return c.at[i].set(c[i - 1] * 0.5 + c[i])
    return lax.fori_loop(1, x.shape[0], body, x)


# --- Indexing ---------------------------------------------------------------


def take_modes(x, idx):
    return (jnp.take(x, idx, axis=0, mode="clip"),
            jnp.take(x, idx, axis=1, mode="fill", fill_value=-7.0),
            x.at[idx[:3]].get(mode="fill", fill_value=jnp.nan),
            jnp.take_along_axis(x, jnp.abs(idx[:, None]) % x.shape[1], 1))


def scatter_duplicates(x, idx, upd):
    return (x.at[idx].add(upd), x.at[idx].max(upd), x.at[idx].min(upd),
            x.at[idx].mul(upd), x.at[idx].set(upd, mode="drop"))


def segment_ops(data, seg):
    return (jax.ops.segment_sum(data, seg, 5),
            jax.ops.segment_max(data, seg, 5),
            jax.ops.segment_min(data, seg, 5),
            jax.ops.segment_prod(data, seg, 5))


def embedding_grad(table, ids):
    return jax.grad(lambda t: jnp.sum(jnp.sin(t[ids]) * 2.0))(table)


def one_hot_where(labels, x):
    oh = jax.nn.one_hot(labels, 6, dtype=x.dtype)
    y = jnp.where(oh > 0, x, jnp.where(x > 0, x * 2, -x))
    return oh, y, jnp.where(labels[:, None] == 3, y, 0).sum(0)


def vmapped_gather_dot(x, w, idx):
    def one(x, w, i):
        return jnp.dot(x[i], w), x[i, ::-1] @ w
    return jax.vmap(one)(x, w, idx)


def vmapped_dynamic_slice(x, starts):
    return jax.vmap(lambda r, s: lax.dynamic_slice(r, (s,), (4,)))(x, starts)


def vmapped_dus(x, upd, starts):
    return jax.vmap(lambda r, u, s: lax.dynamic_update_slice(r, u, (s,)))(
        x, upd, starts)


# --- Sorting and scans -------------------------------------------------------


def sort_multi(keys, vals, idx):
    a = lax.sort((keys, vals, idx), dimension=1, num_keys=2)
    b = jnp.argsort(keys, axis=0, stable=True)
    c = jnp.argsort(-keys, axis=1, descending=True)
    return a, b, c


def topk_program(x):
    v, i = lax.top_k(x, 5)
    return v, i, jnp.take_along_axis(x, i, -1).sum(-1)


def argmax_axes(x):
    return (jnp.argmax(x, 0), jnp.argmin(x, 1), jnp.argmax(x, 2),
            jnp.argmax(x.reshape(-1)), jnp.nanargmax(x, 1))


def cumulative_ops(x, xi):
    return (jnp.cumsum(x, 0), jnp.cumprod(x[:, :6], 1), lax.cummax(x, 1),
            lax.cummin(x, 0, reverse=True), jnp.cumsum(xi, 1),
            lax.cumlogsumexp(x, 1))


def variadic_reduce(x, y):
    def r(a, b):
        (av, ai), (bv, bi) = a, b
        pick = (av > bv) | ((av == bv) & (ai < bi))
        return lax.select(pick, av, bv), lax.select(pick, ai, bi)
    return lax.reduce((x, y), (np.float32(-np.inf), np.int32(0)), r, (1,))


# --- Integers and conversions ----------------------------------------------


def int_semantics(a, b):
    bs = jnp.where(b == 0, 1, b)
    sh = (b.astype(jnp.uint32) % 40).astype(a.dtype)
    return (a + b, a * b, a - b, a // bs, a % bs, lax.div(a, bs),
            lax.rem(a, bs), a << sh, a >> sh, lax.shift_right_logical(a, sh),
            lax.population_count(a), lax.clz(a), -a, jnp.abs(a))


def convert_extremes(x):
    out = []
    for t in (jnp.int8, jnp.int32, jnp.int64, jnp.uint8, jnp.uint32,
              jnp.uint64, jnp.float16, BF16, jnp.float8_e4m3fn,
              jnp.float8_e5m2):
        out.append(x.astype(t))
    return out


def int_to_float_extremes(a, b):
    return (a.astype(jnp.float32), a.astype(jnp.float16), a.astype(BF16),
            b.astype(jnp.float32), b.astype(jnp.float64),
            b.astype(jnp.int8), a.astype(jnp.uint16))


def narrow_float_chain(x, y):
    out = []
    for t in (jnp.float16, BF16, jnp.float8_e4m3fn, jnp.float8_e5m2):
        a, b = x.astype(t), y.astype(t)
        out.append((a * b + a - b / (jnp.abs(b) + 1).astype(t)).astype(t))
        out.append(jnp.sum(a * b, -1))
    return out


def bf16_layer_norm_grad(x, g, b):
    f = lambda x, g, b: jnp.sum(_layer_norm(x, g, b).astype(jnp.float32) ** 2)
    return jax.grad(f, argnums=(0, 1, 2))(x, g, b)


def complex_math(z, w):
    return (z * w, z / w, jnp.exp(z), jnp.log(z), jnp.sqrt(z), jnp.abs(z),
            jnp.angle(z), z @ w.T, jnp.sum(z * jnp.conj(w), 0),
            jnp.tanh(z), jnp.sin(z), z ** 3, jnp.expm1(z), jnp.log1p(z))


def fft_program(x):
    y = jnp.fft.rfft(x, axis=-1)
    return jnp.fft.irfft(y * 2, n=x.shape[-1]), jnp.fft.fft2(x.astype(
        jnp.complex64))


# --- Special functions ------------------------------------------------------


def special_functions(x, y):
    from jax.scipy import special as sp
    p = jnp.abs(x) + 0.1
    return (lax.erf_inv(jnp.tanh(x)), lax.lgamma(p), lax.digamma(p),
            lax.igamma(p, jnp.abs(y)), lax.igammac(p, jnp.abs(y)),
            jnp.nextafter(x, y), lax.reduce_precision(x, 5, 10),
            lax.reduce_precision(x, 8, 7), jnp.isfinite(x / y),
            lax.clamp(np.float32(-0.5), x, np.float32(0.5)),
            jnp.round(x * 3), jnp.rint(x * 3),
            sp.erfc(x), sp.log_ndtr(x), sp.ndtri(jax.nn.sigmoid(x)),
            lax.bessel_i0e(x), lax.bessel_i1e(x), sp.xlogy(p, p),
            lax.random_gamma_grad(p, jnp.abs(y) + 0.1))


# --- RNG ---------------------------------------------------------------------


def random_threefry(seed):
    k = jax.random.key(seed, impl="threefry2x32")
    k1, k2, k3 = jax.random.split(k, 3)
    return (jax.random.normal(k1, (5, 7)), jax.random.uniform(k2, (11,)),
            jax.random.randint(k3, (9,), -5, 100),
            jax.random.bernoulli(k1, 0.3, (13,)),
            jax.random.permutation(k2, 10),
            jax.random.categorical(k3, jnp.log(jnp.arange(1.0, 6.0)),
                                   shape=(8,)),
            jax.random.truncated_normal(k1, -1.0, 2.0, (6,)),
            jax.random.gamma(k2, 2.5, (4,)), jax.random.bits(k3, (4,),
                                                              jnp.uint64))


def random_rbg(seed):
    k = jax.random.key(seed, impl="rbg")
    k1, k2 = jax.random.split(k)
    return (jax.random.uniform(k1, (6, 3)), jax.random.normal(k2, (10,)),
            jax.random.bits(k1, (3,), jnp.uint8))


def dropout_train(x, seed):
    k = jax.random.key(seed)
    keep = jax.random.bernoulli(k, 0.9, x.shape)
    return jnp.where(keep, x / 0.9, 0)


# --- Linear algebra --------------------------------------------------------


def linalg_program(a, b):
    spd = a @ a.T + 4 * jnp.eye(a.shape[0], dtype=a.dtype)
    l = jnp.linalg.cholesky(spd)
    x = jax.scipy.linalg.solve_triangular(l, b, lower=True)
    y = jax.scipy.linalg.solve_triangular(l, b, lower=True, trans=1)
    q, r = jnp.linalg.qr(a)
    return (l, x, y, jnp.abs(q), jnp.abs(r), jnp.linalg.inv(spd),
            jnp.linalg.solve(spd, b), jnp.linalg.slogdet(spd)[1],
            jnp.linalg.det(a))


def batched_cholesky_solve(a, b):
    spd = a @ jnp.swapaxes(a, -1, -2) + 3 * jnp.eye(a.shape[-1], dtype=a.dtype)
    c = jax.scipy.linalg.cho_factor(spd, lower=True)
    return jax.vmap(jax.scipy.linalg.cho_solve, in_axes=((0, None), 0))(
        (c[0], True), b)


# --- Shapes -----------------------------------------------------------------


def pad_reverse_concat(x):
    a = lax.pad(x, np.float32(0.5), ((1, -2, 1), (-1, 2, 2)))
    b = jnp.concatenate([x[::-1], x[:, ::-1], lax.rev(x, (0, 1))], 0)
    c = lax.pad(x, np.float32(-1.0), ((-1, -1, 0), (0, 0, 3)))
    return a, b, c, jnp.pad(x, ((2, 3), (1, 1)), mode="reflect"), jnp.pad(
        x, ((1, 1), (2, 0)), mode="edge")


def broadcast_degenerate(x, y):
    a = lax.broadcast_in_dim(x, (3, 1, 5, 4), (1, 2, 3))
    b = lax.broadcast_in_dim(y, (2, 1, 5, 4), (2, 3))
    return a * 2 + b[:1].transpose(1, 0, 2, 3), jnp.squeeze(a, 1)


def pooling(x):
    mx = lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1),
                           ((0, 0), (1, 1), (1, 1), (0, 0)))
    sm = lax.reduce_window(x, 0.0, lax.add, (1, 2, 3, 1), (1, 1, 2, 1),
                           "SAME")
    cnt = lax.reduce_window(jnp.ones_like(x), 0.0, lax.add, (1, 2, 3, 1),
                            (1, 1, 2, 1), "SAME")
    dil = lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 1, 1, 1),
                            "VALID", window_dilation=(1, 2, 2, 1),
                            base_dilation=(1, 1, 2, 1))
    return mx, sm / cnt, dil


def maxpool_grad(x):
    f = lambda x: jnp.sum(lax.reduce_window(
        x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME") ** 2)
    return jax.grad(f)(x)


def avgpool_grad(x):
    f = lambda x: jnp.sum(jnp.sin(lax.reduce_window(
        x, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")))
    return jax.grad(f)(x)


def transposes_and_layouts(x):
    y = jnp.transpose(x, (2, 0, 3, 1))
    z = jnp.einsum("abcd,dcef->abef", x, x.transpose(3, 2, 1, 0)[:, :, :3])
    return y + 1, z, x.reshape(x.shape[0], -1).T @ x.reshape(x.shape[0], -1)


def batched_einsums(a, b, c):
    return (jnp.einsum("bij,bjk->bik", a, b), jnp.einsum("bij,bkj->bki", a, b
                                                          .transpose(0, 2, 1)),
            jnp.einsum("ij,bjk,kl->bil", c, a, c.T), jnp.einsum("bii->bi", a),
            jnp.einsum("bij->", a), jnp.einsum("bij,bij->b", a, a))


def mixed_precision_dot(a, b):
    return (jnp.dot(a.astype(BF16), b.astype(BF16),
                    preferred_element_type=jnp.float32),
            jnp.dot(a.astype(jnp.float16), b.astype(jnp.float16)),
            jnp.dot(a.astype(jnp.int8), b.astype(jnp.int8),
                    preferred_element_type=jnp.int32),
            lax.dot(a, b, precision=lax.Precision.HIGHEST))


def cond_switch(i, x):
    branches = [lambda x: jnp.sin(x), lambda x: x[::-1] * 2,
                lambda x: jnp.cumsum(x)]
    return lax.switch(i, branches, x), lax.cond(x.sum() > 0, lambda: x.max(),
                                               lambda: x.min())


def nested_loops(x):
    def outer(i, acc):
        def inner(j, a):
            return a + jnp.roll(x, j) * (i + 1)
        return lax.fori_loop(0, 3, inner, acc)
    return lax.fori_loop(0, 4, outer, jnp.zeros_like(x))


def logsumexp_stable(x):
    return (jax.nn.logsumexp(x, 1), jax.nn.log_softmax(x, 0),
            jax.nn.softmax(x.astype(BF16), -1))


def clip_grad_norm(g1, g2):
    n = jnp.sqrt(jnp.sum(g1 ** 2) + jnp.sum(g2 ** 2))
    s = jnp.minimum(1.0, 0.5 / (n + 1e-6))
    return g1 * s, g2 * s, n


def unique_sizes(x):
    return jnp.unique(x, size=8, fill_value=-1), jnp.bincount(
        x, length=10), jnp.searchsorted(jnp.sort(x), jnp.arange(10))


def histogram_program(x):
    return jnp.histogram(x, bins=7, range=(-2.0, 2.0))


def gru_vmapped(params, xs):
    wz, uz, wr, ur, wh, uh = params

    def cell(h, x):
        z = jax.nn.sigmoid(x @ wz + h @ uz)
        r = jax.nn.sigmoid(x @ wr + h @ ur)
        hh = jnp.tanh(x @ wh + (r * h) @ uh)
        h = (1 - z) * h + z * hh
        return h, h
    run = lambda xs: lax.scan(cell, jnp.zeros(uz.shape[0], xs.dtype), xs)[1]
    return jax.vmap(run)(xs)


def gather_batch_dims(x, idx):
    return jax.vmap(lambda x, i: x[i, :, i % 3])(x, idx), jax.vmap(
        jax.vmap(lambda r, i: r[i]))(x[:, :, :, 0], idx[:, None].repeat(5, 1)
                                     % 3)


def bool_logic(a, b):
    return (a & b, a | ~b, a ^ b, jnp.sum(a, 0), jnp.any(a & b, 1),
            jnp.all(a | b, 0), a.astype(jnp.float32) * 2 - b,
            jnp.count_nonzero(a, 1))


def scatter_2d(x, idx, upd):
    return (x.at[idx[:, 0], idx[:, 1]].add(upd),
            x.at[:, idx[:, 1]].set(upd[None].repeat(x.shape[0], 0)),
            x.at[idx[:, 0]].add(upd[:, None] * jnp.ones(x.shape[1])))


def second_batch():
    f32 = np.float32
    yield ("bf16_adam_master_weights", bf16_adam_master_weights,
           [normal(16, 8, scale=0.3), normal(4, 16), normal(4, 8)], 16)
    yield ("f16_layer_norm_softmax", f16_layer_norm_softmax,
           [normal(3, 40, dtype=np.float16), normal(40, dtype=np.float16)],
           4)
    yield ("bf16_conv_relu", bf16_conv_relu,
           [normal(2, 6, 6, 3), normal(3, 3, 3, 5, scale=0.3)], 2)
    yield "bf16_scan_carry", bf16_scan_carry, [normal(12, 5)], 1
    yield ("bf16_scatter_add", bf16_scatter_add,
           [normal(5), np.array([1, 1, 1, 3, 1, 0], np.int32), normal(6)], 1)
    yield ("int4_arith", int4_arith,
           [ints(-8, 8, 16, dtype=np.int8), ints(-8, 8, 16, dtype=np.int8)],
           1)
    yield ("quantized_matmul", quantized_matmul,
           [normal(6, 32), normal(32, 5)], 4)
    a = ints(-100, 100, 30)
    b = ints(-3, 3, 30)
    a[:3] = [-2 ** 31, -2 ** 31, 7]
    b[:3] = [-1, 0, 0]
    yield "raw_int_division/s32", raw_int_division, [a, b], 1
    yield ("raw_int_division/u8", raw_int_division,
           [ints(0, 256, 20, dtype=np.uint8), ints(0, 3, 20, dtype=np.uint8)],
           1)
    fx, fy = normal(5, 8, scale=3), normal(5, 8, scale=2)
    fy[0, :3] = [0.0, -0.0, np.inf]
    fx[1, :2] = [np.inf, -0.0]
    yield "float_remainders", float_remainders, [fx, fy], 8
    yield ("dot_product_attention", dot_product_attention,
           [normal(2, 6, 3, 8), normal(2, 6, 3, 8), normal(2, 6, 3, 8),
            normal(2, 3, 6, 6)], 64)
    yield "associative_scans", associative_scans, [normal(2, 37)], 16
    yield "lax_map_and_quantiles", lax_map_and_quantiles, [normal(5, 9)], 4
    yield "signal_ops", signal_ops, [normal(11), normal(4)], 8
    yield ("linalg_more", linalg_more, [normal(5, 5, dtype=np.float64)],
           2 ** 24)
    yield "array_manip", array_manip, [normal(5, 7)], 1
    nx = normal(6, 5)
    nx[0, 1] = nx[3, 1] = np.nan
    nx[2, :] = np.nan
    yield "nan_reductions", nan_reductions, [nx], 4
    yield ("bf16_argmax_topk", bf16_argmax_topk,
           [ints(0, 5, 4, 9).astype(f32)], 1)
    yield ("clip_oob_gathers", clip_oob_gathers,
           [normal(4, 6), np.array([-3, 2, 5, 9], np.int32)], 1)
    yield ("while_dus_oob", while_dus_oob,
           [normal(7, 3), normal(2, 3)], 1)
    yield "long_cumsums", long_cumsums, [normal(3, 100)], 64
    yield ("conv3d_and_1d", conv3d_and_1d,
           [normal(1, 4, 5, 6, 2), normal(2, 3, 3, 2, 3), normal(2, 3, 9),
            normal(4, 3, 3)], 16)
    yield ("conv_grad_groups", conv_grad_groups,
           [normal(2, 9, 9, 4), normal(3, 3, 2, 6)], 64)
    for t in (np.complex64, np.complex128):
        z = (normal(4, 4) + 1j * normal(4, 4)).astype(t)
        w = (normal(4, 4) + 1j * normal(4, 4)).astype(t)
        yield (f"complex_programs/{np.dtype(t).name}", complex_programs,
               [z, w], 64)
    yield "unsafe_rbg_and_philox", unsafe_rbg_and_philox, [np.uint32(5)], 64
    yield ("mixture_of_experts", mixture_of_experts,
           [normal(7, 6), normal(6, 4), normal(4, 6, 3)], 16)
    ia = ints(-1000, 1000, 6, 9)
    ia[0, 0] = 2 ** 31 - 1
    yield "integer_reductions", integer_reductions, [ia], 1
    yield ("reduce_window_int_dilated", reduce_window_int_dilated,
           [ints(-50, 50, 7, 8)], 1)
    sx = normal(20, scale=200)
    sx[:6] = [np.nan, np.inf, -np.inf, 1e10, -1e10, 70000.0]
    yield "saturating_casts", saturating_casts, [sx], 1


def all_cases():
    yield from second_batch()
    mlp_sizes = [16, 32, 32, 10]
    f32 = np.float32
    yield ("mlp_adam_step", mlp_adam_step,
           [_mlp_params(mlp_sizes), normal(8, 16), ints(0, 10, 8)], 16)
    yield ("transformer_block/f32", transformer_block,
           _transformer_args(f32), 256)
    yield ("transformer_block/bf16", transformer_block,
           _transformer_args(BF16), 4)
    yield ("transformer_grad/f32", transformer_grad, _transformer_args(f32),
           1024)
    yield ("padded_attention", padded_attention,
           [normal(3, 2, 5, 8), normal(3, 2, 7, 8), normal(3, 2, 7, 8),
            np.array([7, 3, 1], np.int32)], 8)
    yield ("cnn_step", cnn_step,
           [normal(4, 12, 12, 3), normal(3, 3, 3, 8, scale=0.3),
            normal(3, 3, 2, 8, scale=0.3), normal(8, 5), ints(0, 5, 4)], 64)
    yield ("conv_nchw_grad", conv_nchw_grad,
           [normal(2, 3, 9, 8), normal(4, 3, 3, 2)], 64)
    yield ("conv_transpose", conv_transpose,
           [normal(2, 5, 5, 3), normal(3, 3, 3, 4)], 16)
    yield ("depthwise_conv_1d", depthwise_conv_1d,
           [normal(2, 10, 6), normal(3, 1, 6)], 8)
    lstm_p = (normal(4, 32, scale=0.3), normal(8, 32, scale=0.3),
              normal(32, scale=0.1))
    yield "lstm_scan", lstm_scan, [lstm_p, normal(6, 3, 4)], 16
    yield "lstm_grad", lstm_grad, [lstm_p, normal(6, 3, 4)], 64
    yield ("rnn_reverse_scan", rnn_reverse_scan,
           [normal(5, 5, scale=0.4), normal(7, 5)], 16)
    yield ("while_dynamic_slices", while_dynamic_slices,
           [normal(6, 4), np.float32(1.5)], 4)
    yield "fori_cumulative", fori_cumulative, [normal(9, 3)], 4
    yield ("take_modes", take_modes,
           [normal(6, 5), np.array([0, 5, -1, 7, 2, -9], np.int32)], 1)
    yield ("scatter_duplicates", scatter_duplicates,
           [normal(6), np.array([1, 1, 4, -1, 9, 1, 0], np.int32),
            normal(7)], 4)
    yield ("segment_ops", segment_ops,
           [normal(10, 3), np.array([0, 0, 1, 4, 4, 4, 2, 7, -1, 1],
                                    np.int32)], 4)
    yield ("embedding_grad", embedding_grad,
           [normal(7, 4), np.array([[1, 2, 1], [6, 1, 0]], np.int32)], 4)
    yield ("one_hot_where", one_hot_where,
           [np.array([0, 3, 5, 6, -1, 3], np.int32), normal(6, 6)], 1)
    yield ("vmapped_gather_dot", vmapped_gather_dot,
           [normal(4, 6, 5), normal(4, 5, 3), ints(0, 6, 4, 2)], 8)
    yield ("vmapped_dynamic_slice", vmapped_dynamic_slice,
           [normal(5, 10), np.array([0, 3, 8, -2, 6], np.int32)], 1)
    yield ("vmapped_dus", vmapped_dus,
           [normal(4, 9), normal(4, 3), np.array([0, 7, -1, 4], np.int32)], 1)
    keys = ints(0, 3, 4, 9).astype(np.float32)
    keys[0, :3] = [np.nan, -0.0, 0.0]
    yield ("sort_multi", sort_multi,
           [keys, ints(-5, 5, 4, 9), ints(0, 100, 4, 9, dtype=np.int64)], 1)
    yield "topk_program", topk_program, [ints(0, 10, 3, 12).astype(f32)], 1
    x3 = ints(0, 4, 3, 5, 4).astype(f32)
    x3[1, 2, 0] = np.nan
    yield "argmax_axes", argmax_axes, [x3], 1
    yield ("cumulative_ops", cumulative_ops,
           [normal(20, 40), ints(-100, 100, 5, 40, dtype=np.int8)], 16)
    yield ("variadic_reduce", variadic_reduce,
           [ints(0, 4, 5, 40).astype(f32), ints(0, 50, 5, 40)], 1)
    for t in (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32,
              np.int64, np.uint64):
        info = np.iinfo(t)
        a = _rng.integers(info.min, info.max, 40, dtype=t, endpoint=True)
        b = _rng.integers(info.min, info.max, 40, dtype=t, endpoint=True)
        a[:6] = [info.min, info.max, info.min, 0, 1, info.max]
        b[:6] = [t(-1) if info.min < 0 else 1, 1, 0, 0, info.max, info.min]
        yield f"int_semantics/{np.dtype(t).name}", int_semantics, [a, b], 1
    ext = np.array([np.nan, np.inf, -np.inf, 3e38, -3e38, 1e10, -1e10,
                    2 ** 31, -2 ** 31 - 1, 2 ** 63, 2 ** 64, 255.5, 256.0,
                    -128.7, -129.0, 127.5, -0.0, 0.49, -0.51, 1e-40,
                    65504.0, 65520.0, 448.0, 464.0, 57344.0, 61440.0],
                   np.float32)
    yield "convert_extremes/f32", convert_extremes, [ext], 1
    yield ("convert_extremes/f64", convert_extremes,
           [ext.astype(np.float64) * 1.0000001], 1)
    with np.errstate(over="ignore"):
        ext16 = ext.astype(np.float16)
    yield "convert_extremes/f16", convert_extremes, [ext16], 1
    i64 = np.array([2 ** 63 - 1, -2 ** 63, 2 ** 24 + 1, 2 ** 53 + 1, -1,
                    65519, 65520, 2 ** 31, 300], np.int64)
    u64 = np.array([2 ** 64 - 1, 2 ** 63, 2 ** 24 + 1, 2 ** 53 + 1, 0,
                    65519, 65520, 2 ** 32 + 5, 300], np.uint64)
    yield "int_to_float_extremes", int_to_float_extremes, [i64, u64], 1
    yield ("narrow_float_chain", narrow_float_chain,
           [normal(4, 40, scale=3), normal(4, 40, scale=3)], 1)
    yield ("bf16_layer_norm_grad", bf16_layer_norm_grad,
           [normal(4, 64, dtype=BF16), normal(64, dtype=BF16) + 1,
            normal(64, dtype=BF16)], 4)
    for t in (np.complex64, np.complex128):
        z = (normal(4, 4) + 1j * normal(4, 4)).astype(t)
        w = (normal(4, 4) + 1j * normal(4, 4)).astype(t)
        yield f"complex_math/{np.dtype(t).name}", complex_math, [z, w], 16
    yield "fft_program", fft_program, [normal(4, 16)], 64
    sx, sy = normal(6, 8), normal(6, 8)
    sy[0, :4] = [0.0, np.inf, -np.inf, np.nan]
    sx[0, :4] = [np.inf, 0.0, -0.0, 1e-30]
    yield "special_functions", special_functions, [sx, sy], 256
    yield "random_threefry", random_threefry, [np.uint32(42)], 16
    yield "random_rbg", random_rbg, [np.uint32(3)], 16
    yield "dropout_train", dropout_train, [normal(6, 7), np.uint32(1)], 1
    yield ("linalg/f32", linalg_program, [normal(5, 5), normal(5, 3)], 2048)
    yield ("linalg/f64", linalg_program,
           [normal(5, 5, dtype=np.float64), normal(5, 3, dtype=np.float64)],
           2 ** 20)
    yield ("batched_cholesky_solve", batched_cholesky_solve,
           [normal(3, 4, 4), normal(3, 4, 2)], 1024)
    yield "pad_reverse_concat", pad_reverse_concat, [normal(5, 4)], 1
    yield ("broadcast_degenerate", broadcast_degenerate,
           [normal(1, 5, 4), normal(5, 4)], 1)
    yield "pooling", pooling, [normal(2, 9, 10, 3)], 4
    yield "maxpool_grad", maxpool_grad, [ints(0, 4, 2, 7, 8, 3).astype(f32)], 4
    yield "avgpool_grad", avgpool_grad, [normal(2, 7, 8, 3)], 4
    yield ("transposes_and_layouts", transposes_and_layouts,
           [normal(3, 4, 5, 6)], 16)
    yield ("batched_einsums", batched_einsums,
           [normal(3, 5, 5), normal(3, 5, 4), normal(5, 5)], 16)
    yield ("mixed_precision_dot", mixed_precision_dot,
           [ints(-4, 4, 6, 40).astype(f32), ints(-4, 4, 40, 5).astype(f32)],
           4)
    yield "cond_switch", cond_switch, [np.int32(2), normal(7)], 4
    yield "cond_switch/oob", cond_switch, [np.int32(9), normal(7)], 4
    yield "nested_loops", nested_loops, [normal(6)], 4
    lx = normal(7, 40, scale=4)
    lx[0, 0] = -np.inf
    yield "logsumexp_stable", logsumexp_stable, [lx], 8
    yield "clip_grad_norm", clip_grad_norm, [normal(5, 6), normal(7)], 4
    yield "unique_sizes", unique_sizes, [ints(0, 10, 12)], 1
    yield "histogram_program", histogram_program, [normal(50)], 1
    gru_p = tuple(normal(a, 6, scale=0.4) for a in (3, 6, 3, 6, 3, 6))
    yield "gru_vmapped", gru_vmapped, [gru_p, normal(2, 5, 3)], 16
    yield ("gather_batch_dims", gather_batch_dims,
           [normal(4, 5, 3, 2), ints(0, 5, 4)], 1)
    yield ("bool_logic", bool_logic,
           [ints(0, 2, 5, 7).astype(bool), ints(0, 2, 5, 7).astype(bool)], 1)
    yield ("scatter_2d", scatter_2d,
           [normal(5, 6), np.array([[1, 2], [1, 2], [4, 0], [0, 5]],
                                   np.int32), normal(4)], 4)


# --- A second batch: narrow floats in models, numerics corners -------------


def bf16_adam_master_weights(w, x, y):
    # relu, not tanh: f32 tanh differs from XLA:CPU's by an ulp (README,
    # Numerics), which the bf16 gradient's rounding can make a bf16 ulp.
    def loss(w):
        h = jax.nn.relu(x.astype(BF16) @ w.astype(BF16))
        return jnp.mean((h.astype(jnp.float32) - y) ** 2)
    g = jax.grad(loss)(w)
    zeros = jnp.zeros_like(w)
    return _adam(w, g, zeros, zeros, 3.0, lr=1e-2)


def f16_layer_norm_softmax(x, g):
    h = _layer_norm(x, g, jnp.float16(0.1))
    return jax.nn.softmax(h, -1), jax.nn.softplus(h), jnp.logaddexp(h, x)


def bf16_conv_relu(x, w):
    y = _conv(x.astype(BF16), w.astype(BF16), stride=1)
    return jax.nn.relu(y).astype(jnp.float32), jnp.sum(y.astype(jnp.float32))


def bf16_scan_carry(xs):
    def step(c, x):
        c = c * BF16(0.9) + x
        return c, c.astype(jnp.float32)
    return lax.scan(step, jnp.zeros(xs.shape[1], BF16), xs.astype(BF16))


def bf16_scatter_add(x, idx, upd):
    y = x.astype(BF16).at[idx].add(upd.astype(BF16))
    return y, y.astype(jnp.float32) * 2


def int4_arith(a, b):
    a4, b4 = a.astype(jnp.int4), b.astype(jnp.int4)
    return ((a4 + b4).astype(jnp.int8), (a4 * b4).astype(jnp.int8),
            (a4 - b4).astype(jnp.int32))


def quantized_matmul(x, w):
    sx = jnp.max(jnp.abs(x)) / 127
    sw = jnp.max(jnp.abs(w), 0) / 127
    xq = jnp.clip(jnp.round(x / sx), -127, 127).astype(jnp.int8)
    wq = jnp.clip(jnp.round(w / sw), -127, 127).astype(jnp.int8)
    acc = lax.dot(xq, wq, preferred_element_type=jnp.int32)
    out = acc.astype(jnp.float32) * sx * sw
    return xq, wq, acc, out, jnp.clip(jnp.round(out * 4), -128, 127).astype(
        jnp.int8)


def raw_int_division(a, b):
    return lax.div(a, b), lax.rem(a, b), a // jnp.where(b == 0, 1, b)


def float_remainders(x, y):
    return (jnp.fmod(x, y), jnp.remainder(x, y), jnp.floor_divide(x, y),
            lax.rem(x, y), jnp.round(x, 2), jnp.trunc(x), jnp.sign(x),
            jnp.copysign(x, y), jnp.power(jnp.abs(x), y),
            lax.integer_pow(x, 3), lax.integer_pow(x, -2))


def dot_product_attention(q, k, v, bias):
    return (jax.nn.dot_product_attention(q, k, v, bias=bias),
            jax.nn.dot_product_attention(q, k, v, is_causal=True))


def associative_scans(x):
    return (lax.associative_scan(jnp.add, x, axis=1),
            lax.associative_scan(jnp.maximum, x, reverse=True),
            lax.associative_scan(
                lambda a, b: (a[0] * b[0], a[1] * b[0] + b[1]), (x[0], x[1])))


def lax_map_and_quantiles(x):
    return (lax.map(lambda r: jnp.sort(r)[::-1][:3], x), jnp.median(x, 1),
            jnp.quantile(x, jnp.array([0.1, 0.5, 0.9]), axis=0),
            jnp.percentile(x, 75.0))


def signal_ops(x, k):
    return (jnp.convolve(x, k, mode="full"), jnp.correlate(x, k,
                                                           mode="same"),
            jnp.polyval(k, x), jnp.outer(x, k), jnp.kron(k, k))


def linalg_more(a):
    spd = a @ a.T + 5 * jnp.eye(a.shape[0], dtype=a.dtype)
    w, v = jnp.linalg.eigh(spd)
    return (w, jnp.abs(v), jnp.linalg.norm(a), jnp.linalg.norm(a, 1),
            jnp.linalg.norm(a, axis=0), jnp.linalg.matrix_power(a, 3),
            jnp.trace(a), jnp.triu(a, 1), jnp.tril(a, -1),
            jnp.linalg.pinv(spd), jnp.linalg.lstsq(spd, a)[0])


def array_manip(x):
    return (jnp.roll(x, 3, 1), jnp.roll(x, -1), jnp.rot90(x), jnp.flip(x),
            jnp.tile(x, (2, 1)), jnp.repeat(x, 2, 0),
            jnp.diag(x[:, :4]), jnp.diagonal(x, 1),
            jnp.stack([x, -x], 1), jnp.swapaxes(x[None], 0, 2))


def nan_reductions(x):
    return (jnp.nansum(x, 0), jnp.nanmax(x, 1), jnp.nanmin(x, 0),
            jnp.nanmean(x, 1), jnp.argmax(x, 0), jnp.argmin(x, 1),
            jnp.max(x, 1), jnp.min(x, 0), jnp.nanargmin(x, 0),
            jnp.sort(x, 1), jnp.argsort(x, 0))


def bf16_argmax_topk(x):
    xb = x.astype(BF16)
    v, i = lax.top_k(xb, 3)
    return jnp.argmax(xb, 1), jnp.argmin(xb, 0), v, i, jnp.sort(xb, 0)


def clip_oob_gathers(x, idx):
    f = jax.vmap(lambda r, i: jnp.take(r, i, mode="clip"))
    g = jax.vmap(lambda r, i: r.at[i].get(mode="fill", fill_value=-1.0))
    h = jax.vmap(lambda r, i: lax.dynamic_slice(r, (i,), (3,)))
    return f(x, idx), g(x, idx), h(x, idx)


def while_dus_oob(x, upd):
    def body(s):
        i, buf = s
        buf = lax.dynamic_update_slice(buf, upd * i, (i * 3 - 2, jnp.int32(0)))
        return i + 1, buf
    return lax.while_loop(lambda s: s[0] < 5, body, (jnp.int32(0), x))


def long_cumsums(x):
    xb = x.astype(BF16)
    return (jnp.cumsum(x, 1), jnp.cumsum(x[:, ::-1], 1),
            lax.cumsum(x, 1, reverse=True), jnp.cumsum(xb, 1),
            lax.cumprod(jnp.abs(x[:, :20]) + 0.5, 1),
            lax.cummax(xb, 1, reverse=True))


def conv3d_and_1d(x3, w3, x1, w1):
    a = lax.conv_general_dilated(x3, w3, (1, 2, 1), "SAME",
                                 dimension_numbers=("NDHWC", "DHWIO",
                                                    "NDHWC"))
    b = lax.conv_general_dilated(x1, w1, (2,), ((1, 1),), lhs_dilation=(2,),
                                 rhs_dilation=(1,),
                                 dimension_numbers=("NCH", "OIH", "NCH"))
    return a, b


def conv_grad_groups(x, w):
    f = lambda x, w: jnp.sum(jnp.sin(_conv(x, w, stride=2, groups=2,
                                           padding="VALID")))
    return jax.grad(f, argnums=(0, 1))(x, w)


def complex_programs(z, w):
    m = z @ jnp.conj(w.T)
    return (jnp.fft.ifft(jnp.fft.fft(z, axis=0), axis=0), m,
            jnp.linalg.inv(m + 4 * jnp.eye(4, dtype=m.dtype)),
            jnp.sum(jnp.abs(z) ** 2), jnp.cumsum(z, 1), jnp.prod(z, 0),
            jnp.real(z * 1j), jnp.imag(jnp.exp(1j * jnp.angle(z))))


def unsafe_rbg_and_philox(seed):
    k = jax.random.key(seed, impl="unsafe_rbg")
    k2 = jax.random.key(seed, impl="threefry2x32")
    return (jax.random.uniform(k, (5,)), jax.random.normal(k2, (3, 3),
                                                           BF16),
            jax.random.choice(k2, 10, (4,), replace=False),
            jax.random.exponential(k2, (3,)), jax.random.poisson(k2, 3.0,
                                                                 (5,)),
            jax.random.beta(k2, 2.0, 3.0, (3,)),
            jax.random.laplace(k2, (3,)))


def mixture_of_experts(x, wg, we):
    logits = x @ wg
    top, idx = lax.top_k(logits, 2)
    gates = jax.nn.softmax(top, -1)
    out = jnp.einsum("te,eio->tio", jax.nn.one_hot(idx[:, 0], wg.shape[1],
                                                    dtype=x.dtype), we)
    y = jnp.einsum("ti,tio->to", x, out) * gates[:, :1]
    counts = jnp.zeros(wg.shape[1], jnp.int32).at[idx.reshape(-1)].add(1)
    return y, counts, idx


def integer_reductions(a):
    return (jnp.sum(a, 0), jnp.prod(a[:3], 0), jnp.max(a, 1), jnp.min(a),
            jnp.cumsum(a, 0), lax.reduce(a, np.int32(0), lax.bitwise_xor,
                                         (1,)),
            lax.reduce(a, np.int32(-1), lax.bitwise_and, (0,)),
            jnp.argmax(a, 1), jnp.bincount(jnp.abs(a[0]) % 7, length=7))


def reduce_window_int_dilated(x):
    return (lax.reduce_window(x, np.int32(0), lax.add, (2, 3), (1, 2),
                              ((1, 0), (2, 1)), base_dilation=(2, 1)),
            lax.reduce_window(x, np.int32(-2 ** 31), lax.max, (3, 2),
                              (2, 1), "SAME", window_dilation=(1, 2)))


def saturating_casts(x):
    return (jnp.clip(x, -128, 127).astype(jnp.int8),
            jnp.clip(x, 0, 255).astype(jnp.uint8),
            x.astype(jnp.float16).astype(jnp.int16),
            jnp.round(x * 1e6).astype(jnp.int32),
            (x * 1e30).astype(jnp.int64))
