#!/usr/bin/env bash
# Runs python/tests/test_xlite.py under Bazel with the JAX virtualenv's
# python (numpy, ml_dtypes), the package from the runfiles and the
# libxlite.so Bazel built. Bazel points HOME at a temporary directory, so
# the virtualenv is looked for under the user's real home.
set -euo pipefail

home="$(getent passwd "$(id -u)" | cut -d: -f6)"
venv="${XLITE_VENV:-${home}/.cache/xlite-venv}"
python="${venv}/bin/python"
if [[ ! -x "${python}" ]]; then
  echo "FAIL: no Python virtualenv at ${venv} (the tests need its numpy" \
       "and ml_dtypes): run tools/setup.sh to create it, or set XLITE_VENV" >&2
  exit 1
fi

runfiles="${TEST_SRCDIR}/${TEST_WORKSPACE}"
export PYTHONPATH="${runfiles}/python"
export XLITE_LIBRARY="${runfiles}/api/libxlite.so"
export XLITE_CORPUS_DIR="${runfiles}/tests/corpus/programs"
exec "${python}" -B "${runfiles}/python/tests/test_xlite.py"
