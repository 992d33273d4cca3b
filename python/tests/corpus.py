"""The JAX corpus (tests/corpus/programs) as the C++ conformance tests
read it (tests/corpus/evaluator_conformance_test.cc): raw .npy files read
with the module's element types, and results compared with XLA:CPU's
recorded ones under the same per-type tolerances."""

import ast
import json
import os
import re

import numpy as np

from xlite import _types

HERE = os.path.dirname(os.path.abspath(__file__))
# The repository (or the test's runfiles tree) holds python/tests/ and
# tests/corpus/programs/ side by side.
PROGRAMS = os.environ.get(
    "XLITE_CORPUS_DIR",
    os.path.join(HERE, "..", "..", "tests", "corpus", "programs"))


def program_names():
    if not os.path.isdir(PROGRAMS):
        return []
    return sorted(d for d in os.listdir(PROGRAMS)
                  if os.path.isfile(os.path.join(PROGRAMS, d, "meta.json")))


def num_partitions(name):
    with open(os.path.join(PROGRAMS, name, "meta.json")) as f:
        return int(json.load(f).get("num_partitions", 1))


def read_npy(path, dtype):
    """An .npy file's array as `dtype`: generate.py saves ml_dtypes arrays
    with descriptors numpy cannot read back ('<V2', '<f1'), so the data
    is taken raw, as the C++ reader does with the module's shapes."""
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:6] != b"\x93NUMPY":
        raise ValueError(f"{path}: not an .npy file")
    major = raw[6]
    width = 2 if major == 1 else 4
    length = int.from_bytes(raw[8:8 + width], "little")
    start = 8 + width + length
    header = ast.literal_eval(raw[8 + width:start].decode("latin1"))
    if header["fortran_order"]:
        raise ValueError(f"{path}: Fortran order")
    shape = tuple(header["shape"])
    dtype = np.dtype(dtype)
    count = int(np.prod(shape, dtype=np.int64))
    if len(raw) - start != count * dtype.itemsize:
        raise ValueError(f"{path}: {len(raw) - start} bytes of data, "
                         f"{dtype}{list(shape)} needs "
                         f"{count * dtype.itemsize}")
    return np.frombuffer(raw, dtype=dtype, count=count,
                         offset=start).reshape(shape)


# Tolerances (absolute, relative) by element type, as the C++ tests: XLA's
# approximations and summation order differ by a few ulps; narrow types
# get about one ulp.
_TOLERANCE = {4: (1e-12, 1e-9), 3: (1e-5, 2e-4), 2: (1e-3, 2e-3),
              1: (1e-2, 1.6e-2), 0: (0.02, 0.26)}


def precision(type_name):
    """Precision rank of a float or complex type (lower: coarser)."""
    return {"f64": 4, "c128": 4, "f32": 3, "c64": 3, "f16": 2,
            "bf16": 1}.get(type_name, 0)


def is_inexact(type_name):
    return type_name.startswith(("f", "bf", "c"))


_FLOAT_TYPE = re.compile(r"\b(f64|c128|f32|c64|f16|bf16|f8\w*|f4\w*)\[")


def coarsest_float(hlo_text):
    """The coarsest float type any instruction of the module computes in
    (its results carry that rounding, whatever type they end in)."""
    types = set(_FLOAT_TYPE.findall(hlo_text)) or {"f64"}
    return min(types, key=precision)


def mismatch(got, want, type_name, coarsest):
    """"" when `got` matches `want` (integers and predicates bit-exactly,
    floats within tolerance), else a description of the first difference."""
    if got.shape != want.shape or got.dtype != want.dtype:
        return (f"{got.dtype}{list(got.shape)} vs "
                f"{want.dtype}{list(want.shape)}")
    flat_got, flat_want = got.reshape(-1), want.reshape(-1)
    if not is_inexact(type_name):
        width = got.dtype.itemsize
        bits_got = flat_got.view(np.uint8).reshape(-1, width)
        bits_want = flat_want.view(np.uint8).reshape(-1, width)
        bad = np.nonzero((bits_got != bits_want).any(axis=1))[0]
        if bad.size:
            i = bad[0]
            return f"element {i}: {flat_got[i]} vs {flat_want[i]}"
        return ""
    rank = min(precision(type_name), precision(coarsest))
    atol, rtol = _TOLERANCE[rank]
    convert = (np.complex128 if type_name.startswith("c") else np.float64)
    a = flat_got.astype(convert).astype(np.complex128)
    b = flat_want.astype(convert).astype(np.complex128)
    with np.errstate(invalid="ignore", over="ignore"):
        nan_a = np.isnan(a.real) | np.isnan(a.imag)
        nan_b = np.isnan(b.real) | np.isnan(b.imag)
        err = np.abs(a - b)
        bad = ((nan_a != nan_b) |
               (~nan_a & ~nan_b & (a != b) &
                (np.isinf(a.real) | np.isinf(b.real) |
                 (err > atol + rtol * np.abs(b)))))
    if bad.any():
        i = np.nonzero(bad)[0][0]
        return (f"element {i}: {flat_got[i]} vs {flat_want[i]} "
                f"(error {err[i]})")
    return ""


def dtype_name(array):
    """The HLO name of an array's element type."""
    return _types.name_of(_types.element_type_of(array.dtype))
