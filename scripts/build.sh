#!/usr/bin/env bash
# Configures and builds objwire in build/ (Release, warnings as errors). OBJWIRE_BUILD_TEST_PROGRAMS=OFF
# leaves the test programs out - unit tests, in-process integration tests, fuzz replays
# (scripts/test.sh: they run in the sanitizer build). OBJWIRE_BUILD_TARGETS="objwire objwired"
# builds only those targets and what they link (scripts/demo.sh), not every test program.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DOBJWIRE_WERROR=ON -DOBJWIRE_PCH=OFF \
  -DOBJWIRE_BUILD_TEST_PROGRAMS="${OBJWIRE_BUILD_TEST_PROGRAMS:-ON}" >/dev/null
# shellcheck disable=SC2086 # a list of target names
cmake --build "$BUILD_DIR" -j "$(nproc)" ${OBJWIRE_BUILD_TARGETS:+--target $OBJWIRE_BUILD_TARGETS}
