"""More whole JAX programs for program_coverage.py, in the form
program_cases.py gives them: (name, function, arguments, tolerance factor).
These reach the library layers users call rather than lax itself: jnp.linalg
and jax.scipy.linalg beyond the basics, jnp.fft's real and n-dimensional
transforms, sorting and set operations with static sizes, einsum patterns,
grouped and dilated convolutions, jax.nn activations and initializers,
jax.random's distributions and key handling, promotion across integer
widths, NaN-aware statistics, custom derivatives, remat, higher-order
autodiff, vmapped control flow, padding modes, resizing, and a few small
end-to-end algorithms (k-means, a Gaussian process, ODE integration,
BFGS, an HMM)."""

import functools

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
from jax import lax

BF16 = ml_dtypes.bfloat16
_rng = np.random.default_rng(11)


def normal(*shape, dtype=np.float32, scale=1.0):
    return (_rng.standard_normal(shape) * scale).astype(dtype)


def ints(lo, hi, *shape, dtype=np.int32):
    return _rng.integers(lo, hi, shape).astype(dtype)


def _spd(a):
    n = a.shape[-1]
    return a @ jnp.swapaxes(a, -1, -2) + n * jnp.eye(n, dtype=a.dtype)


# --- Linear algebra ---------------------------------------------------------


def svd_programs(a):
    # Singular vectors are unique up to sign: compare products and values.
    u, s, vh = jnp.linalg.svd(a, full_matrices=False)
    uf, _, vhf = jnp.linalg.svd(a, full_matrices=True)
    return (s, (u * s) @ vh, jnp.linalg.svd(a, compute_uv=False),
            jnp.abs(uf.T @ uf), jnp.abs(vhf @ vhf.T), jnp.linalg.norm(a, 2),
            jnp.linalg.norm(a, "nuc"), jnp.linalg.norm(a, -2),
            jnp.linalg.matrix_rank(a), jnp.linalg.cond(a))


def qr_modes(a):
    q, r = jnp.linalg.qr(a, mode="complete")
    r2 = jnp.linalg.qr(a, mode="r")
    qb, rb = jnp.linalg.qr(jnp.stack([a, 2 * a]))
    return q @ r, jnp.abs(r2), jnp.abs(jnp.diagonal(rb, axis1=1, axis2=2)), \
        qb @ rb


def lu_and_solves(a, b):
    p, l, u = jax.scipy.linalg.lu(a)
    lu, piv = jax.scipy.linalg.lu_factor(a)
    x = jax.scipy.linalg.lu_solve((lu, piv), b)
    return (p, l, u, lu, piv, x, jnp.linalg.solve(a, b),
            jax.scipy.linalg.solve(_spd(a), b, assume_a="pos"))


def det_slogdet_batched(a):
    sign, logdet = jnp.linalg.slogdet(a)
    return (jnp.linalg.det(a), sign, logdet, jnp.linalg.inv(a),
            jnp.linalg.matrix_power(a, -2), jnp.linalg.matrix_power(a, 5))


def triangular_variants(a, b):
    t = jnp.tril(a) + 4 * jnp.eye(a.shape[0], dtype=a.dtype)
    st = jax.scipy.linalg.solve_triangular
    return (st(t, b, lower=True, unit_diagonal=True),
            st(t.T, b, lower=False, trans="T"),
            lax.linalg.triangular_solve(t, b.T, left_side=False, lower=True,
                                        transpose_a=True),
            jax.vmap(lambda m, v: st(m, v, lower=True))(
                jnp.stack([t, t * 2]), jnp.stack([b, -b])))


def eigh_and_functions(a):
    s = _spd(a)
    w = jnp.linalg.eigvalsh(s)
    wl, vl = jnp.linalg.eigh(s, UPLO="U")
    # No sqrtm, eig or roots: jax has no lowering of schur and eig for
    # platforms other than its CPU (README, the JAX plugin).
    return (w, wl, jnp.abs(vl), jax.scipy.linalg.expm(a * 0.3),
            jax.scipy.linalg.expm(s * 0.05),
            jnp.linalg.pinv(a[:, :3]), jnp.linalg.lstsq(a[:, :3], a)[0])


def complex_linalg(z, b):
    h = z @ jnp.conj(z.T) + 4 * jnp.eye(z.shape[0], dtype=z.dtype)
    w, _ = jnp.linalg.eigh(h)
    return (w, jnp.linalg.cholesky(h), jnp.linalg.solve(z, b),
            jnp.linalg.det(z), jnp.linalg.inv(h), jnp.vdot(z, b[:, 0][:, None]
                                                          * z))


def gaussian_process(x, y, xs):
    def k(a, b):
        d = jnp.sum((a[:, None] - b[None]) ** 2, -1)
        return jnp.exp(-0.5 * d / 0.7 ** 2)
    kxx = k(x, x) + 0.1 * jnp.eye(x.shape[0], dtype=x.dtype)
    c = jax.scipy.linalg.cho_factor(kxx)
    alpha = jax.scipy.linalg.cho_solve(c, y)
    ks = k(xs, x)
    v = jax.scipy.linalg.solve_triangular(c[0], ks.T, lower=c[1])
    mll = (-0.5 * y @ alpha - jnp.sum(jnp.log(jnp.diag(c[0]))))
    return ks @ alpha, jnp.diag(k(xs, xs)) - jnp.sum(v * v, 0), mll


def vector_products(a, b):
    return (jnp.cross(a[:, :3], b[:, :3]), jnp.linalg.multi_dot(
        [a, b.T, a]), jnp.tensordot(a, b, axes=([0], [0])),
        jnp.tensordot(a, b, 0).sum((1, 3)), jnp.inner(a, b),
        jnp.linalg.vector_norm(a, ord=3, axis=1), jnp.linalg.norm(
            a, -jnp.inf), jnp.linalg.norm(a, 0, axis=1),
        jnp.linalg.matrix_norm(a, ord="fro"))


# --- FFT --------------------------------------------------------------------


