#!/usr/bin/env bash
# Two relays forwarding to each other (A to B, B to A) are a loop that objwired refuses
# (docs/PROTOCOL.md 1.5, docs/SECURITY.md): each relay adds its id to the hello's relay path,
# and A, finding itself in the hello B sends it, refuses that stream with relay_loop. The
# refusal travels back: 10 lines sent to A with `--retry-for 5s` end at once with the error
# naming the loop; within 2 s no connection is left in either relay; SIGTERM ends each within
# server.shutdown_grace + 1 s. A path longer than limits.max_hops is refused the same way
# (a chain A -> B -> A is not needed for it: limits.max_hops = 1 on B and a relay before it).
# Usage: relay_loop_test.sh OBJWIRED OBJWIRE
set -euo pipefail
objwired=$1
objwire=$2
dir=$(mktemp -d)
daemon=""
a=""
b=""
trap 'for p in $daemon $a $b; do kill -9 "$p" 2>/dev/null || true; done; rm -rf "$dir"' EXIT
source "$(dirname "$0")/daemon_helpers.sh"
export OBJWIRE_METRICS_LISTEN=""
grace_ms=2000
export OBJWIRE_SERVER_SHUTDOWN_GRACE=${grace_ms}ms
for i in $(seq 1 10); do echo "{\"line\":$i}"; done >"$dir/in.jsonl"

connections_of() { ss -Htnp state established 2>/dev/null | grep -c "pid=$1," || true; }
both_idle() { [ "$(connections_of "$a")" -eq 0 ] && [ "$(connections_of "$b")" -eq 0 ]; }

# A's port, known before B starts: a daemon's, once it has stopped.
start_daemon "$dir/log.probe" "$dir/probe"
aport=$port
kill "$daemon"
wait "$daemon" || true
daemon=""

OBJWIRE_SINK_KIND=forward OBJWIRE_FORWARD_TO="127.0.0.1:$aport" start_daemon "$dir/log.b" "$dir/b"
b=$daemon
bport=$port
: >"$dir/log.a"
OBJWIRE_SINK_KIND=forward OBJWIRE_FORWARD_TO="127.0.0.1:$bport" \
  "$objwired" --listen "127.0.0.1:$aport" --data-dir "$dir/a" 2>>"$dir/log.a" &
a=$!
daemon=""
wait_for_log "$dir/log.a" "listening on 127.0.0.1:$aport" || fail "relay A did not start"

start=$(now_ms)
rc=0
timeout 60 "$objwire" send "$dir/in.jsonl" --to "127.0.0.1:$aport" --retry-for 5s \
  2>"$dir/send.err" || rc=$?
elapsed=$(($(now_ms) - start))
echo "send of 10 lines to A (A -> B -> A): exit $rc after $elapsed ms: $(tr '\n' ' ' <"$dir/send.err")"
[ "$rc" -ne 0 ] || fail "the send through a loop succeeded"
grep -q "relay loop: the stream already passed this relay (127.0.0.1:$aport#" "$dir/send.err" ||
  fail "the sender is not told of the loop: $(cat "$dir/send.err")"
grep -q "127.0.0.1:$aport#[0-9a-f]* -> 127.0.0.1:[0-9]*#[0-9a-f]* -> 127.0.0.1:$aport#" \
  "$dir/send.err" || fail "the loop's path is not named: $(cat "$dir/send.err")"
[ "$elapsed" -le 7000 ] || fail "the send took $elapsed ms"
# Refused at the second hop: A refused B's hello; B never forwarded a stream that far again.
grep -q "refused: relay loop" "$dir/log.a" || fail "A did not refuse B's hello"
refusals=$(grep -c "refused: relay loop" "$dir/log.a" || true)
[ "$refusals" -le 2 ] || fail "A refused $refusals hellos from B: the loop was retried"

start=$(now_ms)
wait_until 2 both_idle ||
  fail "connections left 2 s after the send: A $(connections_of "$a"), B $(connections_of "$b")"
echo "A and B without connections $(($(now_ms) - start)) ms after the send ended"

for relay in a b; do
  stops_within_grace "${!relay}" "$grace_ms" "relay $relay"
  eval "$relay=''"
done

# limits.max_hops: a stream that passed one relay, at a daemon that takes none... the least
# is 1, so: two relays in a chain before a daemon with limits.max_hops = 1.
OBJWIRE_LIMITS_MAX_HOPS=1 start_daemon "$dir/log.end" "$dir/end"
a=$daemon
OBJWIRE_SINK_KIND=forward OBJWIRE_FORWARD_TO="127.0.0.1:$port" start_daemon "$dir/log.r2" "$dir/r2"
b=$daemon
OBJWIRE_SINK_KIND=forward OBJWIRE_FORWARD_TO="127.0.0.1:$port" start_daemon "$dir/log.r1" "$dir/r1"
rc=0
timeout 60 "$objwire" send "$dir/in.jsonl" --to "127.0.0.1:$port" --retry-for 5s \
  2>"$dir/send.err" || rc=$?
echo "send through 2 relays to a daemon with limits.max_hops = 1: exit $rc: $(tr '\n' ' ' <"$dir/send.err")"
[ "$rc" -ne 0 ] || fail "a path over limits.max_hops was taken"
grep -q "the stream passed 2 relays (.*), the most this daemon takes (limits.max_hops = 1)" \
  "$dir/send.err" || fail "the hop limit is not named: $(cat "$dir/send.err")"
echo PASS
