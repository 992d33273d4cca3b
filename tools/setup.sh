#!/usr/bin/env bash
# Installs every Debian package xlite's build and tests need. Idempotent:
# packages already present are skipped by apt-get.
set -euo pipefail

PACKAGES=(
  bazel-bootstrap
  build-essential
  libabsl-dev
  libprotobuf-dev protobuf-compiler
  libgtest-dev libgmock-dev googletest
  libbenchmark-dev
  libeigen3-dev
  llvm-19 llvm-19-dev llvm-19-tools
  clang-19 libclang-rt-19-dev
  zlib1g-dev libzstd-dev libedit-dev libxml2-dev
  python3
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
else
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The Python virtualenv of the reference oracles (jax/jaxlib with XLA:CPU,
# numpy, ml_dtypes): the tests of the Python package and of the JAX plugin
# run in it, as do the benchmark and corpus scripts.
VENV="${XLITE_VENV:-$HOME/.cache/xlite-venv}"
PINS=(jax==0.10.2 jaxlib==0.10.2 numpy==2.4.6 ml_dtypes==0.6.0 scipy==1.17.1)
if ! "$VENV/bin/python" -c "import jax, numpy, ml_dtypes, scipy" 2>/dev/null; then
  echo "setup: creating the virtualenv $VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet "${PINS[@]}"
else
  echo "setup: virtualenv $VENV present"
fi

# The PJRT C API headers (api/pjrt): not in the jaxlib wheel; the
# tensorflow-cpu wheel ships them (Apache-2.0). Fetched once, kept out of
# git (third_party/pjrt_c_api/include is ignored).
TF_WHEEL_VERSION=2.21.0
HEADERS_CACHE="$HOME/.cache/xlite-downloads/pjrt-c-api-$TF_WHEEL_VERSION"
REPO="$(cd "$(dirname "$0")/.." && pwd)"
DEST="$REPO/third_party/pjrt_c_api/include/xla/pjrt/c"
if [ ! -f "$HEADERS_CACHE/xla/pjrt/c/pjrt_c_api.h" ]; then
  echo "setup: fetching the PJRT C API headers (tensorflow-cpu==$TF_WHEEL_VERSION)"
  tmp="$(mktemp -d)"
  "$VENV/bin/python" -m pip download --quiet --no-deps --only-binary=:all: \
    --python-version 3.11 --platform manylinux_2_27_x86_64 \
    -d "$tmp" "tensorflow-cpu==$TF_WHEEL_VERSION"
  "$VENV/bin/python" - "$tmp" "$HEADERS_CACHE" <<'PY'
import glob, os, sys, zipfile
wheel = glob.glob(os.path.join(sys.argv[1], "*.whl"))[0]
prefix = "tensorflow/include/"
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        if name.startswith(prefix + "xla/pjrt/c/") and name.endswith(".h"):
            out = os.path.join(sys.argv[2], name[len(prefix):])
            os.makedirs(os.path.dirname(out), exist_ok=True)
            with open(out, "wb") as f:
                f.write(z.read(name))
PY
  rm -rf "$tmp"
fi
mkdir -p "$DEST"
cp "$HEADERS_CACHE"/xla/pjrt/c/*.h "$DEST/"
echo "setup: PJRT C API headers in third_party/pjrt_c_api/include"
