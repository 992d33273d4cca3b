"""A third set of whole JAX programs for program_coverage.py, in the form
program_cases.py gives them: array manipulation (padding modes, repeats,
index helpers, selection, scatter modes, segment reductions), polynomial and
signal helpers, image resizing and preprocessing, and small end-to-end
algorithms users write in JAX (k-means, ODE integration, BFGS, hidden Markov
models, sparse matrices, mixed-precision training steps)."""

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
from jax import lax

BF16 = ml_dtypes.bfloat16
_rng = np.random.default_rng(13)


def normal(*shape, dtype=np.float32, scale=1.0):
    return (_rng.standard_normal(shape) * scale).astype(dtype)


def ints(lo, hi, *shape, dtype=np.int32):
    return _rng.integers(lo, hi, shape).astype(dtype)


# --- Arrays ------------------------------------------------------------------


def pad_modes(x):
    out = [jnp.pad(x, ((2, 3), (4, 1)), mode=m)
           for m in ("reflect", "symmetric", "edge", "wrap", "maximum",
                     "mean", "minimum", "median")]
    out.append(jnp.pad(x, ((1, 2), (3, 0)), mode="linear_ramp",
                       end_values=((-1, 2), (5, 0))))
    out.append(jnp.pad(x, 2, mode="reflect", reflect_type="odd"))
    out.append(jnp.pad(x, ((0, 9), (8, 0)), mode="wrap"))
    out.append(jnp.pad(x, ((1, 1), (1, 1)), constant_values=((7, 8), (9, 6))))
    return out


def repeat_tile_roll(x, r):
    return (jnp.repeat(x, r, axis=0, total_repeat_length=9),
            jnp.repeat(x, 3, axis=1, total_repeat_length=14),
            jnp.repeat(x.ravel(), 2), jnp.tile(x, (2, 1, 3)),
            jnp.roll(x, (1, -2), (0, 1)), jnp.roll(x, r[0], 1),
            jnp.resize(x, (3, 11)), jnp.rot90(x, -1), jnp.moveaxis(
                x[None], 0, -1), jnp.atleast_3d(x), jnp.split(x, [1, 3], 1),
            jnp.array_split(x, 3, 0), jnp.insert(x, 2, -1.0, axis=1),
            jnp.delete(x, np.array([0, 2]), axis=1))


def index_helpers(x):
    n = x.shape[0]
    iu = jnp.triu_indices(n, 1)
    il = jnp.tril_indices_from(x, -1)
    return (x[iu], x[il], jnp.fill_diagonal(x, 0.0, inplace=False),
            jnp.meshgrid(jnp.arange(3), jnp.arange(2), indexing="ij"),
            jnp.indices((2, 3)), x[jnp.diag_indices(n)], jnp.mgrid[0:3, 0:2],
            jnp.ravel_multi_index((jnp.array([1, 2]), jnp.array([0, 3])),
                                  x.shape, mode="clip"), jnp.unravel_index(
                jnp.array([5, 11]), x.shape), jnp.vander(x[0], 3))


def select_piecewise(x, i):
    return (jnp.select([x < -0.5, x > 0.5], [x * 2, x ** 2], -1.0),
            jnp.piecewise(x, [x < 0, x >= 1], [lambda v: -v, lambda v: v * 3,
                                               lambda v: v + 1]),
            jnp.choose(i, [x, -x, x * 10], mode="clip"), jnp.choose(
                i, [x, -x, x * 10], mode="wrap"), jnp.where(x > 0, size=4),
            jnp.put(x, jnp.array([0, 5, 5]),
                    jnp.array([1.0, 2.0, 3.0], x.dtype), inplace=False),
            jnp.take(x, jnp.array([[0, -1], [3, 9]]), mode="wrap"))


def scatter_modes(x, idx, upd):
    return (x.at[idx].min(upd), x.at[idx].max(upd), x.at[idx].mul(upd),
            x.at[idx].divide(upd + 3), x.at[idx].power(2.0),
            x.at[idx].add(upd, mode="drop"), x.at[idx].set(upd, mode="clip"),
            x.at[jnp.sort(idx)].add(upd, indices_are_sorted=True),
            x.at[jnp.arange(idx.shape[0])].set(upd, unique_indices=True),
            x.at[idx].apply(jnp.sin), x.at[2:5].multiply(upd[:3]))


def segment_reductions(data, seg):
    n = 6
    s = jax.ops
    return (s.segment_max(data, seg, n), s.segment_min(data, seg, n),
            s.segment_prod(data, seg, n), s.segment_sum(
                data, jnp.sort(seg), n, indices_are_sorted=True),
            s.segment_max(data.astype(jnp.int32), seg, n),
            s.segment_sum(data, seg, n, bucket_size=3),
            s.segment_min(data, seg, n, mode="clip"))


