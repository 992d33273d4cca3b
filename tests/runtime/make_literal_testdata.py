#!/usr/bin/env python3
"""Writes the .npy/.npz oracle files of literal_io_test with NumPy and
ml_dtypes (the formats JAX users have), each with the HLO literal text of
its value. Deterministic; rerun after changing the value lists:

  ~/.cache/xlite-venv/bin/python tests/runtime/make_literal_testdata.py
"""
import os

import ml_dtypes
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testdata")

FLOATS = [0, 1, -2, 0.5, 3, -0.25]
TYPES = {
    # xla name: (numpy dtype, values)
    "pred": (np.bool_, [True, False, True]),
    "s8": (np.int8, [0, -128, 127, 5]),
    "u8": (np.uint8, [0, 255, 7]),
    "s16": (np.int16, [-32768, 32767, 3]),
    "u16": (np.uint16, [65535, 0, 9]),
    "s32": (np.int32, [-2147483648, 2147483647, -1]),
    "u32": (np.uint32, [4294967295, 0, 17]),
    "s64": (np.int64, [-9223372036854775808, 9223372036854775807, 2]),
    "u64": (np.uint64, [18446744073709551615, 1, 0]),
    "f16": (np.float16, FLOATS + [65504, float("inf")]),
    "f32": (np.float32, FLOATS + [1e-30, float("-inf")]),
    "f64": (np.float64, FLOATS + [1e300, float("inf")]),
    "c64": (np.complex64, [1 + 2j, -0.5 - 1j]),
    "c128": (np.complex128, [3 - 4j, 0.25j]),
    "bf16": (ml_dtypes.bfloat16, FLOATS + [float("inf")]),
    "f8e4m3fn": (ml_dtypes.float8_e4m3fn, FLOATS + [448]),
    "f8e5m2": (ml_dtypes.float8_e5m2, FLOATS + [57344, float("-inf")]),
    "f8e4m3": (ml_dtypes.float8_e4m3, FLOATS + [240]),
    "f8e3m4": (ml_dtypes.float8_e3m4, FLOATS + [15.5]),
    "f8e4m3fnuz": (ml_dtypes.float8_e4m3fnuz, FLOATS),
    "f8e5m2fnuz": (ml_dtypes.float8_e5m2fnuz, FLOATS),
    "f8e4m3b11fnuz": (ml_dtypes.float8_e4m3b11fnuz, FLOATS),
    "f8e8m0fnu": (ml_dtypes.float8_e8m0fnu, [1, 2, 0.5, 1024]),
    "f4e2m1fn": (ml_dtypes.float4_e2m1fn, [0, 0.5, -1.5, 6, -6, 4]),
    "s4": (ml_dtypes.int4, [-8, 7, -1, 0, 3]),
    "u4": (ml_dtypes.uint4, [0, 15, 9]),
    "s2": (ml_dtypes.int2, [-2, -1, 0, 1]),
    "u2": (ml_dtypes.uint2, [0, 1, 2, 3]),
}


def text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, complex):
        return f"({text(value.real)}, {text(value.imag)})"
    if isinstance(value, float):
        if value != value:
            return "nan"
        if value in (float("inf"), float("-inf")):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    return str(value)


def save(name, array, literal_text):
    np.save(os.path.join(OUT, name + ".npy"), array)
    with open(os.path.join(OUT, name + ".txt"), "w") as f:
        f.write(literal_text + "\n")


def main():
    os.makedirs(OUT, exist_ok=True)
    for xla, (dtype, values) in TYPES.items():
        array = np.array(values, dtype=dtype)
        save(xla, array, f"{xla}[{len(values)}] {{" +
             ", ".join(text(v) for v in values) + "}")
    # Rank 0, rank 2 (C and Fortran order), big-endian, empty.
    save("scalar_f32", np.float32(1.5), "f32[] 1.5")
    m = np.arange(6, dtype=np.int32).reshape(2, 3)
    m_text = "s32[2,3] {{0, 1, 2}, {3, 4, 5}}"
    save("matrix_c_order", m, m_text)
    save("matrix_fortran_order", np.asfortranarray(m), m_text)
    save("matrix_big_endian", m.astype(">i4"), m_text)
    save("complex_big_endian", np.array([1 + 2j], dtype=">c8"),
         "c64[1] {(1, 2)}")
    save("empty_f32", np.zeros((0, 3), np.float32), "f32[0,3] {}")
    # Archives: two arrays, stored and deflated.
    a = np.array([1, 2, 3], dtype=np.float32)
    b = np.array([[True, False]])
    np.savez(os.path.join(OUT, "pair.npz"), a=a, b=b)
    np.savez_compressed(os.path.join(OUT, "pair_compressed.npz"), a=a, b=b)


if __name__ == "__main__":
    main()
