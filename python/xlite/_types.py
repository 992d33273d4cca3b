"""Element types: XLA's PrimitiveType numbers and text names, and the numpy
dtypes that hold them (ml_dtypes for bf16, the f8/f4 floats and the
sub-byte integers, which it stores one element per byte, as the C API's
buffers do)."""

import ml_dtypes
import numpy as np

# (PrimitiveType number, HLO name, numpy dtype or the ml_dtypes attribute
# naming it). Types this ml_dtypes lacks are left out.
_TABLE = [
    (1, "pred", np.bool_),
    (2, "s8", np.int8),
    (3, "s16", np.int16),
    (4, "s32", np.int32),
    (5, "s64", np.int64),
    (6, "u8", np.uint8),
    (7, "u16", np.uint16),
    (8, "u32", np.uint32),
    (9, "u64", np.uint64),
    (10, "f16", np.float16),
    (11, "f32", np.float32),
    (12, "f64", np.float64),
    (15, "c64", np.complex64),
    (16, "bf16", "bfloat16"),
    (18, "c128", np.complex128),
    (19, "f8e5m2", "float8_e5m2"),
    (20, "f8e4m3fn", "float8_e4m3fn"),
    (21, "s4", "int4"),
    (22, "u4", "uint4"),
    (23, "f8e4m3b11fnuz", "float8_e4m3b11fnuz"),
    (24, "f8e5m2fnuz", "float8_e5m2fnuz"),
    (25, "f8e4m3fnuz", "float8_e4m3fnuz"),
    (26, "s2", "int2"),
    (27, "u2", "uint2"),
    (28, "f8e4m3", "float8_e4m3"),
    (29, "f8e3m4", "float8_e3m4"),
    (30, "s1", "int1"),
    (31, "u1", "uint1"),
    (32, "f4e2m1fn", "float4_e2m1fn"),
    (33, "f8e8m0fnu", "float8_e8m0fnu"),
]


def _dtype(spec):
    if isinstance(spec, str):
        spec = getattr(ml_dtypes, spec, None)
    return None if spec is None else np.dtype(spec)


_BY_NUMBER = {}
_NUMBER_BY_NAME = {}
_NUMBER_BY_DTYPE = {}
for _number, _name, _spec in _TABLE:
    _dt = _dtype(_spec)
    if _dt is None:
        continue
    _BY_NUMBER[_number] = (_name, _dt)
    _NUMBER_BY_NAME[_name] = _number
    _NUMBER_BY_DTYPE[_dt] = _number


def element_type_of(dtype):
    """The PrimitiveType number of a numpy dtype, or None."""
    dtype = np.dtype(dtype)
    return _NUMBER_BY_DTYPE.get(dtype.newbyteorder("=")
                                if dtype.byteorder in "<>" else dtype)


def dtype_of(element_type):
    """The numpy dtype of a PrimitiveType number or HLO name ("bf16")."""
    if isinstance(element_type, str):
        element_type = _NUMBER_BY_NAME.get(element_type, -1)
    entry = _BY_NUMBER.get(element_type)
    if entry is None:
        raise ValueError(f"no numpy dtype for element type {element_type!r}")
    return entry[1]


def name_of(element_type):
    """The HLO name ("f32") of a PrimitiveType number."""
    entry = _BY_NUMBER.get(element_type)
    return entry[0] if entry else f"type{element_type}"


def number_of(name):
    """The PrimitiveType number of an HLO name, or None."""
    return _NUMBER_BY_NAME.get(name)


def supported_dtypes():
    """Every numpy dtype the bindings pass to and from xlite."""
    return [dt for _, dt in _BY_NUMBER.values()]


# Signed sub-byte integers: xlite returns them sign-extended in their byte,
# ml_dtypes keeps the high bits zero; the mask gives ml_dtypes' form.
_SIGNED_SUB_BYTE_MASK = {21: 0x0F, 26: 0x03, 30: 0x01}


def canonicalize(array, element_type):
    """`array` (fresh from xlite) with ml_dtypes' bytes for its type."""
    mask = _SIGNED_SUB_BYTE_MASK.get(element_type)
    if mask is not None:
        array.view(np.uint8)[...] &= mask
    return array
