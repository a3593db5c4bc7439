#!/usr/bin/env bash
# CI job: the unit tests and the multi-threaded stress test under ThreadSanitizer
# (gcc, FERRY_TSAN=ON). Any report fails the run (halt_on_error). The stress test
# runs for FERRY_STRESS_SECONDS (default 60) besides its short CTest run.
source "$(dirname "$0")/lib.sh"
build=build-ci-tsan
seconds="${FERRY_STRESS_SECONDS:-60}"
ci_step "tsan: configure and build ($build)"
cmake -S . -B "$build" "${ci_cpu_flags[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFERRY_TSAN=ON \
  -DFERRY_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$build" -j"$ci_jobs"
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:history_size=4:allocator_may_return_null=1
ci_step "tsan: ctest (unit, stress)"
(cd "$build" && ctest --output-on-failure -j"$ci_jobs" --timeout 900 -L '^(unit|stress)$')
ci_step "tsan: stress test for ${seconds} s"
"$build/tests/stress/ferry_stress_test" "$seconds" 4
