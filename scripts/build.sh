#!/usr/bin/env bash
# Configures and builds objwire in build/ (Release, warnings as errors).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DOBJWIRE_WERROR=ON -DOBJWIRE_PCH=OFF >/dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)"
