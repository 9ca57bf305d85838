#!/usr/bin/env bash
# A client turned away at a connection cap is told why (docs/SECURITY.md "many connections"):
# with one connection from 127.0.0.1 held open and limits.max_connections_per_address = 1,
# `objwire send`, `bench`, `read` and `stats` each print the daemon's reason - the figure, the
# limit and its key - and exit 2. Before, they said "connection lost: End of file".
set -euo pipefail
objwired=$1
objwire=$2
dir=$(mktemp -d)
daemon=""
trap 'exec 3>&- 2>/dev/null || true; [ -n "$daemon" ] && kill $daemon 2>/dev/null; rm -rf "$dir"' EXIT
source "$(dirname "$0")/daemon_helpers.sh"

OBJWIRE_LIMITS_MAX_CONNECTIONS_PER_ADDRESS=1 OBJWIRE_LIMITS_HANDSHAKE_TIMEOUT=60s \
  start_daemon "$dir/log" "$dir/data" --log-level debug
to=(--to "127.0.0.1:$port")
printf '%s\n' '{"$type":"Point","x":1,"y":2}' >"$dir/in.jsonl"

exec 3<>"/dev/tcp/127.0.0.1/$port"  # the one connection allowed, idle
wait_for_log "$dir/log" ": connected" || true
grep -q ": connected" "$dir/log" || fail "the held connection was not accepted"

expect_refused() {  # NAME ARGS...
  local name=$1 rc=0
  shift
  "$objwire" "$name" "${to[@]}" "$@" >/dev/null 2>"$dir/$name.err" || rc=$?
  [ "$rc" -eq 2 ] || fail "$name: exited $rc, want 2: $(cat "$dir/$name.err")"
  grep -q "too many connections: 1 connections open from 127.0.0.1" "$dir/$name.err" &&
    grep -q "limits.max_connections_per_address = 1" "$dir/$name.err" ||
    fail "$name: no reason: $(cat "$dir/$name.err")"
}
expect_refused send "$dir/in.jsonl" --retry-for 0
expect_refused bench --workload person -n 10 --retry-for 0
expect_refused read -o "$dir/read.jsonl"
expect_refused stats
[ "$(grep -c "refused: 1 connections open from 127.0.0.1" "$dir/log")" -ge 4 ] ||
  fail "refusals not logged"

# The slot given back, the same client gets in.
exec 3>&-
sends() { "$objwire" send "$dir/in.jsonl" "${to[@]}" 2>"$dir/ok.err"; }
wait_until 10 sends || fail "send after the slot was freed: $(cat "$dir/ok.err")"

kill -TERM $daemon
wait $daemon || fail "daemon exited $? on SIGTERM"
daemon=""
echo "refusal CLI test passed"
