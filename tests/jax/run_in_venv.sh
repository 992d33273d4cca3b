#!/usr/bin/env bash
# Runs a Python test of the JAX plugin in the oracle virtualenv that
# tools/setup.sh creates ($XLITE_VENV, else ~/.cache/xlite-venv of the real
# home: Bazel points HOME at a temporary directory in tests), with the
# plugin library and jax_plugins.xlite from this build.
#   run_in_venv.sh SCRIPT.py PLUGIN.so [ARGS...]
set -euo pipefail
script="$1"; plugin="$2"; shift 2
home="$(getent passwd "$(id -u)" | cut -d: -f6)"
venv="${XLITE_VENV:-$home/.cache/xlite-venv}"
if [ ! -x "$venv/bin/python" ]; then
  echo "error: no Python virtualenv at $venv; run tools/setup.sh" >&2
  exit 1
fi
here="$(pwd)"
export XLITE_PJRT_PLUGIN="$here/$plugin"
export PYTHONPATH="$here/python${PYTHONPATH:+:$PYTHONPATH}"
# The tests compile with xlite's in-memory cache only.
export XLITE_CACHE_DIR="${TEST_TMPDIR:-/tmp}/xlite-cache"
exec "$venv/bin/python" "$script" "$@"
