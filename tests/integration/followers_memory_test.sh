#!/usr/bin/env bash
# What followers at the live end cost objwired (docs/PROTOCOL.md 1.2, "Memory" and
# "Followers"), with raw followers (stalled_readers.cpp, follow-end) that say hello and never
# read:
# - 1,000 idle followers (connected at the live end, nothing new written): objwired's RSS
#   growth per follower is within idle_bound, and they hold nothing (objwire_readers_held_bytes
#   and objwire_readers_shared_bytes 0);
# - then 8 MiB written: every follower has a batch waiting for its peer (objwire_readers_stalled
#   1,000), all of them from the same shared bytes: the RSS growth per follower stays within
#   idle_bound + stalled_extra, and what followers share within the shared bound plus a batch
#   - where 1,000 copies of a 256 KiB batch would take 250 MiB.
# Under sanitizers (ASan inflates memory) the RSS bounds are not checked; the rest still runs.
#
#   followers_memory_test.sh OBJWIRED OBJWIRE STALLED_READERS [SANITIZED(0|1)]
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
followers=1000
idle_bound=$((48 * kib))    # a connection, its reader and its coroutines, at the live end
stalled_extra=$((16 * kib)) # a follower's batch from shared bytes: headers and buffer list
shared_bound=$((8 * 1024 * kib + 512 * kib + 1024 * kib))

kib_of() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }
stats() { "$objwire" stats --json --to "127.0.0.1:$port"; }
metric() { echo "$m" | grep -o "\"$1\":[0-9.e+]*" | cut -d: -f2; }
metric_is() {
  m=$(stats) || return 1
  [ "$(metric "$1")" = "$2" ]
}

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
"$objwire" bench --workload events -n 1000 --to "127.0.0.1:$port" >"$dir/bench.out" 2>&1 ||
  fail "bench: $(cat "$dir/bench.out")"
m=$(stats)
before_kb=$(kib_of "$daemon" VmRSS)

hold_stalled "$followers" follow-end
wait_until 60 metric_is objwire_readers_open "$followers" || fail "followers not all open: $m"
idle_kb=$(kib_of "$daemon" VmRSS)
m=$(stats)
[ "$(metric objwire_readers_held_bytes)" = 0 ] || fail "idle followers hold $(metric objwire_readers_held_bytes) bytes"
[ "$(metric objwire_readers_shared_bytes)" = 0 ] || fail "idle followers share $(metric objwire_readers_shared_bytes) bytes"
per_idle=$(((idle_kb - before_kb) * kib / followers))

# 8 MiB of blobs: every follower's first batch stalls on its 4 KiB receive buffer.
"$objwire" bench --workload blobs -n 500 --compression never --to "127.0.0.1:$port" \
  >"$dir/bench2.out" 2>&1 || fail "bench: $(cat "$dir/bench2.out")"
wait_until 60 metric_is objwire_readers_stalled "$followers" || fail "followers not all stalled: $m"
stalled_kb=$(kib_of "$daemon" VmRSS)
m=$(stats)
shared=$(metric objwire_readers_shared_bytes)
per_stalled=$(((stalled_kb - before_kb) * kib / followers))
echo "$followers followers: RSS ${before_kb} KiB before, ${idle_kb} KiB idle at the live end" \
  "($((per_idle / kib)) KiB each, bound $((idle_bound / kib)) KiB), ${stalled_kb} KiB with a" \
  "batch each waiting ($((per_stalled / kib)) KiB each), shared bytes $((shared / kib)) KiB" \
  "(bound $((shared_bound / kib)) KiB)"
[ "$shared" -gt 0 ] || fail "the stalled followers' batches are not shared bytes"
[ "$shared" -le "$shared_bound" ] || fail "followers share $shared bytes, over $shared_bound"
if [ "$sanitized" != 1 ]; then
  [ "$per_idle" -le "$idle_bound" ] ||
    fail "an idle follower costs $per_idle bytes, over $idle_bound"
  [ "$per_stalled" -le $((idle_bound + stalled_extra + shared_bound / followers)) ] ||
    fail "a stalled follower costs $per_stalled bytes, over $((idle_bound + stalled_extra)) and its share"
fi
release_stalled
wait_until 30 metric_is objwire_readers_open 0 || fail "followers still open: $m"
wait_until 10 metric_is objwire_readers_shared_bytes 0 || fail "shared bytes left: $m"
