#!/usr/bin/env bash
# A 400 MiB input line without a newline, from a pipe, costs `objwire send` no more than the
# daemon's limit plus a block (docs/CLI.md, docs/SECURITY.md): it is refused as soon as it passes
# the largest size objwired accepts (its welcome: limits.max_string_bytes for --raw,
# limits.max_frame_bytes for JSON), the rest of it is read past up to its newline, and the
# client's peak RSS (/usr/bin/time -v) stays under BOUND_MB. With --on-error skip the line after
# it is stored, under its own line number. BOUND_MB 0 (sanitizers) checks everything but RSS.
# Usage: long_line_test.sh OBJWIRED OBJWIRE [BOUND_MB]
set -euo pipefail
objwired=$1
objwire=$2
bound_mb=${3:-64}
dir=$(mktemp -d)
daemon=""
trap '[ -n "$daemon" ] && kill $daemon 2>/dev/null; rm -rf "$dir"' EXIT
source "$(dirname "$0")/daemon_helpers.sh"
[ -x /usr/bin/time ] || fail "/usr/bin/time missing (Debian package 'time', scripts/install-deps.sh)"
start_daemon "$dir/log" "$dir/data"

# 400 MiB of 'a', generated as it is read: nothing of it on disk.
long() { head -c 400M /dev/zero | tr '\0' a || true; }

# send_long NAME WANT_RC ARGS... (input on stdin): sends, checks the exit code, the refusal and
# the peak RSS.
send_long() {
  local name=$1 want=$2 rc=0 kib
  shift 2
  /usr/bin/time -v -o "$dir/time" "$objwire" send - --to "127.0.0.1:$port" "$@" \
    2>"$dir/send.err" || rc=$?
  kib=$(awk '/Maximum resident set size/ {print $NF}' "$dir/time")
  echo "long line, $name: exit $rc, client peak RSS $((kib / 1024)) MB: $(tr '\n' '|' <"$dir/send.err")"
  [ "$rc" -eq "$want" ] || fail "$name: exit $rc, want $want: $(cat "$dir/send.err")"
  grep -q "<stdin>:[0-9]*:16777217: line longer than 16777216 bytes (objwired's limits.max_" \
    "$dir/send.err" || fail "$name: the line is not refused at the limit: $(cat "$dir/send.err")"
  if [ "$bound_mb" -gt 0 ] && [ "$kib" -gt $((bound_mb * 1024)) ]; then
    fail "$name: client peak RSS $((kib / 1024)) MB, over $bound_mb MB"
  fi
}

long | send_long raw 4 --raw
grep -q "stopped at line 1 of <stdin> (--on-error stop)" "$dir/send.err" || fail "raw: no stop line"
{ printf '{"s":"'; long; printf '"}\n{"after":1}\n'; } | send_long json 4 --on-error skip
grep -q "skipped 1 bad line; the others of <stdin>, up to line 2, were stored" "$dir/send.err" ||
  fail "json: the line after the long one was not stored: $(cat "$dir/send.err")"
{ printf 'short\n'; long; printf '\nlast\n'; } | send_long "raw, skip" 4 --raw --on-error skip
"$objwire" read --to "127.0.0.1:$port" >"$dir/stored" 2>/dev/null
grep -q '"after":1' "$dir/stored" || fail "the JSON line after the long one is not stored"
grep -q '"text":"last"' "$dir/stored" || fail "the raw line after the long one is not stored"
[ "$(wc -l <"$dir/stored")" -eq 3 ] || fail "want 3 objects stored: $(cat "$dir/stored")"
echo PASS
