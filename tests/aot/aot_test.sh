#!/usr/bin/env bash
# Ahead-of-time libraries end to end. Usage:
#   aot_test.sh HLO_COMPILE HLO_RUN AOT_ARRAYS
# hlo-compile writes shared libraries and objects with their headers; the
# system C compiler builds C programs against them (driver.c, linked with
# the .so or the .o as a user links them), which run on the recorded
# inputs of the JAX corpus and must give XLA's recorded results (or, for
# the modules in modules/, hlo-run's). The .so files must depend on system
# libraries only; bad input and bad usage must fail with the right exit
# code and message.
set -euo pipefail

hlo_compile=$(realpath "$1")
hlo_run=$(realpath "$2")
aot_arrays=$(realpath "$3")
cc=${CC:-cc}
tmp=$(mktemp -d "${TEST_TMPDIR:-/tmp}/aot.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export XLITE_CACHE_DIR="$tmp/compile-cache"
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# The parameter files of a run, in order.
inputs() { ls "$1"/in_*.bin | sort -V; }

# The shared library's symbols: it exports aot_fn and aot_fn_with_temp
# alone, and every symbol it needs comes from a versioned system library
# (glibc, libstdc++, libgcc) or is weak; ldd finds no LLVM, absl or
# protobuf.
check_self_contained() {
  local lib=$1
  local exported
  exported=$(nm -D --defined-only "$lib" | awk '{print $3}' | sort | tr '\n' ' ')
  [ "$exported" = "aot_fn aot_fn_with_temp " ] ||
    fail "$lib exports '$exported'"
  local foreign
  foreign=$(nm -D --undefined-only "$lib" |
    grep -v -E '^ +w |@(GLIBC|GLIBCXX|CXXABI|GCC)_' || true)
  [ -z "$foreign" ] || fail "$lib needs symbols from outside the system: $foreign"
  if ldd "$lib" | grep -E -i 'not found|llvm|absl|protobuf'; then
    fail "$lib depends on more than system libraries"
  fi
}

# Compiles MODULE into DIR as libaot.so (and, with "object", aot.o), builds
# the driver against each and runs it on DIR/in/in_*.bin, comparing with
# WANT (a folder of out_J.npy).
run_library() {
  local module=$1 dir=$2 want=$3 object=${4:-}
  "$hlo_compile" "$module" --entry=aot_fn -o "$dir/libaot.so" ||
    { fail "hlo-compile $module -o libaot.so"; return; }
  check_self_contained "$dir/libaot.so"
  "$cc" -std=c99 -Wall -Werror -DAOT_HEADER='"libaot.h"' -I"$dir" \
    tests/aot/driver.c -o "$dir/driver_so" -L"$dir" -laot \
    -Wl,-rpath,"$dir" || { fail "cc against $dir/libaot.so"; return; }
  mkdir -p "$dir/so"
  "$dir/driver_so" $(inputs "$dir/in") "$dir/so" &&
    "$aot_arrays" compare "$module" "$want" "$dir/so" ||
    fail "$module as a shared library"
  [ -n "$object" ] || return 0
  "$hlo_compile" "$module" --entry=aot_fn -o "$dir/aot.o" ||
    { fail "hlo-compile $module -o aot.o"; return; }
  "$cc" -std=c99 -Wall -Werror -DAOT_HEADER='"aot.h"' -I"$dir" \
    tests/aot/driver.c "$dir/aot.o" -o "$dir/driver_o" -lstdc++ -lm \
    -lpthread || { fail "cc with $dir/aot.o"; return; }
  mkdir -p "$dir/o"
  "$dir/driver_o" $(inputs "$dir/in") "$dir/o" &&
    "$aot_arrays" compare "$module" "$want" "$dir/o" ||
    fail "$module as an object file"
}

# Every single-device program of the JAX corpus, after XLA's pipeline,
# against XLA's results; these also as object files and before XLA's
# pipeline (whose results leave the root in other layouts).
with_object=" mlp_train_step while_collatz sort_argsort transformer_forward fft_ops linalg_small "
with_before=" linalg_small shape_ops remat_mlp mlp_train_step "
corpus=0
for program in tests/corpus/programs/*/; do
  program=${program%/}
  name=$(basename "$program")
  if grep -q '"num_partitions": [2-9]' "$program/meta.json"; then continue; fi
  stages=after
  case "$with_before" in *" $name "*) stages="after before" ;; esac
  for stage in $stages; do
    dir="$tmp/corpus/$name.$stage"
    mkdir -p "$dir/in"
    "$aot_arrays" raw "$program/$stage.hlo" "$program" "$dir/in" ||
      { fail "inputs of $name"; continue; }
    object=
    case "$with_object" in *" $name "*) object=object ;; esac
    run_library "$program/$stage.hlo" "$dir" "$program" $object
    corpus=$((corpus + 1))
  done
done
echo "corpus: $corpus modules run as libraries"

# The modules here and a large (threaded) product against hlo-run.
for module in tests/aot/modules/donated_update.hlo \
  tests/aot/modules/layouts_constants.hlo \
  tests/aot/modules/streamed_transpose_add.hlo examples/dot_f32_512.hlo; do
  dir="$tmp/modules/$(basename "$module" .hlo)"
  mkdir -p "$dir/in" "$dir/want"
  "$aot_arrays" random "$module" "$dir/in" 7
  args=()
  for f in $(ls "$dir"/in/in_*.npy | sort -V); do args+=("--input=$f"); done
  "$hlo_run" "$module" "${args[@]}" --output="$dir/want"
  "$aot_arrays" raw "$module" "$dir/in" "$dir/in"
  run_library "$module" "$dir" "$dir/want" object
done

# Donation: result 0 computed in the very buffer of parameter 0.
dir="$tmp/modules/donated_update"
"$cc" -std=c99 -Wall -Werror -DDONATE -DAOT_HEADER='"libaot.h"' -I"$dir" \
  tests/aot/driver.c -o "$dir/driver_donate" -L"$dir" -laot \
  -Wl,-rpath,"$dir" && mkdir -p "$dir/donated" &&
  "$dir/driver_donate" $(inputs "$dir/in") "$dir/donated" &&
  "$aot_arrays" compare tests/aot/modules/donated_update.hlo "$dir/want" \
    "$dir/donated" || fail "the donated buffer"

# Two libraries in one program, as objects and as shared libraries: each
# keeps its runtime to itself.
two="$tmp/two"
mkdir -p "$two/first/in" "$two/second/in"
first=tests/corpus/programs/transformer_forward
second=tests/corpus/programs/fft_ops
"$aot_arrays" raw "$first/after.hlo" "$first" "$two/first/in"
"$aot_arrays" raw "$second/after.hlo" "$second" "$two/second/in"
for kind in o so; do
  out="$two/$kind"
  mkdir -p "$out/first" "$out/second"
  if [ $kind = o ]; then
    "$hlo_compile" "$first/after.hlo" --entry=first -o "$out/first.o"
    "$hlo_compile" "$second/after.hlo" --entry=second -o "$out/second.o"
    libs=("$out/first.o" "$out/second.o" -lstdc++ -lm -lpthread)
  else
    "$hlo_compile" "$first/after.hlo" --entry=first -o "$out/libfirst.so"
    "$hlo_compile" "$second/after.hlo" --entry=second -o "$out/libsecond.so"
    cp "$out/libfirst.h" "$out/first.h"
    cp "$out/libsecond.h" "$out/second.h"
    libs=(-L"$out" -lfirst -lsecond -Wl,-rpath,"$out")
  fi
  "$cc" -std=c99 -Wall -Werror -I"$out" tests/aot/two_libraries.c \
    "${libs[@]}" -o "$out/two" &&
    "$out/two" $(inputs "$two/first/in") $(inputs "$two/second/in") "$out" &&
    "$aot_arrays" compare "$first/after.hlo" "$first" "$out/first" &&
    "$aot_arrays" compare "$second/after.hlo" "$second" "$out/second" ||
    fail "two libraries in one program ($kind)"
done

# The example: it trains, and its classifier gets every label right.
ex="$tmp/example"
mkdir -p "$ex"
"$hlo_compile" examples/mlp_train_step.hlo --entry=train_step \
  -o "$ex/libtrain_step.so"
"$cc" -std=c99 -Wall -Wextra -Werror -O2 examples/aot/train_mlp.c -I"$ex" \
  -L"$ex" -ltrain_step -Wl,-rpath,"$ex" -o "$ex/train_mlp"
"$ex/train_mlp" | tee "$ex/out.txt"
predicted=$(sed -n 's/^predicted: *//p' "$ex/out.txt")
labels=$(sed -n 's/^labels: *//p' "$ex/out.txt")
[ -n "$labels" ] && [ "$predicted" = "$labels" ] ||
  fail "the example's predictions"
first_loss=$(sed -n 's/^step  0: loss //p' "$ex/out.txt")
last_loss=$(sed -n 's/^step 49: loss //p' "$ex/out.txt")
awk -v a="$first_loss" -v b="$last_loss" 'BEGIN { exit !(b < a / 4) }' ||
  fail "the example's loss does not fall ($first_loss -> $last_loss)"

# A module read from its proto.
"$hlo_compile" --format=pb tests/corpus/programs/while_collatz/after.pb \
  --entry=aot_fn -o "$tmp/from_proto.so" || fail "--format=pb"

# Failures: exit code and message.
expect() {
  local code=$1 pattern=$2
  shift 2
  local got=0
  "$hlo_compile" "$@" >"$tmp/stdout" 2>"$tmp/stderr" || got=$?
  if [ "$got" != "$code" ] || ! grep -q -E -- "$pattern" "$tmp/stderr" "$tmp/stdout"; then
    fail "hlo-compile $* exited $got (want $code), printed:"
    cat "$tmp/stdout" "$tmp/stderr" >&2
  fi
}
m=tests/corpus/programs/while_collatz/after.hlo
expect 0 'usage: hlo-compile' --help
expect 2 "unknown flag '--bogus'.*" "$m" --bogus -o "$tmp/x.so"
expect 2 'valid flags: .*--entry' "$m" --bogus -o "$tmp/x.so"
expect 2 'hlo-opt --platform=gpu --stage=executable' "$m" --platform=gpu -o "$tmp/x.so"
expect 2 "unknown platform 'tpu'" "$m" --platform=tpu -o "$tmp/x.so"
expect 2 'no output file' "$m"
expect 2 'must end in .so .* or .o' "$m" -o "$tmp/x.a"
expect 2 'is not a C identifier' "$m" --entry=1st -o "$tmp/x.so"
expect 2 'is not a C identifier' "$m" --entry=int -o "$tmp/x.so"
expect 2 'no input file' -o "$tmp/x.so"
expect 2 '--format' "$m" --format=json -o "$tmp/x.so"
expect 1 'taken by the runtime library' "$m" --entry=xlite_cpu_sort -o "$tmp/x.so"
expect 1 'replicated_all_reduce.hlo:13:8: error: an ahead-of-time library cannot hold %sum \(all-reduce\): the module runs on 2 devices' \
  tests/aot/modules/replicated_all_reduce.hlo -o "$tmp/x.so"
printf 'HloModule bad\n\nENTRY %%main {\n  ROOT %%x = f32[2] add(%%y, %%y)\n}\n' >"$tmp/bad.hlo"
expect 1 'bad.hlo:4:[0-9]+: error: ' "$tmp/bad.hlo" -o "$tmp/x.so"
printf 'HloModule feed\n\nENTRY %%main {\n  %%t = token[] after-all()\n  ROOT %%i = ((f32[2]), token[]) infeed(%%t)\n}\n' >"$tmp/feed.hlo"
expect 1 'feed.hlo:5:8: error: the cpu backend cannot compile %i \(infeed\)' "$tmp/feed.hlo" -o "$tmp/x.so"
[ ! -e "$tmp/x.so" ] || fail "a failed compile wrote $tmp/x.so"

if [ "$failures" -gt 0 ]; then
  echo "$failures failures" >&2
  exit 1
fi
echo "PASS"
