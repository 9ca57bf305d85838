#!/usr/bin/env bash
# `objwire send` as a pipeline tool: what a pipe gives leaves before the pipe ends (a pause,
# `tail -F` of a growing log), and each kind of failure has its exit code and its message -
# daemon gone before the start (2), daemon killed mid-send beyond --retry-for (3: the
# connection, what was acknowledged, where in the input that ends; no per-line output), a bad
# line (4: and how much of the input before it was stored).
set -euo pipefail
objwired=$1
objwire=$2
dir=$(mktemp -d)
tail_pid=""
trap 'kill $daemon 2>/dev/null || true; [ -n "$tail_pid" ] && kill $tail_pid 2>/dev/null; rm -rf "$dir"' EXIT
source "$(dirname "$0")/daemon_helpers.sh"

start_daemon "$dir/log" "$dir/data"
"$objwire" gen --workload events -n 400 -o "$dir/e.jsonl"

# stored SENDER: how many objects the daemon holds for SENDER.
stored() { "$objwire" read --to "127.0.0.1:$port" --sender "$1" 2>/dev/null | wc -l; }
# wait_stored SENDER N: waits (at most 20 s) until the daemon holds N objects for SENDER and
# prints how many it holds then.
wait_stored() {
  wait_until 20 holds "$1" "$2" || true
  stored "$1"
}
holds() { [ "$(stored "$1")" -ge "$2" ]; }

# A pipe gives 3 lines and pauses: they are readable from the daemon during the pause (the
# writer holds the rest back until it sees them, at most 20 s), then the other 2 follow.
(
  head -3 "$dir/e.jsonl"
  wait_stored pause 3 >"$dir/during_pause"
  sed -n 4,5p "$dir/e.jsonl"
) | "$objwire" send - --to "127.0.0.1:$port" --sender-id pause 2>"$dir/pause.err" ||
  fail "send of a pausing pipe exited $?: $(cat "$dir/pause.err")"
[ "$(cat "$dir/during_pause")" -eq 3 ] ||
  fail "during the pause the daemon held $(cat "$dir/during_pause") objects, want 3"
[ "$(stored pause)" -eq 5 ] || fail "after the pipe ended the daemon held $(stored pause), want 5"
head -5 "$dir/e.jsonl" | "$objwire" send - --to "127.0.0.1:$port" --sender-id whole 2>/dev/null
cmp -s <("$objwire" read --to "127.0.0.1:$port" --sender pause 2>/dev/null) \
  <("$objwire" read --to "127.0.0.1:$port" --sender whole 2>/dev/null) ||
  fail "the pausing pipe's objects were not stored once each in order"

# tail -F of a log that grows: each line is delivered while tail runs.
: >"$dir/app.log"
mkfifo "$dir/tail.fifo"
tail -n +1 -F "$dir/app.log" >"$dir/tail.fifo" 2>/dev/null &
tail_pid=$!
"$objwire" send - --to "127.0.0.1:$port" --sender-id tail <"$dir/tail.fifo" 2>"$dir/tail.err" &
send_pid=$!
head -2 "$dir/e.jsonl" >>"$dir/app.log"
[ "$(wait_stored tail 2)" -eq 2 ] || fail "tail -F: the first 2 lines were not delivered"
sed -n 3,7p "$dir/e.jsonl" >>"$dir/app.log"
[ "$(wait_stored tail 7)" -eq 7 ] || fail "tail -F: the next 5 lines were not delivered"
kill "$tail_pid"
tail_pid=""
wait $send_pid || fail "send after tail ended exited $?: $(cat "$dir/tail.err")"

# A bad line with --on-error stop: exit 4, the line, and how much before it was stored.
{ head -5 "$dir/e.jsonl"; echo '{"cut":'; sed -n 6,9p "$dir/e.jsonl"; } >"$dir/bad.jsonl"
rc=0
"$objwire" send "$dir/bad.jsonl" --to "127.0.0.1:$port" --sender-id bad 2>"$dir/bad.err" || rc=$?
[ "$rc" -eq 4 ] || fail "bad line exited $rc, want 4"
grep -q "bad.jsonl:6:" "$dir/bad.err" || fail "bad line message: $(cat "$dir/bad.err")"
grep -q "5 objects acknowledged as stored: .*bad.jsonl up to line 5" "$dir/bad.err" ||
  fail "bad line: no partial outcome: $(cat "$dir/bad.err")"
[ "$(stored bad)" -eq 5 ] || fail "bad line: the daemon holds $(stored bad) objects, want 5"

# The daemon is killed in the middle of a send and stays down beyond --retry-for: exit 3, a
# message about the connection and what was acknowledged, no bad-input lines. The first 100
# lines are stored (the writer waits for them) before the kill, the rest comes after it.
for mode in stop skip; do
  rc=0
  (
    head -100 "$dir/e.jsonl"
    wait_stored "killed-$mode" 100 >/dev/null
    kill -9 $daemon
    sed -n '101,400p' "$dir/e.jsonl"
  ) | "$objwire" send - --to "127.0.0.1:$port" --sender-id "killed-$mode" --retry-for 1s \
    --on-error "$mode" 2>"$dir/killed.err" || rc=$?
  [ "$rc" -eq 3 ] || fail "daemon killed mid-send ($mode) exited $rc, want 3: $(cat "$dir/killed.err")"
  grep -q "connection to 127.0.0.1:$port failed" "$dir/killed.err" ||
    fail "no connection message ($mode): $(cat "$dir/killed.err")"
  grep -Eq "^objwire: 1[0-9][0-9] objects acknowledged as stored: <stdin> up to line 1[0-9][0-9]; the first line not acknowledged is line 1[0-9][0-9]$" "$dir/killed.err" ||
    fail "no count of acknowledged objects and lines ($mode): $(cat "$dir/killed.err")"
  if grep -q "<stdin>:[0-9]" "$dir/killed.err" || grep -q "skipped" "$dir/killed.err"; then
    fail "a lost connection reported as bad input ($mode): $(cat "$dir/killed.err")"
  fi
  wait $daemon 2>/dev/null || true
  start_daemon "$dir/log" "$dir/data"
done

# The daemon gone before the start: exit 2.
kill -TERM $daemon
wait $daemon || true
rc=0
"$objwire" send "$dir/e.jsonl" --to "127.0.0.1:$port" 2>"$dir/gone.err" || rc=$?
[ "$rc" -eq 2 ] || fail "daemon gone before the start exited $rc, want 2"
grep -q "127.0.0.1:$port" "$dir/gone.err" || fail "daemon gone: message: $(cat "$dir/gone.err")"
echo "send_stream_end_to_end: ok"
