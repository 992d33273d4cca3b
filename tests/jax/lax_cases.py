"""The cases of lax_coverage.py: (name, function, arguments, tolerance
factor), generated per operation and dtype."""

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
from jax import lax

F16, BF16 = np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)
F32, F64 = np.dtype(np.float32), np.dtype(np.float64)
C64, C128 = np.dtype(np.complex64), np.dtype(np.complex128)
FLOATS = [F16, BF16, F32, F64]
COMPLEX = [C64, C128]
SIGNED = [np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64)]
UNSIGNED = [np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64)]
INTS = SIGNED + UNSIGNED
BOOL = np.dtype(np.bool_)
F8 = [np.dtype(ml_dtypes.float8_e4m3fn), np.dtype(ml_dtypes.float8_e5m2)]

_rng = np.random.default_rng(0)
SPECIALS = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, np.inf, -np.inf, np.nan, 1e-30]


def values(dtype, shape=(4, 9), positive=False, unit=False):
    """Arguments of `dtype`: random values and, for floats, the specials."""
    n = int(np.prod(shape))
    if dtype == BOOL:
        return _rng.integers(0, 2, shape).astype(bool)
    if dtype in INTS:
        info = np.iinfo(dtype)
        lo, hi = max(int(info.min), -1000), min(int(info.max), 1000)
        v = _rng.integers(lo, hi + 1, n, dtype=np.int64).astype(dtype)
        if n >= 3:
            v[:3] = np.array([info.min, info.max, 0], dtype)
        return v.reshape(shape)
    if dtype in COMPLEX:
        re = _rng.standard_normal(n) * 2
        im = _rng.standard_normal(n) * 2
        return (re + 1j * im).astype(dtype).reshape(shape)
    v = _rng.standard_normal(n) * 3
    if unit:
        v = np.tanh(v) * 1.05
    if positive:
        v = np.abs(v) + 0.01
    if n > len(SPECIALS) * 2:
        v[:len(SPECIALS)] = SPECIALS
    return v.astype(dtype).reshape(shape)


UNARY_FLOAT = {
    "abs": lax.abs, "neg": lax.neg, "sign": lax.sign, "floor": lax.floor,
    "ceil": lax.ceil, "round_away": lambda x: lax.round(x, 0),
    "round_even": lambda x: lax.round(x, 1), "is_finite": lax.is_finite,
    "exp": lax.exp, "exp2": lax.exp2, "log": lax.log, "log1p": lax.log1p,
    "expm1": lax.expm1, "tanh": lax.tanh, "logistic": lax.logistic,
    "sin": lax.sin, "cos": lax.cos, "tan": lax.tan, "asin": lax.asin,
    "acos": lax.acos, "atan": lax.atan, "sinh": lax.sinh, "cosh": lax.cosh,
    "asinh": lax.asinh, "acosh": lax.acosh, "atanh": lax.atanh,
    "sqrt": lax.sqrt, "rsqrt": lax.rsqrt, "cbrt": lax.cbrt, "erf": lax.erf,
    "erfc": lax.erfc, "erf_inv": lax.erf_inv, "lgamma": lax.lgamma,
    "digamma": lax.digamma, "bessel_i0e": lax.bessel_i0e,
    "bessel_i1e": lax.bessel_i1e, "square": lax.square,
    "integer_pow3": lambda x: lax.integer_pow(x, 3),
    "integer_pow_neg2": lambda x: lax.integer_pow(x, -2),
    "reciprocal": lambda x: 1 / x,
    "reduce_precision": lambda x: lax.reduce_precision(x, 5, 10),
}
# Transcendental functions: XLA's approximations, a few ulps apart.
LOOSE_UNARY = {"tan": 4, "lgamma": 8, "digamma": 8, "erf_inv": 4,
               "acosh": 4, "asinh": 4, "atanh": 4, "cbrt": 4, "expm1": 2,
               "log1p": 2, "bessel_i0e": 4, "bessel_i1e": 4, "exp2": 2,
               "sinh": 4, "cosh": 4, "asin": 2, "acos": 2, "atan": 2,
               "tanh": 2, "logistic": 2, "erfc": 4, "erf": 2}
