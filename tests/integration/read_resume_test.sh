#!/usr/bin/env bash
# Readers that resume, as a user runs them: --from end and -N, usage errors, an unknown sender,
# a follower across a daemon restart (SIGTERM, then kill -9) printing every object once, a
# named cursor reader killed with kill -9 and restarted missing nothing, twenty cursor
# readers started back to back each taking the cursor, and a follower of a sender id that has
# stored nothing yet getting its objects when they come.
set -euo pipefail
objwired=$1
objwire=$2
dir=$(mktemp -d)
trap 'kill $daemon ${follower:-} ${creader:-} 2>/dev/null || true; [ -n "${KEEP:-}" ] || rm -rf "$dir"' EXIT
source "$(dirname "$0")/daemon_helpers.sh"

# wait_lines FILE N: waits (at most 20 s) until FILE has at least N lines.
wait_lines() {
  wait_for_lines "$1" "$2" 20 ||
    fail "$1 has $(wc -l 2>/dev/null <"$1" || echo 0) lines, want $2"
}
# restart_daemon LOG: starts objwired again on the same port and data directory.
restart_daemon() {
  : >"$1"
  "$objwired" --listen "127.0.0.1:$port" --data-dir "$dir/data" 2>>"$1" &
  daemon=$!
  wait_for_log "$1" 'listening on' || fail "the restarted daemon did not listen"
}
send() { "$objwire" send "$1" --to "$to" --sender-id "$2" 2>/dev/null || fail "send $1 exited $?"; }
# stored FILE [ARGS...]: everything stored (or what ARGS select) as read prints it, the
# reference for what a resuming reader printed (numbers are printed shortest, not as sent).
stored() {
  local file=$1
  shift
  "$objwire" read --to "$to" "$@" -o "$file" 2>/dev/null || fail "read $* exited $?"
}

start_daemon "$dir/log" "$dir/data"
to="127.0.0.1:$port"
"$objwire" gen --workload events -n 3000 -o "$dir/all.jsonl"
split -l 1000 -d "$dir/all.jsonl" "$dir/part"  # part00 part01 part02

# Usage errors (exit 1) and an unknown sender (exit 6, said).
for bad in -0 abc -x 1e3 18446744073709551616; do
  rc=0
  "$objwire" read --to "$to" --from="$bad" 2>"$dir/err" >/dev/null || rc=$?
  [ "$rc" -eq 1 ] || fail "read --from '$bad' exited $rc, want 1"
  grep -q "offset, 'end'" "$dir/err" || fail "read --from '$bad' said: $(cat "$dir/err")"
done
rc=0
"$objwire" read --to "$to" --cursor ../x 2>/dev/null || rc=$?
[ "$rc" -eq 1 ] || fail "read --cursor ../x exited $rc, want 1"

# A follower from the end prints only what is sent after it started.
send "$dir/part00" first
rc=0
"$objwire" read --to "$to" --sender nobody 2>"$dir/err" >"$dir/none" || rc=$?
[ "$rc" -eq 6 ] || fail "read --sender nobody exited $rc, want 6"
grep -q "no sender with id 'nobody'" "$dir/err" || fail "unknown sender: $(cat "$dir/err")"
"$objwire" read --to "$to" --from end --follow -o "$dir/end.jsonl" 2>"$dir/end.err" &
follower=$!
wait_for_log "$dir/log" "reader from offset 1000, following" || true
send "$dir/part01" second
wait_lines "$dir/end.jsonl" 1000
kill -TERM $follower
wait $follower || fail "the --from end follower exited $? on SIGTERM"
follower=""
stored "$dir/second" --sender second
[ "$(wc -l <"$dir/second")" -eq 1000 ] || fail "sender second stored $(wc -l <"$dir/second")"
cmp -s "$dir/second" "$dir/end.jsonl" || fail "--from end did not print exactly the later objects"

