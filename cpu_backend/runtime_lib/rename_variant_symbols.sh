#!/bin/bash
# rename_variant_symbols.sh ARCHIVE SUFFIX OUT: copies the one object file
# of ARCHIVE (a contraction variant's library, contraction_variant.cc) to
# OUT with every symbol it defines renamed NAME -> NAME.SUFFIX, except
# xlite_contraction_kernels_*. Eigen's template instances are weak symbols
# in COMDAT groups under the same names in every translation unit; renamed
# (the local group signatures of constructor and destructor groups too),
# the AVX2 or AVX-512 ones can never replace (or be replaced by) the
# baseline ones that the rest of the program links.
set -euo pipefail
archive=$(realpath "$1")
suffix=$2
out=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && ar x "$archive")
objects=("$tmp"/*.o)
if [ "${#objects[@]}" -ne 1 ]; then
  echo "expected one object in $archive, found ${#objects[@]}" >&2
  exit 1
fi
nm --defined-only "${objects[0]}" |
  awk -v s="$suffix" 'NF == 3 && $3 !~ /^xlite_contraction_kernels_/ \
                      { print $3, $3 "." s }' >"$tmp/renames"
objcopy --redefine-syms="$tmp/renames" "${objects[0]}" "$out"