def interp_poly(x, xp, fp, c):
    return (jnp.interp(x, xp, fp), jnp.interp(x, xp, fp, left=-1.0,
                                              right=9.0),
            jnp.interp(x, xp, fp, period=2.0), jnp.polyval(c, x),
            jnp.polyder(c), jnp.polyint(c), jnp.polymul(c, c[:3]),
            jnp.polyadd(c, c[:2]), jnp.polyfit(xp, fp, 2),
            jnp.polysub(c, c[::-1]), jnp.polydiv(c, c[:2])[0])


def convolve_modes(x, k, img, kern):
    sig = jax.scipy.signal
    return (jnp.convolve(x, k, mode="valid"), jnp.convolve(x, k, "same"),
            jnp.convolve(k, x, "full"), jnp.correlate(x, k, "valid"),
            jnp.correlate(x, k, "full"), sig.convolve2d(img, kern, "same"),
            sig.correlate2d(img, kern, "valid"), sig.convolve(
                img, kern, "full"), jnp.convolve(x.astype(jnp.int32),
                                                 jnp.array([1, -2, 1])))


def image_resize(img, u8):
    r = jax.image.resize
    out = [r(img, (2, 9, 7, 3), m) for m in ("nearest", "linear", "cubic",
                                               "lanczos3", "lanczos5")]
    out.append(r(img, (2, 3, 2, 3), "linear", antialias=True))
    out.append(r(img, (2, 3, 2, 3), "linear", antialias=False))
    out.append(jax.image.scale_and_translate(
        img, (2, 8, 8, 3), (1, 2), jnp.array([1.5, 1.3]),
        jnp.array([0.5, -0.2]), "triangle"))
    f = r(u8.astype(jnp.float32), (12, 12), "linear")
    out.append(jnp.clip(jnp.round(f), 0, 255).astype(jnp.uint8))
    return out


def image_preprocess(u8):
    x = u8.astype(jnp.float32) / 255.0
    mean = jnp.array([0.485, 0.456, 0.406], jnp.float32)
    std = jnp.array([0.229, 0.224, 0.225], jnp.float32)
    x = (x - mean) / std
    gray = (u8 @ jnp.array([77, 150, 29], jnp.uint8).astype(jnp.uint16))
    flipped = u8[:, ::-1]
    crop = lax.dynamic_slice(u8, (1, 2, 0), (4, 4, 3))
    return x, (gray >> 8).astype(jnp.uint8), flipped, crop, jnp.mean(
        u8, (0, 1)), jnp.max(u8, 2), jnp.cumsum(u8, 0, dtype=jnp.uint32)


# --- Algorithms -------------------------------------------------------------


def kmeans_steps(x, c0):
    def step(c, _):
        d = jnp.sum((x[:, None] - c[None]) ** 2, -1)
        a = jnp.argmin(d, 1)
        s = jax.ops.segment_sum(x, a, c.shape[0])
        n = jnp.bincount(a, length=c.shape[0])[:, None]
        return jnp.where(n > 0, s / jnp.maximum(n, 1), c), jnp.sum(
            jnp.min(d, 1))
    return lax.scan(step, c0, None, length=5)


def ode_integration(y0, a):
    f = lambda y, t: jnp.tanh(a @ y) * jnp.cos(t).astype(y.dtype)

    def rk4(i, y):
        h = 0.05
        t = i * h
        k1 = f(y, t)
        k2 = f(y + h / 2 * k1, t + h / 2)
        k3 = f(y + h / 2 * k2, t + h / 2)
        k4 = f(y + h * k3, t + h)
        return y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    from jax.experimental.ode import odeint
    ts = jnp.linspace(0.0, 1.0, 5, dtype=y0.dtype)
    return lax.fori_loop(0, 20, rk4, y0), odeint(f, y0, ts, rtol=1e-6,
                                                 atol=1e-6)


def bfgs_minimize(x0, a):
    from jax.scipy.optimize import minimize

    def rosen(x):
        return jnp.sum(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2) \
            + 0.1 * jnp.sum((a @ x) ** 2)
    r = minimize(rosen, x0, method="BFGS", options={"maxiter": 30})
    return r.x, r.fun, r.nit, r.success


