"""Builds libxlite.so with Bazel and bundles it in the xlite package.

`pip install ./python` (from the repository root) runs
`bazel build //api:libxlite.so //api/pjrt:pjrt_plugin_xlite.so` in the
repository, the parent of this folder, and copies the C API library beside
the xlite package's modules and the PJRT plugin beside jax_plugins.xlite.
Set XLITE_PREBUILT_LIBRARY (and XLITE_PREBUILT_PJRT_PLUGIN) to built
libraries to skip Bazel.
"""

import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
REPOSITORY = os.path.dirname(HERE)
TARGETS = {"//api:libxlite.so": "XLITE_PREBUILT_LIBRARY",
           "//api/pjrt:pjrt_plugin_xlite.so": "XLITE_PREBUILT_PJRT_PLUGIN"}


def build_libraries():
    """The paths of freshly built libxlite.so and pjrt_plugin_xlite.so."""
    prebuilt = [os.environ.get(v) for v in TARGETS.values()]
    if all(prebuilt):
        return prebuilt
    if not os.path.exists(os.path.join(REPOSITORY, "WORKSPACE")):
        raise RuntimeError(
            f"{REPOSITORY} is not the xlite repository (no WORKSPACE): "
            f"install from a checkout, `pip install ./python`, or set "
            f"XLITE_PREBUILT_LIBRARY")
    bazel = os.environ.get("BAZEL", "bazel")
    # Bazel hands PATH to its actions: pip's build environment in it would
    # make every action new, a rebuild of the whole tree.
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join(
        p for p in env.get("PATH", "").split(os.pathsep)
        if "pip-build-env" not in p)
    subprocess.check_call([bazel, "build"] + list(TARGETS), cwd=REPOSITORY,
                          env=env)
    bin_dir = subprocess.check_output([bazel, "info", "bazel-bin"],
                                      cwd=REPOSITORY, env=env,
                                      text=True).strip()
    return [os.path.join(bin_dir, t[2:].replace(":", "/")) for t in TARGETS]


class BuildPyWithLibrary(build_py):
    """build_py, then the library into the built package."""

    def run(self):
        super().run()
        library, plugin = build_libraries()
        for source, destination in (
                (library, os.path.join(self.build_lib, "xlite",
                                       "libxlite.so")),
                (plugin, os.path.join(self.build_lib, "jax_plugins", "xlite",
                                      "pjrt_plugin_xlite.so"))):
            shutil.copyfile(source, destination)
            os.chmod(destination, 0o755)


class NativeDistribution(Distribution):
    """The wheel holds a native library: tag it for this platform."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildPyWithLibrary},
      distclass=NativeDistribution)
