#!/usr/bin/env bash
# CI job: each libFuzzer target (tests/fuzz) for a bounded time, from the seed
# corpus, with ASan + UBSan (clang). A finding fails the run and prints the input
# (base64) and how to replay it. FERRY_FUZZ_SECONDS per target (default 70).
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
status=0
for target in convert memory frames augment dataset; do
  work="$build/fuzz-$target"
  rm -rf "$work" && mkdir -p "$work/corpus" "$work/artifacts"
  cp tests/fuzz/corpus/"$target"/* "$work/corpus/"
  ci_step "fuzz: $target for $seconds s"
  if ! "$build/tests/fuzz/ferry_fuzz_$target" -max_total_time="$seconds" -timeout=60 -rss_limit_mb=4096 \
      -print_final_stats=1 -artifact_prefix="$work/artifacts/" "$work/corpus" >"$work/log" 2>&1; then
    status=1
    tail -n 80 "$work/log"
    for f in "$work"/artifacts/*; do
      [ -f "$f" ] || continue
      echo "fuzz: FINDING in $target: $f (base64: $(base64 -w0 "$f"))"
      echo "fuzz: replay: $build/tests/fuzz/ferry_fuzz_$target $f  (or ferry_fuzz_${target}_replay in any build)"
    done
  fi
  grep -E "^stat::(number_of_executed_units|average_exec_per_sec|new_units_added)" "$work/log" | sed "s/^/fuzz: $target /" || true
done
exit "$status"
