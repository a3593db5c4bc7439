#!/usr/bin/env bash
# Runs README.md's code blocks as they are written (issue 10: the README true
# word for word), on whatever backend the machine has (the CPU without a GPU).
#   run_readme.sh PART BUILD_DIR SOURCE_DIR [PYTHON]
# PART:
#   blocks   every fenced block in README.md is one that a part below runs, or
#            one of the few it names as run elsewhere (else it fails)
#   c        installs the build to a scratch $PREFIX with the README's install
#            command, saves the C quick start as quickstart.c (also compiled as
#            strict C99) and the CMake block as CMakeLists.txt, and runs the C
#            section's sh blocks: pkg-config (shared and static) and find_package
#   python   saves the Python quick start as quickstart.py and runs its sh block
#            (from the build tree) with PYTHON (default: the build's) as python3; then
#            the prefetching loader's block, saved as loader.py, the Resize block as
#            resize.py, the Camera and video frames block as frames.py, the Random
#            augmentation block as augment.py and the Datasets on the GPU block as
#            dataset.py, run the same way
#   java     install, QuickStart.java, its sh block (javac and java from $PREFIX)
#   csharp   install, QuickStart.cs, its sh block (mcs and mono from $PREFIX);
#            then the copied layout the README names: Ferry.dll,
#            libferry_csharp.so and libferry (FERRY_SONAME) next to the .exe, no MONO_PATH
#   main     the README's main command, bash bench/run_main.sh, from the source
#            folder, with FERRY_BUILD_DIR=BUILD_DIR/readme-main (a build of its
#            own: the script configures its folder for the benchmark only) and
#            FERRY_BENCH_OUT under it; checks that the JSON and the chart exist
# Each sh block runs under bash -ex in a scratch folder holding the saved files
# and `build` (a link to BUILD_DIR), with PREFIX set, PYTHON first on PATH as
# python3, and LD_LIBRARY_PATH, MONO_PATH, PYTHONPATH and CLASSPATH unset:
# nothing beyond what the README says. Exits 77 (CTest: skipped) with the reason
# when what a part needs was not built or is not installed.
set -euo pipefail
part="$1"; build="$(cd "$2" && pwd)"; src="$(cd "$3" && pwd)"
# PYTHON: the one CMake found for the build, else python3
python="${4:-$(sed -n 's/^FERRY_PYTHON_EXECUTABLE:[A-Z]*=//p' "$build/CMakeCache.txt")}"; python="${python:-python3}"
readme="$src/README.md"
source "$(dirname "$0")/readme_blocks.sh"

skip() { echo "ferry: skipped: $*"; exit 77; }
fail() { echo "FAILED: $*" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
ln -s "$build" "$work/build"
mkdir -p "$work/bin"
if command -v "$python" >/dev/null; then ln -s "$(command -v "$python")" "$work/bin/python3"; fi
export PREFIX="$work/prefix"

# the one block of LANG in SECTION (exactly one is expected)
only_block() {
  local found; found="$(readme_blocks_in "$readme" "$1" "$2")"
  [ "$(echo "$found" | grep -c .)" = 1 ] || fail "README.md: want one $2 block under \"## $1\", found: ${found:-none}"
  echo "$found"
}
save() { readme_block "$readme" "$(only_block "$1" "$2")" > "$work/$3"; echo "== README \"$1\": $2 block saved as $3"; }
# runs block N as the README has it
run_block() {
  echo "== README block $1:"
  readme_block "$readme" "$1" | sed 's/^/   | /'
  (cd "$work" && env -u LD_LIBRARY_PATH -u MONO_PATH -u PYTHONPATH -u CLASSPATH \
     PATH="$work/bin:$PATH" PREFIX="$PREFIX" bash -ex -c "$(readme_block "$readme" "$1")")
}
# runs the sh blocks of SECTION, in order
run_section() {
  local blocks; blocks="$(readme_blocks_in "$readme" "$1" sh)"
  [ -n "$blocks" ] || fail "README.md: no sh block under \"## $1\""
  for b in $blocks; do run_block "$b"; done
}
install_section="Build, test and install with CMake"
install_prefix() {
  local b
  for b in $(readme_blocks_in "$readme" "$install_section" sh); do
    if grep -q '^cmake --install ' <<<"$(readme_block "$readme" "$b")"; then run_block "$b" >/dev/null; return; fi
  done
  fail "README.md: no 'cmake --install' block under \"## $install_section\""
}

# A binding's quick start from an installed prefix:
#   from_install BUILT_FILE BINDING SECTION LANG FILE
from_install() {
  [ -f "$build/$1" ] || skip "the $2 binding was not built"
  save "$3" "$4" "$5"
  install_prefix
  run_section "$3"
}

case "$part" in
blocks)
  # Every block, and what runs it. A new block needs a part here.
  status=0
  while IFS=$'\t' read -r n lang section; do
    text="$(readme_block "$readme" "$n")"
    case "$lang|$section" in
      "-|") why="the pipeline diagram (not code)";;
      "sh|The two commands")
        case "$text" in
          "bash bench/run_main.sh"*) why="run by readme.main";;
          "bash tests/run_all.sh") why="the test command itself (what runs this test)";;
          *) why="";;
        esac;;
      "sh|$install_section")
        case "$text" in
          "cmake -B build && cmake --build build && ctest --test-dir build")
            why="the plain CMake flow: what the test command runs (with Ninja and its Python); its skips: readme.plain_flow_skips";;
          "cmake --install build --prefix \"\$PREFIX\"") why="run by readme.c, readme.java, readme.csharp";;
          *) why="";;
        esac;;
      "c|C quick start"|"cmake|C quick start"|"sh|C quick start") why="run by readme.c";;
      "python|Python quick start"|"sh|Python quick start") why="run by readme.python (the python block also by install.prefix and install.wheel)";;
      "python|Python prefetching loader") why="run by readme.python (saved as loader.py, run like the quick start)";;
      "python|Resize") why="run by readme.python (saved as resize.py, run like the quick start)";;
      "python|Camera and video frames") why="run by readme.python (saved as frames.py, run like the quick start)";;
      "python|Random augmentation") why="run by readme.python (saved as augment.py, run like the quick start)";;
      "python|Datasets on the GPU") why="run by readme.python (saved as dataset.py, run like the quick start)";;
      "java|Java quick start"|"sh|Java quick start") why="run by readme.java";;
      "csharp|C# quick start (Mono, .NET, Unity)"|"sh|C# quick start (Mono, .NET, Unity)") why="run by readme.csharp";;
      *) why="";;
    esac
    if [ -n "$why" ]; then
      printf 'block %2d  %-7s %-40s %s\n' "$n" "$lang" "${section:-(top)}" "$why"
    else
      printf 'block %2d  %-7s %-40s NO TEST RUNS IT:\n%s\n' "$n" "$lang" "${section:-(top)}" "$text"
      status=1
    fi
  done < <(readme_index "$readme")
  exit $status;;
