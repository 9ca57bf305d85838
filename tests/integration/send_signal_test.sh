#!/usr/bin/env bash
# SIGTERM and SIGINT end `objwire send - --sender-id k --retry-for 30s` within 1 s, with the
# summary, whatever it waits for (docs/CLI.md, "Exit codes"; docs/SECURITY.md):
# - the pause between reconnects (the daemon killed with -9, one more line written);
# - a reconnect's connect and handshake (a daemon on the port, stopped with SIGSTOP);
# - room in a full send window (silent_daemon: welcomes, never acknowledges).
# While the daemon is away, each reconnect attempt is one line on stderr (not a terminal here).
# Usage: send_signal_test.sh OBJWIRED OBJWIRE SILENT_DAEMON
set -euo pipefail
objwired=$1
objwire=$2
silent_daemon=$3
dir=$(mktemp -d)
daemon=""
silent=""
send=""
cleanup() {
  exec 3>&- || true
  [ -n "$send" ] && kill -9 "$send" 2>/dev/null
  [ -n "$daemon" ] && kill -CONT "$daemon" 2>/dev/null && kill -9 "$daemon" 2>/dev/null
  [ -n "$silent" ] && kill "$silent" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
source "$(dirname "$0")/daemon_helpers.sh"
limit_ms=1000

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# start_send PORT [ARGS...]: `send -` from the fifo $dir/in, writer on descriptor 3; sets $send.
start_send() {
  local to=$1
  shift
  rm -f "$dir/in"
  mkfifo "$dir/in"
  : >"$dir/send.err"
  "$objwire" send - --to "127.0.0.1:$to" --sender-id k --retry-for 30s "$@" \
    <"$dir/in" 2>"$dir/send.err" &
  send=$!
  exec 3>"$dir/in"
}

# stop_send SIGNAL WHAT: signals the send, which must exit 128+N within $limit_ms with the
# summary of what was acknowledged.
stop_send() {
  local sig=$1 what=$2 want start elapsed rc=0
  [ "$sig" = INT ] && want=130 || want=143
  start=$(now_ms)
  kill -"$sig" "$send"
  wait_for_exit "$send" 30 || fail "$what: send still running 30 s after SIG$sig"
  elapsed=$(($(now_ms) - start))
  wait "$send" || rc=$?
  send=""
  exec 3>&-
  echo "$what, SIG$sig: exit $rc after $elapsed ms: $(tr '\n' '|' <"$dir/send.err")"
  [ "$rc" -eq "$want" ] || fail "$what: exit $rc, want $want: $(cat "$dir/send.err")"
  [ "$elapsed" -le "$limit_ms" ] || fail "$what: SIG$sig took $elapsed ms, over $limit_ms ms"
  grep -q "SIG$sig: stopped reading <stdin>" "$dir/send.err" || fail "$what: no stop line"
  grep -q "acknowledged as stored" "$dir/send.err" || fail "$what: no summary"
}

stored() { [ "$("$objwire" read --to "127.0.0.1:$port" 2>/dev/null | wc -l)" -ge "$1" ]; }
notices() { [ "$(grep -c "objwire: reconnecting (attempt " "$dir/send.err")" -ge "$1" ]; }
handshake_waits() { ss -tnH state established "( dport = :$port )" | grep -q .; }

for sig in TERM INT; do
  # The pause between reconnects: nobody listens on the port any more.
  start_daemon "$dir/log" "$dir/data-$sig"
  start_send "$port"
  echo '{"n":1}' >&3
  wait_until 10 stored 1 || fail "the first line was not stored"
  kill -9 "$daemon"
  wait "$daemon" || true
  daemon=""
  echo '{"n":2}' >&3
  wait_until 10 notices 3 || fail "no notice per reconnect attempt: $(cat "$dir/send.err")"
  grep -q "objwire: reconnecting (attempt 1, in 0 ms, [0-9]* ms left of resume.retry_for): " \
    "$dir/send.err" || fail "the first notice does not say why: $(cat "$dir/send.err")"
  stop_send "$sig" "reconnect pause"
  grep -q "reconnecting interrupted" "$dir/send.err" || fail "the interrupted reconnect is not named"

  # A reconnect's connect and handshake: a daemon on the port that is stopped (the kernel
  # completes the TCP handshake; the welcome never comes).
  start_daemon "$dir/log" "$dir/data2-$sig"
  start_send "$port"
  echo '{"n":1}' >&3
  wait_until 10 stored 1 || fail "the first line was not stored"
  kill -9 "$daemon"
  wait "$daemon" || true
  daemon=""
  : >"$dir/log"
  "$objwired" --listen "127.0.0.1:$port" --data-dir "$dir/data2-$sig" 2>>"$dir/log" &
  daemon=$!
  wait_for_log "$dir/log" "listening on 127.0.0.1:$port" || fail "no daemon on port $port again"
  kill -STOP "$daemon"
  echo '{"n":2}' >&3
  wait_until 20 handshake_waits || fail "send did not reconnect to the stopped daemon"
  stop_send "$sig" "handshake with a stopped daemon"
  kill -CONT "$daemon"
  kill "$daemon"
  wait "$daemon" || true
  daemon=""

  # A full send window: the daemon welcomes and never acknowledges.
  "$silent_daemon" 10 >"$dir/silent.out" &
  silent=$!
  sport=$(logged_port "$dir/silent.out") || fail "silent_daemon did not say its port"
  OBJWIRE_FLOW_MAX_IN_FLIGHT=64KiB OBJWIRE_COMPRESSION_POLICY=never start_send "$sport"
  # More input than the window, the pipe and the reader's batches hold: send waits for acks.
  "$objwire" gen --workload person -n 100000 >&3 2>/dev/null &
  gen=$!
  received() { ss -tniH state established "( sport = :$sport )" | grep -o 'bytes_received:[0-9]*' |
    cut -d: -f2 | awk '{s += $1} END {exit !(s >= 8192)}'; }
  wait_until 10 received || fail "nothing reached silent_daemon"
  stop_send "$sig" "full send window"
  wait "$gen" || true  # its reader is gone
  kill "$silent"
  wait "$silent" || true
  silent=""
done
echo PASS