# --from -N: the last N of everything, and of one sender.
"$objwire" read --to "$to" --from -7 2>/dev/null >"$dir/last7" || fail "read --from -7 exited $?"
tail -n 7 "$dir/second" | cmp -s - "$dir/last7" || fail "--from -7 is not the last 7 objects"
"$objwire" read --to "$to" --from -3 --sender first 2>/dev/null >"$dir/last3" || fail "read -3 exited $?"
stored "$dir/first" --sender first
tail -n 3 "$dir/first" | cmp -s - "$dir/last3" || fail "--from -3 --sender first is not its last 3"
# --offsets: a line per object, in a file of its own; the objects stay as sent.
"$objwire" read --to "$to" --from 998 --offsets "$dir/offsets" -o "$dir/two" 2>/dev/null ||
  fail "read --offsets exited $?"
printf '998\tfirst\n999\tfirst\n1000\tsecond\n' | head -n 3 | cmp -s - <(head -n 3 "$dir/offsets") ||
  fail "offsets: $(head -3 "$dir/offsets")"
[ "$(wc -l <"$dir/offsets")" -eq "$(wc -l <"$dir/two")" ] || fail "one offset line per object"

# A follower across a daemon restart: SIGTERM, then kill -9; every object exactly once.
"$objwire" read --to "$to" --follow -o "$dir/followed.jsonl" 2>"$dir/follow.err" &
follower=$!
wait_lines "$dir/followed.jsonl" 2000
kill -TERM $daemon
wait $daemon || fail "daemon exited $? on SIGTERM"
restart_daemon "$dir/log2"
send "$dir/part02" third
wait_lines "$dir/followed.jsonl" 3000
kill -9 $daemon
wait $daemon 2>/dev/null || true
restart_daemon "$dir/log3"
send "$dir/part00" fourth
wait_lines "$dir/followed.jsonl" 4000
kill -TERM $follower
wait $follower || fail "the follower exited $? on SIGTERM: $(cat "$dir/follow.err")"
follower=""
stored "$dir/everything"
[ "$(wc -l <"$dir/everything")" -eq 4000 ] || fail "the daemon holds $(wc -l <"$dir/everything")"
cmp -s "$dir/everything" "$dir/followed.jsonl" ||
  fail "the follower did not print every object once: $(wc -l <"$dir/followed.jsonl") lines"
grep -q "reconnecting at offset 2000" "$dir/follow.err" || fail "follower: $(cat "$dir/follow.err")"

# A cursor reader killed with kill -9 and restarted misses nothing (it may repeat what it had
# not acknowledged); a clean stop stores the exact position.
"$objwire" read --to "$to" --cursor etl --follow --offsets "$dir/c1.off" -o "$dir/c1" 2>/dev/null &
creader=$!
wait_lines "$dir/c1" 4000
# It acknowledges what it wrote once idle: the daemon stores the cursor at 4000.
etl_at_4000() { "$objwire" cursor list --to "$to" 2>/dev/null | grep -q "^etl	4000$"; }
wait_until 10 etl_at_4000 || true
"$objwire" cursor list --to "$to" 2>/dev/null | grep -q "^etl	4000$" ||
  fail "cursor etl not stored at 4000: $("$objwire" cursor list --to "$to" 2>&1)"
"$objwire" gen --workload person -n 30000 -o "$dir/more.jsonl"
send "$dir/more.jsonl" fifth &
sender=$!
wait_for_lines "$dir/c1" 4001 || true
kill -9 $creader
wait $creader 2>/dev/null || true
creader=""
wait $sender || fail "send of more.jsonl exited $?"
"$objwire" cursor list --to "$to" >"$dir/cursors" 2>/dev/null || fail "cursor list exited $?"
grep -q "^etl	[0-9]" "$dir/cursors" || fail "cursor list: $(cat "$dir/cursors")"
"$objwire" read --to "$to" --cursor etl --offsets "$dir/c2.off" -o "$dir/c2" 2>"$dir/c2.err" ||
  fail "the restarted cursor reader exited $?: $(cat "$dir/c2.err")"