def real_ffts(x):
    y = jnp.fft.rfft(x, n=20, axis=1)
    return (y, jnp.fft.irfft(y, n=20, axis=1), jnp.fft.rfft2(x),
            jnp.fft.irfft2(jnp.fft.rfft2(x), s=x.shape),
            jnp.fft.hfft(y[:, :5]), jnp.fft.ihfft(x[0]),
            jnp.fft.rfftfreq(16, 0.1), jnp.fft.fftshift(x, axes=1))


def nd_ffts(z):
    return (jnp.fft.fftn(z), jnp.fft.ifftn(jnp.fft.fftn(z, axes=(0, 2)),
                                           axes=(0, 2)),
            jnp.fft.fft2(z, s=(5, 6), axes=(1, 2)),
            jnp.fft.ifft(z, n=3, axis=1, norm="ortho"),
            jnp.fft.fft(z, norm="forward"), jnp.fft.ifftshift(z))


def stft_magnitudes(x):
    frame, hop = 16, 8
    n = (x.shape[-1] - frame) // hop + 1
    idx = jnp.arange(frame)[None] + hop * jnp.arange(n)[:, None]
    frames = x[..., idx] * jnp.hanning(frame).astype(x.dtype)
    spec = jnp.fft.rfft(frames, axis=-1)
    mag = jnp.abs(spec)
    return mag, jnp.log1p(mag) @ jnp.ones((frame // 2 + 1, 4), x.dtype)


def fft_convolution(x, k):
    n = x.shape[-1] + k.shape[-1] - 1
    y = jnp.fft.irfft(jnp.fft.rfft(x, n) * jnp.fft.rfft(k, n), n)
    return y, jax.scipy.signal.fftconvolve(x, k, mode="same")


# --- Sorting, searching, sets ----------------------------------------------


def sort_orders(x, keys2):
    return (jnp.argsort(x, axis=1, stable=True, descending=True),
            jnp.sort(x, axis=0, descending=True),
            jnp.lexsort((keys2, x[0])), jnp.argsort(keys2, stable=True),
            jnp.partition(x, 2, axis=1), jnp.argpartition(x[0], 3)[:3].sort(),
            jnp.sort_complex(x[0] + 1j * keys2))


def searchsorted_methods(sorted_x, q):
    out = []
    for method in ("scan", "scan_unrolled", "sort", "compare_all"):
        out.append(jnp.searchsorted(sorted_x, q, side="left", method=method))
        out.append(jnp.searchsorted(sorted_x, q, side="right", method=method))
    return out + [jnp.digitize(q, sorted_x), jnp.digitize(q, sorted_x, True)]


def unique_with_size(x):
    u, idx, inv, cnt = jnp.unique(x, return_index=True, return_inverse=True,
                                  return_counts=True, size=10, fill_value=0)
    return (u, idx, inv, cnt, jnp.unique(x.reshape(4, 5), axis=0, size=4),
            jnp.unique_values(jnp.abs(x), size=6, fill_value=-1)
            if hasattr(jnp, "unique_values") else u)


def set_operations(a, b):
    return (jnp.isin(a, b), jnp.setdiff1d(a, b, size=6, fill_value=-1),
            jnp.union1d(a, b, size=12, fill_value=-1),
            jnp.intersect1d(a, b, size=5, fill_value=-1),
            jnp.setxor1d(a, b, size=8, fill_value=-1), jnp.in1d(a, b)
            if hasattr(jnp, "in1d") else jnp.isin(a, b))


def topk_variants(x, xi):
    v, i = lax.top_k(x, 6)
    vi, ii = lax.top_k(xi, 3)
    # approx_max_k becomes a sort whose comparator (a > b) is no order over
    # NaN, where XLA leaves the result unspecified: no NaN in its input.
    xf = jnp.nan_to_num(x)
    vn, _ = lax.top_k(-x, 1)
    return v, i, vi, ii, vn, lax.approx_max_k(xf, 4)[1], lax.approx_min_k(
        xf, 2)[0]


def nonzero_with_size(x):
    m = x > 0.3
    return (jnp.nonzero(m, size=9, fill_value=-1), jnp.argwhere(
        m, size=5), jnp.flatnonzero(m, size=4), jnp.compress(
            m[0], x[0], size=4), jnp.extract(m, x, size=6, fill_value=9.0),
        jnp.count_nonzero(m), jnp.where(m, x, -x))


def beam_top_p_sampling(logits, seed):
    k = jax.random.key(seed)
    order = jnp.argsort(logits, axis=-1, descending=True)
    sl = jnp.take_along_axis(logits, order, -1)
    cum = jnp.cumsum(jax.nn.softmax(sl, -1), -1)
    keep = cum - jax.nn.softmax(sl, -1) < 0.8
    masked = jnp.where(keep, sl, -jnp.inf)
    pick = jax.random.categorical(k, masked, -1)
    tok = jnp.take_along_axis(order, pick[:, None], -1)[:, 0]
    scores, beams = lax.top_k(jax.nn.log_softmax(logits).reshape(-1), 4)
    return tok, keep, scores, beams // logits.shape[1], beams % logits.shape[1]


# --- Cumulative and difference operations -----------------------------------


def cumulative_more(x, xi):
    return (jax.lax.cumlogsumexp(x, 1, reverse=True),
            jnp.cumprod(x[:, :8], 1, dtype=jnp.float64),
            jnp.nancumsum(jnp.where(x > 1, jnp.nan, x), 0),
            jnp.nancumprod(jnp.where(x > 1, jnp.nan, x)[:, :5], 1),
            jnp.cumsum(xi, 1, dtype=jnp.int8), lax.cummin(xi, 1),
            jnp.cumsum(x > 0, 1), lax.cumprod(xi, 0, reverse=True),
            jnp.diff(x, 2, axis=1), jnp.ediff1d(x[0], to_begin=x[1, :2]),
            jnp.gradient(x, axis=1), jnp.trapezoid(x, dx=0.5, axis=1))


# --- Einsum -----------------------------------------------------------------


def einsum_patterns(a, b, c, v):
    return (jnp.einsum("ii", a), jnp.einsum("ii->i", a), jnp.einsum(
        "i,j->ij", v, v), jnp.einsum("...ij,...jk->...ik", b, c),
        jnp.einsum("ijk->kji", b), jnp.einsum("abc,cd,de->abe", b, c[0], a),
        jnp.einsum("ij,ij->", a, a), jnp.einsum("bij,j->bi", b, v),
        jnp.einsum("bij,bkj->bik", b, b), jnp.einsum("i,i", v, v),
        jnp.einsum("ab,cd->acbd", a[:2], a[:, :3]),
        jnp.einsum("bij,bij,bij->bj", b, b, b), jnp.einsum(
            "ij,jk", a, a, precision="highest", optimize="greedy"))


def int_einsum(a, b):
    return (jnp.einsum("bij,bjk->bik", a, b,
                       preferred_element_type=jnp.int32),
            jnp.einsum("bij,bjk->bk", a.astype(jnp.int16),
                       b.astype(jnp.int16)),
            jnp.matmul(a, b), lax.dot_general(
                a, b, (((2,), (1,)), ((0,), (0,))),
                preferred_element_type=jnp.int64))


def dot_general_preferred(a, b):
    out = []
    for t in (jnp.float16, BF16):
        out.append(lax.dot_general(a.astype(t), b.astype(t),
                                   (((1,), (0,)), ((), ())),
                                   preferred_element_type=jnp.float32))
        out.append(jnp.matmul(a.astype(t), b.astype(t)))
    out.append(lax.dot_general(a.astype(jnp.uint8), b.astype(jnp.uint8),
                               (((1,), (0,)), ((), ())),
                               preferred_element_type=jnp.uint32))
    out.append(lax.dot_general(a, b.astype(jnp.float64),
                               (((1,), (0,)), ((), ()))))
    return out


# --- Convolutions and pooling -----------------------------------------------


def conv_groups_dilations(x, w, wd):
    a = lax.conv_general_dilated(x, w, (1, 1), ((2, 1), (0, 2)),
                                 lhs_dilation=(2, 1), rhs_dilation=(1, 2),
                                 dimension_numbers=("NCHW", "OIHW", "NCHW"),
                                 feature_group_count=2)
    b = lax.conv_general_dilated(x, wd, (2, 1), "SAME",
                                 dimension_numbers=("NCHW", "OIHW", "NCHW"),
                                 feature_group_count=x.shape[1])
    return a, b


def conv_batch_group(x, w):
    return lax.conv_general_dilated(
        x, w, (1, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC"),
        batch_group_count=2)


def conv_transpose_kernel(x, w):
    return (lax.conv_transpose(x, w.transpose(0, 1, 3, 2), (2, 2), "SAME",
                               transpose_kernel=True,
                               dimension_numbers=("NHWC", "HWIO", "NHWC")),
            lax.conv_transpose(x, w, (3, 2),
                               ((1, 2), (0, 1)),
                               dimension_numbers=("NHWC", "HWIO", "NHWC")))


def conv_int_and_half(x, w):
    xi = jnp.round(x * 3).astype(jnp.int8)
    wi = jnp.round(w * 3).astype(jnp.int8)
    dn = ("NHWC", "HWIO", "NHWC")
    return (lax.conv_general_dilated(xi, wi, (1, 1), "SAME",
                                     dimension_numbers=dn,
                                     preferred_element_type=jnp.int32),
            lax.conv_general_dilated(x.astype(jnp.float16),
                                     w.astype(jnp.float16), (2, 2), "VALID",
                                     dimension_numbers=dn,
                                     preferred_element_type=jnp.float32),
            lax.conv_general_dilated(x.astype(BF16), w.astype(BF16), (1, 1),
                                     "SAME", dimension_numbers=dn))


def pooling_more(x, x1, x3):
    avg_pad = lax.reduce_window(x, np.float32(0), lax.add, (1, 3, 3, 1),
                                (1, 2, 2, 1),
                                ((0, 0), (1, 1), (1, 1), (0, 0))) / 9.0
    inf = np.float32(np.inf)
    mn = lax.reduce_window(x, inf, lax.min, (1, 2, 3, 1), (1, 3, 1, 1),
                           "SAME")
    p1 = lax.reduce_window(x1, -inf, lax.max, (1, 4, 1), (1, 3, 1),
                           "SAME")
    p3 = lax.reduce_window(x3, np.float32(0), lax.add, (1, 2, 2, 2, 1),
                           (1, 2, 2, 2, 1),
                           "VALID")
    prod = lax.reduce_window(x1, np.float32(1), lax.mul, (1, 3, 1),
                             (1, 1, 1), "VALID")
    global_max = jnp.max(x, (1, 2))
    return avg_pad, mn, p1, p3, prod, global_max


def lp_pool_grad(x):
    def f(x):
        p = lax.reduce_window(jnp.abs(x) ** 3, 0.0, lax.add, (1, 2, 2, 1),
                              (1, 1, 1, 1), "SAME")
        m = lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 2, 1),
                              (1, 2, 1, 1), ((0, 0), (1, 1), (0, 1), (0, 0)))
        return jnp.sum(p ** (1 / 3)) + jnp.sum(m * m)
    return jax.grad(f)(x)


def resnet_block_bn(x, w1, w2, gamma, beta):
    def bn(h, g, b):
        mu = h.mean((0, 1, 2))
        var = h.var((0, 1, 2))
        return (h - mu) * lax.rsqrt(var + 1e-5) * g + b, mu, var
    dn = ("NHWC", "HWIO", "NHWC")
    h = lax.conv_general_dilated(x, w1, (1, 1), "SAME", dimension_numbers=dn)
    h, mu, var = bn(h, gamma, beta)
    h = jax.nn.relu(h)
    h = lax.conv_general_dilated(h, w2, (1, 1), "SAME", dimension_numbers=dn)
    return jax.nn.relu(h + x), 0.9 * mu + 0.1, 0.9 * var + 0.1


def group_norm_conv_grad(x, w):
    def f(x, w):
        h = lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                     dimension_numbers=("NHWC", "HWIO",
                                                        "NHWC"))
        b, hh, ww, c = h.shape
        g = h.reshape(b, hh, ww, 2, c // 2)
        mu = g.mean((1, 2, 4), keepdims=True)
        var = g.var((1, 2, 4), keepdims=True)
        g = ((g - mu) * lax.rsqrt(var + 1e-5)).reshape(h.shape)
        return jnp.sum(jax.nn.swish(g) ** 2)
    return jax.grad(f, argnums=(0, 1))(x, w)


# --- jax.nn -----------------------------------------------------------------


def activations(x):
    n = jax.nn
    return (n.gelu(x, approximate=True), n.gelu(x, approximate=False),
            n.softplus(x * 30), n.log_sigmoid(x * 30), n.celu(x, 0.5),
            n.elu(x), n.selu(x), n.glu(x, -1), n.hard_tanh(x),
            n.hard_sigmoid(x), n.hard_swish(x), n.relu6(x * 4),
            n.leaky_relu(x, 0.2), n.silu(x), n.mish(x), n.soft_sign(x),
            n.sparse_plus(x), n.squareplus(x), n.sparse_sigmoid(x)
            if hasattr(n, "sparse_sigmoid") else x)


def softmax_variants(x, m):
    n = jax.nn
    return (n.log_softmax(x, -1), n.softmax(x, 0),
            n.softmax(x, -1, where=m), n.log_softmax(x, -1, where=m),
            jax.scipy.special.logsumexp(x, 1, where=m),
            jax.scipy.special.logsumexp(x, 1, b=jnp.where(m, 2.0, -1.0),
                                        return_sign=True),
            n.standardize(x, -1), n.one_hot(jnp.argmax(x, 1), 5, axis=0),
            n.one_hot(jnp.array([0, 2, -1, 7]), 4, dtype=jnp.int8))


def initializers(seed):
    k = jax.random.key(seed)
    ks = jax.random.split(k, 6)
    i = jax.nn.initializers
    return (i.glorot_uniform()(ks[0], (4, 6)), i.he_normal()(ks[1], (3, 3, 2,
                                                                     4)),
            i.lecun_normal()(ks[2], (5, 3)), i.orthogonal()(ks[3], (4, 4)),
            i.variance_scaling(2.0, "fan_avg", "truncated_normal")(
                ks[4], (6, 2)), i.uniform(0.5)(ks[5], (3,), BF16))


def losses(logits, labels, y):
    logp = jax.nn.log_softmax(logits)
    n = logits.shape[-1]
    smooth = jax.nn.one_hot(labels, n, dtype=logits.dtype) * 0.9 + 0.1 / n
    valid = labels != 2
    ce = -jnp.sum(smooth * logp, -1)
    masked = jnp.sum(jnp.where(valid, ce, 0)) / jnp.maximum(valid.sum(), 1)
    p = jnp.exp(jnp.take_along_axis(logp, labels[:, None], -1))[:, 0]
    focal = -((1 - p) ** 2) * jnp.log(p)
    d = logits[:, 0] - y
    huber = jnp.where(jnp.abs(d) < 1, 0.5 * d * d, jnp.abs(d) - 0.5)
    bce = jnp.maximum(logits[:, 1], 0) - logits[:, 1] * (y > 0) + jnp.log1p(
        jnp.exp(-jnp.abs(logits[:, 1])))
    return masked, focal, huber, bce, jax.grad(lambda l: jnp.mean(
        -jnp.sum(smooth * jax.nn.log_softmax(l), -1)))(logits)


# --- Random -----------------------------------------------------------------


def random_keys(seed):
    k = jax.random.key(seed)
    a, b = jax.random.split(k)
    f = jax.random.fold_in(k, 7)
    ks = jax.random.split(f, (2, 3))
    old = jax.random.PRNGKey(seed)
    return (jax.random.key_data(a), jax.random.key_data(b),
            jax.random.key_data(ks), jax.random.split(old, 4),
            jax.random.fold_in(old, 2 ** 31 - 1),
            jax.vmap(lambda kk: jax.random.uniform(kk, (2,)))(ks.reshape(-1)))


def random_distributions(seed):
    k = jax.random.key(seed)
    ks = jax.random.split(k, 12)
    r = jax.random
    cov = jnp.array([[2.0, 0.3], [0.3, 1.0]])
    return (r.gumbel(ks[0], (5,)), r.categorical(ks[1], jnp.zeros((3, 6)),
                                                  axis=1),
            r.truncated_normal(ks[2], jnp.array([-2.0, 0.0]), 1.5, (3, 2)),
            r.permutation(ks[3], jnp.arange(12.0).reshape(3, 4), axis=1,
                          independent=True),
            r.choice(ks[4], 10, (6,), p=jnp.arange(10.0) / 45),
            r.choice(ks[5], jnp.arange(20), (5,), replace=False,
                     p=jnp.ones(20) / 20), r.bernoulli(ks[6], jnp.array(
                         [0.0, 0.5, 1.0])), r.cauchy(ks[7], (4,)),
            r.rademacher(ks[8], (6,)), r.multivariate_normal(
                ks[9], jnp.zeros(2), cov, (3,)), r.dirichlet(
                    ks[10], jnp.array([1.0, 2.0, 0.5]), (2,)),
            r.t(ks[11], 3.0, (3,)), r.orthogonal(ks[0], 3),
            r.ball(ks[1], 3, shape=(2,)), r.maxwell(ks[2], (3,)),
            r.loggamma(ks[3], 0.3, (3,)), r.logistic(ks[4], (3,)),
            r.geometric(ks[5], 0.3, (4,)), r.binomial(ks[6], 10, 0.3, (4,)))


def randint_dtypes(seed):
    k = jax.random.key(seed)
    out = []
    for i, t in enumerate((jnp.int8, jnp.uint8, jnp.int16, jnp.uint16,
                           jnp.int32, jnp.uint32, jnp.int64, jnp.uint64)):
        kk = jax.random.fold_in(k, i)
        info = np.iinfo(t)
        lo, hi = max(int(info.min), -2 ** 62), min(int(info.max), 2 ** 62)
        out.append(jax.random.randint(kk, (7,), lo, hi, t))
        out.append(jax.random.randint(kk, (3,), 0, 3, t))
    out.append(jax.random.bits(k, (5,), jnp.uint16))
    out.append(jax.random.uniform(k, (4,), jnp.float16, -2, 3))
    out.append(jax.random.uniform(k, (4,), jnp.float64))
    out.append(jax.random.normal(k, (3,), jnp.complex64))
    return out


def rbg_impls(seed):
    out = []
    for impl in ("rbg", "unsafe_rbg", "threefry2x32"):
        k = jax.random.key(seed, impl=impl)
        k1, k2 = jax.random.split(k)
        out += [jax.random.normal(k1, (4,)), jax.random.randint(
            jax.random.fold_in(k2, 3), (5,), 0, 50),
            jax.random.permutation(k2, 8), jax.random.gumbel(k1, (3,))]
    return out


# --- Integers and promotion --------------------------------------------------


def mixed_promotion(i8, u8, i16, u32, b):
    return (i8 + u8, i8 * i16, u32 + i8, u8 - u32, b + b, b * i8,
            b.astype(jnp.int32) - 1, i16 / u8.astype(jnp.int16),
            i8 * 2.5, u8 + 300, i16.astype(jnp.float16) * np.float16(0.5),
            jnp.true_divide(i8, 3), u8 // 7, u32 % 3, b & (i8 > 0),
            jnp.float32(1.5) + i16, jnp.power(i8, 2), ~u8, ~b)


def negative_division(a, b, x, y):
    bs = jnp.where(b == 0, 1, b)
    q, r = jnp.divmod(a, bs)
    fq, fr = jnp.divmod(x, y)
    return (q, r, jnp.floor_divide(a, bs), jnp.remainder(a, bs),
            jnp.fmod(a, bs), fq, fr, jnp.trunc(x), jnp.ceil(x), jnp.floor(x),
            jnp.round(x * 10, -1), jnp.round(x, 1), jnp.around(x + 0.5),
            jnp.rint(x * 2) / 2, lax.round(x * 2, lax.RoundingMethod.
                                           AWAY_FROM_ZERO),
            lax.clamp(jnp.int8(-3), a, jnp.int8(5)), jnp.clip(x, y, y + 1))


def bit_manipulation(u, s):
    sh = (jnp.abs(s) % 40).astype(u.dtype)
    return (u << sh, u >> sh, lax.shift_right_logical(s, sh.astype(s.dtype)),
            lax.shift_right_arithmetic(s, sh.astype(s.dtype)),
            jnp.bitwise_count(u) if hasattr(jnp, "bitwise_count")
            else lax.population_count(u), lax.clz(s), jnp.invert(s),
            jnp.left_shift(s, 1), u ^ (u >> 3), jnp.packbits(u & 1),
            jnp.unpackbits(u.astype(jnp.uint8)), jnp.gcd(s, 12),
            jnp.lcm(s % 10, 4))


def wraparound_arith(a, b):
    return (a * b, a + b, jnp.abs(a), -a, jnp.sum(a), jnp.prod(a[:5]),
            (a * 65537) >> 3, a.astype(jnp.int8), a.astype(jnp.uint16),
            jnp.maximum(a, b), jnp.sign(a), lax.div(a, jnp.where(b == 0, 1,
                                                                b)))


def float_bits(x):
    m, e = jnp.frexp(x)
    fm, ip = jnp.modf(x)
    return (m, e, jnp.ldexp(m, e), fm, ip, lax.bitcast_convert_type(
        x, jnp.int32), lax.bitcast_convert_type(x.astype(jnp.float16),
                                                jnp.uint16),
        lax.bitcast_convert_type(x[:4].astype(jnp.float64), jnp.uint32),
        jnp.signbit(x), jnp.spacing(x) if hasattr(jnp, "spacing") else x,
        jnp.nextafter(x, jnp.inf), jnp.float_power(jnp.abs(x), 1.5))


# --- NaN handling and statistics --------------------------------------------


def nan_statistics(x):
    return (jnp.nan_to_num(x), jnp.nan_to_num(x, nan=-1.0, posinf=9.0,
                                              neginf=-9.0),
            jnp.nanvar(x, 0), jnp.nanstd(x, 1, ddof=1), jnp.nanprod(x, 1),
            jnp.nanmedian(x, 0), jnp.nanpercentile(x, 30.0, axis=1),
            jnp.isclose(x, x[::-1]), jnp.isclose(x, x + 1e-7, equal_nan=True),
            jnp.isnan(x).sum(), jnp.isinf(x), jnp.isposinf(x),
            jnp.fmax(x, x[::-1]), jnp.fmin(x, 0.0), jnp.maximum(x, x[::-1]),
            jnp.nanquantile(x, jnp.array([0.0, 0.5, 1.0]), axis=0))


def argminmax_ties(x, xi, b):
    return (jnp.argmax(x, 1), jnp.argmin(x, 0), jnp.argmax(x, 1,
                                                           keepdims=True),
            jnp.argmax(xi, 0), jnp.argmin(xi, 1), jnp.argmax(b, 1),
            jnp.argmin(b, 0), jnp.nanargmax(x[:, :3], 0),
            jnp.argmax(x.astype(BF16), 0), jnp.argmin(x.astype(jnp.float16),
                                                      1))


def statistics(x, w):
    return (jnp.cov(x), jnp.corrcoef(x), jnp.average(x, 1, w),
            jnp.average(x, 0, returned=True), jnp.ptp(x, 1),
            jnp.var(x, 0, ddof=1), jnp.std(x), jnp.median(x, 1),
            jnp.mean(x, where=x > 0), jnp.max(x, 1, initial=0.5,
                                              where=x < 1),
            jnp.sum(x, 0, where=x > -0.5), jnp.histogram(
                x.ravel(), bins=jnp.array([-3.0, -1, 0, 0.5, 3])),
            jnp.bincount(jnp.abs(x * 3).astype(jnp.int32).ravel(), w.repeat(
                x.shape[0] * x.shape[1] // w.shape[0]), length=8),
            jnp.histogram2d(x[0], x[1], bins=3, range=((-2, 2), (-2, 2)))[0])


# --- Complex numbers ---------------------------------------------------------


def complex_programs_2(z, w):
    c = lax.complex(jnp.real(z), jnp.imag(w))
    return (z @ w, jnp.abs(z), jnp.angle(w, deg=True), jnp.conj(z) * w,
            jnp.fft.ifft(jnp.fft.fft(z)), jnp.sqrt(c), jnp.log(w + 2),
            jnp.exp(z) / (1 + jnp.abs(w)), jnp.power(z, 2.5), z ** w,
            jnp.sum(z, 0), jnp.cumprod(z[:, :3], 1), jnp.einsum(
                "ij,jk->ik", z, jnp.conj(w)), jnp.sign(z) if z.dtype ==
            jnp.complex128 else jnp.real(z), jnp.arctan(z), jnp.arcsinh(w),
            jnp.cos(z), jnp.reciprocal(w), z == w, jnp.isfinite(z / 0.0))


def complex_grad(z):
    f = lambda z: jnp.sum(jnp.abs(jnp.sin(z) * jnp.conj(z)) ** 2)
    return jax.grad(f)(z), jax.grad(lambda x: jnp.real(jnp.sum(
        jnp.exp(1j * x) ** 2)))(jnp.real(z))


# --- Autodiff ----------------------------------------------------------------


@jax.custom_jvp
def _log1pexp(x):
    return jnp.log1p(jnp.exp(x))


@_log1pexp.defjvp
def _log1pexp_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return _log1pexp(x), t * jax.nn.sigmoid(x)


@jax.custom_vjp
def _clip_grad(x):
    return x


_clip_grad.defvjp(lambda x: (x, None),
                  lambda _, g: (jnp.clip(g, -0.1, 0.1),))


def custom_derivatives(x):
    f = lambda x: jnp.sum(_log1pexp(x) * _clip_grad(x * 3))
    return (f(x), jax.grad(f)(x), jax.jvp(_log1pexp, (x,), (jnp.ones_like(
        x),))[1], jax.grad(lambda x: jnp.sum(_log1pexp(x * 100)))(x))


def remat_scan(w, xs):
    @functools.partial(jax.checkpoint,
                       policy=jax.checkpoint_policies.dots_saveable)
    def layer(h, x):
        h = jnp.tanh(h @ w + x)
        return jnp.sin(h) * h

    def loss(w):
        def step(h, x):
            h = layer(h, x)
            return h, jnp.sum(h)
        h, ys = lax.scan(step, jnp.zeros(w.shape[0]), xs)
        return jnp.sum(ys) + jnp.sum(h ** 2)
    return jax.value_and_grad(loss)(w), jax.grad(
        jax.remat(lambda x: jnp.sum(jnp.exp(jnp.sin(x) @ w))))(xs)


def higher_order(x, w):
    f = lambda x: jnp.sum(jnp.tanh(x @ w) ** 2) + jnp.sum(x ** 3)
    g = lambda x: jnp.tanh(x @ w)
    return (jax.hessian(f)(x), jax.jacfwd(g)(x), jax.jacrev(g)(x),
            jax.grad(jax.grad(lambda s: jnp.sum(jnp.sin(s * x))))(
                np.float32(1.5)),
            jax.jvp(jax.grad(f), (x,), (jnp.ones_like(x),))[1])


def linearize_vjp_scan(x, ws):
    def f(x):
        return lax.scan(lambda c, w: (jnp.sin(c * w) + c, c.sum()), x, ws)
    y, lin = jax.linearize(f, x)
    out, vjp = jax.vjp(f, x)
    return y, lin(jnp.ones_like(x)), vjp(out)[0]


def newton_while(a, b):
    def f(x):
        return jnp.tanh(a @ x) + x ** 3 - b

    def body(s):
        x, i = s
        j = jax.jacfwd(f)(x)
        return x - jnp.linalg.solve(j, f(x)), i + 1
    x, it = lax.while_loop(
        lambda s: (jnp.max(jnp.abs(f(s[0]))) > 1e-5) & (s[1] < 30), body,
        (jnp.zeros_like(b), 0))
    return x, it


# --- Control flow ------------------------------------------------------------


def cond_switch_in_scan(xs, idx):
    def step(c, inp):
        x, i = inp
        c = lax.switch(i, [lambda c: c + x, lambda c: c * jnp.cos(x),
                           lambda c: jnp.roll(c, 1) - x], c)
        c = lax.cond(jnp.sum(c) > 0, lambda c: c * 0.5, lambda c: c, c)
        return c, jnp.max(c)
    return lax.scan(step, jnp.ones(xs.shape[1]), (xs, idx))


def vmap_while_trip_counts(x0, limits):
    def one(x, lim):
        return lax.while_loop(lambda s: s[1] < lim,
                              lambda s: (s[0] * 1.1 + jnp.sin(s[0]),
                                         s[1] + 1), (x, 0))
    return jax.vmap(one)(x0, limits)


def vmap_scan_and_fori(xs, w):
    def run(x):
        return lax.scan(lambda c, r: (jnp.tanh(c @ w + r), c), jnp.zeros(
            w.shape[0]), x, reverse=True)
    def dus(x):
        def body(i, buf):
            return lax.dynamic_update_slice(buf, x[i][None] * i, (i, 0))
        return lax.fori_loop(0, x.shape[0], body, jnp.zeros_like(x))
    return jax.vmap(run)(xs), jax.vmap(dus)(xs)


def nested_vmap_gather(x, idx):
    g = jax.vmap(jax.vmap(lambda row, i: row[i], in_axes=(None, 0)),
                 in_axes=(0, 0))
    h = jax.vmap(jax.vmap(lambda m, i: m[i, ::-1][:2]), in_axes=(None, 1))
    return g(x[:, 0], idx), h(x, idx)


def lax_map_batched(x):
    f = lambda r: (jnp.sort(r) * jnp.arange(r.shape[0]), jnp.linalg.norm(r))
    return lax.map(f, x, batch_size=3), lax.map(f, x)


def scan_unroll(xs):
    step = lambda c, x: (c * 0.9 + x, jnp.cumsum(c))
    count = lambda c, _: (c * 1.5 + 1, c.sum())
    return (lax.scan(step, jnp.zeros(xs.shape[1]), xs, unroll=3),
            lax.scan(step, jnp.zeros(xs.shape[1]), xs, unroll=True,
                     reverse=True), lax.scan(count, xs[0], None, length=4))


def while_mixed_state(x):
    def body(s):
        i, acc, flag, cnt, hist = s
        acc = acc + x[i % x.shape[0]]
        flag = flag ^ (acc.sum() > 0)
        cnt = cnt + flag.astype(jnp.int64)
        hist = hist.at[i % 4].add(jnp.uint8(3))
        return i + 1, acc, flag, cnt, hist
    return lax.while_loop(lambda s: s[0] < 11, body,
                          (0, jnp.zeros(x.shape[1], x.dtype),
                           jnp.bool_(False), jnp.int64(0),
                           jnp.zeros(4, jnp.uint8)))


def kv_cache_decode(q, k, v, cache_k, cache_v):
    # Grouped-query attention over a cache filled step by step.
    def step(i, c):
        ck, cv = c
        kc = lax.dynamic_slice_in_dim(k, i, 1, 1)
        vc = lax.dynamic_slice_in_dim(v, i, 1, 1)
        ck = lax.dynamic_update_slice(ck, kc, (0, i, 0, 0))
        cv = lax.dynamic_update_slice(cv, vc, (0, i, 0, 0))
        return ck, cv
    ck, cv = lax.fori_loop(0, k.shape[1], step, (cache_k, cache_v))
    rep = q.shape[2] // ck.shape[2]
    kk, vv = jnp.repeat(ck, rep, 2), jnp.repeat(cv, rep, 2)
    s = jnp.einsum("bqhd,bkhd->bhqk", q, kk) / np.float32(np.sqrt(
        q.shape[-1]))
    valid = jnp.arange(ck.shape[1]) < k.shape[1]
    s = jnp.where(valid, s, -jnp.inf)
    return jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(s, -1), vv), ck


def rotary_embedding(x):
    t, d = x.shape[1], x.shape[-1]
    inv = 1.0 / (10000 ** (jnp.arange(0, d, 2, dtype=jnp.float32) / d))
    ang = jnp.arange(t, dtype=jnp.float32)[:, None] * inv[None]
    cos, sin = jnp.cos(ang)[None, :, None], jnp.sin(ang)[None, :, None]
    x1, x2 = x[..., ::2], x[..., 1::2]
    y = jnp.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], -1)
    return y.reshape(x.shape), jnp.concatenate([x2, x1], -1) * 0.5




