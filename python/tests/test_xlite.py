"""The xlite Python package: element types round trip, tuple parameters
and results, multi-device execution, errors as XliteError (never a crash),
and every JAX corpus program (tests/corpus/programs) compiled for "cpu"
and run on XLA:CPU's recorded arguments, matching its recorded results
under the C++ conformance tests' tolerances.

Run with PYTHONPATH=python and XLITE_LIBRARY=bazel-bin/api/libxlite.so (or
the package installed): python -m unittest python/tests/test_xlite.py;
bazel test //python:python_package_test does that."""

import os
import subprocess
import sys
import unittest

import ml_dtypes
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import corpus  # noqa: E402
import xlite  # noqa: E402

ADD_MUL = """HloModule add_mul
ENTRY e {
  x = f32[2,3] parameter(0)
  y = f32[2,3] parameter(1)
  s = f32[2,3] add(x, y)
  p = f32[2,3] multiply(x, y)
  ROOT t = (f32[2,3], f32[2,3]) tuple(s, p)
}
"""

ALL_REDUCE = """HloModule ar, replica_count=2
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
ENTRY e {
  x = s32[4] parameter(0)
  ROOT r = s32[4] all-reduce(x), replica_groups={{0,1}}, to_apply=add
}
"""


def unary(type_name, op, dims="2,3"):
    return (f"HloModule {op}\nENTRY e {{\n"
            f"  x = {type_name}[{dims}] parameter(0)\n"
            f"  ROOT r = {type_name}[{dims}] {op}(x)\n}}\n")


def binary(type_name, op, dims="2,3"):
    return (f"HloModule {op}\nENTRY e {{\n"
            f"  x = {type_name}[{dims}] parameter(0)\n"
            f"  y = {type_name}[{dims}] parameter(1)\n"
            f"  ROOT r = {type_name}[{dims}] {op}(x, y)\n}}\n")


def sample(dtype, shape, seed=0):
    """Values every type holds exactly (small integers, halves)."""
    rng = np.random.RandomState(seed)
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.randint(0, 2, size=shape).astype(bool)
    if dtype.kind in "iu" or dtype.name.startswith(("int", "uint")):
        info = ml_dtypes.iinfo(dtype)
        low, high = max(int(info.min), -50), min(int(info.max), 50)
        return rng.randint(low, high + 1, size=shape).astype(dtype)
    values = rng.randint(1, 5, size=shape) * 0.5
    if dtype.kind == "c":
        return (values + 1j * values[::-1]).astype(dtype)
    return values.astype(dtype)


def bits(array):
    return np.ascontiguousarray(array).view(np.uint8).tobytes()


class ElementTypes(unittest.TestCase):

    def test_every_dtype_round_trips(self):
        for dtype in xlite.supported_dtypes():
            type_name = xlite._types.name_of(xlite.element_type_of(dtype))
            for platform in ("cpu", "interpreter"):
                with self.subTest(dtype=str(dtype), platform=platform):
                    exe = xlite.compile(unary(type_name, "copy"), platform)
                    self.assertEqual(exe.parameter_shapes,
                                     (xlite.ArrayShape(type_name, (2, 3)),))
                    x = sample(dtype, (2, 3))
                    y = exe(x)
                    self.assertEqual(y.dtype, dtype)
                    self.assertEqual(y.shape, (2, 3))
                    self.assertEqual(bits(y), bits(x))

    def test_arithmetic_matches_numpy(self):
        types = ["s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64",
                 "f16", "bf16", "f32", "f64", "c64", "c128"]
        for type_name in types:
            dtype = xlite.dtype_of(type_name)
            with self.subTest(type=type_name):
                x = sample(dtype, (2, 3), 1)
                y = sample(dtype, (2, 3), 2)
                got = xlite.compile(binary(type_name, "add"))(x, y)
                self.assertEqual(bits(got), bits(x + y))

    def test_empty_and_scalar_arrays(self):
        exe = xlite.compile(unary("f32", "negate", "0,3"))
        self.assertEqual(exe(np.zeros((0, 3), np.float32)).shape, (0, 3))
        exe = xlite.compile(unary("s32", "negate", ""))
        y = exe(np.int32(7))
        self.assertEqual((y.shape, y.dtype, int(y)), ((), np.int32, -7))

    def test_python_scalars_and_lists_take_the_parameter_type(self):
        exe = xlite.compile(unary("f32", "negate", "2"))
        np.testing.assert_array_equal(exe([1.5, 2]), [-1.5, -2])
        exe = xlite.compile(unary("bf16", "negate", ""))
        self.assertEqual(exe(2.0).dtype, ml_dtypes.bfloat16)

    def test_non_contiguous_and_big_endian_arguments(self):
        exe = xlite.compile(unary("f32", "negate"))
        x = np.arange(12, dtype=np.float32).reshape(3, 4)[:2, 1:]
        np.testing.assert_array_equal(exe(x), -x)
        big = np.arange(6, dtype=">f4").reshape(2, 3)
        np.testing.assert_array_equal(exe(big), -big.astype(np.float32))


