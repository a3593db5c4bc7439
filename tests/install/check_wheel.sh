#!/usr/bin/env bash
# pip install . (README: Python quick start): builds the wheel with the build's
# Python (scikit-build-core from PyPI, as pip does), checks that it holds the
# package and exactly one copy of libferry (FERRY_SONAME) beside the module, whose RUNPATH
# is $ORIGIN, installs it with pip into a scratch folder and runs the README's
# Python quick start from there (where NumPy and PyTorch are installed).
# The CMake build of the wheel stays in BUILD_DIR/wheel-build, so a second run
# is incremental. Its device code is built only for the GPUs found here
# (cmake/scripts/cuda_archs_here.sh): what this test checks is the packaging;
# build.cuda_archs checks the release list of architectures on the main build,
# whose CMake code (cmake/FerryCuda.cmake) the wheel's build shares.
#   check_wheel.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build="$(cd "$1" && pwd)"; src="$(cd "$2" && pwd)"
source "$src/tests/readme/readme_blocks.sh"
unset LD_LIBRARY_PATH PYTHONPATH
python="$(sed -n 's/^FERRY_PYTHON_EXECUTABLE:[A-Z]*=//p' "$build/CMakeCache.txt")"
[ -n "$python" ] || { echo "ferry: skipped: the build found no Python"; exit 77; }
soname="$(sed -n 's/^FERRY_SONAME:[A-Z]*=//p' "$build/CMakeCache.txt")"
"$python" -m pip --version >/dev/null 2>&1 || { echo "ferry: skipped: no pip for $python (apt-get install python3-pip)"; exit 77; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "== pip wheel $src (build folder $build/wheel-build)"
if ! "$python" -m pip wheel "$src" --no-deps --disable-pip-version-check -w "$work/dist" \
       --config-settings=build-dir="$build/wheel-build" \
       --config-settings=cmake.define.CMAKE_CUDA_ARCHITECTURES="$(bash "$src/cmake/scripts/cuda_archs_here.sh")" \
       > "$work/pip.log" 2>&1; then
  tail -40 "$work/pip.log"; echo "FAILED: pip wheel"; exit 1
fi
wheel="$(ls "$work"/dist/ferry-*.whl)"
echo "$(basename "$wheel"):"
"$python" - "$wheel" "$soname" <<'PY'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
soname = sys.argv[2]
for n in names:
    print("  " + n)
libs = [n for n in names if "libferry" in n]
assert libs == ["ferry/" + soname], "want one copy of %s, found %s" % (soname, libs)
assert any(n.startswith("ferry/_ferry_swig") and n.endswith(".so") for n in names), "no module"
assert "ferry/__init__.py" in names
PY

echo "== pip install --target, then the README's Python quick start from there"
"$python" -m pip install --no-deps --disable-pip-version-check --target "$work/site" "$wheel" > "$work/install.log" 2>&1 ||
  { cat "$work/install.log"; echo "FAILED: pip install"; exit 1; }
module="$(ls "$work"/site/ferry/_ferry_swig*.so)"
runpath="$(readelf -d "$module" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')"
echo "module RUNPATH: $runpath"
[ "$runpath" = '$ORIGIN' ] || { echo "FAILED: the module's RUNPATH is not \$ORIGIN"; exit 1; }
[[ "$(ldd "$module")" == *"$soname => $work/site/ferry/"* ]] || { ldd "$module"; echo "FAILED: $soname not the wheel's"; exit 1; }
cd "$work"
if ! "$python" -c "import numpy" 2>/dev/null; then
  echo "ferry: skipped: import ferry and the quick start not run: NumPy, which ferry needs, is not installed for $python (the wheel's files were checked)"
  exit 77
fi
PYTHONPATH="$work/site" "$python" -c "import ferry, sys; print('import ferry:', ferry.__file__.replace(sys.argv[1], '<site>'))" "$work/site"
if PYTHONPATH="$work/site" "$python" -c "import numpy, torch" 2>/dev/null; then
  readme_block "$src/README.md" "$(readme_blocks_in "$src/README.md" "Python quick start" python)" > quickstart.py
  PYTHONPATH="$work/site" "$python" quickstart.py
else
  echo "the Python quick start: not run (NumPy or PyTorch is not installed for $python)"
fi
echo ok