cut -f1 "$dir/c1.off" "$dir/c2.off" | sort -n -u >"$dir/seen"
seq 0 33999 | cmp -s - "$dir/seen" || fail "the cursor reader missed objects: $(wc -l <"$dir/seen") distinct of 34000"
# At least once: the restarted reader repeats only what came after the last stored position.
[ "$(head -n 1 "$dir/c2.off" | cut -f1)" -ge 4000 ] ||
  fail "the restarted cursor reader began at $(head -n 1 "$dir/c2.off"), before its ack at 4000"
# Its end stored the exact position: a third run prints nothing.
"$objwire" read --to "$to" --cursor etl -o "$dir/c3" 2>"$dir/c3.err" || fail "third cursor run exited $?"
[ ! -s "$dir/c3" ] || fail "after a clean end the cursor repeated $(wc -l <"$dir/c3") objects"
grep -q "cursor 'etl' at offset 34000" "$dir/c3.err" || fail "third run: $(cat "$dir/c3.err")"
# Twenty cursor readers back to back: each ends only once the daemon has let go of the name,
# so the next one is never refused as in use.
for run in $(seq 1 20); do
  "$objwire" read --to "$to" --cursor etl -o /dev/null 2>"$dir/c4.err" ||
    fail "cursor run $run exited $?: $(cat "$dir/c4.err")"
done
# A new cursor starts at --from; delete; a deleted cursor is gone (exit 6).
"$objwire" read --to "$to" --cursor fresh --from -2 -o "$dir/f" 2>/dev/null || fail "fresh cursor exited $?"
[ "$(wc -l <"$dir/f")" -eq 2 ] || fail "a new cursor with --from -2 printed $(wc -l <"$dir/f")"
"$objwire" cursor delete etl --to "$to" 2>/dev/null || fail "cursor delete exited $?"
rc=0
"$objwire" cursor delete etl --to "$to" 2>/dev/null || rc=$?
[ "$rc" -eq 6 ] || fail "deleting a deleted cursor exited $rc, want 6"
"$objwire" cursor list --to "$to" 2>/dev/null | grep -q "^etl" && fail "etl still listed"

# A follower of a sender id that has stored nothing yet is served (a consumer started before
# its producer): it prints that id's objects when they come, and no other's - from the start
# and from its last 3 (none yet: the end).
"$objwire" read --to "$to" --follow --sender later -o "$dir/later.out" 2>"$dir/later.err" &
follower=$!
"$objwire" read --to "$to" --follow --sender later --from -3 -o "$dir/later3.out" 2>"$dir/later3.err" &
creader=$!
has_two_followers() { [ "$(grep -c "following, sender 'later'" "$dir/log3")" -eq 2 ]; }
wait_until 10 has_two_followers ||
  fail "followers: $(cat "$dir/later.err" "$dir/later3.err")"
"$objwire" gen --workload events -n 50 -o "$dir/later.jsonl"
send "$dir/part01" other
send "$dir/later.jsonl" later
wait_lines "$dir/later.out" 50
wait_lines "$dir/later3.out" 50
kill -TERM $follower $creader
wait $follower || fail "the follower of a new sender exited $? on SIGTERM: $(cat "$dir/later.err")"
wait $creader || fail "the --from -3 follower exited $? on SIGTERM: $(cat "$dir/later3.err")"
follower=""
creader=""
stored "$dir/later.stored" --sender later
[ "$(wc -l <"$dir/later.stored")" -eq 50 ] || fail "sender later stored $(wc -l <"$dir/later.stored")"
for out in later later3; do
  cmp -s "$dir/later.stored" "$dir/$out.out" ||
    fail "the follower of a new sender ($out) printed $(wc -l <"$dir/$out.out") lines, not its 50 objects"
done
kill -TERM $daemon
wait $daemon || fail "daemon exited $? on SIGTERM"
echo "read resume CLI: all checks passed"