class Tuples(unittest.TestCase):

    def test_tuple_result(self):
        exe = xlite.compile(ADD_MUL)
        self.assertEqual(exe.signature,
                         "(f32[2,3], f32[2,3]) -> (f32[2,3], f32[2,3])")
        x = np.arange(6, dtype=np.float32).reshape(2, 3)
        y = np.full((2, 3), 10, np.float32)
        s, p = exe(x, y)
        np.testing.assert_array_equal(s, x + y)
        np.testing.assert_array_equal(p, x * y)

    def test_nested_tuple_parameter_and_result(self):
        text = """HloModule nested
ENTRY e {
  p = (f32[2], (s32[], pred[3])) parameter(0)
  a = f32[2] get-tuple-element(p), index=0
  q = (s32[], pred[3]) get-tuple-element(p), index=1
  n = s32[] get-tuple-element(q), index=0
  b = pred[3] get-tuple-element(q), index=1
  m = s32[] negate(n)
  ROOT t = ((s32[], f32[2]), (pred[3])) tuple(tuple(m, a), tuple(b))
}
"""
        for platform in ("cpu", "interpreter"):
            with self.subTest(platform=platform):
                exe = xlite.compile(text, platform)
                arg = (np.array([1, 2], np.float32),
                       (np.int32(5), np.array([True, False, True])))
                (m, a), (b,) = exe(arg)
                self.assertEqual(int(m), -5)
                np.testing.assert_array_equal(a, [1, 2])
                np.testing.assert_array_equal(b, [True, False, True])
                with self.assertRaises(xlite.XliteError) as e:
                    exe((arg[0],))
                self.assertIn("argument 0: the module takes a tuple of 2",
                              str(e.exception))

    def test_tokens_are_none(self):
        text = """HloModule tok
ENTRY e {
  x = f32[2] parameter(0)
  t = token[] parameter(1)
  a = token[] after-all(t)
  ROOT r = (f32[2], token[]) tuple(x, a)
}
"""
        exe = xlite.compile(text)
        self.assertEqual(exe.parameter_shapes[1], xlite.TokenShape())
        x, token = exe(np.ones(2, np.float32), None)
        np.testing.assert_array_equal(x, [1, 1])
        self.assertIsNone(token)
        with self.assertRaises(xlite.XliteError):
            exe(np.ones(2, np.float32), np.ones(2, np.float32))

    def test_one_tuple_result_stays_a_tuple(self):
        text = ("HloModule one\nENTRY e {\n  x = f32[2] parameter(0)\n"
                "  ROOT t = (f32[2]) tuple(x)\n}\n")
        out = xlite.compile(text)(np.ones(2, np.float32))
        self.assertIsInstance(out, tuple)
        self.assertEqual(len(out), 1)


