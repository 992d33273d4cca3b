#!/usr/bin/env bash
# Runs the "// RUN:" lines of one lit test file. Usage:
#   run_lit.sh TEST_FILE HLO_OPT FILECHECK NOT HLO_RUN
# In RUN lines, %s is the test file, %S its directory and %t a path prefix
# for temporary files (a fresh directory per test); hlo-opt, hlo-run,
# FileCheck and not name the tools passed in. Each RUN line runs under bash with pipefail.
set -euo pipefail
test_file=$1
# The tools go on PATH under their usual names (so `not` finds them too).
bin_dir=$(mktemp -d)
tmp_dir=$(mktemp -d)
trap 'rm -rf "$bin_dir" "$tmp_dir"' EXIT
ln -s "$(realpath "$2")" "$bin_dir/hlo-opt"
ln -s "$(realpath "$3")" "$bin_dir/FileCheck"
ln -s "$(realpath "$4")" "$bin_dir/not"
ln -s "$(realpath "$5")" "$bin_dir/hlo-run"
export PATH="$bin_dir:$PATH"
# hlo-run's compile cache stays inside the test (RUN lines may override).
export XLITE_CACHE_DIR="$tmp_dir/compile-cache"
test_path=$(realpath "$test_file")

runs=$(sed -n 's|^[[:space:]]*//[[:space:]]*RUN:[[:space:]]\?||p' "$test_file")
if [ -z "$runs" ]; then
  echo "error: $test_file has no // RUN: lines" >&2
  exit 1
fi
n=0
while IFS= read -r line; do
  n=$((n + 1))
  cmd=${line//%s/$test_path}
  cmd=${cmd//%t/$tmp_dir/t}
  cmd=${cmd//%S/$(dirname "$test_path")}
  echo "RUN $n: $cmd"
  bash -o pipefail -c "$cmd" || {
    echo "FAILED: RUN line $n of $test_file" >&2
    exit 1
  }
done <<< "$runs"