def hmm_forward_viterbi(log_a, log_b, obs, log_pi):
    def fwd(alpha, o):
        alpha = jax.nn.logsumexp(alpha[:, None] + log_a, 0) + log_b[:, o]
        return alpha, alpha
    a0 = log_pi + log_b[:, obs[0]]
    alpha, alphas = lax.scan(fwd, a0, obs[1:])

    def vit(delta, o):
        s = delta[:, None] + log_a
        return jnp.max(s, 0) + log_b[:, o], jnp.argmax(s, 0)
    delta, back = lax.scan(vit, a0, obs[1:])
    last = jnp.argmax(delta)

    def trace(s, bp):
        return bp[s], s
    first, path = lax.scan(trace, last, back, reverse=True)
    return jax.nn.logsumexp(alpha), alphas, jnp.concatenate(
        [first[None], path])


def sparse_bcoo(m, v):
    from jax.experimental import sparse
    s = sparse.BCOO.fromdense(m, nse=8)
    return (s @ v, (s.T @ m).sum(0), sparse.bcoo_reduce_sum(s, axes=(0,))
            .todense(), (s * 2.0).todense(), s.data, s.indices)


def embedding_bag(table, ids, offsets, weights):
    seg = jnp.cumsum(jnp.zeros(ids.shape[0], jnp.int32).at[offsets[1:]].add(
        1))
    rows = table[ids] * weights[:, None]
    n = offsets.shape[0]
    s = jax.ops.segment_sum(rows, seg, n)
    cnt = jax.ops.segment_sum(jnp.ones_like(weights), seg, n)
    mx = jax.ops.segment_max(rows, seg, n)
    return s, s / jnp.maximum(cnt, 1)[:, None], mx, jax.grad(
        lambda t: jnp.sum(jax.ops.segment_sum(t[ids], seg, n) ** 2))(table)


def bf16_mlp_train_step(w1, w2, x, y):
    def loss(ws):
        a, b = ws
        h = jax.nn.relu(x.astype(BF16) @ a.astype(BF16))
        out = (h @ b.astype(BF16)).astype(jnp.float32)
        return jnp.mean((out - y) ** 2)
    l, (g1, g2) = jax.value_and_grad(loss)((w1, w2))
    return l, w1 - 0.1 * g1, w2 - 0.1 * g2


def f16_loss_scaling(w, x, y):
    scale = jnp.float32(2 ** 10)

    def loss(w):
        h = jax.nn.relu(x.astype(jnp.float16) @ w.astype(jnp.float16))
        return jnp.sum(h.astype(jnp.float32) * y) * scale
    g = jax.grad(loss)(w) / scale
    finite = jnp.all(jnp.isfinite(g))
    return jnp.where(finite, w - 0.01 * g, w), finite, g.astype(jnp.float16)


def qat_straight_through(w, x):
    def fake_quant(v):
        s = jnp.max(jnp.abs(v)) / 127
        q = jnp.clip(jnp.round(v / s), -127, 127) * s
        return v + lax.stop_gradient(q - v)

    def loss(w):
        return jnp.sum(jnp.tanh(x @ fake_quant(w)) ** 2)
    return loss(w), jax.grad(loss)(w)


def ctc_like_alignment(logp, labels):
    # A CTC forward pass over blank-interleaved labels, in log space.
    ext = jnp.stack([jnp.zeros_like(labels), labels], 1).reshape(-1)
    ext = jnp.concatenate([ext, jnp.zeros(1, labels.dtype)])
    s = ext.shape[0]
    skip = jnp.concatenate([jnp.zeros(2, bool), (ext[2:] != 0) &
                            (ext[2:] != ext[:-2])])
    ninf = -1e30
    a0 = jnp.full(s, ninf).at[:2].set(logp[0, ext[:2]])

    def step(a, lp):
        a1 = jnp.concatenate([jnp.full(1, ninf), a[:-1]])
        a2 = jnp.concatenate([jnp.full(2, ninf), a[:-2]])
        a2 = jnp.where(skip, a2, ninf)
        a = jnp.logaddexp(jnp.logaddexp(a, a1), a2) + lp[ext]
        return a, a
    a, _ = lax.scan(step, a0, logp[1:])
    return -jnp.logaddexp(a[-1], a[-2])


def ctc_grad(logits, labels):
    f = lambda l: ctc_like_alignment(jax.nn.log_softmax(l), labels)
    return f(logits), jax.grad(f)(logits)


def vmapped_scatters(x, idx, upd):
    add = jax.vmap(lambda r, i, u: r.at[i].add(u))
    mx = jax.vmap(lambda r, i, u: r.at[i].max(u, mode="drop"))
    st = jax.vmap(jax.vmap(lambda r, i, u: r.at[i].set(u), (None, 0, 0)),
                  (0, None, None))
    return add(x, idx, upd), mx(x, idx, upd), st(x, idx[0], upd[0])


