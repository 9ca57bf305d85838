#!/usr/bin/env bash
# A relay (sink.kind = "forward") never waits on its next hop without a bound
# (docs/SECURITY.md, "Relay and retry window"). Two next hops that welcome and then never
# acknowledge:
# - silent_daemon (written from docs/PROTOCOL.md: it welcomes and reads, never acks);
# - a real objwired whose disk is full: its files may not grow past 256 KiB (RLIMIT_FSIZE,
#   SIGXFSZ ignored, so a write fails with EFBIG as on a full disk: it stalls, not acking).
# For each: `objwire send --retry-for 5s` to the relay exits 3 within 5 s + 2 s; within 2 s
# after, the relay holds no connection (neither the upstream's session nor its hop
# connection), nor after ten sends at once, nor with its reading paused (silent hop only);
# with a send in flight, SIGTERM ends the relay
# within server.shutdown_grace + 1 s. The times measured are printed.
# Usage: relay_stall_test.sh OBJWIRED OBJWIRE SILENT_DAEMON
set -euo pipefail
objwired=$1
objwire=$2
silent_daemon=$3
dir=$(mktemp -d)
daemon=""
hop=""
inflight=""
cleanup() {
  for p in $daemon $hop $inflight; do kill -9 "$p" 2>/dev/null || true; done
  rm -rf "$dir"
}
trap cleanup EXIT
source "$(dirname "$0")/daemon_helpers.sh"
export OBJWIRE_METRICS_LISTEN=""
grace_ms=2000
export OBJWIRE_SERVER_SHUTDOWN_GRACE=${grace_ms}ms
# 20,000 lines of 64 random hex digits: 0.7 MB stored, more than the full disk takes.
awk 'BEGIN { srand(1); for (i = 0; i < 20000; i++) { s = "";
  for (j = 0; j < 8; j++) s = s sprintf("%08x", int(rand() * 4294967295));
  printf "{\"i\":%d,\"r\":\"%s\"}\n", i, s } }' >"$dir/in.jsonl"

# Established TCP connections process PID holds (its listening socket is not one).
connections_of() { ss -Htnp state established 2>/dev/null | grep -c "pid=$1," || true; }
relay_idle() { [ "$(connections_of "$daemon")" -eq 0 ]; }
relay_busy() { [ "$(connections_of "$daemon")" -ge 2 ]; }

# check_relay NAME HOP_PORT: the three bounds against a relay forwarding to HOP_PORT.
check_relay() {
  local name=$1 to=$2 start elapsed rc
  OBJWIRE_SINK_KIND=forward OBJWIRE_FORWARD_TO="127.0.0.1:$to" \
    start_daemon "$dir/log.relay-$name" "$dir/relay-$name"
  start=$(now_ms)
  rc=0
  timeout 60 "$objwire" send "$dir/in.jsonl" --to "127.0.0.1:$port" --retry-for 5s \
    2>"$dir/send.err" || rc=$?
  elapsed=$(($(now_ms) - start))
  echo "$name: send --retry-for 5s: exit $rc after $elapsed ms: $(tr '\n' ' ' <"$dir/send.err")"
  [ "$rc" -eq 3 ] || fail "$name: send exited $rc, want 3"
  [ "$elapsed" -le 7000 ] || fail "$name: send took $elapsed ms, over 5 s + 2 s"

  start=$(now_ms)
  wait_until 2 relay_idle ||
    fail "$name: the relay still holds $(connections_of "$daemon") connections 2 s after the send"
  echo "$name: relay without connections $(($(now_ms) - start)) ms after the send ended"

  # Ten at once: none is left behind either (70 sends used to leave 62 sessions open).
  local pids="" p
  for i in $(seq 1 10); do
    timeout 60 "$objwire" send "$dir/in.jsonl" --to "127.0.0.1:$port" --retry-for 5s \
      2>"$dir/send.$i.err" &
    pids="$pids $!"
  done
  for p in $pids; do
    rc=0
    wait "$p" || rc=$?
    [ "$rc" -eq 3 ] || fail "$name: one of ten sends exited $rc, want 3"
  done
  start=$(now_ms)
  wait_until 2 relay_idle ||
    fail "$name: $(connections_of "$daemon") connections left 2 s after ten sends ended"
  echo "$name: relay without connections $(($(now_ms) - start)) ms after ten sends ended"

  # A send in flight (its objects waiting for the hop), then SIGTERM.
  timeout 60 "$objwire" send "$dir/in.jsonl" --to "127.0.0.1:$port" --retry-for 30s \
    2>"$dir/inflight.err" &
  inflight=$!
  wait_until 10 relay_busy || fail "$name: the send in flight never reached the hop"
  stops_within_grace "$daemon" "$grace_ms" "$name: the relay with a send in flight"
  daemon=""
  kill "$inflight" 2>/dev/null || true
  wait "$inflight" 2>/dev/null || true
  inflight=""
}

# A hop that welcomes and never acknowledges.
"$silent_daemon" 1000 >"$dir/silent.out" &
hop=$!
sport=$(logged_port "$dir/silent.out" || true)
[ -n "$sport" ] || fail "silent_daemon did not say its port"
check_relay silent "$sport"

# The relay's reading paused (limits.max_buffered_bytes 64 KiB, charged the memory of 1 KiB
# frames of tiny messages) when the sender gives up: its close waits behind unread bytes, and
# is seen all the same.
awk 'BEGIN { for (i = 0; i < 200000; i++) printf "{\"i\":%d}\n", i % 10 }' >"$dir/tiny.jsonl"
OBJWIRE_LIMITS_MAX_BUFFERED_BYTES=64KiB OBJWIRE_SINK_KIND=forward \
  OBJWIRE_FORWARD_TO="127.0.0.1:$sport" start_daemon "$dir/log.relay-paused" "$dir/relay-paused" \
  --log-level debug
start=$(now_ms)
rc=0
OBJWIRE_BATCH_MAX_BYTES=1KiB timeout 60 "$objwire" send "$dir/tiny.jsonl" --to "127.0.0.1:$port" \
  --retry-for 5s 2>"$dir/send.err" || rc=$?
elapsed=$(($(now_ms) - start))
echo "paused: send --retry-for 5s: exit $rc after $elapsed ms"
[ "$rc" -eq 3 ] && [ "$elapsed" -le 7000 ] || fail "paused: send exited $rc after $elapsed ms"
grep -q "reading paused" "$dir/log.relay-paused" || fail "paused: the relay never paused reading"
start=$(now_ms)
wait_until 2 relay_idle ||
  fail "paused: the relay still holds $(connections_of "$daemon") connections 2 s after the send"
echo "paused: relay without connections $(($(now_ms) - start)) ms after the send ended"
grep -q "the sender left while reading was paused" "$dir/log.relay-paused" ||
  fail "paused: the sender's close was not seen"
kill "$daemon"
wait "$daemon" || true
daemon=""
kill "$hop"
wait "$hop" 2>/dev/null || true

# A real objwired whose disk is full.
: >"$dir/log.hop"
(
  trap '' XFSZ
  ulimit -f 256
  exec "$objwired" --listen 127.0.0.1:0 --data-dir "$dir/hop" 2>>"$dir/log.hop"
) &
hop=$!
hport=$(logged_port "$dir/log.hop") || fail "the full-disk hop did not log its port"
check_relay full-disk "$hport"
grep -q "cannot store objects" "$dir/log.hop" || fail "the hop's disk never filled"
echo PASS
