#!/usr/bin/env bash
# objwire in shell pipelines: Ctrl-C (in a pseudo-terminal, through `script`) and SIGTERM
# during `send` print where the acknowledged part ends and exit 130 / 143 with no progress
# line left on the terminal, and a rerun under the sender id stores the rest once; `read |
# head -5` ends quietly with 0; a follower whose reader closes the pipe ends at once. Then the
# consistency rules: empty filters, --from past the end, cursor moves, the file exit codes,
# --offsets to inherited descriptors, singular counts.
#
#   tests/integration/pipeline_cli_test.sh OBJWIRED OBJWIRE
set -euo pipefail
objwired=$1
objwire=$2
n=50000
dir=$(mktemp -d)
trap 'exec 3>&- 4<&- 2>/dev/null; kill ${daemon:-} ${sender:-} ${follower:-} 2>/dev/null || true; rm -rf "$dir"' EXIT
source "$(dirname "$0")/daemon_helpers.sh"

"$objwire" gen --workload events -n "$n" -o "$dir/in.jsonl"
start_daemon "$dir/log" "$dir/data"
to="127.0.0.1:$port"

stored() {
  "$objwire" read --to "$to" --sender "$1" 2>/dev/null | wc -l
}
# wait_stored ID COUNT: until sender ID holds at least COUNT objects (at most 30 s).
wait_stored() {
  wait_until 30 stored_or_sender_gone "$1" "$2" || fail "sender $1 did not reach $2 stored objects"
  kill -0 $sender 2>/dev/null || fail "the send ended before it could be interrupted"
}
stored_or_sender_gone() { [ "$(stored "$1")" -ge "$2" ] || process_gone $sender; }
# check_summary FILE ID: the summary names line L, L+1 is the first line not acknowledged,
# and sender ID holds exactly the first L lines.
check_summary() {
  local line
  line=$(grep -o "up to line [0-9]*; the first line not acknowledged is line [0-9]*" "$1" | head -1) ||
    fail "no summary: $(cat -v "$1")"
  local last=${line#up to line }
  last=${last%%;*}
  [ "${line##* }" -eq $((last + 1)) ] || fail "summary: $line"
  [ "$(stored "$2")" -eq "$last" ] || fail "$2 holds $(stored "$2") objects, the summary says $last"
  [ "$last" -gt 0 ] && [ "$last" -lt "$n" ] || fail "interrupted with $last of $n stored"
}
# rerun_completes ID: the same send again stores the rest; the stream is the input, once.
rerun_completes() {
  "$objwire" send "$dir/in.jsonl" --sender-id "$1" --to "$to" 2>"$dir/rerun.err" ||
    fail "the rerun of $1 exited $?: $(cat "$dir/rerun.err")"
  "$objwire" read --to "$to" --sender "$1" -o "$dir/back.jsonl" 2>/dev/null
  cmp -s "$dir/ref.jsonl" "$dir/back.jsonl" ||
    fail "$1 holds $(wc -l <"$dir/back.jsonl") objects, not the $n of the input once, in order"
}

# What read prints for the input, sent once uninterrupted.
"$objwire" send "$dir/in.jsonl" --to "$to" --sender-id reference 2>/dev/null || fail "send exited $?"
"$objwire" read --to "$to" --sender reference -o "$dir/ref.jsonl" 2>/dev/null
# At most 64 KiB in flight, each ack after the journal's sync: slow enough to interrupt.
export OBJWIRE_FLOW_MAX_IN_FLIGHT=64KiB

# 1. Ctrl-C on a terminal: `script` runs send in a pseudo-terminal whose input is a pipe.
mkfifo "$dir/keys"
exec 3<>"$dir/keys"
script -qfe -c "exec '$objwire' send '$dir/in.jsonl' --sender-id ctrl-c --to '$to'" \
  "$dir/terminal" <&3 >/dev/null &
sender=$!
wait_stored ctrl-c $((n / 10))
wait_until 10 grep -q "obj/s" "$dir/terminal" || true
grep -q "obj/s" "$dir/terminal" || fail "no progress line on the terminal: $(cat -v "$dir/terminal")"
printf '\003' >&3
set +e
wait $sender
rc=$?
set -e
sender=""
exec 3>&-
[ "$rc" -eq 130 ] || fail "Ctrl-C: send exited $rc, want 130: $(cat -v "$dir/terminal")"
grep -q "SIGINT: stopped reading" "$dir/terminal" || fail "Ctrl-C: $(cat -v "$dir/terminal")"
# The progress line ends in ESC[K, and so does the erase that follows it: nothing of it may be
# left after the last one.
after=$(awk 'BEGIN { RS = "\033\\[K" } { last = $0 } END { printf "%s", last }' "$dir/terminal")
case $after in *obj/s*) fail "a progress line is left on the terminal: $(printf '%s' "$after" | cat -v)" ;; esac
case $after in *"acknowledged as stored"*) ;; *) fail "the summary is not after the erase: $(printf '%s' "$after" | cat -v)" ;; esac
check_summary "$dir/terminal" ctrl-c
rerun_completes ctrl-c
echo "Ctrl-C: exit 130, summary at line $(grep -o 'up to line [0-9]*' "$dir/terminal"), no progress line left; the rerun stored the rest"

