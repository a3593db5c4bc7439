#!/usr/bin/env bash
# Installs what building and testing ferry needs on a fresh Debian/Ubuntu
# machine (as root, or with sudo): apt for the system packages, pip for the
# Python packages of the `python3` on PATH. Skips what is already there.
#   install_deps.sh build   the library, C/C++ tests, benchmarks
#   install_deps.sh test    + SWIG, Python, Java and C# toolchains and test runners
set -euo pipefail
what="${1:-test}"

apt_packages=(cmake ninja-build g++ pkg-config libgtest-dev libbenchmark-dev)
if [ "$what" = test ]; then
  apt_packages+=(swig default-jdk-headless junit5 mono-devel nunit-console libnunit-cil-dev
                 python3-dev python3-numpy python3-pytest python3-torch)
fi

missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  echo "ferry: installing ${missing[*]}" >&2
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ "$what" = test ] && command -v python3 >/dev/null; then
  python3 -c 'import numpy, pytest' 2>/dev/null ||
    python3 -m pip install -q --disable-pip-version-check numpy pytest 2>&1 | grep -v "as the 'root' user" || true
fi