c)
  section="C quick start"
  save "$section" c quickstart.c
  save "$section" cmake CMakeLists.txt
  # The block is a whole program, clean as strict C99.
  cc -std=c99 -Wall -Wextra -pedantic -Werror -fsyntax-only -I"$src/include" "$work/quickstart.c"
  install_prefix
  run_section "$section";;
python)
  section="Python quick start"
  [ -x "$work/bin/python3" ] || skip "no Python interpreter ($python)"
  ls "$build"/bindings/python/ferry/_ferry_swig*.so >/dev/null 2>&1 || skip "the Python binding was not built"
  for m in numpy torch; do
    "$work/bin/python3" -c "import $m" 2>/dev/null || skip "$m is not installed for $python (the quick start uses it)"
  done
  save "$section" python quickstart.py
  run_section "$section"
  # The other Python sections' blocks, each saved and run the way the quick start's sh block
  # runs quickstart.py.
  for pair in "Python prefetching loader:loader.py" "Resize:resize.py" "Camera and video frames:frames.py" \
              "Random augmentation:augment.py" "Datasets on the GPU:dataset.py"; do
    save "${pair%%:*}" python "${pair##*:}"
    (cd "$work" && env -u LD_LIBRARY_PATH -u MONO_PATH -u CLASSPATH PATH="$work/bin:$PATH" \
       PYTHONPATH=build/bindings/python python3 "${pair##*:}")
  done;;
java)
  from_install bindings/java/ferry.jar Java "Java quick start" java QuickStart.java;;
csharp)
  from_install bindings/csharp/bin/Ferry.dll "C#" "C# quick start (Mono, .NET, Unity)" csharp QuickStart.cs
  soname="$(sed -n 's/^FERRY_SONAME:[A-Z]*=//p' "$build/CMakeCache.txt")"
  echo "== the copied layout: Ferry.dll, libferry_csharp.so and $soname next to QuickStart.exe, no MONO_PATH"
  mkdir "$work/app"
  cp "$work/QuickStart.exe" "$PREFIX/lib/ferry/csharp/Ferry.dll" "$PREFIX/lib/ferry/csharp/libferry_csharp.so" \
     "$PREFIX/lib/$soname" "$work/app/"
  (cd / && env -u LD_LIBRARY_PATH -u MONO_PATH mono "$work/app/QuickStart.exe");;
main)
  block=""
  for b in $(readme_blocks_in "$readme" "The two commands" sh); do
    if grep -q '^bash bench/run_main.sh' <<<"$(readme_block "$readme" "$b")"; then block="$b"; fi
  done
  [ -n "$block" ] || fail "README.md: no 'bash bench/run_main.sh' block under \"## The two commands\""
  # Its build and its outputs (the table's JSON and SVG) go under BUILD_DIR, not
  # over the user's build-main and bench/results.
  out="$build/readme-main/results"
  rm -f "$out/ferry-bench.json" "$out/ferry-bench.svg"
  echo "== README block $block, from $src, FERRY_BUILD_DIR=$build/readme-main FERRY_BENCH_OUT=$out:"
  readme_block "$readme" "$block" | sed 's/^/   | /'
  (cd "$src" && FERRY_BUILD_DIR="$build/readme-main" FERRY_BENCH_OUT="$out" \
     bash -ex -c "$(readme_block "$readme" "$block")")
  ls "$out/ferry-bench.json" "$out/ferry-bench.svg";;
*) fail "unknown part '$part'";;
esac
echo "ok"