UNARY_COMPLEX = {
    "neg": lax.neg, "abs": lax.abs, "sign": lax.sign, "exp": lax.exp,
    "log": lax.log, "sqrt": lax.sqrt, "rsqrt": lax.rsqrt, "sin": lax.sin,
    "cos": lax.cos, "tanh": lax.tanh, "real": lax.real, "imag": lax.imag,
    "conj": lax.conj, "expm1": lax.expm1, "log1p": lax.log1p,
    "square": lax.square,
}
UNARY_INT = {
    "neg": lax.neg, "abs": lax.abs, "sign": lax.sign, "not": lax.bitwise_not,
    "population_count": lax.population_count, "clz": lax.clz,
    "integer_pow3": lambda x: lax.integer_pow(x, 3),
}
BINARY_FLOAT = {
    "add": lax.add, "sub": lax.sub, "mul": lax.mul, "div": lax.div,
    "rem": lax.rem, "pow": lax.pow, "max": lax.max, "min": lax.min,
    "atan2": lax.atan2, "nextafter": lax.nextafter, "eq": lax.eq,
    "ne": lax.ne, "lt": lax.lt, "le": lax.le, "gt": lax.gt, "ge": lax.ge,
}
BINARY_INT = {
    "add": lax.add, "sub": lax.sub, "mul": lax.mul, "div": lax.div,
    "rem": lax.rem, "max": lax.max, "min": lax.min, "and": lax.bitwise_and,
    "or": lax.bitwise_or, "xor": lax.bitwise_xor, "shl": lax.shift_left,
    "shr_logical": lax.shift_right_logical,
    "shr_arith": lax.shift_right_arithmetic, "eq": lax.eq, "lt": lax.lt,
    "ge": lax.ge,
}


def elementwise_cases():
    for dtype in FLOATS:
        for name, f in UNARY_FLOAT.items():
            yield (f"unary/{name}/{dtype.name}", f, [values(dtype)],
                   LOOSE_UNARY.get(name, 1))
        for name, f in BINARY_FLOAT.items():
            yield (f"binary/{name}/{dtype.name}", f,
                   [values(dtype), values(dtype)],
                   4 if name in ("pow", "atan2") else 1)
        yield (f"select/{dtype.name}", lax.select,
               [values(BOOL), values(dtype), values(dtype)], 1)
        yield (f"clamp/{dtype.name}", lambda x: lax.clamp(
            jnp.asarray(-1, x.dtype), x, jnp.asarray(1, x.dtype)),
            [values(dtype)], 1)
    for dtype in COMPLEX:
        for name, f in UNARY_COMPLEX.items():
            yield (f"unary/{name}/{dtype.name}", f, [values(dtype)], 4)
        for name in ("add", "sub", "mul", "div", "pow", "eq", "ne"):
            yield (f"binary/{name}/{dtype.name}", BINARY_FLOAT[name],
                   [values(dtype), values(dtype)], 8)
    for dtype in (F32, F64):
        yield (f"binary/complex/{dtype.name}", lax.complex,
               [values(dtype), values(dtype)], 1)
    for dtype in INTS:
        for name, f in UNARY_INT.items():
            if name in ("neg", "abs", "sign") and dtype in UNSIGNED:
                continue
            yield f"unary/{name}/{dtype.name}", f, [values(dtype)], 1
        for name, f in BINARY_INT.items():
            b = values(dtype)
            if name.startswith("sh"):
                b = (np.abs(b.astype(np.int64)) % (dtype.itemsize * 8 + 2)
                     ).astype(dtype)
            yield f"binary/{name}/{dtype.name}", f, [values(dtype), b], 1
    for name in ("and", "or", "xor", "eq"):
        yield (f"binary/{name}/bool", BINARY_INT[name],
               [values(BOOL), values(BOOL)], 1)
    yield "unary/not/bool", lax.bitwise_not, [values(BOOL)], 1
    for dtype in F8:
        yield (f"binary/add/{dtype.name}", lambda a, b: a + b,
               [values(F32).astype(dtype), values(F32).astype(dtype)], 1)


def convert_cases():
    types = FLOATS + COMPLEX[:1] + F8 + [np.dtype(t) for t in (
        np.int8, np.int32, np.int64, np.uint8, np.uint32)] + [BOOL]
    for src in types:
        for dst in types:
            if src == dst or (src in COMPLEX and dst not in COMPLEX):
                continue
            x = values(F32) if src in F8 else values(src)
            x = x.astype(src)
            yield (f"convert/{src.name}->{dst.name}",
                   lambda a, d=dst: lax.convert_element_type(a, d), [x], 1)
    yield ("convert/int4", lambda a: a.astype(jnp.int4).astype(jnp.float32),
           [np.arange(-8, 8, dtype=np.float32)], 1)
    for src, dst in ((F32, np.int32), (F16, np.uint16), (F64, np.uint64),
                     (np.dtype(np.int32), np.float32)):
        yield (f"bitcast/{src.name}->{np.dtype(dst).name}",
               lambda a, d=dst: lax.bitcast_convert_type(a, d),
               [values(src)], 1)


