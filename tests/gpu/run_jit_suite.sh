#!/usr/bin/env bash
# The unit and GPU suites against a build that carries only sm_75 PTX
# (CMAKE_CUDA_ARCHITECTURES=75-virtual): the driver JIT-compiles every kernel
# at load, from the code an sm_75 GPU (T4) runs, which shows that the code
# paths for the oldest architecture ferry builds for give the right results
# on the GPU at hand. The JIT cache starts empty in the log folder: the
# first test process compiles every kernel it loads from the PTX, the others
# load that compiled code from the cache (a cold compile in each of ~150 test
# processes would take longer than the suite).
# Where there is no CUDA device it says "skipped: no CUDA device" and exits 0.
#   tests/gpu/run_jit_suite.sh [build-dir=build-jit]
# Environment: JOBS (build jobs, default nproc), CTEST_ARGS.
# Logs: <build-dir>/jit-suite/<step>.log
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build-jit}"
jobs="${JOBS:-$(nproc)}"
read -ra ctest_args <<<"${CTEST_ARGS:-}"

if ! command -v nvidia-smi >/dev/null 2>&1 || [[ "$(nvidia-smi -L 2>/dev/null)" != GPU* ]]; then
  echo "run_jit_suite: skipped: no CUDA device"
  exit 0
fi
logs="$build/jit-suite"
mkdir -p "$logs"
rm -rf "$logs/cuda-cache"
export CUDA_CACHE_DISABLE=0 CUDA_CACHE_PATH="$logs/cuda-cache" CUDA_CACHE_MAXSIZE=4294967296
echo "run_jit_suite: $(nvidia-smi -L | head -n 1); build $build, CMAKE_CUDA_ARCHITECTURES=75-virtual, JIT cache empty at start"

failed=()
# Runs one step; on failure prints its log's end and, unless it is a test step, stops.
step() {  # name, command...
  local name="$1" start=$SECONDS rc=0
  shift
  "$@" >"$logs/$name.log" 2>&1 || rc=$?
  local line
  line="$(grep -E "tests passed|No tests were found|ferry: CUDA backend|error:" "$logs/$name.log" | tail -n 1 || true)"
  printf 'run_jit_suite: %-10s exit %-3d %4d s  %s\n' "$name" "$rc" $((SECONDS - start)) "$line"
  if [ "$rc" -ne 0 ]; then
    failed+=("$name")
    tail -n 30 "$logs/$name.log" | sed 's/^/  | /'
    [[ "$name" == ctest-* ]] || exit 1
  fi
}

step configure cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=75-virtual \
  -DFERRY_BUILD_BINDINGS=OFF -DFERRY_BUILD_EXAMPLES=OFF -DFERRY_BUILD_BENCH=OFF
grep -q "ferry: CUDA backend ON" "$logs/configure.log" || { echo "run_jit_suite: FAILED: no CUDA compiler found" >&2; exit 1; }
step build cmake --build "$build" -j"$jobs" --target ferry ferry_static ferry_unit_tests ferry_c_abi_tests ferry_gpu_tests \
  ferry_fuzz_convert_cuda
# The libraries hold sm_75 PTX and no machine code (skipped where cuobjdump is missing).
step ctest-fatbin ctest --test-dir "$build" -L build --output-on-failure -V
step ctest-unit ctest --test-dir "$build" -L unit -j"$jobs" --output-on-failure "${ctest_args[@]}"
# GPU tests one at a time: they measure and share the device.
step ctest-gpu ctest --test-dir "$build" -L gpu --output-on-failure "${ctest_args[@]}"
# With a device there, a skipped or missing GPU test means the kernels did not run.
skipped="$(grep -c "(Skipped)" "$logs/ctest-gpu.log" || true)"
# (CTest says "100% tests passed out of N" when all passed.)
if [ "$skipped" != 0 ] || ! grep -qE "100% tests passed(, 0 tests failed)? out of [1-9]" "$logs/ctest-gpu.log"; then
  echo "run_jit_suite: FAILED: GPU tests skipped ($skipped) or none ran" >&2
  failed+=(gpu-skipped)
fi

if [ "${#failed[@]}" -gt 0 ]; then
  echo "run_jit_suite: FAILED: ${failed[*]} (logs in $logs)" >&2
  exit 1
fi
echo "run_jit_suite: all passed, the kernels JIT-compiled from sm_75 PTX (logs in $logs)"
