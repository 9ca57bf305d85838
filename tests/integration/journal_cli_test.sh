#!/usr/bin/env bash
# objwired's journal tools as an operator runs them: every error exit is non-zero with a
# message; a second daemon on a data directory refuses at once; a flipped byte is a gap for
# --dump-journal, --verify-journal and `objwire read` (exit 5), with the objects around it, also
# for a follower across a daemon restart; a cut inside synced data stops the start until
# --repair-journal.
set -euo pipefail
objwired=$1
objwire=$2
dir=$(mktemp -d)
trap 'kill $daemon ${follower:-} 2>/dev/null || true; rm -rf "$dir"' EXIT
source "$(dirname "$0")/daemon_helpers.sh"

expect_exit() {  # expect_exit WANT FILE COMMAND...: runs it, stderr to FILE
  local want=$1 err=$2 rc=0
  shift 2
  "$@" >"$dir/out" 2>"$err" || rc=$?
  [ "$rc" -eq "$want" ] || fail "$* exited $rc, want $want: $(cat "$err")"
}

expect_exit 1 "$dir/e1" "$objwired" --data-dir "$dir/none" --dump-journal
grep -q "no such directory" "$dir/e1" || fail "missing directory: $(cat "$dir/e1")"
mkdir "$dir/empty"
expect_exit 1 "$dir/e2" "$objwired" --data-dir "$dir/empty" --dump-journal
grep -q "no journal segments" "$dir/e2" || fail "no segments: $(cat "$dir/e2")"
expect_exit 1 "$dir/e3" "$objwired" --data-dir "$dir/empty" --verify-journal

# 30 objects in 3 blocks (three sends), fsync always.
OBJWIRE_JOURNAL_FSYNC=always start_daemon "$dir/log" "$dir/data"
for b in 0 1 2; do
  seq $((b * 10)) $((b * 10 + 9)) | sed 's/.*/{"i":&,"text":"object number &"}/' >"$dir/in$b.jsonl"
  "$objwire" send "$dir/in$b.jsonl" --to "127.0.0.1:$port" 2>/dev/null || fail "send $b"
done
# A second daemon refuses at once, naming the directory and the first one's pid; readers read.
rc=0
"$objwired" --listen 127.0.0.1:0 --data-dir "$dir/data" 2>"$dir/log-second" || rc=$?
[ "$rc" -ne 0 ] || fail "a second daemon started"
grep -q "in use by another objwired (pid $daemon)" "$dir/log-second" || fail "second daemon: $(cat "$dir/log-second")"
expect_exit 0 "$dir/e4" "$objwired" --data-dir "$dir/data" --dump-journal
[ "$(wc -l <"$dir/out")" -eq 30 ] || fail "dump while running: $(wc -l <"$dir/out") lines"
expect_exit 1 "$dir/e5" "$objwired" --data-dir "$dir/data" --repair-journal
kill -TERM "$daemon"; wait "$daemon" || true

# A flipped byte in the middle block: 20 objects around a gap of 10.
seg="$dir/data/journal-00000000000000000000.owj"
size=$(stat -c %s "$seg")
at=$((size / 2))
byte=$(od -An -tu1 -j "$at" -N1 "$seg" | tr -d ' ')
printf "$(printf '\\%03o' $(((byte + 1) % 256)))" | dd of="$seg" bs=1 seek="$at" conv=notrunc status=none
expect_exit 2 "$dir/e6" "$objwired" --data-dir "$dir/data" --dump-journal
[ "$(wc -l <"$dir/out")" -eq 20 ] || fail "dump around the gap: $(wc -l <"$dir/out") lines"
grep -q "gap: offsets 10 to 19 are lost" "$dir/e6" || fail "dump gap: $(cat "$dir/e6")"
expect_exit 2 "$dir/e7" "$objwired" --data-dir "$dir/data" --verify-journal
grep -q "offsets 10 to 19 lost" "$dir/e7" || fail "verify: $(cat "$dir/e7")"
start_daemon "$dir/log2" "$dir/data"
grep -q "offsets 10 to 19 lost" "$dir/log2" || fail "start did not report the damage"
expect_exit 5 "$dir/e8" "$objwire" read --to "127.0.0.1:$port"
[ "$(wc -l <"$dir/out")" -eq 20 ] || fail "read around the gap: $(wc -l <"$dir/out") lines"
grep -q "gap: offsets 10 to 19 are lost" "$dir/e8" || fail "read gap: $(cat "$dir/e8")"
# A follower tells the gap once, goes on across a daemon restart, and exits 5 when stopped.
"$objwire" read --to "127.0.0.1:$port" --follow -o "$dir/followed" 2>"$dir/e8f" &
follower=$!
wait_for_lines "$dir/followed" 20 || true
kill -TERM "$daemon"; wait "$daemon" || true
"$objwired" --listen "127.0.0.1:$port" --data-dir "$dir/data" 2>"$dir/log2b" &
daemon=$!
wait_for_log "$dir/log2b" "reader from offset 30, following" || true
grep -q "reader from offset 30, following" "$dir/log2b" || fail "the follower did not come back at 30: $(cat "$dir/e8f")"
kill -TERM "$follower"
rc=0
wait "$follower" || rc=$?
follower=""
[ "$rc" -eq 5 ] || fail "the follower exited $rc after a gap, want 5: $(cat "$dir/e8f")"
[ "$(grep -c "gap: offsets 10 to 19 are lost" "$dir/e8f")" -eq 1 ] || fail "follower gaps: $(cat "$dir/e8f")"
[ "$(wc -l <"$dir/followed")" -eq 20 ] || fail "follower around the gap: $(wc -l <"$dir/followed") lines"
kill -TERM "$daemon"; wait "$daemon" || true

# A cut inside synced data: the daemon does not start; --repair-journal accepts the loss.
truncate -s 100 "$seg"
rc=0
"$objwired" --listen 127.0.0.1:0 --data-dir "$dir/data" 2>"$dir/log3" || rc=$?
[ "$rc" -eq 2 ] || fail "start after a cut of synced data exited $rc, want 2"
grep -q "synced data lost" "$dir/log3" || fail "cut: $(cat "$dir/log3")"
expect_exit 0 "$dir/e9" "$objwired" --data-dir "$dir/data" --repair-journal
grep -q "repaired" "$dir/out" || fail "repair: $(cat "$dir/out")"
start_daemon "$dir/log4" "$dir/data"
kill -TERM "$daemon"; wait "$daemon" || true
echo "journal CLI: ok"
