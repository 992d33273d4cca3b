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
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