class Shapes(unittest.TestCase):

    def test_signature_text(self):
        params, result = xlite.shapes.parse_signature(
            "(f32[2,3]{1,0}, (s32[], /*index=1*/u8[<=4])) -> token[]")
        self.assertEqual(params, (xlite.ArrayShape("f32", (2, 3)),
                                  (xlite.ArrayShape("s32", ()),
                                   xlite.ArrayShape("u8", (4,)))))
        self.assertEqual(result, xlite.TokenShape())
        self.assertEqual(xlite.shapes.leaves(params)[2].dtype, np.uint8)
        self.assertEqual(repr(params[0]), "f32[2,3]")
        with self.assertRaises(ValueError):
            xlite.shapes.parse_signature("(f32[2) -> f32[]")


class Devices(unittest.TestCase):

    def test_replicas_all_reduce(self):
        for platform in ("cpu", "interpreter"):
            with self.subTest(platform=platform):
                exe = xlite.compile(ALL_REDUCE, platform)
                self.assertEqual(exe.num_devices, 2)
                a = np.array([1, 2, 3, 4], np.int32)
                b = np.array([10, 20, 30, 40], np.int32)
                r0, r1 = exe.execute_devices([(a,), (b,)])
                np.testing.assert_array_equal(r0, a + b)
                np.testing.assert_array_equal(r1, a + b)
                with self.assertRaises(xlite.XliteError) as e:
                    exe(a)
                self.assertIn("execute_devices", str(e.exception))
                with self.assertRaises(xlite.XliteError):
                    exe.execute_devices([(a,)])
                with self.assertRaises(xlite.XliteError) as e:
                    exe.execute_devices([(a,), (b[:2],)])
                self.assertIn("device 1", e.exception.message)

    def test_gpu_emulator(self):
        exe = xlite.compile(ADD_MUL, "gpu-emulator")
        x = np.ones((2, 3), np.float32)
        s, p = exe(x, x)
        np.testing.assert_array_equal(s, 2 * x)
        np.testing.assert_array_equal(p, x)


class Errors(unittest.TestCase):

    def test_api_version(self):
        self.assertEqual(xlite.api_version(), xlite.API_VERSION)

    def test_bad_text_is_located(self):
        bad = "HloModule m\nENTRY e {\n  ROOT x = f32[] add(a, b)\n}\n"
        with self.assertRaises(xlite.XliteError) as e:
            xlite.compile(bad)
        self.assertEqual(e.exception.code_name, "INVALID_ARGUMENT")
        self.assertIn("<input>:3:22: error:", e.exception.message)

    def test_bad_proto_and_platforms(self):
        with self.assertRaises(xlite.XliteError):
            xlite.compile(b"\xff\xff\x01")
        with self.assertRaises(xlite.XliteError) as e:
            xlite.compile(ADD_MUL, "tpu")
        self.assertEqual(e.exception.code_name, "INVALID_ARGUMENT")
        # "gpu" is the local CUDA device: where there is none, a clean error.
        try:
            exe = xlite.compile(ADD_MUL, "gpu")
        except xlite.XliteError as e:
            self.assertIn("no CUDA device", e.message)
        else:
            x = np.arange(6, dtype=np.float32).reshape(2, 3)
            want = xlite.compile(ADD_MUL, "cpu")(x, x)
            got = exe(x, x)
            for g, w in zip(got if isinstance(got, tuple) else [got],
                            want if isinstance(want, tuple) else [want]):
                np.testing.assert_array_equal(g, w)

    def test_wrong_arguments(self):
        exe = xlite.compile(ADD_MUL)
        x = np.ones((2, 3), np.float32)
        with self.assertRaises(xlite.XliteError) as e:
            exe(x)
        self.assertIn("takes 2 arguments", e.exception.message)
        with self.assertRaises(xlite.XliteError) as e:
            exe(x, np.ones((2, 3), np.int32))
        self.assertEqual(e.exception.code, 3)
        self.assertIn("argument 1 is s32[2,3], the module takes f32[2,3]",
                      e.exception.message)
        with self.assertRaises(xlite.XliteError) as e:
            exe(x, np.ones(6, np.float32))
        self.assertIn("argument 1", e.exception.message)
        with self.assertRaises(xlite.XliteError) as e:
            exe(x, np.array(["a"] * 6).reshape(2, 3))
        self.assertIn("has no XLA element type", e.exception.message)
        with self.assertRaises(xlite.XliteError):
            xlite.compile(unary("u8", "negate", ""))(-1)

    def test_missing_library_is_an_import_error(self):
        env = dict(os.environ, XLITE_LIBRARY="/nonexistent/libxlite.so")
        run = subprocess.run([sys.executable, "-c", "import xlite"], env=env,
                             capture_output=True, text=True)
        self.assertNotEqual(run.returncode, 0)
        self.assertIn("/nonexistent/libxlite.so does not exist", run.stderr)


