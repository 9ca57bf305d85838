#!/usr/bin/env bash
# `objwire send --retry-for` is a real bound (docs/SECURITY.md, "Relay and retry window"):
# - through a relay (sink.kind = "forward") whose next hop is down, `send --retry-for 5s` exits
#   3 within 5 s plus 2 s, saying the next hop is unavailable and why; the relay refuses the
#   reconnects with not_available, the cause and a retry-after, and logs the failed attempts once per interval;
# - against a daemon that welcomes every connection and never acknowledges (silent_daemon,
#   written from docs/PROTOCOL.md), `send --retry-for 3s` exits 3 within 3 s plus 2 s.
# Usage: relay_retry_cli_test.sh OBJWIRED OBJWIRE SILENT_DAEMON
set -euo pipefail
objwired=$1
objwire=$2
silent_daemon=$3
dir=$(mktemp -d)
daemon=""
silent=""
trap '[ -n "$daemon" ] && kill $daemon 2>/dev/null; [ -n "$silent" ] && kill $silent 2>/dev/null; rm -rf "$dir"' EXIT
source "$(dirname "$0")/daemon_helpers.sh"
bound_ms=2000
"$objwire" gen --workload person -n 5000 -o "$dir/in.jsonl"

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# send_timed LIMIT_MS PORT ARGS...: runs send; sets $rc, $elapsed; fails past LIMIT_MS.
send_timed() {
  local limit=$1 to=$2
  shift 2
  local start
  start=$(now_ms)
  rc=0
  timeout 60 "$objwire" send "$dir/in.jsonl" --to "127.0.0.1:$to" "$@" 2>"$dir/send.err" || rc=$?
  elapsed=$(($(now_ms) - start))
  echo "send $*: exit $rc after $elapsed ms: $(tr '\n' ' ' <"$dir/send.err")"
  [ "$rc" -eq 3 ] || fail "send exited $rc, want 3: $(cat "$dir/send.err")"
  [ "$elapsed" -le "$limit" ] || fail "send took $elapsed ms, over $limit ms"
}

# A port with nobody behind it: a daemon's, once it has stopped.
start_daemon "$dir/log.hop" "$dir/hop"
hop=$port
kill "$daemon"
wait "$daemon" || true
daemon=""

OBJWIRE_SINK_KIND=forward OBJWIRE_FORWARD_TO="127.0.0.1:$hop" \
  start_daemon "$dir/log.relay" "$dir/relay"
send_timed $((5000 + bound_ms)) "$port" --retry-for 5s
grep -q "next hop 127.0.0.1:$hop is unavailable: cannot connect to 127.0.0.1:$hop" "$dir/send.err" ||
  fail "the cause is not named: $(cat "$dir/send.err")"
grep -q "retry after [0-9]* ms" "$dir/send.err" || fail "no retry-after: $(cat "$dir/send.err")"
# Once per 5 s interval with the counts, not once per attempt or refusal.
lines=$(grep -c "forward to 127.0.0.1:$hop: " "$dir/log.relay" || true)
[ "$lines" -ge 1 ] && [ "$lines" -le 3 ] || fail "$lines log lines about the next hop, want 1 to 3"
grep -q "connect attempts failed and [0-9]* new streams refused" "$dir/log.relay" ||
  fail "no counts in the relay's log"
kill "$daemon"
wait "$daemon" || true
daemon=""

# A daemon that welcomes and never acknowledges.
"$silent_daemon" 1000 >"$dir/silent.out" &
silent=$!
sport=$(logged_port "$dir/silent.out" || true)
[ -n "$sport" ] || fail "silent_daemon did not say its port"
send_timed $((3000 + bound_ms)) "$sport" --retry-for 3s
grep -q "no acknowledged progress for 3000 ms (resume.retry_for)" "$dir/send.err" ||
  fail "the window is not named: $(cat "$dir/send.err")"
echo PASS