def ragged_and_grouped(x, w, sizes):
    out = lax.ragged_dot(x, w, sizes)
    g = jax.grad(lambda x, w: jnp.sum(lax.ragged_dot(x, w, sizes) ** 2),
                 argnums=(0, 1))(x, w)
    return out, g


def shard_map_collectives(x):
    from jax.sharding import Mesh, PartitionSpec as P
    # One device, the one run_on makes the default: xlite's or XLA:CPU's.
    dev = jax.config.jax_default_device or jax.devices()[0]
    mesh = Mesh(np.array([dev]), ("d",))

    def body(b):
        s = lax.psum(b, "d")
        m = lax.pmax(b.max(), "d")
        return s * 2 + m, lax.axis_index("d") + jnp.zeros((1,), jnp.int32)
    f = jax.shard_map(body, mesh=mesh, in_specs=P("d"),
                      out_specs=(P("d"), P("d")))
    return f(x)


def tridiagonal_and_tensor_solves(dl, d, du, b, t):
    dl = dl.at[0].set(0)
    du = du.at[-1].set(0)
    x = lax.linalg.tridiagonal_solve(dl, d + 4, du, b)
    a = t.reshape(6, 6) + 6 * jnp.eye(6, dtype=t.dtype)
    return x, jnp.linalg.tensorsolve(a.reshape(6, 2, 3), b[:, 0]), \
        jnp.linalg.tensorinv(a.reshape(2, 3, 6), ind=2)


def narrow_reductions(x):
    h, b = x.astype(jnp.float16), x.astype(BF16)
    return (jnp.sum(h), jnp.sum(b, 0), jnp.mean(h, 1), jnp.argmax(h, 1),
            jnp.max(b), jnp.prod(h[:, :6] * 0.5 + 1, 1), jnp.var(b, 1),
            jnp.cumsum(h[:, :40], 1), jnp.sort(b[0]), jnp.linalg.norm(h, 2,
                                                                    1),
            jnp.searchsorted(jnp.sort(b[1]), b[2]))


def sort_key_types(a, b, c):
    return (jnp.sort(a), jnp.argsort(b, stable=True), jnp.sort(c),
            jnp.argsort(c, descending=True, stable=True),
            lax.sort((c, a), num_keys=1), jnp.unique(b, size=5),
            jnp.cumsum(c), lax.top_k(a.astype(jnp.int32), 3))


def fft_f64(x):
    z = jnp.fft.fft(x.astype(jnp.complex128))
    return (z, jnp.fft.irfft(jnp.fft.rfft(x), x.shape[-1]),
            jnp.fft.fftn(x.reshape(2, 3, -1)), jnp.abs(jnp.fft.ifft2(
                z.reshape(4, -1))))


def attention_gqa_window(q, k, v):
    return (jax.nn.dot_product_attention(q, k, v, is_causal=True,
                                         local_window_size=(2, 0)),
            jax.nn.dot_product_attention(q, k, v, mask=jnp.tril(
                jnp.ones((q.shape[1], k.shape[1]), bool), 1)[None, None]))


def index_dtypes_and_modes(x, i64, u8):
    return (lax.dynamic_slice(x, (i64[0], i64[1]), (2, 3)),
            lax.dynamic_update_slice(x, -x[:2, :2], (u8[0], u8[1])),
            x.at[i64].get(mode="clip"),
            jnp.take(x, u8, axis=1, mode="wrap"),
            x[i64 % 4][:, u8 % 5], jnp.take_along_axis(
                x, (u8 % 5)[None].astype(jnp.int64).repeat(4, 0), 1))


def complex_scatter_eigh(z, h, idx):
    hh = h @ jnp.conj(h.T) + 3 * jnp.eye(h.shape[0], dtype=h.dtype)
    w, v = jnp.linalg.eigh(hh)
    return (z.at[idx].add(z[:3] * 1j), z.at[idx].mul(2 - 1j), w,
            jnp.abs(v), jnp.sort(jnp.abs(z)), jnp.cumsum(z[::-1]))


