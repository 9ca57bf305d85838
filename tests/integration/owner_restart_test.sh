#!/usr/bin/env bash
# Ownership across a restart (docs/PROTOCOL.md 1.1, "Ownership"): `objwire send f.log
# --sender-id S` stores 2 lines; `tail -F f.log | objwire send - --sender-id S` takes the id
# over as a new stream and stores nothing new; objwired stops (SIGTERM, and separately kill -9)
# and starts again before a new line arrives; a line is appended. The stream resumes (its
# token is still the id's owner after the restart) and every line is stored once: 3 stored.
#   tests/integration/owner_restart_test.sh OBJWIRED OBJWIRE
set -euo pipefail
objwired=$1
objwire=$2
dir=$(mktemp -d)
trap 'kill ${daemon:-} ${tailer:-} ${sender:-} 2>/dev/null || true; rm -rf "$dir"' EXIT
source "$(dirname "$0")/daemon_helpers.sh"
export OBJWIRE_METRICS_LISTEN=""  # the restarted daemons too: no port shared with other tests

# wait_for DESCRIPTION COMMAND...: runs COMMAND every 0.1 s until it succeeds, at most 30 s.
wait_for() {
  local what=$1
  shift
  wait_until 30 "$@" && return 0
  fail "not within 30 s: $what"
}
stored_lines() { "$objwire" read --to "$to" --sender "$1" 2>/dev/null | wc -l; }
has_lines() { [ "$(stored_lines "$1")" -eq "$2" ]; }
answers() { "$objwire" stats --to "$to" >/dev/null 2>&1; }

run_case() {
  local signal=$1 id="tailed-$1" log="$dir/log-$1"
  local file="$dir/$1.log"
  start_daemon "$log" "$dir/data-$1"
  to="127.0.0.1:$port"
  printf '{"line":1}\n{"line":2}\n' >"$file"
  "$objwire" send "$file" --to "$to" --sender-id "$id" 2>"$dir/send-$1.err" ||
    fail "the first send exited $?: $(cat "$dir/send-$1.err")"
  mkfifo "$dir/fifo-$1"
  tail -n +1 -F "$file" >"$dir/fifo-$1" 2>/dev/null &
  tailer=$!
  "$objwire" send - --to "$to" --sender-id "$id" --retry-for 60s <"$dir/fifo-$1" \
    2>"$dir/tail-$1.err" &
  sender=$!
  wait_for "the tailing send continues the id" grep -q "'$id' continues as a new stream" "$log"
  wait_for "2 lines stored" has_lines "$id" 2

  kill "-$signal" "$daemon"
  wait "$daemon" 2>/dev/null || true
  "$objwired" --listen "$to" --data-dir "$dir/data-$1" 2>>"$log" &
  daemon=$!
  wait_for "the restarted daemon answers" answers
  printf '{"line":3}\n' >>"$file"
  wait_for "the appended line stored (tail: $(cat "$dir/tail-$1.err"))" has_lines "$id" 3

  kill "$tailer"
  wait "$tailer" 2>/dev/null || true
  tailer=""
  local rc=0
  wait "$sender" || rc=$?
  sender=""
  [ "$rc" -eq 0 ] || fail "the tailing send exited $rc: $(cat "$dir/tail-$1.err")"
  "$objwire" read --to "$to" --sender "$id" -o "$dir/back-$1.jsonl" 2>/dev/null
  printf '{"line":1}\n{"line":2}\n{"line":3}\n' | cmp -s - "$dir/back-$1.jsonl" ||
    fail "stored after $signal: $(cat "$dir/back-$1.jsonl")"
  kill "$daemon"
  wait "$daemon" 2>/dev/null || true
  daemon=""
  echo "objwired stopped with SIG$signal and restarted: the stream resumed, 3 lines stored once"
}

run_case TERM
run_case KILL
