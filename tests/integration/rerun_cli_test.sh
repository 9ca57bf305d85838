#!/usr/bin/env bash
# Reruns of objwire send (docs/PROTOCOL.md 1.1, "Reruns"): `objwire send FILE --sender-id X`
# interrupted at a random point - the client killed with SIGKILL, and separately objwired
# killed with SIGKILL and restarted - and then run again stores every line of FILE exactly once,
# in order; a different file under the same id is refused (exit 4) and stores nothing; a file
# that grew by appending sends only the new lines.
#
#   tests/integration/rerun_cli_test.sh OBJWIRED OBJWIRE [LINES]
# LINES defaults to 50000 (ctest); the full acceptance size is 1000000.
set -euo pipefail
objwired=$1
objwire=$2
n=${3:-50000}
dir=$(mktemp -d)
trap 'kill ${daemon:-} ${sender:-} 2>/dev/null || true; rm -rf "$dir"' EXIT
source "$(dirname "$0")/daemon_helpers.sh"

"$objwire" gen --workload events -n "$n" -o "$dir/in.jsonl"
# Acks wait for the journal's periodic sync (100 ms) and at most 64 KiB is in flight: about
# 0.6 MB/s on the wire, so the send takes long enough to be interrupted (about 5 s for 50,000
# lines).
export OBJWIRE_FLOW_MAX_IN_FLIGHT=64KiB
start_daemon "$dir/log" "$dir/data"
to="127.0.0.1:$port"

# stored ID: how many objects sender ID holds.
stored() {
  "$objwire" read --to "$to" --sender "$1" 2>/dev/null | wc -l
}
# expect_stored_equal ID FILE: what read prints for sender ID is FILE, line for line.
expect_stored_equal() {
  "$objwire" read --to "$to" --sender "$1" -o "$dir/back.jsonl" 2>"$dir/read.err" ||
    fail "read --sender $1 exited $?: $(cat "$dir/read.err")"
  cmp -s "$2" "$dir/back.jsonl" ||
    fail "sender $1 holds $(wc -l <"$dir/back.jsonl") objects, not the $(wc -l <"$2") lines of $2 in order: $(diff "$2" "$dir/back.jsonl" | head -c 300)"
}
# stored_or_ended ID N: sender ID has N objects stored, or the send ($sender) is over.
stored_or_ended() { [ "$(stored "$1")" -ge "$2" ] || ! kill -0 "$sender" 2>/dev/null; }
# interrupt_at_random ID: waits until sender ID has stored a random share (10-60%) of the input.
interrupt_at_random() {
  local want=$(( n / 10 + RANDOM % (n / 2) ))
  wait_until 30 stored_or_ended "$1" "$want" || fail "sender $1 did not reach $want stored objects"
  [ "$(stored "$1")" -ge "$want" ] || fail "the send ended before it could be interrupted"
}

# What read prints for the input (numbers as read prints them): sent once, uninterrupted.
"$objwire" send "$dir/in.jsonl" --to "$to" --sender-id reference 2>/dev/null || fail "send exited $?"
"$objwire" read --to "$to" --sender reference -o "$dir/ref.jsonl" 2>/dev/null
[ "$(wc -l <"$dir/ref.jsonl")" -eq "$n" ] || fail "the reference stream holds $(wc -l <"$dir/ref.jsonl") objects"

# 1. The client killed at a random point; the same command again.
"$objwire" send "$dir/in.jsonl" --sender-id client-killed --to "$to" 2>"$dir/send1.err" &
sender=$!
interrupt_at_random client-killed
kill -9 $sender 2>/dev/null || true
wait $sender 2>/dev/null || true
sender=""
before=$(stored client-killed)
[ "$before" -gt 0 ] && [ "$before" -lt "$n" ] || fail "interrupted with $before of $n stored"
"$objwire" send "$dir/in.jsonl" --sender-id client-killed --to "$to" 2>"$dir/send2.err" ||
  fail "the rerun exited $?: $(cat "$dir/send2.err")"
