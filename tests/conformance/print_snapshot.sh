#!/usr/bin/env bash
# Snapshot of everything the text printer and the proto writer produce for
# every module xlite is tested on: the JAX corpus (text and proto inputs),
# ../shared/hlo-corpus/real and the lit tests. Two snapshots taken with two
# builds of hlo-opt compare byte for byte (diff -r), which is how a
# behaviour-preserving refactor of the IR, parser, printer or proto code is
# shown to preserve behaviour:
#
#   tests/conformance/print_snapshot.sh OLD_HLO_OPT /tmp/before
#   tests/conformance/print_snapshot.sh bazel-bin/tools/hlo-opt /tmp/after
#   diff -r /tmp/before /tmp/after && echo identical
#
# Per input: the printed module(s) with stderr and the exit code (errors and
# warnings are located text, so they are compared too), and the serialized
# HloModuleProto of each module, binary.
set -u
hlo_opt=$(realpath "$1")
out=$2
cd "$(dirname "$0")/../.."
corpus=${XLITE_HLO_CORPUS:-../shared/hlo-corpus/real}
mkdir -p "$out"
inputs=$( (ls tests/corpus/programs/*/*.hlo tests/corpus/programs/*/*.pb;
           find tests/lit -name '*.hlo' | sort;
           ls "$corpus"/*.hlo 2>/dev/null) )
n=0
for f in $inputs; do
  key=$(echo "$f" | sed 's|^\.\./||; s|/|__|g')
  if grep -q '^// -----' "$f" 2>/dev/null; then
    "$hlo_opt" --split-input-file "$f" >"$out/$key.txt" 2>"$out/$key.err"
    echo "rc=$?" >>"$out/$key.err"
  else
    "$hlo_opt" "$f" >"$out/$key.txt" 2>"$out/$key.err"
    echo "rc=$?" >>"$out/$key.err"
    "$hlo_opt" "$f" --emit-proto -o "$out/$key.pb" 2>>"$out/$key.err"
    echo "proto rc=$?" >>"$out/$key.err"
  fi
  n=$((n + 1))
done
echo "print_snapshot: $n inputs -> $out"