def all_cases():
    yield "pad_modes", pad_modes, [normal(4, 5)], 1
    yield ("repeat_tile_roll", repeat_tile_roll,
           [normal(3, 5), np.array([2, 0, 4], np.int32)], 1)
    yield "index_helpers", index_helpers, [normal(4, 4)], 1
    yield ("select_piecewise", select_piecewise,
           [normal(6), np.array([0, 1, 2, 3, -1, 5], np.int32)], 1)
    yield ("scatter_modes", scatter_modes,
           [normal(7), np.array([1, 1, 6, 9, -2, 0], np.int32), normal(6)], 4)
    yield ("segment_reductions", segment_reductions,
           [normal(9, 2), np.array([0, 0, 2, 5, 5, 5, 1, 9, -1], np.int32)],
           4)
    xp = np.sort(normal(6))
    yield ("interp_poly", interp_poly,
           [normal(9, scale=2), xp, normal(6), normal(4)], 4096)
    yield ("convolve_modes", convolve_modes,
           [normal(12), normal(5), normal(6, 7), normal(3, 2)], 16)
    yield ("image_resize", image_resize,
           [normal(2, 5, 4, 3), ints(0, 256, 6, 6, dtype=np.uint8)], 64)
    yield ("image_preprocess", image_preprocess,
           [ints(0, 256, 6, 7, 3, dtype=np.uint8)], 4)
    yield ("kmeans_steps", kmeans_steps,
           [normal(20, 2), normal(3, 2)], 64)
    yield ("ode_integration", ode_integration,
           [normal(3), normal(3, 3, scale=0.5)], 1024)
    yield ("bfgs_minimize", bfgs_minimize,
           [normal(4, dtype=np.float64, scale=0.3),
            normal(4, 4, dtype=np.float64, scale=0.3)], 2 ** 24)
    la = jax.nn.log_softmax(normal(3, 3), 1)
    lb = jax.nn.log_softmax(normal(3, 4), 1)
    yield ("hmm_forward_viterbi", hmm_forward_viterbi,
           [np.asarray(la), np.asarray(lb), ints(0, 4, 9),
            np.log(np.array([0.5, 0.3, 0.2], np.float32))], 64)
    sm = normal(5, 6)
    sm[np.abs(sm) < 0.8] = 0
    yield "sparse_bcoo", sparse_bcoo, [sm, normal(6, 2)], 16
    yield ("embedding_bag", embedding_bag,
           [normal(8, 3), np.array([1, 4, 4, 0, 7, 2, 2], np.int32),
            np.array([0, 2, 2, 5], np.int32), normal(7)], 16)
    yield ("bf16_mlp_train_step", bf16_mlp_train_step,
           [normal(8, 16, scale=0.3), normal(16, 4, scale=0.3), normal(5, 8),
            normal(5, 4)], 16)
    yield ("f16_loss_scaling", f16_loss_scaling,
           [normal(8, 4, scale=0.3), normal(6, 8), normal(6, 4)], 4)
    yield "qat_straight_through", qat_straight_through, \
        [normal(6, 4), normal(3, 6)], 64
    yield ("ctc_grad", ctc_grad,
           [normal(8, 5), np.array([1, 3, 3, 2], np.int32)], 256)
    yield ("vmapped_scatters", vmapped_scatters,
           [normal(3, 6), ints(-2, 8, 3, 4), normal(3, 4)], 4)
    yield ("ragged_and_grouped", ragged_and_grouped,
           [normal(7, 4), normal(3, 4, 5), np.array([2, 0, 4], np.int32)],
           64)
    yield "shard_map_collectives", shard_map_collectives, [normal(6)], 1
    yield ("tridiagonal_and_tensor_solves", tridiagonal_and_tensor_solves,
           [normal(6), normal(6), normal(6), normal(6, 2), normal(36)], 4096)
    yield "narrow_reductions", narrow_reductions, [normal(5, 70)], 4
    yield ("sort_key_types", sort_key_types,
           [ints(-128, 128, 20, dtype=np.int8),
            ints(0, 2 ** 63, 20, dtype=np.uint64) // 2 ** 50,
            ints(0, 2, 20).astype(bool)], 1)
    yield "fft_f64", fft_f64, [normal(2, 24, dtype=np.float64)], 2 ** 16
    yield ("attention_gqa_window", attention_gqa_window,
           [normal(2, 5, 4, 8), normal(2, 5, 2, 8), normal(2, 5, 2, 8)], 64)
    yield ("index_dtypes_and_modes", index_dtypes_and_modes,
           [normal(4, 5), np.array([3, -1, 7], np.int64),
            np.array([1, 200, 4], np.uint8)], 1)
    zz = (normal(6) + 1j * normal(6)).astype(np.complex128)
    hz = (normal(4, 4) + 1j * normal(4, 4)).astype(np.complex128)
    yield ("complex_scatter_eigh", complex_scatter_eigh,
           [zz, hz, np.array([0, 5, 0], np.int32)], 2 ** 20)
