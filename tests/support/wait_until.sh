# How the shell tests and benchmarks wait (source it): on a condition with a deadline, never on
# "enough time has passed".

# wait_until SECONDS CMD...: runs CMD until it succeeds or SECONDS have passed; fails (1) if it
# never did. The pause between tries only paces the polling.
wait_until() {
  local limit=$1
  shift
  local deadline=$((SECONDS + limit))
  until "$@"; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.05
  done
}

# wait_for_log FILE TEXT [SECONDS]: waits (10 s unless told) until FILE holds the fixed TEXT.
wait_for_log() { wait_until "${3:-10}" grep -qF -- "$2" "$1" 2>/dev/null; }

# wait_for_lines FILE N [SECONDS]: waits (10 s unless told) until FILE has at least N lines.
wait_for_lines() { wait_until "${3:-10}" has_lines "$1" "$2"; }
has_lines() { [ "$(wc -l 2>/dev/null <"$1" || echo 0)" -ge "$2" ]; }

# wait_for_exit PID SECONDS: waits until process PID has ended (not reaped: `wait` gives its
# status).
wait_for_exit() { wait_until "$2" process_gone "$1"; }
process_gone() { ! kill -0 "$1" 2>/dev/null; }

# wait_for_port PORT [SECONDS]: waits (10 s unless told) until 127.0.0.1:PORT accepts.
wait_for_port() { wait_until "${2:-10}" port_accepts "$1"; }
port_accepts() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# logged_port LOG...: prints the port objwired logged ("listening on 127.0.0.1:N") in any of
# the LOG files, waiting (at most 10 s) for it; fails if none appears.
logged_port() { wait_until 10 port_in_log "$@" >/dev/null && port_in_log "$@"; }
port_in_log() {
  grep -ho 'listening on 127.0.0.1:[0-9]*' "$@" 2>/dev/null | head -1 | sed 's/.*://' | grep .
}
