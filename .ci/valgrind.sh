#!/usr/bin/env bash
# CI job: valgrind's leak check of a create/submit/release/destroy loop
# (tests/leak/leak_loop.c): any leak or memory error fails the run. Built in the
# clang job's folder when it exists (a plain Release build), else in its own.
source "$(dirname "$0")/lib.sh"
ci_apt valgrind
build="${1:-build-ci-clang}"
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S . -B "$build" "${ci_cpu_flags[@]}" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" -j"$ci_jobs" --target ferry_leak_loop
ci_step "valgrind: leak check of the lifecycle loop"
valgrind --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect,possible \
  --errors-for-leak-kinds=definite,indirect,possible --track-origins=yes --fair-sched=yes \
  "$build/tests/leak/ferry_leak_loop" 50
