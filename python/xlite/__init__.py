"""xlite from Python: compile XLA HLO modules (text or serialized
HloModuleProto) with xlite and run them on numpy arrays.

    import numpy as np, xlite
    exe = xlite.compile(hlo_text)            # platform="cpu" by default
    y = exe(np.ones((2, 3), np.float32))     # numpy in, numpy out

The package is ctypes bindings over libxlite.so (the C API, api/c_api.h);
element types beyond numpy's (bf16, the f8 and f4 floats, int4 ...) are
ml_dtypes' dtypes.
"""

from . import shapes
from ._lib import API_VERSION
from ._lib import lib as _lib
from ._types import dtype_of, element_type_of, supported_dtypes
from .errors import XliteError
from .executable import PLATFORMS, Executable, compile
from .shapes import ArrayShape, TokenShape

__all__ = [
    "API_VERSION", "ArrayShape", "Executable", "PLATFORMS", "TokenShape",
    "XliteError", "api_version", "compile", "dtype_of", "element_type_of",
    "shapes", "supported_dtypes",
]


def api_version():
    """The C API version the loaded libxlite.so implements."""
    return _lib.xlite_api_version()
