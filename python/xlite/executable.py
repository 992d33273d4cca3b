"""compile() and Executable: an HLO module compiled for one platform and
called with numpy arrays, on one device or on all of a multi-device
module's devices."""

import ctypes
import threading

from . import shapes
from ._buffers import as_array, destroy_all, from_buffer, to_buffer
from ._lib import CompileOptions, check, lib
from .errors import INVALID_ARGUMENT, XliteError

PLATFORMS = ("cpu", "interpreter", "gpu-emulator")

_clients = {}
_clients_lock = threading.Lock()


def _client(platform):
    """The process-wide client for `platform` (made once, kept)."""
    with _clients_lock:
        client = _clients.get(platform)
        if client is None:
            client = ctypes.c_void_p()
            check(lib.xlite_client_create(platform.encode(),
                                          ctypes.byref(client)))
            _clients[platform] = client
        return client


def compile(hlo, platform="cpu", *, format=None, run_passes=True,
            use_cache=True):
    """Parses, verifies and compiles an HLO module for `platform` ("cpu":
    native code; "interpreter": the reference evaluator; "gpu-emulator":
    the GPU pipeline's kernels run on the host).

    `hlo` is HLO text (str) or a serialized HloModuleProto (bytes; an
    HloProto or HloSnapshot works too); `format` ("text" or "proto")
    overrides the guess, e.g. for text given as bytes. `run_passes=False`
    skips the platform's pass pipeline; `use_cache=False` the cpu
    backend's compiled-module cache. Raises XliteError (bad text: a
    message located as "<input>:LINE:COL: error: ...")."""
    if format is None:
        format = "text" if isinstance(hlo, str) else "proto"
    if format not in ("text", "proto"):
        raise ValueError(f"format must be 'text' or 'proto', not {format!r}")
    if isinstance(hlo, str):
        if format == "proto":
            raise TypeError("a serialized proto is bytes, not str")
        data = hlo.encode("utf-8")
    else:
        data = bytes(hlo)
    options = CompileOptions()
    lib.xlite_compile_options_init(ctypes.byref(options),
                                   ctypes.sizeof(options))
    options.run_passes = int(bool(run_passes))
    options.use_cache = int(bool(use_cache))
    entry = (lib.xlite_compile_hlo_text if format == "text" else
             lib.xlite_compile_hlo_proto)
    handle = ctypes.c_void_p()
    check(entry(_client(platform), data, len(data), ctypes.byref(options),
                ctypes.byref(handle)))
    return Executable(handle, platform)


def _flatten(value, shape, where, out):
    """Appends `value`'s arrays (nested tuples matching `shape`) to `out`."""
    if isinstance(shape, tuple):
        if not isinstance(value, (tuple, list)) or len(value) != len(shape):
            raise XliteError(
                INVALID_ARGUMENT,
                f"{where}: the module takes a tuple of {len(shape)} "
                f"({shape}), got {type(value).__name__}"
                + (f" of {len(value)}" if isinstance(value, (tuple, list))
                   else ""))
        for i, (v, s) in enumerate(zip(value, shape)):
            _flatten(v, s, f"{where}[{i}]", out)
    elif isinstance(shape, shapes.TokenShape):
        if value is not None:
            raise XliteError(INVALID_ARGUMENT,
                             f"{where}: a token parameter takes None")
    else:
        out.append((as_array(value, shape, where), where))


def _unflatten(shape, arrays):
    """`shape`'s structure over the leaf arrays (an iterator)."""
    if isinstance(shape, tuple):
        return tuple(_unflatten(s, arrays) for s in shape)
    if isinstance(shape, shapes.TokenShape):
        return None
    return next(arrays)


class Executable:
    """A compiled module. Call it with one argument per entry parameter
    (numpy arrays or anything np.asarray takes; nested tuples for
    tuple-shaped parameters): it returns a numpy array, or for a tuple
    result a tuple mirroring its nesting (tokens as None)."""

    def __init__(self, handle, platform):
        self._handle = handle
        self._destroy = lib.xlite_executable_destroy
        self.platform = platform
        #: "(parameter shapes) -> result shape", HLO syntax, no layouts.
        self.signature = lib.xlite_executable_signature(handle).decode()
        parameters, result = shapes.parse_signature(self.signature)
        #: One shape per entry parameter: ArrayShape, TokenShape or a tuple.
        self.parameter_shapes = parameters
        #: The entry's result shape.
        self.result_shape = result
        #: Devices one execution runs on (replicas x partitions).
        self.num_devices = lib.xlite_executable_num_devices(handle)
        self._num_arguments = lib.xlite_executable_num_arguments(handle)
        self._num_results = lib.xlite_executable_num_results(handle)

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle:
            self._destroy(handle)
            self._handle = None

    def __repr__(self):
        return f"<xlite.Executable {self.platform} {self.signature}>"

    def __call__(self, *args):
        """Runs a single-device module; see the class comment."""
        if self.num_devices != 1:
            raise XliteError(
                INVALID_ARGUMENT,
                f"the module runs on {self.num_devices} devices (replicas x "
                f"partitions): call execute_devices with one argument list "
                f"per device")
        return self._run([args])[0]

    def execute_devices(self, arguments):
        """Runs on every device at once, collectives between them:
        `arguments[d]` is the argument sequence of device d (replica-major:
        replica d // partitions, partition d % partitions). Returns one
        result per device, each structured as __call__'s."""
        arguments = [tuple(a) for a in arguments]
        if len(arguments) != self.num_devices:
            raise XliteError(
                INVALID_ARGUMENT,
                f"the module runs on {self.num_devices} devices, got "
                f"arguments for {len(arguments)}")
        return self._run(arguments)

    def _leaves(self, args, device):
        """The argument arrays of one device, checked against the entry's
        parameters (shapes and dtypes by the C API)."""
        prefix = "" if self.num_devices == 1 else f"device {device}, "
        if len(args) != len(self.parameter_shapes):
            raise XliteError(
                INVALID_ARGUMENT,
                f"{prefix}the module takes {len(self.parameter_shapes)} "
                f"arguments {self.signature}, got {len(args)}")
        arrays = []
        for i, (value, shape) in enumerate(zip(args, self.parameter_shapes)):
            _flatten(value, shape, f"{prefix}argument {i}", arrays)
        return arrays

    def _run(self, per_device):
        """Executes with per-device argument lists; results per device."""
        made, rows, outs = [], [], []
        n_in, n_out = self._num_arguments, self._num_results
        try:
            for d, args in enumerate(per_device):
                row = [to_buffer(array, where)
                       for array, where in self._leaves(args, d)]
                made.extend(row)
                n_in = len(row)
                rows.append((ctypes.c_void_p * max(n_in, 1))(*row))
            outs = [(ctypes.c_void_p * max(n_out, 1))() for _ in rows]
            if self.num_devices == 1 and len(rows) == 1:
                check(lib.xlite_execute(self._handle, rows[0], n_in, outs[0],
                                        n_out))
            else:
                pointers = ctypes.POINTER(ctypes.c_void_p) * len(rows)
                check(lib.xlite_execute_devices(
                    self._handle, len(rows), pointers(*rows), n_in,
                    pointers(*outs), n_out))
            return [
                _unflatten(self.result_shape,
                           iter([from_buffer(out[i]) for i in range(n_out)]))
                for out in outs
            ]
        finally:
            destroy_all(made)
            for out in outs:
                destroy_all(out[i] for i in range(n_out))
