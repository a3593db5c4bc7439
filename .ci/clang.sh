#!/usr/bin/env bash
# CI job: a clang build beside gcc (CPU backend, Release, every C/C++ target),
# and its tests.
source "$(dirname "$0")/lib.sh"
ci_apt clang
build=build-ci-clang
ci_step "clang: configure and build ($build)"
cmake -S . -B "$build" "${ci_cpu_flags[@]}" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$ci_jobs"
ci_step "clang: ctest"
(cd "$build" && ctest --output-on-failure -j"$ci_jobs" --timeout 900 -L "$ci_test_labels")
