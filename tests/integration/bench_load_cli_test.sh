#!/usr/bin/env bash
# objwire bench --rate / --connections / --readers against objwired: every object acknowledged
# and delivered to every follower, the JSON fields present. Correctness only: no figure of
# speed or latency is asserted.
set -euo pipefail
objwired=$1
objwire=$2
dir=$(mktemp -d)
trap 'kill $daemon 2>/dev/null || true; rm -rf "$dir"' EXIT
source "$(dirname "$0")/daemon_helpers.sh"

start_daemon "$dir/log" "$dir/data"
to="127.0.0.1:$port"

# has_keys FILE KEY...: fails unless each key is in the JSON object.
has_keys() {
  local file=$1
  shift
  for key in "$@"; do
    grep -q "\"$key\":" "$file" || fail "bench --json lacks $key: $(cat "$file")"
  done
}

# One paced sender: every object acknowledged, one latency sample per object.
"$objwire" bench --workload events -n 3000 --rate 6000/s --to "$to" --json >"$dir/rate.json" ||
  fail "bench --rate exited $?"
has_keys "$dir/rate.json" objects_per_second rate_target connections connection_objects_per_second \
  ack_latency_p50_ms ack_latency_p90_ms ack_latency_p99_ms ack_latency_p999_ms ack_latency_max_ms \
  latency_precision
grep -q '"acked_objects":3000,' "$dir/rate.json" || fail "not every object acked: $(cat "$dir/rate.json")"
grep -q '"ack_latency_samples":3000' "$dir/rate.json" || fail "one latency per object: $(cat "$dir/rate.json")"
grep -q '"rate_target":6000,' "$dir/rate.json" || fail "rate: $(cat "$dir/rate.json")"

# Eight senders sharing the rate and the objects (4001: not a multiple of 8), three followers:
# each follower gets every object, one delivery latency per object and follower.
"$objwire" bench --workload person -n 4001 --rate 20k/s --connections 8 --readers 3 --to "$to" --json \
  >"$dir/load.json" || fail "bench --connections --readers exited $?"
has_keys "$dir/load.json" connection_objects_per_second_min connection_objects_per_second_mean \
  delivery_latency_p50_ms delivery_latency_p99_ms delivery_latency_max_ms
grep -q '"acked_objects":4001,' "$dir/load.json" || fail "not every object acked: $(cat "$dir/load.json")"
grep -q '"connections":8,' "$dir/load.json" || fail "connections: $(cat "$dir/load.json")"
[ "$(grep -o '"connection_objects_per_second":\[[0-9,]*\]' "$dir/load.json" | tr -cd ',' | wc -c)" -eq 7 ] ||
  fail "one objects/s per connection: $(cat "$dir/load.json")"
grep -q '"reader_delivered_objects":\[4001,4001,4001\]' "$dir/load.json" ||
  fail "a follower missed objects: $(cat "$dir/load.json")"
grep -q '"delivery_latency_samples":12003' "$dir/load.json" ||
  fail "one delivery latency per object and follower: $(cat "$dir/load.json")"

# Unpaced, several connections: each sends its share as fast as it can; text report.
"$objwire" bench --workload person -n 1000 --connections 5 --to "$to" >"$dir/closed.txt" ||
  fail "bench --connections exited $?"
grep -q "acknowledged: 1000 of 1000 objects" "$dir/closed.txt" || fail "closed loop: $(cat "$dir/closed.txt")"
grep -q "1000 objects over 5 connections" "$dir/closed.txt" || fail "closed loop: $(cat "$dir/closed.txt")"

# Every object of the three runs is stored once: 3000 + 4001 + 1000.
"$objwire" read --from 0 --to "$to" >"$dir/all.jsonl" 2>"$dir/read.err" || fail "read exited $?: $(cat "$dir/read.err")"
[ "$(wc -l <"$dir/all.jsonl")" -eq 8001 ] || fail "stored $(wc -l <"$dir/all.jsonl") objects, want 8001"

# A rate that is not one is a usage error (exit 1), named.
rc=0
"$objwire" bench --workload events -n 10 --rate fast --to "$to" 2>"$dir/bad.err" || rc=$?
[ "$rc" -eq 1 ] || fail "--rate fast exited $rc, want 1"
grep -q -- "--rate fast: not a rate" "$dir/bad.err" || fail "bad rate message: $(cat "$dir/bad.err")"
echo "bench load: ok"