def reduction_cases():
    for dtype in [F16, BF16, F32, F64, np.dtype(np.int32), np.dtype(np.uint8),
                  C64]:
        x = values(dtype, (16, 33))
        if dtype in FLOATS:
            x = np.nan_to_num(x.astype(np.float64), posinf=5,
                              neginf=-5).astype(dtype)
        for axis in (0, 1, None):
            yield (f"reduce/sum/{dtype.name}/{axis}",
                   lambda a, ax=axis: jnp.sum(a, axis=ax), [x], 8)
            if dtype not in COMPLEX:
                yield (f"reduce/max/{dtype.name}/{axis}",
                       lambda a, ax=axis: jnp.max(a, axis=ax), [x], 1)
                yield (f"reduce/argmin/{dtype.name}/{axis}",
                       lambda a, ax=axis: jnp.argmin(a, axis=ax), [x], 1)
        yield (f"reduce/prod/{dtype.name}", lambda a: jnp.prod(a[:, :5], 1),
               [x], 8)
        if dtype not in COMPLEX:
            yield (f"cumsum/{dtype.name}", lambda a: jnp.cumsum(a, 1), [x], 8)
            yield (f"cummax/{dtype.name}",
                   lambda a: lax.cummax(a, axis=0), [x], 1)
    b = values(BOOL, (8, 9))
    yield "reduce/all/bool", lambda a: jnp.all(a, 0), [b], 1
    yield "reduce/any/bool", lambda a: jnp.any(a, 1), [b], 1
    x = values(F32, (8, 9), positive=True)
    yield "cumprod/float32", lambda a: jnp.cumprod(a, 0), [x], 8
    yield ("cumlogsumexp/float32", lambda a: lax.cumlogsumexp(a, axis=1),
           [x], 8)
    yield "logsumexp/float32", lambda a: jax.nn.logsumexp(a, 1), [x], 4
    yield "softmax/float32", lambda a: jax.nn.softmax(a, 1), [x], 4


def dot_cases():
    for dtype in (F16, BF16, F32, F64, C64, np.dtype(np.int32),
                  np.dtype(np.int8)):
        a, b = values(dtype, (24, 40)), values(dtype, (40, 17))
        if dtype in FLOATS:
            a = np.nan_to_num(a.astype(np.float64)).clip(-4, 4).astype(dtype)
            b = np.nan_to_num(b.astype(np.float64)).clip(-4, 4).astype(dtype)
        if dtype == np.dtype(np.int8):
            yield ("dot/int8->int32", lambda x, y: lax.dot(
                x, y, preferred_element_type=jnp.int32), [a, b], 1)
            continue
        yield f"dot/matmul/{dtype.name}", jnp.matmul, [a, b], 64
        yield (f"dot/matvec/{dtype.name}", lambda x, y: x @ y[:, 0],
               [a, b], 64)
        yield (f"dot/batch/{dtype.name}", lambda x, y: jnp.einsum(
            "bij,bjk->bik", x.reshape(2, 12, 40), jnp.stack([y, y])),
            [a, b], 64)
    a, b = values(BF16, (16, 32)), values(BF16, (32, 8))
    yield ("dot/bf16->f32", lambda x, y: lax.dot(
        x, y, preferred_element_type=jnp.float32), [a, b], 64)
    a, b = values(F32, (64, 128)), values(F32, (128, 96))
    yield "dot/large/float32", jnp.matmul, [a, b], 64
    yield ("dot_general/contract_both/float32", lambda x, y: lax.dot_general(
        x, y, (((0,), (1,)), ((), ()))), [values(F32, (8, 5)),
                                          values(F32, (3, 8))], 16)


