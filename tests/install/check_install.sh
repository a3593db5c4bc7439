#!/usr/bin/env bash
# Installs the build into a scratch prefix, then builds and runs a consumer
# through find_package(ferry) and through pkg-config.
set -euo pipefail
build="$1"; src="$2"
prefix="$(mktemp -d)"; consumer="$(mktemp -d)"
trap 'rm -rf "$prefix" "$consumer"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig:$prefix/lib64/pkgconfig:$prefix/lib/x86_64-linux-gnu/pkgconfig"
cmake -S "$src/tests/install/consumer" -B "$consumer" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$consumer" >/dev/null
libdir="$(dirname "$(find "$prefix" -name 'libferry.so.0' | head -1)")"
LD_LIBRARY_PATH="$libdir" "$consumer/consumer_cmake"
LD_LIBRARY_PATH="$libdir" "$consumer/consumer_pkgconfig"
