# Shared by the CI jobs (.ci/*.sh): apt installs, the CPU-only CMake flags, timing.
# Sourced, not run. Every job builds in a folder of its own (build-ci-<job>) from
# the repository root, on the CPU backend only (no CUDA, no bindings: fast).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

ci_jobs=$(nproc)

# apt-get install what is missing (the CI machine is a fresh Debian 12, as root).
ci_apt() {
  local missing=() p
  for p in "$@"; do
    [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" == *"install ok installed"* ]] || missing+=("$p")
  done
  [ "${#missing[@]}" -eq 0 ] && return 0
  local sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  echo "ci: installing ${missing[*]}" >&2
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
}

# CPU-only configure flags shared by every job.
ci_cpu_flags=(-G Ninja -DFERRY_CUDA=OFF -DFERRY_BUILD_BINDINGS=OFF -DFERRY_BUILD_BENCH=OFF)

# The CTest labels a CPU-only sanitizer build runs (no install, readme, python, gpu).
ci_test_labels='^(unit|c_abi|examples|fuzz|stress|leak)$'

ci_step() { echo "ci[$(date +%H:%M:%S)] $*" >&2; }