def contraction_type_cases():
    """Dots and convolutions whose result type is not their operands':
    XLA:CPU computes them in the higher of the two (range, then significand
    bits), so operands round to a higher result type first (f8e4m3fn to
    f8e5m2, f16 to bf16, int8 to f8e4m3fn) and a lower result rounds
    through the operands' type (bf16 -> f8e4m3fn rounds to bf16 first).
    Each once a difference; compared bit for bit (two-byte results as
    bits). jax hands XLA these operand types as they are."""
    rng = np.random.default_rng(21)
    e4, e5 = np.dtype(ml_dtypes.float8_e4m3fn), np.dtype(ml_dtypes.float8_e5m2)

    def operand(dtype, shape):
        return (rng.standard_normal(shape) * 1.5).astype(dtype)

    def exact(r):
        return _bits if r.itemsize == 2 else lambda v: v

    def dot(r):
        return lambda x, y: exact(r)(lax.dot(x, y, preferred_element_type=r))

    for a_t, r_t in ((e4, e5), (e5, e4), (F16, BF16), (BF16, F16)):
        yield (f"contraction_type/dot/{a_t.name}->{r_t.name}", dot(r_t),
               [operand(a_t, (8, 24)), operand(a_t, (24, 6))], 1)
    # 1 + 0.18359375 rounds to bf16 1.1875, a tie f8e4m3fn rounds up to
    # 1.25; through f16 it stays below the tie (1.125).
    a, b = operand(BF16, (8, 24)), operand(BF16, (24, 6))
    a[0, :3], b[:3, 0] = (1, 0.18359375, 0), (1, 1, 0)
    yield "contraction_type/dot/bfloat16->float8_e4m3fn", dot(e4), [a, b], 1
    # 17, 19 and 21 are not f8e4m3fn values; no sum overflows it.
    a = rng.integers(-21, 22, (8, 2)).astype(np.int8)
    b = rng.integers(-10, 11, (2, 6)).astype(np.int8)
    yield "contraction_type/dot/int8->float8_e4m3fn", dot(e4), [a, b], 1
    for a_t, r_t in ((e4, e5), (BF16, F16)):
        yield (f"contraction_type/conv/{a_t.name}->{r_t.name}",
               lambda x, k, r=r_t: exact(r)(lax.conv_general_dilated(
                   x, k, (1,), "SAME", preferred_element_type=r)),
               [operand(a_t, (2, 4, 9)), operand(a_t, (3, 4, 3))], 1)


