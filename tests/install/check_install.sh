#!/usr/bin/env bash
# Installs the build into a scratch prefix and uses it from there as a user
# would, with nothing on LD_LIBRARY_PATH, MONO_PATH or PYTHONPATH beyond what
# README.md says:
#   1. every installed native library (the Python module, libferry_java.so,
#      libferry_csharp.so) has a RUNPATH relative to $ORIGIN only, and the
#      loader resolves its libferry (FERRY_SONAME) inside the prefix
#   2. a C-only CMake project builds and runs against it: find_package
#      (ferry::ferry, ferry::ferry_static) and pkg-config (ferry, ferry-static)
#   3. the Python package lies in the configured Python's site-packages under
#      the prefix, where that Python reads it for its own prefix (README: Build,
#      test and install), imports from there with PYTHONPATH set to it, and runs
#      the README's Python quick start (where NumPy and PyTorch are installed)
#   4. the prefix, moved elsewhere, still works (1 and 3 again)
# The Java and C# quick starts run from an installed prefix in readme.java and
# readme.csharp (tests/readme/run_readme.sh).
#   check_install.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build="$(cd "$1" && pwd)"; src="$(cd "$2" && pwd)"
source "$src/tests/readme/readme_blocks.sh"
unset LD_LIBRARY_PATH MONO_PATH PYTHONPATH CLASSPATH
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
cache() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"; }
soname="$(cache FERRY_SONAME)"

cmake --install "$build" --prefix "$prefix" >/dev/null
libdir="$prefix/$(cache CMAKE_INSTALL_LIBDIR)"
[ -f "$libdir/$soname" ] || { echo "FAILED: no $soname in $libdir"; exit 1; }

# ---- 1. RUNPATHs ----
native_libs() {
  local p="$1"
  ls "$p"/lib*/libferry_java.so "$p"/lib*/ferry/csharp/libferry_csharp.so 2>/dev/null || true
  find "$p" -name '_ferry_swig*.so'
}
check_runpaths() {
  local p="$1" lib runpath resolved n=0
  for lib in $(native_libs "$p"); do
    runpath="$(readelf -d "$lib" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')"
    resolved="$(ldd "$lib" | awk -v soname="$soname" '$1 == soname { print $3 }')"
    echo "${lib#"$p"/}: RUNPATH $runpath; $soname => ${resolved/#"$p"/<prefix>}"
    case ":$runpath:" in *:/*) echo "FAILED: an absolute RUNPATH entry"; exit 1;; esac
    case "$runpath" in '$ORIGIN'*) ;; *) echo "FAILED: RUNPATH is not relative to \$ORIGIN"; exit 1;; esac
    [ "$(readlink -f "$resolved")" = "$(readlink -f "$p/$(cache CMAKE_INSTALL_LIBDIR)/$soname")" ] ||
      { echo "FAILED: $soname not resolved inside the prefix"; exit 1; }
    n=$((n + 1))
  done
  echo "$n native libraries checked"
}
check_runpaths "$prefix"
# Each binding that was built has its library installed.
[ ! -f "$build/bindings/java/ferry.jar" ] || ls "$libdir/libferry_java.so" >/dev/null
[ ! -f "$build/bindings/csharp/bin/Ferry.dll" ] || ls "$libdir/ferry/csharp/libferry_csharp.so" "$libdir/ferry/csharp/Ferry.dll" >/dev/null

# ---- 2. a C-only project: find_package and pkg-config, shared and static ----
export PKG_CONFIG_PATH="$libdir/pkgconfig"
cmake -S "$src/tests/install/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/consumer" >/dev/null
for exe in consumer_cmake consumer_cmake_static consumer_pkgconfig consumer_pkgconfig_static; do
  printf '%-26s ' "$exe:"; "$work/consumer/$exe"
done
# The static ones carry ferry, the shared ones load it from the prefix.
# (ldd's output is taken whole first: `ldd | grep -q` under pipefail fails when
# grep exits on its match before ldd has written its last line.)
[[ "$(ldd "$work/consumer/consumer_cmake_static")" != *libferry.so* ]]
[[ "$(ldd "$work/consumer/consumer_pkgconfig_static")" != *libferry.so* ]]
[[ "$(ldd "$work/consumer/consumer_cmake")" == *"$soname => $prefix"* ]]
# ferry::ferry on a machine without the CUDA toolkit (the README's CMake quick start).
c_block() { readme_block "$src/README.md" "$(readme_blocks_in "$src/README.md" "C quick start" "$1")"; }
mkdir "$work/nocuda"
c_block c > "$work/nocuda/quickstart.c"
c_block cmake > "$work/nocuda/CMakeLists.txt"
cmake -S "$work/nocuda" -B "$work/nocuda/out" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON >/dev/null
cmake --build "$work/nocuda/out" >/dev/null
printf '%-26s ' "ferry::ferry, no CUDA:"; "$work/nocuda/out/quickstart"

# ---- 3. the Python package ----
python="$(cache FERRY_PYTHON_EXECUTABLE)"
check_python() {
  local p="$1" rel; rel="$(cache FERRY_PYTHON_INSTALL_DIR)"
  [ -f "$p/$rel/ferry/__init__.py" ] || { echo "FAILED: no ferry package in <prefix>/$rel"; exit 1; }
  if ! "$python" -c "import numpy" 2>/dev/null; then
    echo "import ferry: not run (NumPy, which ferry needs, is not installed for $python)"; return
  fi
  PYTHONPATH="$p/$rel" "$python" -c "import ferry, sys; f = ferry.__file__
assert f.startswith(sys.argv[1]), f
print('import ferry:', f.replace(sys.argv[1], '<prefix>'))" "$p"
  if PYTHONPATH="$p/$rel" "$python" -c "import numpy, torch" 2>/dev/null; then
    readme_block "$src/README.md" "$(readme_blocks_in "$src/README.md" "Python quick start" python)" > "$work/quickstart.py"
    (cd "$work" && PYTHONPATH="$p/$rel" "$python" quickstart.py)
  else
    echo "the Python quick start: not run (NumPy or PyTorch is not installed for $python)"
  fi
}
if [ -n "$python" ] && [ -n "$(cache FERRY_PYTHON_INSTALL_DIR)" ]; then
  rel="$(cache FERRY_PYTHON_INSTALL_DIR)"
  # The README: that Python reads <its prefix>/<folder> (Debian's python3: /usr/local/<folder>).
  "$python" -c "import sys, sysconfig, os
rel = sys.argv[1]
homes = [sys.prefix] + (['/usr/local'] if sysconfig.get_default_scheme() == 'posix_local' else [])
dirs = [os.path.join(h, rel) for h in homes]
read = [h for h, d in zip(homes, dirs) if d in sys.path]
assert read, (dirs, sys.path)
print('installs to <prefix>/' + rel + ', which', sys.executable, 'reads under', ' and '.join(read))" "$rel"
  check_python "$prefix"
else
  echo "the Python package: not installed (the Python binding was not built)"
fi

# ---- 4. moved ----
mv "$prefix" "$work/moved"
echo "-- moved to another folder:"
check_runpaths "$work/moved"
if [ -n "$python" ] && [ -n "$(cache FERRY_PYTHON_INSTALL_DIR)" ]; then check_python "$work/moved"; fi
echo ok
