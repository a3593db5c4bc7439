#!/usr/bin/env bash
# The device code in ferry's libraries is what the build asked for: for every
# CUDA module (kernel file), machine code (an ELF cubin) for each "N-real" or
# "N" entry of CMAKE_CUDA_ARCHITECTURES and PTX for each "N-virtual" or "N",
# and nothing else. Read with cuobjdump --list-elf --list-ptx.
#   check_cuda_archs.sh ARCHS TOOLKIT_BIN_DIR LIB...
# ARCHS: the list, comma-separated, or "none" for a build without the CUDA backend.
# cuobjdump: $CUOBJDUMP, PATH, TOOLKIT_BIN_DIR, else the PyPI package
# nvidia-cuda-cuobjdump of python3 (install_deps.sh test installs it). Without it
# the test is skipped (exit 77), or fails where FERRY_REQUIRE_CUOBJDUMP=1
# (tests/run_all.sh, which installed it).
set -euo pipefail
archs="$1"; toolkit_bin="$2"; shift 2

skip() { echo "ferry: skipped: $*"; exit 77; }
fail() { echo "FAILED: $*" >&2; exit 1; }

[ "$archs" != none ] || skip "a build without the CUDA backend has no device code"
elf_archs=(); ptx_archs=()
for a in ${archs//,/ }; do
  case "$a" in
    *-real) elf_archs+=("sm_${a%-real}") ;;
    *-virtual) ptx_archs+=("sm_${a%-virtual}") ;;
    [0-9]*[0-9]|[0-9]*[0-9][af]) elf_archs+=("sm_$a"); ptx_archs+=("sm_$a") ;;
    *) skip "CMAKE_CUDA_ARCHITECTURES=${archs//,/;} is not a list of architectures to compare with" ;;
  esac
done
# its lines as one sorted line
sorted() { grep . | sort -uV | tr '\n' ' ' || true; }
want_elf="$(printf '%s\n' "${elf_archs[@]}" | sorted)"; want_ptx="$(printf '%s\n' "${ptx_archs[@]}" | sorted)"

cuobjdump="${CUOBJDUMP:-$(command -v cuobjdump || true)}"
[ -n "$cuobjdump" ] || [ ! -x "$toolkit_bin/cuobjdump" ] || cuobjdump="$toolkit_bin/cuobjdump"
if [ -z "$cuobjdump" ] && command -v python3 >/dev/null; then
  cuobjdump="$(python3 - 2>/dev/null <<'PY' || true
import importlib.metadata as m
d = m.distribution("nvidia-cuda-cuobjdump")
print(next(str(d.locate_file(f)) for f in d.files if f.name == "cuobjdump"))
PY
)"
fi
if [ -z "$cuobjdump" ] || [ ! -x "$cuobjdump" ]; then
  why="cuobjdump not found (CUOBJDUMP, PATH, $toolkit_bin, python3's nvidia-cuda-cuobjdump: pip install nvidia-cuda-cuobjdump)"
  [ "${FERRY_REQUIRE_CUOBJDUMP:-0}" != 1 ] || fail "$why"
  skip "$why"
fi
echo "cuobjdump: $cuobjdump"
echo "expected in each module: ELF ${want_elf:-(none)}; PTX ${want_ptx:-(none)}"

bad=0
for lib in "$@"; do
  listing="$("$cuobjdump" --list-elf --list-ptx "$lib" 2>&1)" || { echo "$listing"; fail "cuobjdump $lib"; }
  # "ELF file    1: convert_kernels.sm_75.cubin", "PTX file    1: convert_kernels.sm_120.ptx"
  entries="$(sed -nE 's/^(ELF|PTX) file +[0-9]+: (.+)\.(sm_[0-9]+[a-z]?)\.(cubin|ptx)$/\2 \1 \3/p' <<<"$listing")"
  modules="$(cut -d' ' -f1 <<<"$entries" | sort -u)"
  [ -n "$modules" ] || { echo "$listing"; fail "$lib holds no CUDA module"; }
  echo "== $(basename "$lib")"
  for m in $modules; do
    elf="$(awk -v m="$m" '$1 == m && $2 == "ELF" { print $3 }' <<<"$entries" | sorted)"
    ptx="$(awk -v m="$m" '$1 == m && $2 == "PTX" { print $3 }' <<<"$entries" | sorted)"
    status=ok
    if [ "$elf" != "$want_elf" ] || [ "$ptx" != "$want_ptx" ]; then status=WRONG; bad=1; fi
    printf '  %-24s ELF %s PTX %s %s\n' "$m" "${elf:-(none) }" "${ptx:-(none) }" "$status"
  done
done
[ "$bad" = 0 ] || fail "device code other than CMAKE_CUDA_ARCHITECTURES=${archs//,/;} asks for"
echo ok
