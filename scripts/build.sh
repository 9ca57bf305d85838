#!/usr/bin/env bash
# Configures and builds objwire in build/ (Release, warnings as errors). OBJWIRE_BUILD_UNIT_TESTS=OFF
# leaves the unit tests out (scripts/test.sh: they run in the sanitizer build).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DOBJWIRE_WERROR=ON -DOBJWIRE_PCH=OFF \
  -DOBJWIRE_BUILD_UNIT_TESTS="${OBJWIRE_BUILD_UNIT_TESTS:-ON}" >/dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)"
