#!/bin/bash
# Peak RSS of objwired under many honest senders at once, against the bound docs/SECURITY.md
# promises: 32 MB + 1.25 x (table budgets of the connections open at once) + their
# buffered-bytes caps (limits.max_buffered_bytes, set to 4 MiB here so the bound means
# something). Prints one line per run and fails if the bound is passed.
# Usage: memory_clients.sh OBJWIRED OBJWIRE [CLIENTS] [EVENTS_PER_CLIENT] [WORKLOAD]
# (defaults 50 clients x 200,000 events; tests/integration/memory_bound_test.sh runs 8 x 20,000)
set -euo pipefail
objwired=$1
objwire=$2
clients=${3:-50}
count=${4:-200000}
workload=${5:-events}
dir=$(mktemp -d)
daemon=""
trap '[ -n "$daemon" ] && kill "$daemon" 2>/dev/null; rm -rf "$dir"' EXIT
source "$(dirname "$0")/../integration/daemon_helpers.sh"

mib=1048576
cat >"$dir/objwired.toml" <<TOML
[limits]
table_budget = "4MiB"
max_buffered_bytes = "4MiB"
TOML
start_daemon "$dir/log" "$dir/data" --config "$dir/objwired.toml"
pids=()
for i in $(seq "$clients"); do
  "$objwire" bench --to "127.0.0.1:$port" --workload "$workload" -n "$count" --json \
    >"$dir/client$i.json" 2>&1 &
  pids+=($!)
done
failed=0
for p in "${pids[@]}"; do wait "$p" || failed=$((failed + 1)); done
hwm_kb=$(awk '$1 == "VmHWM:" { print $2 }' "/proc/$daemon/status")
kill "$daemon"
wait "$daemon" || true
daemon=""
bound_kb=$(( (32000000 + clients * 4 * mib * 5 / 4 + clients * 4 * mib) / 1024 ))
echo "$clients x $count $workload: objwired peak RSS $hwm_kb KiB (bound $bound_kb KiB), $failed clients failed"
[ "$failed" = 0 ] || fail "$failed clients failed: $(cat "$dir"/client*.json | grep -v '^{' | head -5)"
[ "$hwm_kb" -le "$bound_kb" ] || fail "peak RSS $hwm_kb KiB over the bound $bound_kb KiB"
