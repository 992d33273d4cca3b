#!/usr/bin/env bash
# Keeps hlo/README.md's "Adding an opcode" checklist honest. Applies
# add_opcode.patch (a test-only element-wise opcode `test-scale(x), k=K`
# with a required attribute) to a copy of hlo/, checks that it touches only
# the files the checklist names, builds the copy with the system compiler
# and runs the patch's lit test through a driver that parses, verifies,
# prints, round-trips through HloModuleProto and evaluates the module.
#
# Args: PATCH DRIVER_CC FILECHECK, then the source files of hlo/.
set -euo pipefail
patch_file=$(realpath "$1")
driver=$(realpath "$2")
filecheck=$(realpath "$3")
shift 3

work=${TEST_TMPDIR:-$(mktemp -d)}/tree
rm -rf "$work"
mkdir -p "$work"
for f in "$@"; do
  mkdir -p "$work/$(dirname "$f")"
  cp "$f" "$work/$f"
done
cd "$work"

# 1. The patch touches only the checklist's places: the opcode list, the
#    schema rows, a family's shape rule or evaluator function, and tests.
touched=$(grep -E '^\+\+\+ b/' "$patch_file" | sed 's|^+++ b/||')
for f in $touched; do
  case "$f" in
    hlo/ir/opcode.h | hlo/ir/opcode_schema.cc) ;;
    hlo/analysis/shape_inference_*.cc | hlo/evaluator/*.cc) ;;
    tests/*) ;;
    *)
      echo "FAIL: the patch touches $f, which the checklist does not name"
      exit 1
      ;;
  esac
done
echo "patch touches: $(echo $touched)"
patch -p1 --quiet <"$patch_file"

# 2. Build the patched hlo/ rooms and the driver.
mkdir -p gen obj
protoc --proto_path=. --cpp_out=gen hlo/proto/hlo.proto hlo/proto/xla_data.proto
sources=$(ls hlo/ir/*.cc hlo/analysis/*.cc hlo/text/*.cc hlo/proto/*.cc \
  hlo/evaluator/*.cc gen/hlo/proto/*.pb.cc | grep -v '_test\.cc$' |
  grep -v 'test_util\.cc$')
cp "$driver" obj/driver.cc
flags="-std=c++20 -O1 -w -I. -Igen -I/usr/include/eigen3"
printf '%s\n' $sources obj/driver.cc |
  xargs -P "$(nproc)" -I{} sh -c \
    'g++ '"$flags"' -c {} -o obj/$(echo {} | tr / _).o' ||
  { echo "FAIL: the patched tree does not compile"; exit 1; }
absl=$(for l in flags_parse flags_usage flags_usage_internal flags_internal \
  flags_marshalling flags_reflection flags_private_handle_accessor \
  flags_commandlineflag flags_commandlineflag_internal flags_config \
  flags_program_name statusor status cord cordz_info cord_internal \
  cordz_functions cordz_handle exponential_biased synchronization \
  graphcycles_internal stacktrace symbolize debugging_internal \
  demangle_internal malloc_internal time civil_time time_zone hash city \
  low_level_hash raw_hash_set hashtablez_sampler str_format_internal strings \
  strings_internal int128 throw_delegate base raw_logging_internal \
  log_severity spinlock_wait bad_optional_access bad_variant_access; do
  echo "-labsl_$l"; done)
g++ -o add_opcode_driver obj/*.o -lprotobuf $absl -lpthread

# 3. The patch's lit test, through the driver.
lit=$(grep -E '^\+\+\+ b/tests/.*\.hlo$' "$patch_file" | sed 's|^+++ b/||')
./add_opcode_driver "$lit" | "$filecheck" "$lit"
echo "PASS: $lit"
