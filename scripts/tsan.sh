#!/usr/bin/env bash
# Builds the client library and its tests with ThreadSanitizer (clang-14) in build-tsan/ and runs
# them: the unit tests of the library's parts (tests/unit/client) and the library's own
# behaviour against an in-process daemon (library_integration_tests: linger, several threads on
# one connection, the asynchronous calls, open with retry, a following reader, the snippets of
# docs/LIBRARY.md). A connection is used by the caller's threads, the process's linger service
# and the thread it starts for the connection, and the worker of the asynchronous calls - and
# these tests run them all at once.
# The daemon in the same process is instrumented too, so a race there fails the run as well.
# A program that reported a race exits 66: the run fails, after every report is printed.
#   scripts/tsan.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build-tsan}
# -O1 -g1, as scripts/sanitize.sh: about a third faster to build than -O2 -g, file:line in
# every report. Only the two test programs and what they link are built. asio 1.22 looks for
# clang's coroutines under their pre-C++20 name (__cpp_coroutines, <experimental/coroutine>):
# told that clang 14 has them, it uses the standard ones, as it does with g++.
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_C_COMPILER=clang-14 \
  -DCMAKE_CXX_FLAGS="-DASIO_HAS_CO_AWAIT=1" \
  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" -DOBJWIRE_WERROR=OFF \
  -DOBJWIRE_SANITIZE=thread -DOBJWIRE_BUILD_BENCH=OFF -DOBJWIRE_PCH=ON -DOBJWIRE_UNITY_TESTS=ON \
  -DOBJWIRE_BUILD_TEST_PROGRAMS=ON >/dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)" --target client_tests library_integration_tests
export TSAN_OPTIONS=second_deadlock_stack=1:history_size=4
status=0
for program in unit/client/client_tests integration/library_integration_tests; do
  "$BUILD_DIR/tests/$program" --gtest_brief=1 || { echo "tsan: $program failed" >&2; status=1; }
done
exit $status
