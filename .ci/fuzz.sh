#!/usr/bin/env bash
# CI job: each libFuzzer target (tests/fuzz) for a bounded time, from the seed
# corpus, with ASan + UBSan (clang). A finding fails the run and prints the input
# (base64) and how to replay it. FERRY_FUZZ_SECONDS per target (default 70),
# the targets side by side, one a core.
source "$(dirname "$0")/lib.sh"
ci_apt clang libclang-rt-14-dev
build=build-ci-fuzz
seconds="${FERRY_FUZZ_SECONDS:-70}"
ci_step "fuzz: configure and build ($build)"
cmake -S . -B "$build" "${ci_cpu_flags[@]}" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-O1 -g" -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" \
  -DFERRY_FUZZ=ON -DFERRY_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$build" -j"$ci_jobs" --target ferry_fuzz_convert ferry_fuzz_memory ferry_fuzz_frames ferry_fuzz_augment ferry_fuzz_dataset
export ASAN_OPTIONS=allocator_may_return_null=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# One target on one core (each fuzzer is single-threaded), ci_jobs at a time:
# on two cores the five take three rounds of $seconds, not five. Each writes
# its exit status next to its log.
fuzz_target() {
  local target=$1 work="$build/fuzz-$target"
  rm -rf "$work" && mkdir -p "$work/corpus" "$work/artifacts"
  cp tests/fuzz/corpus/"$target"/* "$work/corpus/"
  ci_step "fuzz: $target for $seconds s"
  if "$build/tests/fuzz/ferry_fuzz_$target" -max_total_time="$seconds" -timeout=60 -rss_limit_mb=4096 \
      -print_final_stats=1 -artifact_prefix="$work/artifacts/" "$work/corpus" >"$work/log" 2>&1; then
    echo 0 >"$work/status"
  else
    echo 1 >"$work/status"
  fi
}
targets=(convert memory frames augment dataset)
running=0
for target in "${targets[@]}"; do
  if [ "$running" -ge "$ci_jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  fuzz_target "$target" &
  running=$((running + 1))
done
wait
status=0
for target in "${targets[@]}"; do
  work="$build/fuzz-$target"
  if [ "$(cat "$work/status" 2>/dev/null)" != 0 ]; then
    status=1
    tail -n 80 "$work/log" || true
    for f in "$work"/artifacts/*; do
      [ -f "$f" ] || continue
      echo "fuzz: FINDING in $target: $f (base64: $(base64 -w0 "$f"))"
      echo "fuzz: replay: $build/tests/fuzz/ferry_fuzz_$target $f  (or ferry_fuzz_${target}_replay in any build)"
    done
  fi
  grep -E "^stat::(number_of_executed_units|average_exec_per_sec|new_units_added)" "$work/log" | sed "s/^/fuzz: $target /" || true
done
exit "$status"
