#!/usr/bin/env bash
# The GPU test suite under NVIDIA compute-sanitizer: memcheck (with --leak-check full),
# racecheck, synccheck and initcheck, one after the other; then the convert fuzz
# inputs on the GPU (ferry_fuzz_convert_cuda: corpus + random descriptors, checked
# against the CPU backend) under memcheck. Fails on any sanitizer error or test
# failure; prints each tool's summary line. Where there is no CUDA device it says
# "skipped: no CUDA device" and exits 0.
#   tests/gpu/run_compute_sanitizer.sh [build-dir=build] [gtest-filter=*]
# Environment: TOOLS (default "memcheck racecheck synccheck initcheck"),
#   FUZZ_SECONDS (random descriptors under memcheck, default 60; 0 = corpus only).
# Logs: <build-dir>/compute-sanitizer/<tool>.log
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build}"
filter="${2:-*}"
tools="${TOOLS:-memcheck racecheck synccheck initcheck}"
fuzz_seconds="${FUZZ_SECONDS:-60}"

if ! command -v nvidia-smi >/dev/null 2>&1 || [[ "$(nvidia-smi -L 2>/dev/null)" != GPU* ]]; then
  echo "run_compute_sanitizer: skipped: no CUDA device"
  exit 0
fi
sanitizer="$(command -v compute-sanitizer || true)"
[ -n "$sanitizer" ] || sanitizer=/usr/local/cuda/bin/compute-sanitizer
if [ ! -x "$sanitizer" ]; then
  echo "run_compute_sanitizer: compute-sanitizer not found (PATH, /usr/local/cuda/bin)" >&2
  exit 2
fi
gpu_tests="$build/tests/ferry_gpu_tests"
replay="$build/tests/fuzz/ferry_fuzz_convert_cuda"
if [ ! -x "$gpu_tests" ]; then
  echo "run_compute_sanitizer: $gpu_tests not built (a CUDA build: cmake --build $build)" >&2
  exit 2
fi
logs="$build/compute-sanitizer"
mkdir -p "$logs"

failed=()
# Runs one tool over a command; fails on a non-zero exit or a non-zero error summary.
run_tool() {
  local tool="$1" name="$2"
  shift 2
  local log="$logs/$name.log" args=(--tool "$tool" --error-exitcode 86 --print-limit 100)
  case "$tool" in
    # The suite provokes CUDA errors on purpose (device memory exhausted, a
    # range registered twice, a copy from a bad pointer) to test ferry's error
    # paths: API errors are not findings. Memory access errors and leaks are.
    memcheck) args+=(--leak-check full --report-api-errors no) ;;
    racecheck) args+=(--racecheck-report all) ;;
  esac
  local start=$SECONDS rc=0
  "$sanitizer" "${args[@]}" "$@" >"$log" 2>&1 || rc=$?
  local summary
  summary="$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY" "$log" | tail -n 2 | tr '\n' ' ')"
  printf 'run_compute_sanitizer: %-22s exit %-3d %4d s  %s\n' "$name" "$rc" $((SECONDS - start)) "$summary"
  if [ "$rc" -ne 0 ] || grep -qE "ERROR SUMMARY: [1-9]|RACECHECK SUMMARY: [1-9]" "$log"; then
    failed+=("$name")
    grep -E "^========= (Invalid|Program hit|Leaked|Race|Barrier|Uninitialized|Error|Warning)|FAILED|\[  FAILED" "$log" \
      | head -n 40 || true
  fi
}

for tool in $tools; do
  f="$filter"
  # initcheck keeps device memory of its own: the test that measures free
  # device memory across create/destroy cycles cannot hold there (memcheck's
  # leak check covers it). It also tracks every copy, which held a copy behind
  # a kernel on another stream on the H100: the test that copies overlap a
  # busy hand-off stream runs under the other tools.
  if [ "$tool" = initcheck ]; then
    skip="StageGpu.DestroyWithBatchesInFlightLeaksNoDeviceMemory:StageHandoff.CopiesRunWhileTheHandoffStreamIsBusy"
    case "$f" in
      *-*) f="$f:$skip" ;;
      *) f="$f-$skip" ;;
    esac
  fi
  run_tool "$tool" "gpu_tests.$tool" "$gpu_tests" --gtest_filter="$f" --gtest_brief=1
done
if [ -x "$replay" ]; then
  run_tool memcheck "convert_replay.memcheck" "$replay" --seconds "$fuzz_seconds" tests/fuzz/corpus/convert
else
  echo "run_compute_sanitizer: $replay not built; the fuzz replay is left out" >&2
fi

if [ "${#failed[@]}" -gt 0 ]; then
  echo "run_compute_sanitizer: FAILED: ${failed[*]} (logs in $logs)" >&2
  exit 1
fi
echo "run_compute_sanitizer: all clean (logs in $logs)"
