#!/usr/bin/env bash
# ferry's GPU run, for the GPU machine: build for sm_90, run every test (unit
# and gpu labels), ferry-bench (table + JSON), the Python benchmarks. Logs and
# JSON go to $OUT (default ./out), each ferry-bench JSON with its chart beside it
# (ferry-bench.svg, ...). Each step's log is $OUT/<step>.log.
#
#   bash bench/run_gpu.sh                 # all steps: build test bench python
#   bash bench/run_gpu.sh build test      # only those (split over several calls
#   bash bench/run_gpu.sh bench python    #  that keep the build folder)
#   bash bench/run_gpu.sh jit             # not by default: the unit and GPU suites on kernels
#                                         #  JIT-compiled from sm_75 PTX (tests/gpu/run_jit_suite.sh)
#
# Knobs (environment): OUT, FERRY_BUILD_DIR (default build-gpu), JOBS,
# CUDA_ARCH (default 90), FERRY_BUILD_BINDINGS (default OFF: no SWIG there),
# FERRY_BENCH_ARGS (extra ferry-bench options), CTEST_ARGS.
# Other engineers' benchmarks: append a line to BENCHES below, "name|command";
# the command runs in the repository root with $BUILD and $OUT set.
set -uo pipefail
cd "$(dirname "$0")/.."
export OUT="${OUT:-$PWD/out}"
export BUILD="${FERRY_BUILD_DIR:-build-gpu}"
JOBS="${JOBS:-$(nproc)}"
mkdir -p "$OUT"
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(build test bench python)

BENCHES=(
  "ferry-bench|$BUILD/bench/ferry-bench --json $OUT/ferry-bench.json ${FERRY_BENCH_ARGS:-}"
  "ferry-bench-fp16|$BUILD/bench/ferry-bench --dtype f16 --source pinned --json $OUT/ferry-bench-fp16.json"
  "ferry-bench-small-chunks|$BUILD/bench/ferry-bench --chunk-mb 4 --source pinned --json $OUT/ferry-bench-4mb.json"
  "frame_bench|$BUILD/bench/ferry_bench_frame"
  "convert_bench|$BUILD/bench/ferry_bench_convert"
  "resize_bench|$BUILD/bench/ferry_bench_resize"
  # The Python module's rows need the binding built: FERRY_BUILD_BINDINGS=ON (SWIG on PATH).
  "pipeline_bench|PYTHONPATH=$BUILD/bindings/python python3 bench/python/pipeline_bench.py --helper $BUILD/bench/python/ferry_bench_one_image --json $OUT/pipeline_bench.json"
  # "memory_bench|$BUILD/bench/ferry_bench_memory --benchmark_out=$OUT/memory_bench.json"
)

declare -A result
run_step() {  # name, command...
  local name=$1
  shift
  echo "== $name: $*"
  local start=$SECONDS
  bash -c "$*" >"$OUT/$name.log" 2>&1
  local rc=$?
  result[$name]=$rc
  echo "   rc=$rc in $((SECONDS - start)) s; last lines of $OUT/$name.log:"
  tail -n "${TAIL_LINES:-30}" "$OUT/$name.log" | sed 's/^/   | /'
}

for step in "${steps[@]}"; do
  case "$step" in
    build)
      nvidia-smi -L >"$OUT/gpus.txt" 2>&1 || true
      run_step configure "cmake -S . -B $BUILD -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCH:-90} \
        -DFERRY_BUILD_BINDINGS=${FERRY_BUILD_BINDINGS:-OFF} -DFERRY_BUILD_EXAMPLES=OFF"
      run_step build "cmake --build $BUILD -j$JOBS"
      ;;
    test)
      run_step ctest-unit "ctest --test-dir $BUILD -L unit -j$JOBS --output-on-failure ${CTEST_ARGS:-}"
      # GPU tests one at a time: they measure and share the device.
      run_step ctest-gpu "ctest --test-dir $BUILD -L gpu --output-on-failure ${CTEST_ARGS:-}"
      run_step ctest-other "ctest --test-dir $BUILD -LE 'unit|gpu' --output-on-failure ${CTEST_ARGS:-}"
      ;;
    bench)
      for entry in "${BENCHES[@]}"; do
        [[ "$entry" == \#* ]] && continue
        name=${entry%%|*}
        [[ "$name" == pipeline_bench ]] && continue
        run_step "$name" "${entry#*|}"
      done
      ;;
    python)
      for entry in "${BENCHES[@]}"; do
        name=${entry%%|*}
        [[ "$name" == pipeline_bench ]] && run_step "$name" "${entry#*|}"
      done
      ;;
    jit)
      run_step jit "bash tests/gpu/run_jit_suite.sh $BUILD-jit"
      ;;
    *)
      echo "run_gpu.sh: unknown step $step (build, test, bench, python, jit)" >&2
      exit 2
      ;;
  esac
done

echo "== summary (rc per step; logs and JSON in $OUT)"
failed=0
for name in "${!result[@]}"; do
  echo "   $name: ${result[$name]}"
  [ "${result[$name]}" -ne 0 ] && failed=1
done
exit $failed