def flatten(result):
    """A result's arrays, depth first."""
    if isinstance(result, tuple):
        return [leaf for element in result for leaf in flatten(element)]
    return [result]


class Corpus(unittest.TestCase):
    """Every program, three ways: its module as jitted (before.hlo), after
    XLA:CPU's pipeline (after.hlo) and as a serialized HloModuleProto
    (before.pb), each compiled for "cpu" and run on the recorded arguments.
    SPMD programs (collectives_*, data_parallel_sgd, grad_accumulation_scan)
    run their partitioned module (after.*) on every partition at once
    through execute_devices: the global before-module's shardings are
    resolved by XLA's partitioner, which xlite does not have, so it is not
    one program (the C++ conformance tests skip it too)."""

    passed = {}
    names = corpus.program_names()

    @classmethod
    def tearDownClass(cls):
        for way in ("text", "after", "proto"):
            print(f"\nxlite (python, cpu, {way}) matches XLA:CPU on "
                  f"{len(cls.passed.get(way, []))}/{len(cls.names)} corpus "
                  f"programs", end="", file=sys.stderr)
        print(file=sys.stderr)

    def test_corpus_is_there(self):
        self.assertGreaterEqual(len(self.names), 40, corpus.PROGRAMS)

    def run_program(self, name, way):
        directory = os.path.join(corpus.PROGRAMS, name)
        partitions = corpus.num_partitions(name)
        stage = "after" if partitions > 1 or way == "after" else "before"
        with open(os.path.join(directory, stage + ".hlo")) as f:
            text = f.read()
        if way == "proto":
            with open(os.path.join(directory, stage + ".pb"), "rb") as f:
                exe = xlite.compile(f.read(), "cpu")
        else:
            exe = xlite.compile(text, "cpu")
        self.assertEqual(exe.num_devices, partitions)
        params = [xlite.shapes.leaves(p) for p in exe.parameter_shapes]
        results = xlite.shapes.leaves(exe.result_shape)
        suffixes = ([f".p{p}" for p in range(partitions)] if partitions > 1
                    else [""])

        def read(stem, k, suffix, shape):
            path = os.path.join(directory, f"{stem}_{k}{suffix}.npy")
            return corpus.read_npy(path, shape.dtype)

        self.assertTrue(all(len(leaf) == 1 for leaf in params))
        args = [[read("in", k, s, leaf[0]) for k, leaf in enumerate(params)]
                for s in suffixes]
        want = [[read("out", k, s, leaf) for k, leaf in enumerate(results)]
                for s in suffixes]
        got = (exe.execute_devices(args) if partitions > 1 else
               [exe(*args[0])])
        coarsest = corpus.coarsest_float(text)
        for d, (device_got, device_want) in enumerate(zip(got, want)):
            leaves = flatten(device_got)
            self.assertEqual(len(leaves), len(device_want))
            for k, (g, w) in enumerate(zip(leaves, device_want)):
                diff = corpus.mismatch(g, w, results[k].type, coarsest)
                self.assertEqual(diff, "", f"{name}/{stage} ({way}) device "
                                 f"{d} result {k} ({results[k]})")
        self.passed.setdefault(way, []).append(name)


def _add_corpus_tests():
    for name in Corpus.names:
        for way, suffix in (("text", ""), ("after", "_after"),
                            ("proto", "_proto")):
            def test(self, name=name, way=way):
                self.run_program(name, way)
            setattr(Corpus, f"test_{name}{suffix}", test)


_add_corpus_tests()

if __name__ == "__main__":
    unittest.main(verbosity=2)
