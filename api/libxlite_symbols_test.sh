#!/usr/bin/env bash
# libxlite.so exports exactly the functions c_api.h declares (besides the
# weak std::string instantiations gold leaves dynamic because libstdc++.so
# defines them too), and every library it needs is found.
set -euo pipefail

lib="$1"
header="$2"
status=0

want="$(grep -o 'xlite_[a-z0-9_]*(' "${header}" | tr -d '(' | sort -u)"
got="$(nm -D --defined-only "${lib}" | awk '$2 ~ /^[TDBR]$/ {print $3}' |
       sort -u)"
if [[ "${want}" != "${got}" ]]; then
  echo "FAIL: exported symbols differ from c_api.h (< header, > library):"
  diff <(echo "${want}") <(echo "${got}") || true
  status=1
fi
other="$(nm -D --defined-only "${lib}" | awk '$2 !~ /^[TDBRdWV]$/ || ($2 ~ /^[WV]$/ && $3 !~ /^_ZN?K?St7__cxx11/) {print}')"
if [[ -n "${other}" ]]; then
  echo "FAIL: other exported symbols:"
  echo "${other}"
  status=1
fi
if ldd "${lib}" | grep -q 'not found'; then
  echo "FAIL: missing libraries:"
  ldd "${lib}" | grep 'not found'
  status=1
fi
[[ ${status} -eq 0 ]] && echo "PASS: $(echo "${want}" | wc -l) C API functions exported"
exit ${status}