def conv_cases():
    x = np.clip(values(F32, (2, 4, 9, 9)), -3, 3)
    x = np.nan_to_num(x)
    k = np.nan_to_num(np.clip(values(F32, (6, 4, 3, 3)), -3, 3))
    for name, kw in {
        "same": dict(window_strides=(1, 1), padding="SAME"),
        "valid_stride2": dict(window_strides=(2, 2), padding="VALID"),
        "lhs_dilation": dict(window_strides=(1, 1), padding=((1, 1), (2, 0)),
                             lhs_dilation=(2, 1)),
        "rhs_dilation": dict(window_strides=(1, 1), padding="SAME",
                             rhs_dilation=(2, 2)),
    }.items():
        yield (f"conv/{name}/float32",
               lambda a, b, kw=kw: lax.conv_general_dilated(a, b, **kw),
               [x, k], 64)
    kg = np.nan_to_num(np.clip(values(F32, (6, 2, 3, 3)), -3, 3))
    yield ("conv/feature_group2/float32", lambda a, b: lax.conv_general_dilated(
        a, b, (1, 1), "SAME", feature_group_count=2), [x, kg], 64)
    yield ("conv/nhwc/float64", lambda a, b: lax.conv_general_dilated(
        a, b, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")),
        [x.transpose(0, 2, 3, 1).astype(F64),
         k.transpose(2, 3, 1, 0).astype(F64)], 64)
    yield ("conv/1d/bfloat16", lambda a, b: lax.conv(a, b, (1,), "SAME"),
           [x[:, :, 0].astype(BF16), k[:, :, 0].astype(BF16)], 64)
    yield ("conv/transpose/float32", lambda a, b: lax.conv_transpose(
        a, b, (2, 2), "SAME", dimension_numbers=("NCHW", "OIHW", "NCHW")),
        [x, k.transpose(1, 0, 2, 3)], 64)


def indexing_cases():
    x = values(F32, (10, 6))
    idx = np.array([3, 0, 9, 3, 12, -1], np.int32)
    yield "gather/take", lambda a, i: a[i], [x, idx[:4]], 1
    yield ("gather/take_clip", lambda a, i: jnp.take(a, i, 0, mode="clip"),
           [x, idx], 1)
    yield ("gather/take_fill", lambda a, i: jnp.take(a, i, 0, mode="fill"),
           [x, idx], 1)
    yield ("gather/along_axis", lambda a, i: jnp.take_along_axis(
        a, i, 1), [x, np.abs(values(np.dtype(np.int32), (10, 4))) % 6], 1)
    yield ("dynamic_slice", lambda a, s: lax.dynamic_slice(a, (s, 2), (4, 3)),
           [x, np.int32(8)], 1)
    yield ("dynamic_update_slice", lambda a, s: lax.dynamic_update_slice(
        a, jnp.ones((2, 2), a.dtype), (s, s)), [x, np.int32(3)], 1)
    for op in ("set", "add", "mul", "min", "max"):
        yield (f"scatter/{op}", lambda a, i, op=op: getattr(
            a.at[i], op)(2.0), [x, idx[:4]], 1)
    yield ("scatter/add_dupes_int", lambda a, i: a.at[i].add(1),
           [np.zeros(5, np.int32), np.array([1, 1, 4, 1], np.int32)], 1)
    yield ("scatter/drop_oob", lambda a, i: a.at[i].set(7.0, mode="drop"),
           [x, idx], 1)
    yield ("segment_sum", lambda a, s: jax.ops.segment_sum(a, s, 4),
           [x, np.array([0, 1, 1, 3, 2, 0, 0, 3, 1, 2], np.int32)], 4)


def sort_cases():
    for dtype in (F32, F64, BF16, np.dtype(np.int32), np.dtype(np.uint8),
                  BOOL):
        x = values(dtype, (6, 20))
        yield f"sort/{dtype.name}", lambda a: jnp.sort(a, 1), [x], 1
        yield (f"argsort_stable/{dtype.name}",
               lambda a: jnp.argsort(a, 0, stable=True), [x], 1)
    x = values(F32, (6, 20))
    yield "sort/descending", lambda a: jnp.sort(a, 1, descending=True), [x], 1
    yield ("sort/multi_operand", lambda a, b: lax.sort((a, b), num_keys=2),
           [np.array([3, 1, 3, 1, 2], np.int32), values(F32, (5,))], 1)
    yield "top_k", lambda a: lax.top_k(a, 4), [x], 1


def control_flow_cases():
    x = np.linspace(-1, 1, 8, dtype=np.float32)
    yield ("cond", lambda p, a: lax.cond(p, jnp.sin, jnp.cos, a),
           [np.bool_(False), x], 1)
    yield ("switch", lambda i, a: lax.switch(i, [jnp.sin, jnp.cos, jnp.exp],
                                             a), [np.int32(7), x], 1)
    yield ("while", lambda a: lax.while_loop(
        lambda c: c[1] < 20, lambda c: (c[0] * 1.1 + 0.1, c[1] + 1), (a, 0)),
        [x], 4)
    yield ("fori_loop", lambda a: lax.fori_loop(
        0, 5, lambda i, c: c + i * c, a), [x], 4)
    yield ("scan", lambda a: lax.scan(lambda c, v: (c + v, c * v),
                                      jnp.float32(0), a), [x], 4)
    yield ("scan_reverse", lambda a: lax.scan(
        lambda c, v: (c * 0.5 + v, c), jnp.float32(0), a, reverse=True),
        [x], 4)
    yield "map", lambda a: lax.map(lambda v: v * v + 1, a), [x], 1
    yield ("associative_scan", lambda a: lax.associative_scan(jnp.add, a),
           [x], 4)
    yield ("grad_of_while", jax.grad(lambda a: lax.fori_loop(
        0, 3, lambda i, c: jnp.sin(c), a).sum()), [x], 4)


def rng_cases():
    key = jax.random.key_data(jax.random.PRNGKey(7))

    def wrap(k):
        return jax.random.wrap_key_data(k)

    yield "random/normal", lambda k: jax.random.normal(wrap(k), (5, 7)), [key], 2
    yield ("random/uniform_f64", lambda k: jax.random.uniform(
        wrap(k), (5, 7), jnp.float64), [key], 1)
    yield ("random/randint", lambda k: jax.random.randint(
        wrap(k), (50,), 0, 10), [key], 1)
    yield "random/bits", lambda k: jax.random.bits(wrap(k), (9,)), [key], 1
    yield ("random/permutation", lambda k: jax.random.permutation(
        wrap(k), 20), [key], 1)
    yield ("random/categorical", lambda k: jax.random.categorical(
        wrap(k), jnp.log(jnp.arange(1.0, 6.0)), shape=(30,)), [key], 1)
    for alg in (lax.RandomAlgorithm.RNG_THREE_FRY,
                lax.RandomAlgorithm.RNG_PHILOX):
        yield (f"rng_bit_generator/{alg.name}",
               lambda k, alg=alg: lax.rng_bit_generator(
                   k, (4, 6), jnp.uint32, algorithm=alg),
               [np.array([1, 2, 3, 4], np.uint32)], 1)


def window_and_shape_cases():
    x = np.nan_to_num(values(F32, (2, 8, 8, 3)))
    yield ("reduce_window/max_pool", lambda a: lax.reduce_window(
        a, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME"), [x], 1)
    yield ("reduce_window/avg_pool", lambda a: lax.reduce_window(
        a, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") / 4, [x], 4)
    yield ("select_and_scatter/max_pool_grad", jax.grad(
        lambda a: lax.reduce_window(a, -jnp.inf, lax.max, (1, 2, 2, 1),
                                    (1, 2, 2, 1), "VALID").sum()), [x], 1)
    y = values(F32, (4, 6))
    yield "concatenate", lambda a: jnp.concatenate([a, a * 2], 1), [y], 1
    yield ("pad/interior_negative", lambda a: lax.pad(
        a, jnp.float32(-1), ((1, -1, 1), (-2, 2, 0))), [y], 1)
    yield "slice_strided", lambda a: a[::2, 1::3], [y], 1
    yield "rev", lambda a: lax.rev(a, (0, 1)), [y], 1
    yield "transpose", lambda a: a.reshape(2, 2, 6).transpose(2, 0, 1), [y], 1
    yield "broadcast", lambda a: jnp.broadcast_to(a[:, None], (4, 3, 6)), [y], 1
    yield "iota", lambda a: lax.iota(jnp.int32, 7) + a, [np.int32(3)], 1
    yield "roll", lambda a: jnp.roll(a, 3), [y], 1
    yield "tril", jnp.tril, [y], 1
    yield "tile", lambda a: jnp.tile(a, (2, 3)), [y], 1
    yield "clamp_int", lambda a: jnp.clip(a, -5, 5), [values(np.dtype(np.int32))], 1


def fft_and_linalg_cases():
    x = values(C64, (4, 16))
    r = np.nan_to_num(values(F32, (4, 16)))
    yield "fft/fft/complex64", jnp.fft.fft, [x], 64
    yield "fft/ifft/complex128", jnp.fft.ifft, [x.astype(C128)], 64
    yield "fft/rfft/float32", jnp.fft.rfft, [r], 64
    yield "fft/irfft/complex64", jnp.fft.irfft, [x], 64
    yield "fft/fft2/complex64", jnp.fft.fft2, [x], 64
    a = np.nan_to_num(values(F32, (5, 5))).clip(-2, 2)
    spd = a @ a.T + 5 * np.eye(5, dtype=np.float32)
    yield "linalg/cholesky", jnp.linalg.cholesky, [spd], 64
    yield ("linalg/triangular_solve", lambda m, b: lax.linalg.triangular_solve(
        m, b, left_side=True, lower=True), [np.tril(spd), a], 64)
    yield "linalg/solve", jnp.linalg.solve, [spd, a], 256
    yield "linalg/qr", lambda m: jnp.abs(jnp.linalg.qr(m)[1]), [spd], 256
    yield "linalg/eigh", lambda m: jnp.linalg.eigh(m)[0], [spd], 256
    yield "linalg/svd", lambda m: jnp.linalg.svd(m)[1], [spd], 256
    yield "linalg/det", jnp.linalg.det, [spd], 256
    p = values(F32, (20,), positive=True)
    yield "special/igamma", lax.igamma, [p, p[::-1].copy()], 64
    yield ("special/betainc", lambda a, b, c: lax.betainc(a, b, c),
           [p, p[::-1].copy(), np.linspace(0.05, 0.95, 20, dtype=np.float32)],
           64)


def _hermitian(dtype, shape, rng):
    """Random Hermitian (symmetric) matrices of `dtype`."""
    a = rng.standard_normal(shape)
    if np.issubdtype(dtype, np.complexfloating):
        a = a + 1j * rng.standard_normal(shape)
    return ((a + np.conj(np.swapaxes(a, -1, -2))) / 2).astype(dtype)


def _eigh_reconstruction(m):
    w, v = jnp.linalg.eigh(m)
    return (v * w[..., None, :]) @ jnp.conj(jnp.swapaxes(v, -1, -2))


def _svd_reconstruction(m):
    u, s, vh = jnp.linalg.svd(m, full_matrices=True)
    k = s.shape[-1]
    return (u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :]


def eigh_svd_cases():
    """eigh and svd beyond the eigenvalues: vectors compared where they are
    unique (their magnitudes, for distinct eigen- and singular values: a
    vector is unique up to its sign or phase) and through reconstructions
    (V diag(w) V^H, U diag(s) V^H), batched and complex. Own random
    stream, so that the other generators' inputs stay as they were."""
    rng = np.random.default_rng(16)
    for dtype in (F32, F64, C64, C128):
        name = dtype.name
        h = _hermitian(dtype, (3, 5, 5), rng)
        yield f"linalg/eigh/values/{name}", lambda m: jnp.linalg.eigh(m)[0], \
            [h], 256
        yield (f"linalg/eigh/abs_vectors/{name}",
               lambda m: jnp.abs(jnp.linalg.eigh(m)[1]), [h], 1024)
        yield f"linalg/eigh/reconstruction/{name}", _eigh_reconstruction, \
            [h], 256
        for shape in ((2, 6, 4), (4, 3, 5)):
            a = rng.standard_normal(shape)
            if np.issubdtype(dtype, np.complexfloating):
                a = a + 1j * rng.standard_normal(shape)
            a = a.astype(dtype)
            dims = "x".join(map(str, shape))
            yield (f"linalg/svd/values/{name}/{dims}",
                   lambda m: jnp.linalg.svd(m, compute_uv=False), [a], 256)
            yield (f"linalg/svd/abs_vectors/{name}/{dims}",
                   lambda m: [jnp.abs(x) for x in jnp.linalg.svd(
                       m, full_matrices=False)], [a], 1024)
            yield (f"linalg/svd/reconstruction/{name}/{dims}",
                   _svd_reconstruction, [a], 256)


def _bits(x):
    """A float result as its bit pattern, so that it compares exactly."""
    return lax.bitcast_convert_type(
        x, {2: jnp.uint16, 4: jnp.uint32, 8: jnp.uint64}[x.dtype.itemsize])


def edge_cases():
    """Semantics XLA:CPU pins down at the edges, each once a difference:
    u64 indices past INT64_MAX (XLA compares them unsigned: the largest
    start, a dropped scatter window) and reduce-precision (NaN stays NaN
    with no mantissa bits; f16 and the f8 types reduce on f16's bits, so
    f16 subnormals round at their fixed position)."""
    x = np.arange(60, dtype=np.float32).reshape(10, 6)
    big = np.uint64(2 ** 64 - 1)
    yield ("dynamic_slice/u64_past_int64_max", lambda a, s: lax.dynamic_slice(
        a, (s, s), (4, 3)), [x, big], 1)
    yield ("dynamic_update_slice/u64_past_int64_max",
           lambda a, s: lax.dynamic_update_slice(
               a, jnp.ones((4, 3), a.dtype), (s, np.uint64(1))), [x, big], 1)
    dnums = lax.ScatterDimensionNumbers(
        update_window_dims=(1,), inserted_window_dims=(0,),
        scatter_dims_to_operand_dims=(0,))
    yield ("scatter/u64_past_int64_max_dropped", lambda a, i: lax.scatter_add(
        a, i, jnp.ones((2, 6), a.dtype), dnums),
        [x, np.array([[2 ** 64 - 1], [3]], np.uint64)], 1)
    nan = np.array([np.nan, -np.nan, 3.0, 5.0, -np.inf, 1e30], np.float32)
    for e in (1, 8):
        yield (f"reduce_precision/nan_e{e}m0/float32", lambda a, e=e: jnp.isnan(
            lax.reduce_precision(a, e, 0)), [nan], 1)
    half = np.arange(0x7C00, dtype=np.uint16).view(np.float16)
    half = np.concatenate([half, -half])
    for e, m in ((8, 7), (5, 2), (6, 5), (4, 3), (5, 10), (8, 0)):
        yield (f"reduce_precision/e{e}m{m}/float16",
               lambda a, e=e, m=m: _bits(lax.reduce_precision(a, e, m)),
               [half], 1)
    f8 = np.arange(0x7F, dtype=np.uint8).view(ml_dtypes.float8_e4m3fn)
    yield ("reduce_precision/e3m1/float8_e4m3fn", lambda a: lax.bitcast_convert_type(
        lax.reduce_precision(a, 3, 1), jnp.uint8), [f8], 1)
    yield from narrow_float_cases()



def _narrow_midpoints(dtype, rng):
    """The midpoints between neighbouring finite values of a narrow float
    (between powers of two for f8e8m0fnu, whose ties are at 1.5 * 2^k),
    each also nudged 2^-20 and 2^-40 (relative) either way, in f64."""
    width = np.dtype(dtype).itemsize * 8 if dtype != ml_dtypes.float4_e2m1fn else 4
    if width == 4:
        v = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6], np.float64)
    else:
        v = np.arange(2 ** width, dtype={8: np.uint8, 16: np.uint16}[width]
                      ).view(dtype).astype(np.float64)
    v = np.unique(v[np.isfinite(v)])
    if dtype == ml_dtypes.float8_e8m0fnu:
        m = v[v >= 2.0 ** -126][:-1] * 1.5
    else:
        v = np.unique(np.concatenate([v, -v]))
        m = (v[1:] + v[:-1]) / 2
    if m.size > 4000:
        m = rng.choice(m, 4000, replace=False)
    return np.concatenate([m * (1 + d) for d in
                           (0, 2.0 ** -20, -2.0 ** -20, 2.0 ** -40, -2.0 ** -40)])


def narrow_float_cases():
    """XLA:CPU's narrow-float rounding, each once a difference: the f8 types
    but f8e8m0fnu, and f4e2m1fn, compute in f16 (an op's result rounds to
    f16, then to the type; a convert rounds once); an f64 convert rounds to
    f16 and bf16 through f32 and to the f8/f4 types once, directly. Op
    results compare as values (NaN payloads and signs differ), converts
    bit for bit."""
    rng = np.random.default_rng(20)
    u8 = lambda x: lax.bitcast_convert_type(x, jnp.uint8)
    for dtype in (ml_dtypes.float8_e3m4, ml_dtypes.float8_e4m3fn,
                  ml_dtypes.float8_e5m2, ml_dtypes.float8_e4m3b11fnuz):
        v = np.arange(256, dtype=np.uint8).view(dtype)
        name = np.dtype(dtype).name
        for op, f in (("sqrt", lax.sqrt), ("exp", lax.exp),
                      ("log1p", lax.log1p)):
            yield (f"f16_compute/{op}/{name}", f, [v], 1)
        x, y = np.repeat(v, 256), np.tile(v, 256)
        for op, f in (("atan2", lax.atan2), ("pow", lax.pow),
                      ("add", lax.add), ("div", lax.div)):
            yield f"f16_compute/{op}/{name}", f, [x, y], 1
        mids = _narrow_midpoints(dtype, rng)
        yield (f"convert_once/float32/{name}",
               lambda a, t=dtype: u8(a.astype(t)), [mids.astype(np.float32)], 1)
    for dtype in (np.float16, ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn,
                  ml_dtypes.float8_e5m2, ml_dtypes.float8_e3m4,
                  ml_dtypes.float8_e4m3fnuz, ml_dtypes.float4_e2m1fn,
                  ml_dtypes.float8_e8m0fnu):
        mids = _narrow_midpoints(dtype, rng)
        if dtype == ml_dtypes.bfloat16:  # XLA:CPU flushes f32 subnormals
            mids = mids[np.abs(mids) >= 2.0 ** -126]
        yield (f"convert_f64/{np.dtype(dtype).name}",
               lambda a, t=dtype: _bits(a.astype(t)) if np.dtype(t).itemsize == 2
               else lax.bitcast_convert_type(a.astype(t), jnp.uint8)
               if t != ml_dtypes.float4_e2m1fn else a.astype(t),
               [mids], 1)
    yield ("convert_f64/float16/-12.84765668", lambda a: _bits(a.astype(jnp.float16)),
           [np.array([-12.84765668, 12.84765668])], 1)


def all_cases():
    for gen in (elementwise_cases, convert_cases, reduction_cases, dot_cases,
                contraction_type_cases, conv_cases, indexing_cases,
                sort_cases, control_flow_cases, rng_cases,
                window_and_shape_cases, fft_and_linalg_cases, eigh_svd_cases,
                edge_cases):
        yield from gen()
