#!/usr/bin/env bash
# objwired and objwire as a user runs them: port 0, send, bench --json, exit codes, SIGTERM.
set -euo pipefail
objwired=$1
objwire=$2
dir=$(mktemp -d)
trap 'kill $daemon 2>/dev/null || true; rm -rf "$dir"' EXIT
source "$(dirname "$0")/daemon_helpers.sh"

start_daemon "$dir/log" "$dir/data"

# send: JSON lines from a file, every object acknowledged, exit 0.
printf '%s\n' '{"$type":"Point","x":1,"y":2}' '{"name":"a map","list":[1,2.5,null,true]}' >"$dir/in.jsonl"
"$objwire" send "$dir/in.jsonl" --to "127.0.0.1:$port" 2>"$dir/send.err" || fail "send exited $?"
grep -q "sent 2 objects (2 acknowledged)" "$dir/send.err" || fail "send report: $(cat "$dir/send.err")"

# send from stdin, with a bad line: exit 4 and the place of the error.
rc=0
printf '%s\n' '{"a":1}' '{"b":' | "$objwire" send - --to "127.0.0.1:$port" 2>"$dir/bad.err" || rc=$?
[ "$rc" -eq 4 ] || fail "bad input exited $rc, want 4"
grep -q "<stdin>:2:" "$dir/bad.err" || fail "bad input message: $(cat "$dir/bad.err")"

# send --on-error skip over many batches of the reader's thread: every good line acknowledged,
# each bad line reported once, in input order, with its own line number; stop ends at the first.
awk 'BEGIN { for (i = 1; i <= 3000; ++i) print (i == 700 || i == 2999) ? "{\"cut\":" : "{\"i\":" i "}" }' \
  >"$dir/many.jsonl"
rc=0
"$objwire" send "$dir/many.jsonl" --on-error skip --to "127.0.0.1:$port" 2>"$dir/skip.err" || rc=$?
[ "$rc" -eq 4 ] || fail "send --on-error skip with bad lines exited $rc, want 4"
[ "$(grep -o 'many.jsonl:[0-9]*:' "$dir/skip.err" | tr '\n' ' ')" = "many.jsonl:700: many.jsonl:2999: " ] ||
  fail "skip reports: $(cat "$dir/skip.err")"
grep -q "sent 2998 objects (2998 acknowledged)" "$dir/skip.err" || fail "skip report: $(cat "$dir/skip.err")"
grep -q "skipped 2 bad lines; the others of .*many.jsonl, up to line 3000, were stored" "$dir/skip.err" ||
  fail "skip count: $(cat "$dir/skip.err")"
rc=0
"$objwire" send "$dir/many.jsonl" --to "127.0.0.1:$port" 2>"$dir/stop.err" || rc=$?
[ "$rc" -eq 4 ] || fail "send stopping at a bad line exited $rc, want 4"
[ "$(grep -c 'many.jsonl:' "$dir/stop.err")" -eq 1 ] && grep -q "many.jsonl:700:" "$dir/stop.err" ||
  fail "stop reports: $(cat "$dir/stop.err")"
grep -q "699 objects acknowledged as stored: .*many.jsonl up to line 699; the first line not acknowledged is line 700" "$dir/stop.err" ||
  fail "stop: no partial outcome: $(cat "$dir/stop.err")"

# bench --json has the documented keys.
"$objwire" bench --workload person -n 5000 --to "127.0.0.1:$port" --json >"$dir/bench.json" || fail "bench exited $?"
for key in workload objects seconds objects_per_second wire_bytes bytes_per_object frames acked_objects; do
  grep -q "\"$key\":" "$dir/bench.json" || fail "bench --json lacks $key: $(cat "$dir/bench.json")"
done
grep -q '"acked_objects":5000' "$dir/bench.json" || fail "bench did not get every ack"

# Nothing listening: exit 2.
rc=0
"$objwire" send "$dir/in.jsonl" --to 127.0.0.1:1 2>/dev/null || rc=$?
[ "$rc" -eq 2 ] || fail "connection refused exited $rc, want 2"

# Usage error: exit 1.
rc=0
"$objwire" bench --workload nosuch 2>/dev/null || rc=$?
[ "$rc" -eq 1 ] || fail "usage error exited $rc, want 1"

# SIGTERM: clean exit 0, everything stored.
kill -TERM $daemon
rc=0
wait $daemon || rc=$?
[ "$rc" -eq 0 ] || fail "daemon exited $rc on SIGTERM"
# The journal (the default sink) holds them all; --dump-journal prints them as JSON lines.
"$objwired" --data-dir "$dir/data" --dump-journal >"$dir/dump.jsonl" 2>"$dir/dump.err" || fail "dump exited $?: $(cat "$dir/dump.err")"
lines=$(wc -l <"$dir/dump.jsonl")
# 2 + 1 + the skip run's 2998 + the stop run's 699 + bench's 5000
[ "$lines" -eq 8700 ] || fail "stored $lines objects, want 8700"
# The skip run's objects were stored once each, in input order.
awk 'BEGIN { for (i = 1; i <= 3000; ++i) if (i != 700 && i != 2999) print "{\"i\":" i "}" }' >"$dir/want.jsonl"
sed -n '4,3001p' "$dir/dump.jsonl" | cmp -s - "$dir/want.jsonl" ||
  fail "the skip run was not stored once each in order: $(sed -n '4,3001p' "$dir/dump.jsonl" | diff - "$dir/want.jsonl" | head -5)"
head -1 "$dir/dump.jsonl" | grep -qx '{"$type":"Point","x":1,"y":2}' || fail "first object: $(head -1 "$dir/dump.jsonl")"
tail -1 "$dir/dump.jsonl" | grep -qx '{"$type":"Person","firstName":"Heinz","surname":"Kabutz","age":4999}' || fail "last object: $(tail -1 "$dir/dump.jsonl")"
lines=$("$objwired" --data-dir "$dir/data" --dump-journal --from 8698 | wc -l)
[ "$lines" -eq 2 ] || fail "--from 8698 printed $lines objects, want 2"

# The JSON-lines sink, chosen from the environment.
OBJWIRE_SINK_KIND=jsonl start_daemon "$dir/log2" "$dir/data2"
"$objwire" send "$dir/in.jsonl" --to "127.0.0.1:$port" 2>/dev/null || fail "send to the jsonl sink exited $?"
kill -TERM $daemon
wait $daemon || fail "second daemon exited $? on SIGTERM"
lines=$(wc -l <"$dir/data2/objects.jsonl")
[ "$lines" -eq 2 ] || fail "jsonl sink stored $lines objects, want 2"
echo "cli_end_to_end: ok"
