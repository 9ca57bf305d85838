# Shared by the shell tests: start objwired on 127.0.0.1 with a free port, and fail with the
# daemon's logs. Source it after setting $objwired and $dir (the test's scratch directory).

source "$(dirname "${BASH_SOURCE[0]}")/../support/wait_until.sh"

# fail MESSAGE: prints it and every daemon log in $dir, then exits 1.
fail() {
  echo "FAIL: $*" >&2
  for log in "$dir"/log*; do
    [ -f "$log" ] && { echo "--- daemon log $log:" >&2; cat "$log" >&2; }
  done
  exit 1
}

# start_daemon LOG DATA_DIR [ARGS...]: starts objwired on 127.0.0.1 port 0 and waits (at most
# 10 s) for it to log its port. Sets $daemon (its pid) and $port. Environment variables put
# before the call (OBJWIRE_SINK_KIND=jsonl start_daemon ...) reach the daemon.
start_daemon() {
  local log=$1 data=$2
  shift 2
  : >"$log" # emptied before the start, not by the job's redirection, which may come late
  "$objwired" --listen 127.0.0.1:0 --data-dir "$data" "$@" 2>>"$log" &
  daemon=$!
  port=$(logged_port "$log") || fail "daemon did not log its port"
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# stops_within_grace PID GRACE_MS LABEL: SIGTERM to objwired PID, which must exit 0 within its
# shutdown grace plus a second (docs/SECURITY.md); prints how long it took.
stops_within_grace() {
  local pid=$1 grace_ms=$2 label=$3 start elapsed
  start=$(now_ms)
  kill -TERM "$pid"
  wait_for_exit "$pid" $((grace_ms / 1000 + 5)) || true
  elapsed=$(($(now_ms) - start))
  echo "$label: SIGTERM to exit: $elapsed ms (grace $grace_ms ms)"
  process_gone "$pid" || fail "$label: still runs $elapsed ms after SIGTERM"
  [ "$elapsed" -le $((grace_ms + 1000)) ] || fail "$label: took $elapsed ms to stop"
  wait "$pid" || fail "$label: exited $? after SIGTERM"
}

# get_metrics PORT FILE [HEADER]: GET /metrics from 127.0.0.1:PORT with bash's /dev/tcp (a
# test needs no HTTP client), the whole response - status line, headers, body - into FILE.
get_metrics() {
  local port=$1 out=$2 header=${3:-}
  exec 3<>"/dev/tcp/127.0.0.1/$port"
  printf 'GET /metrics HTTP/1.0\r\nHost: x\r\n%s\r\n' "${header:+$header$'\r\n'}" >&3
  timeout 10 cat <&3 >"$out" || true
  exec 3<&-
}

# logged_metrics_port LOG: the metrics port objwired logged in LOG, waiting for it at most 10 s;
# fails the test without one.
logged_metrics_port() {
  local log=$1
  metrics_port_in() { grep -m1 -o 'metrics on http://127.0.0.1:[0-9]*' "$1" | cut -d: -f3 | grep .; }
  wait_until 10 metrics_port_in "$log" >/dev/null || fail "no metrics port in $log"
  metrics_port_in "$log"
}

# hold_stalled COUNT MODE [RCVBUF]: starts COUNT raw peers of stalled_readers.cpp ($stalled)
# against $port in MODE, held open through fd 3 until release_stalled; their output is in
# $dir/stalled.out. Fails unless all of them are connected within 60 s. Sets $holder.
hold_stalled() {
  rm -f "$dir/hold"
  mkfifo "$dir/hold"
  "$stalled" "$port" "$1" "$2" 120 ${3:+"$3"} <"$dir/hold" >"$dir/stalled.out" 2>&1 &
  holder=$!
  exec 3>"$dir/hold"
  wait_until 60 grep -q "^connected $1" "$dir/stalled.out" ||
    fail "stalled_readers did not connect all $1 ($2): $(cat "$dir/stalled.out")"
}

# release_stalled: the peers hold_stalled started close and end.
release_stalled() {
  exec 3>&-
  wait "$holder" || true
  holder=""
}
