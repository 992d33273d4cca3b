"""jax.jit programs under the xlite PJRT plugin against XLA:CPU.

Runs with both platforms in one process (JAX_PLATFORMS=xlite,cpu): each
program is jitted on an xlite device and on the CPU device and the results
are compared (exactly for integers, to a dtype's tolerance for floats).
"""

import os
import unittest

os.environ["JAX_PLATFORMS"] = "xlite,cpu"
os.environ.setdefault("XLITE_PJRT_DEVICE_COUNT", "2")
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                           " --xla_force_host_platform_device_count=2")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402

jax.config.update("jax_enable_x64", True)


def run_on(device, f, *args):
    with jax.default_device(device):
        placed = [jax.device_put(a, device) for a in args]
        out = jax.jit(f)(*placed)
        return jax.tree_util.tree_map(np.asarray, out)


class JaxPluginTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.xlite = jax.devices("xlite")[0]
        cls.cpu = jax.devices("cpu")[0]

    def check(self, f, *args, rtol=1e-5, atol=1e-6):
        got = run_on(self.xlite, f, *args)
        want = run_on(self.cpu, f, *args)
        got_leaves = jax.tree_util.tree_leaves(got)
        want_leaves = jax.tree_util.tree_leaves(want)
        self.assertEqual(len(got_leaves), len(want_leaves))
        for g, w in zip(got_leaves, want_leaves):
            self.assertEqual(g.dtype, w.dtype)
            self.assertEqual(g.shape, w.shape)
            if np.issubdtype(w.dtype, np.inexact):
                np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)
            else:
                np.testing.assert_array_equal(g, w)
        return got

    def test_platform(self):
        self.assertEqual(self.xlite.platform, "xlite")
        self.assertEqual(len(jax.devices("xlite")), 2)
        x = jax.device_put(np.arange(6.0).reshape(2, 3), self.xlite)
        self.assertEqual(x.devices(), {self.xlite})
        np.testing.assert_array_equal(np.asarray(x),
                                      np.arange(6.0).reshape(2, 3))

    def test_mlp_training_step(self):
        rng = np.random.default_rng(0)
        params = {
            "w1": rng.standard_normal((32, 64)).astype(np.float32) * 0.1,
            "b1": np.zeros(64, np.float32),
            "w2": rng.standard_normal((64, 10)).astype(np.float32) * 0.1,
        }
        x = rng.standard_normal((16, 32)).astype(np.float32)
        labels = rng.integers(0, 10, 16)

        def loss(p, x, labels):
            h = jax.nn.relu(x @ p["w1"] + p["b1"])
            logits = h @ p["w2"]
            logp = jax.nn.log_softmax(logits)
            return -jnp.mean(jnp.take_along_axis(logp, labels[:, None], 1))

        def step(p, x, labels):
            value, grads = jax.value_and_grad(loss)(p, x, labels)
            return value, jax.tree_util.tree_map(lambda a, g: a - 0.1 * g,
                                                 p, grads)

        self.check(step, params, x, labels, rtol=1e-4, atol=1e-5)

    def test_scan(self):
        xs = np.random.default_rng(1).standard_normal((100, 3)).astype(
            np.float32)

        def rnn(xs):
            def cell(h, x):
                h = jnp.tanh(0.5 * h + x)
                return h, h.sum()
            return lax.scan(cell, jnp.zeros(3, jnp.float32), xs)

        self.check(rnn, xs)

    def test_while(self):
        def newton(a):
            def body(c):
                x, i = c
                return x - (x * x - a) / (2 * x), i + 1
            return lax.while_loop(lambda c: (jnp.abs(c[0] * c[0] - a) > 1e-12)
                                  & (c[1] < 50), body, (a, 0))

        self.check(newton, np.float64(7.0))

    def test_sort(self):
        rng = np.random.default_rng(2)
        x = rng.standard_normal((5, 40)).astype(np.float32)
        keys = rng.integers(0, 4, 40).astype(np.int32)
        self.check(lambda x: jnp.sort(x, axis=-1), x)
        self.check(lambda x: jnp.argsort(x, axis=0, stable=True), x)
        self.check(lambda k, v: lax.sort((k, v), num_keys=1), keys, x[0])
        self.check(lambda x: lax.top_k(x, 5), x)

    def test_control_flow_and_rng(self):
        key = jax.random.key_data(jax.random.PRNGKey(42))
        self.check(lambda k: jax.random.normal(jax.random.wrap_key_data(k),
                                               (3, 4)), key)
        self.check(lambda i, x: lax.switch(i, [jnp.sin, jnp.cos, jnp.exp], x),
                   np.int32(1), np.linspace(0, 1, 7, dtype=np.float32))
        self.check(lambda x: lax.fori_loop(0, 10, lambda i, c: c * 1.1 + i, x),
                   np.ones(4, np.float32))

    def test_dtypes(self):
        for dtype in (np.int8, np.uint16, np.int32, np.uint64, np.float16,
                      jnp.bfloat16, np.float64, np.complex64, np.bool_):
            x = (np.arange(12) % 5).astype(dtype)
            self.check(lambda a: (a, jnp.flip(a.reshape(3, 4), 1)), x)
        self.check(lambda a: a.astype(jnp.bfloat16) * 3,
                   np.linspace(-2, 2, 9, dtype=np.float32), rtol=1e-2)

    def test_strided_host_arrays(self):
        x = np.asfortranarray(np.arange(12.0, dtype=np.float32).reshape(3, 4))
        self.check(lambda a: a.T + 1, x)
        self.check(lambda a: a * 2, np.arange(20, dtype=np.int32)[::3])

    def test_pmap_and_shard_map(self):
        # Manually partitioned programs: each device runs the body on its
        # shard (xlite gives the program per-partition shapes).
        x = np.arange(8.0, dtype=np.float32).reshape(2, 4)
        results = []
        for platform in ("xlite", "cpu"):
            devices = jax.devices(platform)[:2]
            f = jax.pmap(lambda v: lax.psum(v, "i") * v
                         + lax.axis_index("i"), axis_name="i",
                         devices=devices)
            mesh = jax.sharding.Mesh(np.array(devices), ("d",))
            # xlite hands jax the program as given, not a partitioned one
            # with its output shardings: a replicated output names its own.
            g = jax.jit(jax.shard_map(
                lambda v: lax.psum(v.sum(1), "d"),
                mesh=mesh, in_specs=jax.P("d"), out_specs=jax.P()),
                out_shardings=jax.sharding.NamedSharding(mesh, jax.P()))
            y = jax.device_put(x, jax.sharding.NamedSharding(mesh,
                                                             jax.P("d")))
            results.append((np.asarray(f(x)), np.asarray(g(y))))
        for got, want in zip(*results):
            np.testing.assert_allclose(got, want, rtol=1e-6)

    def test_sharded_jit_refused(self):
        # A jit over split arrays needs SPMD partitioning, which xlite does
        # not do: an error naming the parameter, never a crash.
        mesh = jax.sharding.Mesh(np.array(jax.devices("xlite")), ("d",))
        sharding = jax.sharding.NamedSharding(mesh, jax.P("d"))
        x = jax.device_put(np.arange(8.0), sharding)
        with self.assertRaisesRegex(Exception, "SPMD partitioning"):
            jax.jit(lambda a: a * 2)(x).block_until_ready()

    def test_compiled_text(self):
        x = jax.device_put(np.ones(3, np.float32), self.xlite)
        text = jax.jit(lambda a: a + 1).lower(x).compile().as_text()
        self.assertIn("HloModule", text)


if __name__ == "__main__":
    unittest.main()
