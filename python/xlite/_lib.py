"""Finds and loads libxlite.so (XLITE_LIBRARY, else the copy installed
beside this package) and declares the C API's functions (api/c_api.h) for
ctypes. `check` turns a returned XliteError* into an XliteError."""

import ctypes
import os

from .errors import XliteError

# The C API version (XLITE_API_VERSION) these bindings are written for.
API_VERSION = 1
LIBRARY_ENV = "XLITE_LIBRARY"
LIBRARY_NAME = "libxlite.so"

_p = ctypes.c_void_p
_pp = ctypes.POINTER(ctypes.c_void_p)
_ppp = ctypes.POINTER(_pp)
_size = ctypes.c_size_t
_int = ctypes.c_int
_str = ctypes.c_char_p
_dims = ctypes.POINTER(ctypes.c_int64)


class CompileOptions(ctypes.Structure):
    """XliteCompileOptions."""
    _fields_ = [("struct_size", _size), ("run_passes", _int),
                ("use_cache", _int), ("replica_count", _int),
                ("num_partitions", _int)]


# name: (result type, argument types). Errors come back as void*.
_PROTOTYPES = {
    "xlite_api_version": (_int, []),
    "xlite_error_code": (_int, [_p]),
    "xlite_error_message": (_str, [_p]),
    "xlite_error_destroy": (None, [_p]),
    "xlite_element_size": (_size, [_int]),
    "xlite_client_create": (_p, [_str, _pp]),
    "xlite_client_destroy": (None, [_p]),
    "xlite_client_platform": (_str, [_p]),
    "xlite_compile_options_init": (None, [ctypes.POINTER(CompileOptions),
                                          _size]),
    "xlite_compile_hlo_text": (_p, [_p, _str, _size,
                                    ctypes.POINTER(CompileOptions), _pp]),
    "xlite_compile_hlo_proto": (_p, [_p, _str, _size,
                                     ctypes.POINTER(CompileOptions), _pp]),
    "xlite_executable_destroy": (None, [_p]),
    "xlite_executable_num_arguments": (_size, [_p]),
    "xlite_executable_num_results": (_size, [_p]),
    "xlite_executable_num_devices": (_size, [_p]),
    "xlite_executable_signature": (_str, [_p]),
    "xlite_buffer_from_host": (_p, [_int, _dims, _size, _p, _size, _pp]),
    "xlite_buffer_destroy": (None, [_p]),
    "xlite_buffer_element_type": (_int, [_p]),
    "xlite_buffer_rank": (_size, [_p]),
    "xlite_buffer_dims": (_dims, [_p]),
    "xlite_buffer_size": (_size, [_p]),
    "xlite_buffer_to_host": (_p, [_p, _p, _size]),
    "xlite_execute": (_p, [_p, _pp, _size, _pp, _size]),
    "xlite_execute_devices": (_p, [_p, _size, _ppp, _size, _ppp, _size]),
}


def library_path():
    """Where the library is looked for: $XLITE_LIBRARY, else beside the
    package (where `pip install ./python` puts it)."""
    path = os.environ.get(LIBRARY_ENV)
    if path:
        return path
    return os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        LIBRARY_NAME)


def load():
    """The loaded library with its prototypes declared."""
    path = library_path()
    if not os.path.exists(path):
        raise ImportError(
            f"xlite: {path} does not exist; install the package with "
            f"`pip install ./python` from the xlite repository (it builds "
            f"the library with bazel) or set {LIBRARY_ENV} to a built "
            f"libxlite.so (bazel build //api:libxlite.so)")
    lib = ctypes.CDLL(path)
    for name, (restype, argtypes) in _PROTOTYPES.items():
        try:
            fn = getattr(lib, name)
        except AttributeError:
            raise ImportError(f"xlite: {path} lacks {name}: an older "
                              f"library than these bindings") from None
        fn.restype = restype
        fn.argtypes = argtypes
    if lib.xlite_api_version() != API_VERSION:
        raise ImportError(f"xlite: {path} implements C API version "
                          f"{lib.xlite_api_version()}; these bindings "
                          f"version {API_VERSION}")
    return lib


lib = load()


def check(error):
    """Raises the XliteError that the C API returned (a non-null pointer),
    freeing it."""
    if error:
        code = lib.xlite_error_code(error)
        message = lib.xlite_error_message(error).decode("utf-8", "replace")
        lib.xlite_error_destroy(error)
        raise XliteError(code, message)
