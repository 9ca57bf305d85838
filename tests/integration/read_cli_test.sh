#!/usr/bin/env bash
# objwire read as a user runs it: gen graph -> send -> read gives an equal file (shared objects
# and cycles as $id/$ref), --from and --follow, bench --verify, and the refusals' exit codes.
set -euo pipefail
objwired=$1
objwire=$2
dir=$(mktemp -d)
trap 'kill $daemon ${follower:-} 2>/dev/null || true; rm -rf "$dir"' EXIT
source "$(dirname "$0")/daemon_helpers.sh"

start_daemon "$dir/log" "$dir/data"
to="127.0.0.1:$port"

# The $id/$ref round trip: what read prints is byte for byte what gen wrote and send took.
"$objwire" gen --workload graph -n 300 -o "$dir/graph.jsonl"
grep -q '"\$ref"' "$dir/graph.jsonl" || fail "the graph workload has no \$ref"
"$objwire" send "$dir/graph.jsonl" --to "$to" 2>"$dir/send.err" || fail "send exited $?"
"$objwire" read --to "$to" -o "$dir/back.jsonl" 2>"$dir/read.err" || fail "read exited $?: $(cat "$dir/read.err")"
cmp -s "$dir/graph.jsonl" "$dir/back.jsonl" ||
  fail "read gave a different file: $(diff "$dir/graph.jsonl" "$dir/back.jsonl" | head -5)"
grep -q "read 300 objects" "$dir/read.err" || fail "read report: $(cat "$dir/read.err")"

# --from in the middle: the rest, to stdout.
"$objwire" read --to "$to" --from 250 2>/dev/null >"$dir/tail.jsonl" || fail "read --from exited $?"
tail -n 50 "$dir/graph.jsonl" | cmp -s - "$dir/tail.jsonl" || fail "read --from 250 is not the last 50 objects"

# --follow: a follower started now prints what is sent after it.
"$objwire" read --to "$to" --from 300 --follow -o "$dir/followed.jsonl" 2>"$dir/follow.err" &
follower=$!
printf '%s\n' '{"$type":"Point","x":1,"y":2}' '{"late":true}' | "$objwire" send - --to "$to" 2>/dev/null ||
  fail "send to a followed daemon exited $?"
wait_for_lines "$dir/followed.jsonl" 2 || true
[ "$(wc -l <"$dir/followed.jsonl")" -eq 2 ] || fail "the follower printed $(wc -l <"$dir/followed.jsonl") objects, want 2"
grep -qx '{"late":true}' "$dir/followed.jsonl" || fail "follower output: $(cat "$dir/followed.jsonl")"
kill $follower
wait $follower 2>/dev/null || true
follower=""

# bench --verify reads this run's objects back: every one equal.
"$objwire" bench --workload events -n 20000 --verify --json --to "$to" >"$dir/bench.json" || fail "bench --verify exited $?"
grep -q '"objects":20000' "$dir/bench.json" || fail "bench: $(cat "$dir/bench.json")"
grep -q '"verified_objects":20000' "$dir/bench.json" || fail "bench --verify: $(cat "$dir/bench.json")"
grep -q '"verify_mismatches":0' "$dir/bench.json" || fail "bench --verify: $(cat "$dir/bench.json")"

# Lazy values (docs/COMPRESSION.md): a body sent lazy is stored compressed and read back
# expanded, so the file is equal again; bench --verify expands them before comparing.
"$objwire" gen --workload blobs -n 50 -o "$dir/blobs.jsonl"
OBJWIRE_LAZY_FIELDS=Doc.body "$objwire" send "$dir/blobs.jsonl" --to "$to" 2>"$dir/send.err" ||
  fail "send with lazy fields exited $?: $(cat "$dir/send.err")"
"$objwire" read --to "$to" --from 20302 -o "$dir/blobs.back" 2>"$dir/read.err" ||
  fail "read of lazy bodies exited $?: $(cat "$dir/read.err")"
cmp -s "$dir/blobs.jsonl" "$dir/blobs.back" ||
  fail "lazy bodies read back differently: $(diff "$dir/blobs.jsonl" "$dir/blobs.back" | head -c 300)"
OBJWIRE_LAZY_FIELDS=Doc.body "$objwire" bench --workload blobs -n 200 --verify --json --to "$to" \
  >"$dir/bench.json" || fail "bench --verify with lazy fields exited $?"
grep -q '"verify_mismatches":0' "$dir/bench.json" || fail "bench --verify, lazy: $(cat "$dir/bench.json")"

# Nothing listening: exit 2. Usage error: exit 1.
rc=0
"$objwire" read --to 127.0.0.1:1 2>/dev/null || rc=$?
[ "$rc" -eq 2 ] || fail "read with nothing listening exited $rc, want 2"
rc=0
"$objwire" read --to "$to" --from notanumber 2>/dev/null || rc=$?
[ "$rc" -eq 1 ] || fail "read --from notanumber exited $rc, want 1"
kill -TERM $daemon
wait $daemon || fail "daemon exited $? on SIGTERM"

# A daemon with the JSON-lines sink cannot serve reading: refused, exit 2, and it says why.
OBJWIRE_SINK_KIND=jsonl start_daemon "$dir/log2" "$dir/data2"
rc=0
"$objwire" read --to "127.0.0.1:$port" 2>"$dir/refused.err" || rc=$?
[ "$rc" -eq 2 ] || fail "read from a jsonl daemon exited $rc, want 2"
grep -q "cannot be read back" "$dir/refused.err" || fail "refusal: $(cat "$dir/refused.err")"
kill -TERM $daemon
wait $daemon || fail "second daemon exited $? on SIGTERM"
echo "read CLI: all checks passed"
