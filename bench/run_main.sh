#!/usr/bin/env bash
# The README's main command: builds ferry and runs ferry-bench, the staging
# benchmark: a batch staged and converted, beside the bus limit and the naive
# path, on the GPU if there is one, else on the CPU backend. Besides the table
# it writes the results as JSON and a bar chart (SVG) of each row against the
# limit, to $FERRY_BENCH_OUT (default bench/results/, git-ignored):
# ferry-bench.json and ferry-bench.svg. The device code is built only for the
# GPUs found here (cmake/scripts/cuda_archs_here.sh; CUDAARCHS overrides).
#   bash bench/run_main.sh [ferry-bench options, see --help]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${FERRY_BUILD_DIR:-build-main}"
out="${FERRY_BENCH_OUT:-bench/results}"

bash cmake/scripts/install_deps.sh build
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES="$(bash cmake/scripts/cuda_archs_here.sh)" \
  -DFERRY_BUILD_TESTS=OFF -DFERRY_BUILD_BINDINGS=OFF -DFERRY_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target ferry-bench
"$build/bench/ferry-bench" --json "$out/ferry-bench.json" --svg "$out/ferry-bench.svg" "$@"
