#!/usr/bin/env bash
# Frames are stored as they came whatever table the sender has (docs/JOURNAL.md section 2):
# one objwired, three `events` senders of the same objects - the journal's 4 MiB table, a
# 64 KiB one asked for by the client, a 4 KiB one, and, after a restart with
# limits.table_budget 64 KiB, one granted 64 KiB when it asked for the default (as 1,000
# senders are by the pool). objwired's metrics show most of the 64 KiB sender's frames stored
# whole (one of ~23 evicts under 64 KiB, and is encoded again), the 4 KiB sender's frames
# evicting and encoded again, and every frame of the granted sender stored whole (it resets
# rather than evict). `objwire read` gives all four streams identical, and `bench --verify`
# reads a granted sender's objects back equal to what it sent.
#   stored_whole_test.sh OBJWIRED OBJWIRE
set -euo pipefail
objwired=$1
objwire=$2
dir=$(mktemp -d)
daemon=""
trap '[ -n "$daemon" ] && kill "$daemon" 2>/dev/null; rm -rf "$dir"' EXIT
source "$(dirname "$0")/daemon_helpers.sh"
count=20000

# start LOG [VAR=VALUE...]: objwired on the test's data directory, metrics on a free port.
start() {
  local log=$1
  shift
  : >"$log"
  env OBJWIRE_METRICS_LISTEN=127.0.0.1:0 "$@" "$objwired" --listen 127.0.0.1:0 \
    --data-dir "$dir/data" 2>>"$log" &
  daemon=$!
  port=$(logged_port "$log") || fail "daemon did not log its port"
  metrics=$(logged_metrics_port "$log")
}
stop() { kill -TERM "$daemon"; wait "$daemon" || fail "daemon exited $? on SIGTERM"; daemon=""; }

# value NAME: the sample's value in a fresh GET /metrics, as an integer.
value() {
  get_metrics "$metrics" "$dir/http.txt"
  awk -v want="$1" '$1 == want { v = $2 } END { if (v == "") exit 1; printf "%.0f\n", v }' \
    "$dir/http.txt" || fail "no sample $1"
}

no_connections() { [ "$(value objwire_connections_open)" = 0 ]; }

# send ID TABLE_BUDGET: `events` under sender id ID; sets $frames and $whole to what the
# metrics counted for it (frames in, frames stored whole).
send() {
  local id=$1 budget=$2 frames_before whole_before
  frames_before=$(value objwire_frames_in_total)
  whole_before=$(value objwire_frames_stored_whole_total)
  local ask=()
  [ "$budget" = default ] || ask=(--table-budget "$budget")
  "$objwire" bench --to "127.0.0.1:$port" --workload events -n "$count" --sender-id "$id" \
    "${ask[@]}" --json >"$dir/bench-$id.json" 2>"$dir/bench-$id.err" ||
    fail "bench $id exited $?: $(cat "$dir/bench-$id.err")"
  # A session counts its frames in as it ends.
  wait_until 10 no_connections || fail "$id: connections still open"
  frames=$(($(value objwire_frames_in_total) - frames_before))
  whole=$(($(value objwire_frames_stored_whole_total) - whole_before))
  echo "$id ($budget): $frames frames, $whole stored whole"
  [ "$frames" -ge 2 ] || fail "$id: only $frames frames"
}

start "$dir/log1"
send full default
[ "$whole" = "$frames" ] || fail "full table: $whole of $frames frames stored whole"
send reduced 64KiB
[ $((2 * whole)) -gt "$frames" ] || fail "64 KiB table: $whole of $frames frames stored whole"
send tiny 4KiB
[ "$whole" -lt "$frames" ] || fail "4 KiB table: all $frames frames stored whole, none evicted"
# Granted less than it asked for (the daemon's 4 MiB), a sender resets rather than evict: all
# of its frames are stored whole. The blocks stored before the restart read as they did.
stop
start "$dir/log2" OBJWIRE_LIMITS_TABLE_BUDGET=64KiB
send granted default
[ "$whole" = "$frames" ] || fail "granted 64 KiB: $whole of $frames frames stored whole"

for id in full reduced tiny granted; do
  "$objwire" read --to "127.0.0.1:$port" --sender "$id" -o "$dir/$id.jsonl" ||
    fail "read $id exited $?"
done
[ "$(wc -l <"$dir/full.jsonl")" = "$count" ] || fail "full: $(wc -l <"$dir/full.jsonl") objects"
cmp -s "$dir/full.jsonl" "$dir/reduced.jsonl" || fail "the 64 KiB sender's objects differ"
cmp -s "$dir/full.jsonl" "$dir/tiny.jsonl" || fail "the 4 KiB sender's objects differ"
cmp -s "$dir/full.jsonl" "$dir/granted.jsonl" || fail "the granted sender's objects differ"

"$objwire" bench --to "127.0.0.1:$port" --workload events -n "$count" \
  --verify --json >"$dir/verify.json" 2>"$dir/verify.err" ||
  fail "bench --verify exited $?: $(cat "$dir/verify.err")"
grep -q "\"verified_objects\": *$count" "$dir/verify.json" || fail "verify: $(cat "$dir/verify.json")"
grep -q '"verify_mismatches": *0' "$dir/verify.json" || fail "verify: $(cat "$dir/verify.json")"

stop
echo "PASS"
