"""The xlite backend for JAX: `JAX_PLATFORMS=xlite python script.py`.

jax imports this module (a `jax_plugins` namespace package and an entry
point of the `xlite` distribution) and calls `initialize()`, which loads
the PJRT plugin library, gives it jaxlib's StableHLO -> HLO converter (jax
hands PJRT plugins StableHLO; xlite compiles HLO) and registers the
platform `xlite`. The plugin library is found from `XLITE_PJRT_PLUGIN`, else
beside this file.
"""

import ctypes
import logging
import os

_logger = logging.getLogger(__name__)

PLATFORM = "xlite"
_LIBRARY = "pjrt_plugin_xlite.so"

# Kept alive for as long as the process: the plugin calls it on compiles.
_CONVERTER_TYPE = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p,
                                   ctypes.c_size_t, ctypes.c_void_p)
_converter = None


def library_path():
    """The plugin library this module registers."""
    path = os.environ.get("XLITE_PJRT_PLUGIN")
    if path:
        return path
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), _LIBRARY)


def _stablehlo_version():
    from jaxlib.mlir.dialects import stablehlo
    text = stablehlo.get_current_version()
    parts = [int(p) for p in text.split(".")]
    return (parts + [0, 0, 0])[:3]


def _install_converter(lib):
    """Hands the plugin jaxlib's in-process StableHLO -> HLO converter."""
    global _converter
    from jax._src.lib import _jax

    lib.xlite_pjrt_converter_result.argtypes = [
        ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int]
    lib.xlite_pjrt_converter_result.restype = None

    def convert(data, size, result):
        try:
            artifact = ctypes.string_at(data, size)
            computation = _jax.mlir.mlir_module_to_xla_computation(
                artifact, use_tuple_args=False, return_tuple=False)
            proto = computation.as_serialized_hlo_module_proto()
            lib.xlite_pjrt_converter_result(result, proto, len(proto), 0)
            return 0
        except Exception as e:  # reported to the plugin, never raised in C
            message = f"{type(e).__name__}: {e}".encode()
            lib.xlite_pjrt_converter_result(result, message, len(message), 1)
            return 1

    _converter = _CONVERTER_TYPE(convert)
    version = (ctypes.c_int64 * 3)(*_stablehlo_version())
    lib.xlite_pjrt_set_stablehlo_converter.argtypes = [
        _CONVERTER_TYPE, ctypes.POINTER(ctypes.c_int64), ctypes.c_size_t]
    lib.xlite_pjrt_set_stablehlo_converter.restype = None
    lib.xlite_pjrt_set_stablehlo_converter(_converter, version, 3)


def _register_linalg_lowerings():
    """Lowers eigh and svd for xlite as jax lowers them for its CPU.

    jax registers those two primitives' lowerings for "cpu", "cuda" and
    "rocm" only (other platforms get no rule at all). The CPU rules emit the
    LAPACK FFI custom calls lapack_?syevd_ffi / ?heevd_ffi and
    lapack_?gesdd_ffi / ?gesvd_ffi, which xlite's evaluator and CPU backend
    implement; registering the same rules for "xlite" makes jax emit them.
    """
    from functools import partial

    from jax._src.interpreters import mlir
    from jax._src.lax import linalg

    for primitive, rule in ((linalg.eigh_p, linalg._eigh_cpu_gpu_lowering),
                            (linalg.svd_p, linalg._svd_cpu_gpu_lowering)):
        mlir.register_lowering(primitive,
                               partial(rule, target_name_prefix="cpu"),
                               platform=PLATFORM)


def initialize():
    path = library_path()
    if not os.path.exists(path):
        _logger.warning("xlite: no PJRT plugin library at %s", path)
        return
    from jax._src import xla_bridge

    lib = ctypes.CDLL(path)
    _install_converter(lib)
    # Below the CPU backend's priority: installing xlite does not change
    # jax's default platform; JAX_PLATFORMS=xlite selects it.
    xla_bridge.register_plugin(PLATFORM, priority=-100, library_path=path)
    try:
        _register_linalg_lowerings()
    except (ImportError, AttributeError) as e:  # jax's private API moved
        _logger.warning("xlite: eigh and svd stay unlowered for xlite: %s", e)
