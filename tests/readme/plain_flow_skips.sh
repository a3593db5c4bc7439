#!/usr/bin/env bash
# The README's plain CMake flow where a binding's test dependency is missing:
# configures a fresh build folder (CPU only) with a Python that has neither
# pytest nor NumPy (a bare virtual environment of the build's Python), a JUnit
# console launcher and an NUnit console that do not exist, then runs the tests
# of the bindings and of their examples and README parts that need no build.
# Each must be reported as skipped, with its reason, and none as failed.
#   plain_flow_skips.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build="$(cd "$1" && pwd)"; src="$(cd "$2" && pwd)"
python="$(sed -n 's/^FERRY_PYTHON_EXECUTABLE:[A-Z]*=//p' "$build/CMakeCache.txt")"
[ -n "$python" ] || { echo "ferry: skipped: the build found no Python"; exit 77; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

"$python" -m venv --without-pip "$work/venv"
if "$work/venv/bin/python" -c "import pytest" 2>/dev/null; then
  echo "FAILED: the bare virtual environment has pytest"; exit 1
fi

cmake -S "$src" -B "$work/b" -DFERRY_CUDA=OFF -DFERRY_BUILD_BENCH=OFF \
  -DPython3_EXECUTABLE="$work/venv/bin/python" \
  -DFERRY_JUNIT_CONSOLE=/nonexistent/junit-platform-console-standalone.jar \
  -DFERRY_NUNIT_CONSOLE=/nonexistent/nunit-console > "$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; echo "FAILED: configure"; exit 1; }
grep -- "-- ferry" "$work/configure.log"

tests='^(python\.pytest|java\.junit|csharp\.nunit|examples\.(python|java|csharp)_.*|readme\.(python|java|csharp))$'
set +e
ctest --test-dir "$work/b" -R "$tests" -V > "$work/ctest.log" 2>&1
rc=$?
set -e
# Each test's result line and its reason.
grep -E "(Test +#[0-9]+: .*(Passed|Skipped|Failed|Not Run|sec))|^[0-9]+: ferry: skipped: " "$work/ctest.log" |
  sed 's/^[0-9]*: //'
tail -4 "$work/ctest.log"
total="$(grep -cE "Test +#[0-9]+: " "$work/ctest.log" || true)"
skipped="$(grep -cE "Test +#[0-9]+: .*Skipped" "$work/ctest.log" || true)"
[ "$rc" = 0 ] || { echo "FAILED: ctest exit $rc"; exit 1; }
[ "$total" -ge 6 ] || { echo "FAILED: only $total tests ran"; exit 1; }
[ "$skipped" = "$total" ] || { echo "FAILED: $skipped of $total skipped"; exit 1; }
echo "ok: $skipped of $total skipped, none failed"
