#!/usr/bin/env bash
# A daemon's refusal or error text is printed by the CLI with its control characters escaped
# (docs/SECURITY.md): silent_daemon's `refuse` and `end` modes send an error frame holding
# terminal escapes, a bell and a newline followed by a forged "objwire: ..." line. `send`,
# `read` and `stats` must print it as \xNN, on one line, with no control byte of the daemon's.
# Usage: peer_text_cli_test.sh OBJWIRE SILENT_DAEMON
set -euo pipefail
objwire=$1
silent_daemon=$2
dir=$(mktemp -d)
silent=""
trap '[ -n "$silent" ] && kill $silent 2>/dev/null; rm -rf "$dir"' EXIT
source "$(dirname "$0")/daemon_helpers.sh"

# check WHAT: $dir/err holds the escaped text and no raw control byte but newlines of our own.
check() {
  local what=$1
  echo "$what: $(cat -v "$dir/err")"
  grep -qF '\x1b[31mred\x1b[0m \x1b]0;title\x07\x0aobjwire: all objects acknowledged' "$dir/err" ||
    fail "$what: the daemon's text is not shown escaped: $(cat -v "$dir/err")"
  if LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$dir/err"; then
    fail "$what: a raw control character reached stderr: $(cat -v "$dir/err")"
  fi
  if grep -q '^objwire: all objects acknowledged' "$dir/err"; then
    fail "$what: the daemon's newline started a line of its own: $(cat -v "$dir/err")"
  fi
}

# run_client WANT WHAT CMD...: runs CMD, stderr to $dir/err, and wants exit WANT.
run_client() {
  local want=$1 what=$2 rc=0
  shift 2
  timeout 30 "$@" 2>"$dir/err" >/dev/null </dev/null || rc=$?
  [ "$rc" -eq "$want" ] || fail "$what: exit $rc, want $want: $(cat -v "$dir/err")"
  check "$what"
}

"$objwire" gen --workload person -n 10 -o "$dir/in.jsonl"

"$silent_daemon" 10 refuse >"$dir/silent.out" &
silent=$!
p=$(logged_port "$dir/silent.out") || fail "silent_daemon did not say its port"
run_client 2 "send, refused at the hello" "$objwire" send "$dir/in.jsonl" --to "127.0.0.1:$p"
run_client 2 "stats, refused at the hello" "$objwire" stats --to "127.0.0.1:$p"
rc=0
timeout 30 "$objwire" read --to "127.0.0.1:$p" 2>"$dir/err" >/dev/null || rc=$?
[ "$rc" -ne 0 ] || fail "read of a refusing daemon exited 0"
check "read, refused at the hello"
kill "$silent"
wait "$silent" || true

"$silent_daemon" 10 end >"$dir/silent.out" &
silent=$!
p=$(logged_port "$dir/silent.out") || fail "silent_daemon did not say its port"
run_client 3 "send, ended after the welcome" "$objwire" send "$dir/in.jsonl" --to "127.0.0.1:$p"
echo PASS