# 2. SIGTERM, stderr a file.
"$objwire" send "$dir/in.jsonl" --sender-id sigterm --to "$to" 2>"$dir/term.err" &
sender=$!
wait_stored sigterm $((n / 10))
kill -TERM $sender
set +e
wait $sender
rc=$?
set -e
sender=""
[ "$rc" -eq 143 ] || fail "SIGTERM: send exited $rc, want 143: $(cat "$dir/term.err")"
grep -q "SIGTERM: stopped reading" "$dir/term.err" || fail "SIGTERM: $(cat "$dir/term.err")"
check_summary "$dir/term.err" sigterm
rerun_completes sigterm
echo "SIGTERM: exit 143 with the summary; the rerun stored the rest"

# 3. read | head -5: five objects, exit 0, nothing on stderr.
set +e
"$objwire" read --to "$to" 2>"$dir/head.err" | head -5 >"$dir/head.out"
rcs=("${PIPESTATUS[@]}")
set -e
[ "${rcs[0]}" -eq 0 ] || fail "read | head -5: read exited ${rcs[0]}: $(cat "$dir/head.err")"
[ ! -s "$dir/head.err" ] || fail "read | head -5 printed on stderr: $(cat "$dir/head.err")"
head -5 "$dir/ref.jsonl" | cmp -s - "$dir/head.out" || fail "read | head -5 printed other objects"
# A cursor reader whose output closes stores the position of what was written out.
set +e
"$objwire" read --to "$to" --cursor headed 2>"$dir/head.err" | head -5 >/dev/null
rc=${PIPESTATUS[0]}
set -e
[ "$rc" -eq 0 ] && [ ! -s "$dir/head.err" ] || fail "read --cursor | head -5: exit $rc: $(cat "$dir/head.err")"
echo "read | head -5: exit 0, stderr empty"

# 4. A follower waiting for new objects whose pipe's reader goes away ends quietly at once.
mkfifo "$dir/follow"
"$objwire" read --to "$to" --from end --follow >"$dir/follow" 2>"$dir/follow.err" &
follower=$!
exec 4<"$dir/follow"
# Sent once the daemon serves the follower: sent before, the object would lie before the end
# the follower starts at.
wait_until 20 grep -q "following" "$dir/log" || fail "the follower never connected"
echo '{"wake":1}' | "$objwire" send - --to "$to" 2>/dev/null || fail "send exited $?"
IFS= read -r -t 20 -u 4 first || fail "the follower printed nothing"
[ "$first" = '{"wake":1}' ] || fail "the follower printed $first"
start=$(date +%s%N)
exec 4<&-
wait_for_exit $follower 5 || fail "the follower still runs 5 s after its output closed"
took_ms=$((($(date +%s%N) - start) / 1000000))
set +e
wait $follower
rc=$?
set -e
follower=""
[ "$rc" -eq 0 ] || fail "the follower exited $rc: $(cat "$dir/follow.err")"
[ ! -s "$dir/follow.err" ] || fail "the follower printed on stderr: $(cat "$dir/follow.err")"
echo "follower: ended ${took_ms} ms after its output closed, exit 0, stderr empty"

