"""numpy arrays to and from the C API's host buffers (dense, row-major,
little-endian; ml_dtypes' narrow types already store one element per
byte as the buffers do)."""

import ctypes

import numpy as np

from . import _types
from ._lib import check, lib
from .errors import INTERNAL, INVALID_ARGUMENT, XliteError


def as_array(value, expected, where):
    """`value` as a contiguous little-endian numpy array. Python scalars and
    lists, which carry no dtype of their own, take the expected leaf's
    dtype (as JAX's weak types do); numpy arrays and scalars keep theirs,
    and the C API checks them against the parameter."""
    try:
        if (isinstance(value, (bool, int, float, complex, list)) and
                not isinstance(value, np.generic)):
            array = np.asarray(value, dtype=expected.dtype)
        else:
            array = np.asarray(value)
    except (TypeError, ValueError, OverflowError) as e:
        raise XliteError(INVALID_ARGUMENT,
                         f"{where}: cannot convert to {expected}: {e}") from e
    if array.dtype.byteorder == ">":
        array = array.astype(array.dtype.newbyteorder("<"))
    # (np.ascontiguousarray would make a scalar one-dimensional.)
    return array if array.flags.c_contiguous else array.copy(order="C")


def to_buffer(array, where):
    """A new XliteBuffer holding a copy of `array` (the caller destroys it)."""
    element_type = _types.element_type_of(array.dtype)
    if element_type is None:
        raise XliteError(INVALID_ARGUMENT,
                         f"{where}: numpy dtype {array.dtype} has no XLA "
                         f"element type")
    dims = (ctypes.c_int64 * max(array.ndim, 1))(*array.shape)
    buffer = ctypes.c_void_p()
    data = array.ctypes.data if array.nbytes else None
    check(lib.xlite_buffer_from_host(element_type, dims, array.ndim, data,
                                     array.nbytes, ctypes.byref(buffer)))
    return buffer


def from_buffer(buffer):
    """The numpy array holding a copy of the XliteBuffer's data."""
    element_type = lib.xlite_buffer_element_type(buffer)
    rank = lib.xlite_buffer_rank(buffer)
    dims_ptr = lib.xlite_buffer_dims(buffer)
    dims = tuple(dims_ptr[i] for i in range(rank))
    try:
        dtype = _types.dtype_of(element_type)
    except ValueError as e:
        raise XliteError(INVALID_ARGUMENT, str(e)) from None
    array = np.empty(dims, dtype=dtype)
    size = lib.xlite_buffer_size(buffer)
    if size != array.nbytes:
        raise XliteError(
            INTERNAL, f"result buffer holds {size} bytes, {dtype}{list(dims)} "
                f"needs {array.nbytes}")
    check(lib.xlite_buffer_to_host(buffer, array.ctypes.data if size else None,
                                   array.nbytes))
    return _types.canonicalize(array, element_type)


def destroy_all(buffers):
    for b in buffers:
        if b:
            lib.xlite_buffer_destroy(b)
