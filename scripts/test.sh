#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: the end-to-end scripts over the
# installed programs, packaging, the repository and instruction checks with CTest in build/;
# then the whole suite - unit tests, in-process integration tests, fuzz replays and the
# scripts again - under ASan (+ UBSan in the sans-I/O libraries) in build-asan/
# (scripts/sanitize.sh); then the client library's tests under ThreadSanitizer in build-tsan/
# (scripts/tsan.sh); then each libFuzzer target for a bounded time in build-fuzz/
# (scripts/fuzz.sh). OBJWIRE_CI_FUZZ_SECONDS sets the fuzzing time per target (default 10;
# 0 skips fuzzing); a longer run is `scripts/fuzz.sh 3600`.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
scripts/install-deps.sh
# The test programs (unit tests, in-process integration tests, fuzz replays: objwire's code
# linked into the test) run once, in the ASan + UBSan build, whose checks are a superset; the
# main build runs what needs the optimised programs unsanitized: the programs end to end, RSS
# and instruction bounds, packaging. Both builds from scratch take most of CI's 45 minutes, so
# nothing is built twice that need not be.
OBJWIRE_BUILD_TEST_PROGRAMS=OFF scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)" --timeout 600
main_done=$SECONDS
scripts/sanitize.sh
asan_done=$SECONDS
scripts/tsan.sh
tsan_done=$SECONDS
fuzz_seconds=${OBJWIRE_CI_FUZZ_SECONDS:-10}
if [ "$fuzz_seconds" -gt 0 ]; then
  scripts/fuzz.sh "$fuzz_seconds"
fi
echo "test: build and tests $((main_done - start)) s, ASan+UBSan $((asan_done - main_done)) s," \
  "TSan $((tsan_done - asan_done)) s, fuzzing $((SECONDS - tsan_done)) s, all $((SECONDS - start)) s"
