#!/usr/bin/env bash
# The README's test command: installs what it needs, builds everything (the
# library, C/C++ tests, the Python, Java and C# bindings, the examples) and
# runs every test with CTest. GPU tests run where a GPU is, and are reported
# as skipped where none is. Exits non-zero on any failure.
#   bash tests/run_all.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"

bash cmake/scripts/install_deps.sh test
# install_deps.sh installed cuobjdump where there is a CUDA toolkit: build.cuda_archs fails without it.
export FERRY_REQUIRE_CUOBJDUMP=1
# The Python tests run under Debian's python3, which has python3-torch for torch.from_dlpack
# (and python3-opencv, python3-torchvision: the references of bindings/python/tests/test_resize_*.py).
py=/usr/bin/python3; [ -x "$py" ] || py="$(command -v python3)"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython3_EXECUTABLE="$py"
cmake --build "$build" -j"$(nproc)"
cd "$build"
ctest --output-on-failure -j"$(nproc)" --timeout 600
