#!/usr/bin/env bash
# What idle sender connections cost objwired (docs/OPERATIONS.md, "Memory per connection"):
# 1,000 raw senders (stalled_readers.cpp, idle-sender) each welcomed after its hello and then
# silent, after a 1,000-connection bench has filled the daemon's pools: objwired's RSS growth
# per idle sender stays within idle_bound - a connection waits in a 4 KiB buffer of its own;
# read blocks, journal blocks and their encoders are taken from the daemon's pools only while
# a connection has bytes to handle.
# Under sanitizers (ASan inflates memory) the bound is not checked; the rest still runs.
#
#   sender_idle_memory_test.sh OBJWIRED OBJWIRE STALLED_READERS [SANITIZED(0|1)]
set -euo pipefail
objwired=$1
objwire=$2
stalled=$3
sanitized=${4:-0}
dir=$(mktemp -d)
daemon=""
holder=""
cleanup() {
  exec 3>&- 2>/dev/null || true
  [ -n "$holder" ] && kill "$holder" 2>/dev/null
  [ -n "$daemon" ] && kill "$daemon" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
source "$(dirname "$0")/daemon_helpers.sh"

kib=1024
senders=1000
idle_bound=$((32 * kib)) # a session, its coroutines, socket and decoder state, 4 KiB buffer

kib_of() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }
[ "$(ulimit -n)" = unlimited ] || [ "$(ulimit -n)" -ge 4096 ] || ulimit -n 4096 2>/dev/null ||
  fail "this test needs 4,096 descriptors (ulimit -n)"

cat >"$dir/objwired.toml" <<TOML
[server]
max_connections = 1100
[limits]
max_connections_per_address = 1100
[journal]
fsync = "never"
[metrics]
listen = ""
TOML
start_daemon "$dir/log" "$dir/data" --config "$dir/objwired.toml"
"$objwire" bench --workload events -n 200000 --connections $senders --to "127.0.0.1:$port" \
  >"$dir/bench.out" 2>&1 || fail "bench: $(cat "$dir/bench.out")"
before_kb=$(kib_of "$daemon" VmRSS)

hold_stalled "$senders" idle-sender
idle_kb=$(kib_of "$daemon" VmRSS)
per_idle=$(((idle_kb - before_kb) * kib / senders))
echo "$senders idle senders: RSS ${before_kb} KiB before, ${idle_kb} KiB with them" \
  "($((per_idle / kib)) KiB each, bound $((idle_bound / kib)) KiB)"
if [ "$sanitized" != 1 ]; then
  [ "$per_idle" -le "$idle_bound" ] || fail "an idle sender costs $per_idle bytes, over $idle_bound"
fi
release_stalled
# The daemon is still serving: a send after them is stored.
"$objwire" bench --workload events -n 1000 --to "127.0.0.1:$port" >"$dir/bench2.out" 2>&1 ||
  fail "bench after the idle senders: $(cat "$dir/bench2.out")"
