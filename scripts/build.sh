#!/usr/bin/env bash
# Configures and builds objwire in build/ (Release, warnings as errors). OBJWIRE_BUILD_TEST_PROGRAMS=OFF
# leaves the test programs out - unit tests, in-process integration tests, fuzz replays
# (scripts/test.sh: they run in the sanitizer build).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DOBJWIRE_WERROR=ON -DOBJWIRE_PCH=OFF \
  -DOBJWIRE_BUILD_TEST_PROGRAMS="${OBJWIRE_BUILD_TEST_PROGRAMS:-ON}" >/dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)"
