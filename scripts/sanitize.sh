#!/usr/bin/env bash
# Builds the whole test suite with AddressSanitizer in build-asan/, and UndefinedBehaviorSanitizer
# in the sans-I/O libraries (cmake/objwire_helpers.cmake, objwire_ub_checked; UB aborts, leaks
# fail), and runs every test there with CTest but the package and repository checks. The fuzz
# regression inputs and seeds run in it too (tests/fuzz, label "fuzz"). Warnings are not errors
# here: the main build (scripts/build.sh) enforces them, and GCC's flow-based warnings
# (-Warray-bounds, -Wstringop-*) report false positives on sanitizer-instrumented code.
#   scripts/sanitize.sh                    # g++, the compiler of the main build
#   SANITIZE_CXX=clang++-14 scripts/sanitize.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build-asan}
cxx=${SANITIZE_CXX:-g++}
# Debug keeps assert() on; -O1 -g1 (line tables only) builds about a third faster than -O2 -g
# and still gives file:line in every report. The test programs compile as unity builds
# (OBJWIRE_UNITY_TESTS: eight files at once share GoogleTest's and asio's instantiations).
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" -DOBJWIRE_WERROR=OFF -DOBJWIRE_SANITIZE=address,undefined \
  -DOBJWIRE_BUILD_BENCH=OFF -DOBJWIRE_PCH=ON -DOBJWIRE_UNITY_TESTS=ON >/dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# The package tests (label "package": the .deb, the Docker build, the installed examples) and
# the repository checks (label "repo": cited paths, the layout, the install script) check how
# objwire is packaged and written, not its memory: the main build runs them, this one does not.
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$(nproc)" --timeout 900 -LE 'package|repo'
