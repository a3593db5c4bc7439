#!/usr/bin/env bash
# The unit and GPU suites against a build that carries only sm_75 PTX
# (CMAKE_CUDA_ARCHITECTURES=75-virtual): the driver JIT-compiles every kernel
# at load, from the code an sm_75 GPU (T4) runs, which shows that the code
# paths for the oldest architecture ferry builds for give the right results
# on the GPU at hand. The JIT cache is off and the GPU tests run in one
# process: each kernel is compiled once, at its first use (one process per
# test, as CTest runs them, compiled the same kernels ~150 times: over 7
# minutes on an H100 for a third of the suite).
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
export CUDA_CACHE_DISABLE=1
echo "run_jit_suite: $(nvidia-smi -L | head -n 1); build $build, CMAKE_CUDA_ARCHITECTURES=75-virtual, JIT cache off"

failed=()
# Runs one step; on failure prints its log's end and, unless it is a test step, stops.
step() {  # name, command...
  local name="$1" start=$SECONDS rc=0
  shift
  "$@" >"$logs/$name.log" 2>&1 || rc=$?
  local line
  line="$(grep -E "tests passed|No tests were found|ferry: CUDA backend|error:|^\[  (PASSED|FAILED)  \]" "$logs/$name.log" | tail -n 1 || true)"
  printf 'run_jit_suite: %-10s exit %-3d %4d s  %s\n' "$name" "$rc" $((SECONDS - start)) "$line"
  if [ "$rc" -ne 0 ]; then
    failed+=("$name")
    tail -n 30 "$logs/$name.log" | sed 's/^/  | /'
    [[ "$name" == ctest-* || "$name" == gpu-tests ]] || exit 1
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
# The GPU tests in one process (see above), one after the other.
step gpu-tests "$build/tests/ferry_gpu_tests" --gtest_brief=1
# With a device there, a skipped or missing GPU test means the kernels did not run.
skipped="$(grep -c "^\[  SKIPPED \]" "$logs/gpu-tests.log" || true)"
if [ "$skipped" != 0 ] || ! grep -qE "^\[  PASSED  \] [1-9][0-9]* tests?\.$" "$logs/gpu-tests.log"; then
  echo "run_jit_suite: FAILED: GPU tests skipped ($skipped) or none ran" >&2
  failed+=(gpu-skipped)
fi

if [ "${#failed[@]}" -gt 0 ]; then
  echo "run_jit_suite: FAILED: ${failed[*]} (logs in $logs)" >&2
  exit 1
fi
echo "run_jit_suite: all passed, the kernels JIT-compiled from sm_75 PTX (logs in $logs)"