def all_cases():
    f64 = np.float64
    a5 = normal(5, 5)
    yield "svd_programs/f32", svd_programs, [normal(6, 4)], 4096
    yield "svd_programs/f64", svd_programs, [normal(4, 6, dtype=f64)], 2 ** 24
    yield "qr_modes", qr_modes, [normal(5, 3)], 4096
    yield ("lu_and_solves", lu_and_solves, [a5, normal(5, 2)], 4096)
    yield ("det_slogdet_batched", det_slogdet_batched,
           [normal(3, 4, 4, dtype=f64) + 2 * np.eye(4)], 2 ** 24)
    yield ("triangular_variants", triangular_variants,
           [normal(4, 4), normal(4, 3)], 1024)
    yield ("eigh_and_functions", eigh_and_functions,
           [normal(5, 5, dtype=f64)], 2 ** 26)
    z = (normal(4, 4) + 1j * normal(4, 4)).astype(np.complex64)
    zb = (normal(4, 2) + 1j * normal(4, 2)).astype(np.complex64)
    yield "complex_linalg", complex_linalg, [z, zb], 4096
    yield ("gaussian_process", gaussian_process,
           [normal(8, 2), normal(8), normal(5, 2)], 4096)
    yield "vector_products", vector_products, [normal(4, 5), normal(4, 5)], 64
    yield "real_ffts", real_ffts, [normal(3, 16)], 256
    zc = (normal(4, 5, 6) + 1j * normal(4, 5, 6)).astype(np.complex64)
    yield "nd_ffts", nd_ffts, [zc], 256
    yield "stft_magnitudes", stft_magnitudes, [normal(2, 64)], 256
    yield "fft_convolution", fft_convolution, [normal(20), normal(5)], 256
    sx = ints(0, 4, 4, 7).astype(np.float32)
    sx[1, 2] = np.nan
    yield ("sort_orders", sort_orders, [sx, ints(0, 3, 7).astype(
        np.float32)], 1)
    yield ("searchsorted_methods", searchsorted_methods,
           [np.sort(ints(0, 20, 12)).astype(np.float32),
            np.array([-1, 0, 3, 3.5, 19, 25, 7, 7], np.float32)], 1)
    yield "unique_with_size", unique_with_size, [ints(-3, 4, 20)], 1
    yield ("set_operations", set_operations,
           [ints(0, 8, 7), ints(4, 12, 6)], 1)
    tk = ints(0, 6, 3, 10).astype(np.float32)
    tk[0, 1] = np.nan
    yield ("topk_variants", topk_variants,
           [tk, ints(-5, 5, 3, 10, dtype=np.int8)], 1)
    yield "nonzero_with_size", nonzero_with_size, [normal(3, 5)], 1
    yield ("beam_top_p_sampling", beam_top_p_sampling,
           [normal(3, 9, scale=2), np.uint32(4)], 16)
    yield ("cumulative_more", cumulative_more,
           [normal(4, 12), ints(-3, 4, 4, 12, dtype=np.int8)], 64)
    yield ("einsum_patterns", einsum_patterns,
           [normal(4, 4), normal(3, 4, 4), normal(3, 4, 4), normal(4)], 64)
    yield ("int_einsum", int_einsum,
           [ints(-128, 128, 2, 3, 40, dtype=np.int8),
            ints(-128, 128, 2, 40, 5, dtype=np.int8)], 1)
    yield ("dot_general_preferred", dot_general_preferred,
           [ints(0, 9, 5, 33).astype(np.float32),
            ints(0, 9, 33, 6).astype(np.float32)], 1)
    yield ("conv_groups_dilations", conv_groups_dilations,
           [normal(2, 4, 6, 7), normal(6, 2, 3, 2), normal(8, 1, 3, 3)], 64)
    yield ("conv_batch_group", conv_batch_group,
           [normal(4, 6, 6, 3), normal(3, 3, 3, 6)], 64)
    yield ("conv_transpose_kernel", conv_transpose_kernel,
           [normal(2, 4, 5, 3), normal(3, 3, 3, 4)], 64)
    # Loose: the f16 convolution's f32 sums cancel to near zero, where
    # Eigen's summation order (README, Numerics) shows.
    yield ("conv_int_and_half", conv_int_and_half,
           [normal(2, 7, 7, 4), normal(3, 3, 4, 5, scale=0.5)], 256)
    yield ("pooling_more", pooling_more,
           [normal(2, 9, 8, 3), normal(2, 11, 4), normal(1, 4, 6, 4, 2)], 16)
    yield "lp_pool_grad", lp_pool_grad, [normal(2, 7, 6, 3)], 256
    yield ("resnet_block_bn", resnet_block_bn,
           [normal(2, 6, 6, 4), normal(3, 3, 4, 4, scale=0.3),
            normal(3, 3, 4, 4, scale=0.3), normal(4) + 1, normal(4)], 256)
    yield ("group_norm_conv_grad", group_norm_conv_grad,
           [normal(2, 5, 5, 3), normal(3, 3, 3, 4, scale=0.4)], 1024)
    ax = normal(4, 10, scale=2)
    ax[0, :3] = [0.0, -0.0, 40.0]
    yield "activations", activations, [ax], 64
    yield ("softmax_variants", softmax_variants,
           [normal(4, 5, scale=3), ints(0, 2, 4, 5).astype(bool)], 16)
    yield "initializers", initializers, [np.uint32(3)], 64
    yield ("losses", losses,
           [normal(6, 4), np.array([0, 1, 2, 3, 2, 1], np.int32),
            normal(6)], 16)
    yield "random_keys", random_keys, [np.uint32(9)], 1
    yield "random_distributions", random_distributions, [np.uint32(5)], 256
    yield "randint_dtypes", randint_dtypes, [np.uint32(77)], 1
    yield "rbg_impls", rbg_impls, [np.uint32(21)], 16
    yield ("mixed_promotion", mixed_promotion,
           [ints(-128, 128, 9, dtype=np.int8), ints(0, 256, 9, dtype=np.uint8),
            ints(-2 ** 15, 2 ** 15, 9, dtype=np.int16),
            ints(0, 2 ** 32, 9, dtype=np.uint32), ints(0, 2, 9).astype(bool)],
           1)
    da = ints(-100, 100, 12, dtype=np.int8)
    db = ints(-7, 7, 12, dtype=np.int8)
    da[:3], db[:3] = [-128, -7, 7], [-1, 2, -2]
    fx, fy = normal(12, scale=3), normal(12, scale=2)
    fx[:4] = [2.5, -2.5, 0.5, -1.5]
    yield "negative_division", negative_division, [da, db, fx, fy], 8
    u = ints(0, 2 ** 32, 16, dtype=np.uint32)
    s = ints(-2 ** 31, 2 ** 31, 16, dtype=np.int32)
    yield "bit_manipulation/32", bit_manipulation, [u, s], 1
    yield ("bit_manipulation/64", bit_manipulation,
           [u.astype(np.uint64) << np.uint64(20), s.astype(np.int64) * 977],
           1)
    wa = ints(-2 ** 62, 2 ** 62, 10, dtype=np.int64)
    wa[0] = -2 ** 63
    yield ("wraparound_arith", wraparound_arith,
           [wa, ints(-2 ** 40, 2 ** 40, 10, dtype=np.int64)], 1)
    fb = normal(10, scale=100)
    fb[:5] = [0.0, -0.0, np.inf, 1e-30, 3.0]
    yield "float_bits", float_bits, [fb], 1
    nx = normal(6, 5)
    nx[0, 0] = nx[2, 3] = nx[4, 3] = np.nan
    nx[1, 1], nx[3, 2] = np.inf, -np.inf
    yield "nan_statistics", nan_statistics, [nx], 16
    tx = ints(0, 3, 5, 6).astype(np.float32)
    tx[0, 2] = tx[3, 0] = np.nan
    tx[4, :] = -np.inf
    yield ("argminmax_ties", argminmax_ties,
           [tx, ints(0, 3, 5, 6, dtype=np.uint8), ints(0, 2, 5, 6).astype(
               bool)], 1)
    yield "statistics", statistics, [normal(4, 9), normal(9) ** 2], 64
    for t in (np.complex64, np.complex128):
        z = (normal(4, 4) + 1j * normal(4, 4)).astype(t)
        w = (normal(4, 4) + 1j * normal(4, 4)).astype(t)
        yield (f"complex_programs_2/{np.dtype(t).name}", complex_programs_2,
               [z, w], 64)
    yield "complex_grad", complex_grad, [z.astype(np.complex64)], 64
    yield "custom_derivatives", custom_derivatives, [normal(9)], 16
    yield "remat_scan", remat_scan, [normal(5, 5, scale=0.4), normal(6, 5)], \
        256
    yield "higher_order", higher_order, [normal(4), normal(4, 3)], 256
    yield ("linearize_vjp_scan", linearize_vjp_scan,
           [normal(4), normal(5, 4)], 64)
    yield ("newton_while", newton_while,
           [normal(3, 3, dtype=f64, scale=0.3), normal(3, dtype=f64)], 2 ** 20)
    yield ("cond_switch_in_scan", cond_switch_in_scan,
           [normal(7, 4), np.array([0, 1, 2, 2, 1, 0, 1], np.int32)], 16)
    yield ("vmap_while_trip_counts", vmap_while_trip_counts,
           [normal(5, scale=0.3), np.array([0, 3, 1, 7, 2], np.int32)], 16)
    yield ("vmap_scan_and_fori", vmap_scan_and_fori,
           [normal(3, 5, 4), normal(4, 4, scale=0.4)], 16)
    yield ("nested_vmap_gather", nested_vmap_gather,
           [normal(3, 4, 5), ints(0, 4, 3, 2)], 1)
    yield "lax_map_batched", lax_map_batched, [normal(7, 5)], 4
    yield "scan_unroll", scan_unroll, [normal(7, 3)], 16
    yield "while_mixed_state", while_mixed_state, [normal(3, 4)], 16
    yield ("kv_cache_decode", kv_cache_decode,
           [normal(2, 1, 4, 8), normal(2, 5, 2, 8), normal(2, 5, 2, 8),
            np.zeros((2, 7, 2, 8), np.float32),
            np.zeros((2, 7, 2, 8), np.float32)], 64)
    yield "rotary_embedding", rotary_embedding, [normal(2, 6, 3, 8)], 64
