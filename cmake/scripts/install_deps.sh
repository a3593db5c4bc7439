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
  # The Python tests run under Debian's python3 (python3-torch gives torch.from_dlpack on the CPU).
  apt_packages+=(openjdk-17-jdk-headless junit5 mono-devel nunit-console libnunit-cil-dev
                 python3-dev python3-numpy python3-pytest python3-torch)
  # Property tests (bindings/python/tests/test_properties.py).
  apt_packages+=(python3-hypothesis)
  # Resize against OpenCV's cv2.resize and torchvision (bindings/python/tests/test_resize_*.py).
  apt_packages+=(python3-opencv python3-torchvision)
fi

sudo_cmd=""
[ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
missing=()
for p in "${apt_packages[@]}"; do
  [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" == *"install ok installed"* ]] || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "ferry: installing ${missing[*]}" >&2
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# SWIG: a recent one from PyPI where pip works, else Debian's 4.1.
if [ "$what" = test ] && ! command -v swig >/dev/null; then
  if ! python3 -m pip install -q --disable-pip-version-check swig 2>/dev/null; then
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq swig >/dev/null
  fi
  hash -r
fi

# cuobjdump, for the test of the device code's architectures (build.cuda_archs): a CUDA
# toolkit may lack it; NVIDIA's PyPI package of the toolkit's major version has it.
nvcc="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
if [ "$what" = test ] && [ -x "$nvcc" ] && ! command -v cuobjdump >/dev/null &&
   [ ! -x "$(dirname "$nvcc")/cuobjdump" ] && ! python3 -m pip show -q nvidia-cuda-cuobjdump 2>/dev/null; then
  cuda_major="$("$nvcc" --version | sed -n 's/.*release \([0-9]*\)\..*/\1/p')"
  echo "ferry: installing nvidia-cuda-cuobjdump==$cuda_major.* (pip)" >&2
  python3 -m pip install -q --disable-pip-version-check "nvidia-cuda-cuobjdump==$cuda_major.*"
fi
