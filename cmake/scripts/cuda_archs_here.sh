#!/usr/bin/env bash
# Prints the CMAKE_CUDA_ARCHITECTURES value for a build that only has to run on
# this machine: machine code for each GPU generation nvidia-smi finds here
# ("90-real", "80-real;90-real"), or, where it finds none, PTX of the oldest
# generation ferry supports ("75-virtual"): that build's device code never runs
# here (the CPU backend does), so compiling it for eight generations, as a
# release build does (cmake/FerryCuda.cmake), would only cost time (about 25
# minutes of a 2-core machine). Any GPU would still JIT-compile the PTX at load.
# A CUDAARCHS in the environment wins, as it does for CMake itself.
#   cmake -DCMAKE_CUDA_ARCHITECTURES="$(bash cmake/scripts/cuda_archs_here.sh)" ...
set -euo pipefail
if [ -n "${CUDAARCHS:-}" ]; then echo "$CUDAARCHS"; exit 0; fi
caps=""
if command -v nvidia-smi >/dev/null 2>&1; then
  caps="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | tr -d ' .' |
          grep -E '^[0-9]+$' | sort -un | sed 's/$/-real/' | paste -sd ';')" || caps=""
fi
echo "${caps:-75-virtual}"
