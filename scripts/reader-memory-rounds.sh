#!/usr/bin/env bash
# What a stalled reader costs objwired, on DAEMONS fresh daemons under BUSY busy loops (default
# one per core and one more): 200 readers from offset 0 that never read, on a journal of blocks
# up to 1 MiB, half of them with a 4 KiB receive buffer and half with the kernel's. Each round
# checks the bound of docs/PROTOCOL.md "Memory" and the gauge objwire_readers_held_bytes
# against RSS, as the reader_cost_end_to_end test does twice; prints each figure and the
# largest. Uses the main build (build/, as scripts/test.sh builds it).
#
#   scripts/reader-memory-rounds.sh [DAEMONS] [BUSY]
set -euo pipefail
cd "$(dirname "$0")/.."
for f in build/daemon/objwired build/client/objwire build/tests/integration/stalled_readers; do
  [ -x "$f" ] || { echo "no $f: run scripts/build.sh first" >&2; exit 2; }
done
log=$(mktemp)
trap 'rm -f "$log"' EXIT
rc=0
READER_COST_ROUNDS=${1:-30} READER_COST_BUSY=${2:-$(($(nproc) + 1))} \
  bash tests/integration/reader_cost_test.sh build/daemon/objwired build/client/objwire \
  build/tests/integration/stalled_readers 0 >"$log" 2>&1 || rc=$?
grep -E '^(stalled readers|largest|FAIL)' "$log" || cat "$log"
exit "$rc"
