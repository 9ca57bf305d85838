#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang (ASan + UBSan) in build-fuzz/ and runs
# each for SECONDS (default 60), starting from seeds made from valid streams plus every input in
# tests/fuzz/regressions/<target>/. Fails on the first crash, leak, timeout or broken invariant
# and says how to turn the input into a regression test.
#
#   scripts/fuzz.sh            # 60 s per target
#   scripts/fuzz.sh 3600       # a longer run: one hour per target
#   scripts/fuzz.sh 30 jsonl   # only some targets: frame decoder control receiver read_client
#                              # read_server journal_walk jsonl config metric_families
#
# The corpus grows in build-fuzz/corpus/<target>/ from run to run; crashing inputs are written
# to build-fuzz/crashes/<target>/. Targets run $(nproc) at a time (FUZZ_JOBS overrides).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(frame decoder control receiver read_client read_server journal_walk jsonl config metric_families)
BUILD_DIR=${BUILD_DIR:-build-fuzz}
jobs=${FUZZ_JOBS:-$(nproc)}
cxx=${FUZZ_CXX:-clang++-14}
command -v "$cxx" >/dev/null || { echo "fuzz: $cxx not found (scripts/install-deps.sh installs clang-14)" >&2; exit 1; }

cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" -DOBJWIRE_FUZZ=ON -DOBJWIRE_BUILD_BENCH=OFF >/dev/null
cmake --build "$BUILD_DIR" --target fuzz_targets -j "$(nproc)"
"$BUILD_DIR/tests/fuzz/fuzz_make_seeds" "$BUILD_DIR/corpus" >/dev/null

# One libFuzzer run; new inputs go to the first corpus directory only. The targets that write
# JSON keep proto/json_writer's per-thread cache between inputs, which libFuzzer takes for a
# possible leak and re-checks with LeakSanitizer after nearly every input (3x slower): they run
# without its leak check - LeakSanitizer still checks their seeds and regressions at exit in
# build-asan (scripts/sanitize.sh).
run_one() {
  local t=$1 leaks=1
  case $t in decoder | receiver | jsonl) leaks=0 ;; esac
  mkdir -p "$BUILD_DIR/corpus/$t" "$BUILD_DIR/crashes/$t"
  UBSAN_OPTIONS=print_stacktrace=1 \
    "$BUILD_DIR/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -detect_leaks="$leaks" \
    -print_final_stats=1 -artifact_prefix="$BUILD_DIR/crashes/$t/" \
    "$BUILD_DIR/corpus/$t" "tests/fuzz/regressions/$t" >"$BUILD_DIR/fuzz-$t.log" 2>&1
}

echo "fuzz: ${#targets[@]} targets, ${seconds} s each, $jobs at a time"
declare -A pid_of
failed=()
wait_one() {
  local t=$1
  if wait "${pid_of[$t]}"; then
    echo "fuzz: $t clean: $(grep -o 'stat::number_of_executed_units: *[0-9]*' "$BUILD_DIR/fuzz-$t.log" | grep -o '[0-9]*$') runs," \
      "corpus $(find "$BUILD_DIR/corpus/$t" -type f | wc -l) inputs"
  else
    failed+=("$t")
    echo "fuzz: $t FAILED; the end of $BUILD_DIR/fuzz-$t.log:" >&2
    tail -40 "$BUILD_DIR/fuzz-$t.log" >&2
  fi
}
running=()
for t in "${targets[@]}"; do
  [ -x "$BUILD_DIR/tests/fuzz/fuzz_$t" ] || { echo "fuzz: no target '$t'" >&2; exit 1; }
  run_one "$t" &
  pid_of[$t]=$!
  running+=("$t")
  if [ ${#running[@]} -ge "$jobs" ]; then
    wait_one "${running[0]}"
    running=("${running[@]:1}")
  fi
done
for t in "${running[@]}"; do wait_one "$t"; done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: crashes in: ${failed[*]}; the inputs are in $BUILD_DIR/crashes/<target>/." >&2
  echo "fuzz: reproduce with $BUILD_DIR/tests/fuzz/fuzz_<target> FILE; after the fix, copy FILE" \
    "into tests/fuzz/regressions/<target>/ so ctest replays it in every build." >&2
  exit 1
fi
echo "fuzz: all ${#targets[@]} targets ran ${seconds} s each without a crash"