# expect CODE STDERR_PATTERN COMMAND...: COMMAND exits CODE and says STDERR_PATTERN.
expect() {
  local want=$1 pattern=$2 rc=0
  shift 2
  "$@" >"$dir/out" 2>"$dir/err" || rc=$?
  [ "$rc" -eq "$want" ] || fail "$* exited $rc, want $want: $(cat "$dir/err")"
  grep -q -- "$pattern" "$dir/err" || fail "$* said: $(cat "$dir/err")"
}
# 5. Empty filters are usage errors, not "everything".
expect 1 "must not be empty" "$objwire" read --to "$to" --sender ""
expect 1 "must not be empty" "$objwire" read --to "$to" --cursor ""
# --from past the end says so.
end=$(wc -l <"$dir/ref.jsonl")
expect 0 "is past the end of what is stored" "$objwire" read --to "$to" --from 99999999999
[ ! -s "$dir/out" ] || fail "read --from past the end printed objects"
stored_end=$(grep -o "the next offset is [0-9]*" "$dir/err" | grep -o "[0-9]*$")
# Cursors: --from places a new one only; cursor set moves one back (or forward).
expect 0 "cursor 'etl' at offset" "$objwire" read --to "$to" --cursor etl --from 10
expect 1 "exists (at offset" "$objwire" read --to "$to" --cursor etl --from 0
expect 0 "cursor 'etl' at offset 5" "$objwire" cursor set etl 5 --to "$to"
"$objwire" cursor list --to "$to" 2>/dev/null | grep -qx "etl	5" || fail "cursor set did not move etl to 5"
expect 0 "cursor 'etl' at offset" "$objwire" read --to "$to" --cursor etl
head -6 "$dir/out" | cmp -s - <(sed -n 6,11p "$dir/ref.jsonl") || fail "the moved cursor did not start at 5"
"$objwire" cursor list --to "$to" >"$dir/cursors-before" 2>/dev/null || fail "cursor list exited $?"
expect 1 "past the end" "$objwire" cursor set etl 99999999999 --to "$to"
# A refused set changes nothing and makes no cursor: one past the end, and 2^64-1.
expect 1 "cursor 'new60' not moved" "$objwire" cursor set new60 $((stored_end + 10)) --to "$to"
expect 1 "past the end" "$objwire" cursor set new60 18446744073709551615 --to "$to"
# A new cursor is not made past the end either: its acks could never reach it.
expect 1 "cursor 'new60' not made" "$objwire" read --to "$to" --cursor new60 --from $((stored_end + 10))
expect 1 "cursor 'new60' not made" "$objwire" read --to "$to" --cursor new60 --from $((stored_end + 10)) --follow
"$objwire" cursor list --to "$to" 2>/dev/null | cmp -s "$dir/cursors-before" - ||
  fail "a refused cursor set or read changed the cursors: $("$objwire" cursor list --to "$to" 2>&1)"
# Files: a missing input 66, an output that cannot be created 73, for every subcommand.
expect 66 "cannot open" "$objwire" send "$dir/missing.jsonl" --to "$to"
expect 66 "cannot open" "$objwire" encode "$dir/missing.jsonl" -o "$dir/x.owj"
expect 66 "cannot open" "$objwire" decode "$dir/missing.owj"
expect 73 "cannot create" "$objwire" read --to "$to" -o "$dir/no/such/dir/x"
expect 73 "cannot create" "$objwire" read --to "$to" -o "$dir/x" --offsets "$dir/no/such/dir/x"
expect 73 "cannot create" "$objwire" gen -n 1 -o "$dir/no/such/dir/x"
expect 73 "cannot create" "$objwire" encode "$dir/in.jsonl" -o "$dir/no/such/dir/x"
expect 73 "cannot create" "$objwire" decode "$dir/x.owj" -o "$dir/no/such/dir/x"
# --offsets to stderr redirected to a file: what was there stays, the offsets follow it.
echo "kept line" >"$dir/stderr.txt"
"$objwire" read --to "$to" --sender reference --offsets /dev/stderr >/dev/null 2>>"$dir/stderr.txt" ||
  fail "read --offsets /dev/stderr exited $?"
[ "$(head -1 "$dir/stderr.txt")" = "kept line" ] || fail "--offsets /dev/stderr overwrote the file"
[ "$(grep -c "	reference$" "$dir/stderr.txt")" -eq "$end" ] || fail "--offsets /dev/stderr: $(head -3 "$dir/stderr.txt")"
# --offsets - with the objects in a file: the offsets on stdout.
"$objwire" read --to "$to" --sender reference -o "$dir/objs" --offsets - 2>/dev/null >"$dir/offs" ||
  fail "read --offsets - exited $?"
[ "$(wc -l <"$dir/offs")" -eq "$end" ] && cmp -s "$dir/objs" "$dir/ref.jsonl" || fail "--offsets -: $(head -2 "$dir/offs")"
expect 1 "is the objects' output too" "$objwire" read --to "$to" --offsets -
# --count: that many objects, then the end (a follower too).
expect 0 "read 3 objects" "$objwire" read --to "$to" --sender reference --count 3
head -3 "$dir/ref.jsonl" | cmp -s - "$dir/out" || fail "read --count 3 printed $(wc -l <"$dir/out") lines"
expect 0 "read 5 objects" timeout 60 "$objwire" read --to "$to" --sender reference --follow --count 5
head -5 "$dir/ref.jsonl" | cmp -s - "$dir/out" || fail "read --follow --count 5 printed $(wc -l <"$dir/out") lines"
expect 1 "" "$objwire" read --to "$to" --count 0
# One object is "1 object".
expect 0 "sent 1 object (1 acknowledged) in 1 frame," sh -c "echo '{\"one\":1}' | '$objwire' send - --to '$to'"
echo "consistency: empty filters, --from past the end, cursor set, exit 66/73, --offsets, counts"
echo "PASS"