grep -q "has [0-9]* objects stored" "$dir/send2.err" || fail "rerun report: $(cat "$dir/send2.err")"
expect_stored_equal client-killed "$dir/ref.jsonl"
echo "client killed at $before of $n objects stored: the rerun stored the rest, each once"

# 2. objwired killed (SIGKILL) at a random point and restarted on its port; the same command.
"$objwire" send "$dir/in.jsonl" --sender-id daemon-killed --to "$to" --retry-for 1s \
  2>"$dir/send3.err" &
sender=$!
interrupt_at_random daemon-killed
kill -9 "$daemon"
wait "$daemon" 2>/dev/null || true
set +e
wait $sender
rc=$?
set -e
sender=""
[ "$rc" -ne 0 ] || fail "send to a killed daemon exited 0: $(cat "$dir/send3.err")"
"$objwired" --listen "$to" --data-dir "$dir/data" 2>>"$dir/log" &
daemon=$!
answers() { "$objwire" stats --to "$to" >/dev/null 2>&1; }
wait_until 10 answers || true
before=$(stored daemon-killed)
[ "$before" -lt "$n" ] || fail "the daemon was killed after the whole input was stored"
"$objwire" send "$dir/in.jsonl" --sender-id daemon-killed --to "$to" 2>"$dir/send4.err" ||
  fail "the rerun after the daemon's restart exited $?: $(cat "$dir/send4.err")"
expect_stored_equal daemon-killed "$dir/ref.jsonl"
echo "objwired killed at $before of $n objects stored: the rerun stored the rest, each once"

# 3. Another file under the same id: refused before anything is sent, nothing stored.
"$objwire" gen --workload person -n $(( n + 10 )) -o "$dir/other.jsonl"
set +e
"$objwire" send "$dir/other.jsonl" --sender-id client-killed --to "$to" 2>"$dir/send5.err"
rc=$?
set -e
[ "$rc" -eq 4 ] || fail "a different input under a used id exited $rc, want 4: $(cat "$dir/send5.err")"
grep -q "is not the one sender id 'client-killed' stored" "$dir/send5.err" ||
  fail "refusal: $(cat "$dir/send5.err")"
expect_stored_equal client-killed "$dir/ref.jsonl"
# An edited line in the stored part: refused as well.
sed '5s/"level":"[A-Z]*"/"level":"EDITED"/' "$dir/in.jsonl" >"$dir/edited.jsonl"
cmp -s "$dir/in.jsonl" "$dir/edited.jsonl" && fail "the edit changed nothing"
set +e
"$objwire" send "$dir/edited.jsonl" --sender-id client-killed --to "$to" 2>"$dir/send6.err"
rc=$?
set -e
[ "$rc" -eq 4 ] || fail "an edited input exited $rc, want 4: $(cat "$dir/send6.err")"
expect_stored_equal client-killed "$dir/ref.jsonl"

# 4. A growing file: append, rerun - only the new lines are sent.
head -n 1000 "$dir/in.jsonl" >"$dir/log.jsonl"
"$objwire" send "$dir/log.jsonl" --sender-id growing --to "$to" 2>/dev/null || fail "send exited $?"
sed -n 1001,1500p "$dir/in.jsonl" >>"$dir/log.jsonl"
"$objwire" send "$dir/log.jsonl" --sender-id growing --to "$to" 2>"$dir/send7.err" ||
  fail "send of the grown file exited $?: $(cat "$dir/send7.err")"
grep -q "sent 500 objects" "$dir/send7.err" || fail "grown file: $(cat "$dir/send7.err")"
"$objwire" send "$dir/log.jsonl" --sender-id growing --to "$to" 2>"$dir/send8.err" ||
  fail "send of the same file again exited $?"
grep -q "sent 0 objects" "$dir/send8.err" || fail "unchanged file: $(cat "$dir/send8.err")"
head -n 1500 "$dir/ref.jsonl" >"$dir/ref-1500.jsonl"
expect_stored_equal growing "$dir/ref-1500.jsonl"
echo "rerun_cli_test: passed ($n lines)"
