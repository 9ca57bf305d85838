#!/usr/bin/env bash
# Runs the main build's suite (build/, as scripts/test.sh builds it) ROUNDS times under
# `ctest -j$(nproc)` while BUSY busy loops (default: one per core and one more) take the CPU,
# and prints, per test that failed, how often and the first line that says why. Checks of a
# resource bound (RSS, held bytes, instruction counts) must hold on a busy machine too; this is
# how to see that they do; a failed round's output is kept as build/stress-round-N.log. Arguments
# after BUSY go to ctest (e.g. `-R reader_cost`).
#
#   scripts/stress-tests.sh ROUNDS [BUSY] [CTEST ARGS...]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:?usage: scripts/stress-tests.sh ROUNDS [BUSY] [CTEST ARGS...]}
cores=$(nproc)
busy_count=${2:-$((cores + 1))}
shift $(($# < 2 ? $# : 2))
[ -f build/CTestTestfile.cmake ] || { echo "no build/: run scripts/build.sh first" >&2; exit 2; }

logs=$(mktemp -d)
busy=()
cleanup() {
  [ "${#busy[@]}" = 0 ] || kill "${busy[@]}" 2>/dev/null || true
  rm -rf "$logs"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# Each loop also ends once this script is gone, however it ended.
for ((i = 0; i < busy_count; i++)); do
  sh -c "while kill -0 $$ 2>/dev/null; do :; done" &
  busy+=($!)
done

for ((round = 1; round <= rounds; round++)); do
  start=$SECONDS
  rc=0
  ctest --test-dir build --output-on-failure -j "$cores" --timeout 600 "$@" \
    >"$logs/round-$round.log" 2>&1 || rc=$?
  echo "round $round of $rounds: ctest exit $rc, $((SECONDS - start)) s," \
    "$(grep -Eo '[0-9]+% tests passed, [0-9]+ tests failed out of [0-9]+' "$logs/round-$round.log" || echo 'no summary')"
  # A failed round's whole output stays in build/ to be read after the run.
  [ "$rc" = 0 ] || cp "$logs/round-$round.log" "build/stress-round-$round.log"
done

# Per failed test and round: its name and the first line of its output that says why (ctest
# prints a failed test's output right after its result line).
awk '
  /Test +#[0-9]+: / {
    name = ""
    if ($0 ~ /\*\*\*|Failed|Timeout|Not Run/ && $0 !~ /Passed/) {
      for (i = 1; i <= NF; i++) if ($i ~ /^#[0-9]+:$/) name = $(i + 1)
      fails[name]++
      why[name] = ""
    }
    next
  }
  /^The following tests FAILED:/ { name = ""; next }
  name != "" && why[name] == "" && /^FAIL|Failure|[Ee]rror:|CMake Error|Timeout|terminate|Assertion/ {
    why[name] = $0
  }
  END {
    n = 0
    for (t in fails) {
      printf "%-40s failed %d of %d rounds: %s\n", t, fails[t], rounds, why[t]
      n++
    }
    if (n == 0) printf "no test failed in %d rounds with %d busy loops\n", rounds, busy
  }
' rounds="$rounds" busy="$busy_count" "$logs"/round-*.log
