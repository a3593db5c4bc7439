#!/usr/bin/env bash
# CI job: the unit, C ABI, example, fuzz-corpus, stress and leak tests under
# AddressSanitizer + UndefinedBehaviorSanitizer (gcc). Any report fails the run:
# UBSan does not recover (-fno-sanitize-recover=all), ASan aborts, LeakSanitizer
# reports leaks at exit. ferry turns huge requests into FERRY_ERR_OUT_OF_MEMORY,
# so ASan's allocator returns NULL for them instead of aborting.
source "$(dirname "$0")/lib.sh"
build=build-ci-asan
ci_step "asan: configure and build ($build)"
cmake -S . -B "$build" "${ci_cpu_flags[@]}" -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_C_FLAGS_DEBUG="-O1 -g" -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" \
  -DFERRY_SANITIZE=address,undefined >/dev/null
cmake --build "$build" -j"$ci_jobs"
ci_step "asan: ctest"
export ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1:abort_on_error=1:strict_string_checks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
(cd "$build" && ctest --output-on-failure -j"$ci_jobs" --timeout 900 -L "$ci_test_labels")
