#!/usr/bin/env bash
# Readers of a damaged journal always end (docs/JOURNAL.md 4.4, docs/SECURITY.md): closed
# segments whose only block has a flipped byte, that are zeroed, or truncated to 0 bytes are
# gaps to two readers at once, who get every intact object and exit 5; the daemon answers
# other clients meanwhile and ends within server.shutdown_grace plus a second of SIGTERM with
# two followers busy in the journal. A closed segment renamed (its block numbered below its
# name) is a gap too: a reader from 0 gets every other object and exits 5. Retention that
# deletes what a reader has not read yet is a gap to that reader (exit 5) and a metric.
set -euo pipefail
objwired=$1
objwire=$2
dir=$(mktemp -d)
daemon=""
pids=()
trap 'kill -9 $daemon "${pids[@]}" 2>/dev/null || true; rm -rf "$dir"' EXIT
source "$(dirname "$0")/daemon_helpers.sh"

# make_objects FILE COUNT: COUNT objects of incompressible text (about 140 bytes each).
make_objects() {
  head -c $(($2 * 96)) /dev/urandom | base64 -w 128 | head -n "$2" |
    sed 's/.*/{"t":"&"}/' >"$1"
}

# wait_exit PID SECONDS: waits for PID to end within SECONDS; its status in $rc.
wait_exit() {
  local pid=$1
  wait_for_exit "$pid" "$2" || return 1
  rc=0
  wait "$pid" || rc=$?
}

# 1. Six sends of 600 objects (about 80 KiB each) with 64 KiB segments: closed segments of
# one or two blocks.
export OBJWIRE_JOURNAL_SEGMENT_BYTES=64KiB OBJWIRE_JOURNAL_FSYNC=always
export OBJWIRE_SERVER_SHUTDOWN_GRACE=2s OBJWIRE_METRICS_LISTEN=127.0.0.1:0
start_daemon "$dir/log1" "$dir/data"
for b in 0 1 2 3 4 5; do
  make_objects "$dir/in$b" 600
  "$objwire" send "$dir/in$b" --to "127.0.0.1:$port" 2>/dev/null || fail "send $b"
done
kill -TERM "$daemon"
wait "$daemon" || true
mapfile -t segs < <(ls "$dir/data"/journal-*.owj | sort)
[ "${#segs[@]}" -ge 6 ] || fail "want 6 segments or more, have ${#segs[@]}"
first_of() { basename "$1" .owj | sed 's/journal-0*//; s/^$/0/'; }
for i in 1 2 3; do
  [ "$(first_of "${segs[i + 1]}")" -gt "$(first_of "${segs[i]}")" ] || fail "segment $i is empty"
done
# Segment 1: a flipped byte in its first block; segment 2: zeroed; segment 3: truncated to 0
# bytes. --verify-journal (the offline reader) says what that loses: whole segments 2 and 3.
byte=$(od -An -tu1 -j 100 -N1 "${segs[1]}" | tr -d ' ')
printf "$(printf '\\%03o' $(((byte + 1) % 256)))" |
  dd of="${segs[1]}" bs=1 seek=100 conv=notrunc status=none
head -c "$(stat -c %s "${segs[2]}")" /dev/zero | dd of="${segs[2]}" conv=notrunc status=none
truncate -s 0 "${segs[3]}"
"$objwired" --data-dir "$dir/data" --verify-journal >"$dir/verify" 2>&1 || true
lost=0
while read -r a b; do lost=$((lost + b - a + 1)); done < \
  <(grep -o "offsets [0-9]* to [0-9]* lost" "$dir/verify" | awk '{print $2, $4}')
whole=$(($(first_of "${segs[4]}") - $(first_of "${segs[2]}")))
[ "$lost" -gt "$whole" ] ||
  fail "verify: $lost lost, want more than segments 2 and 3 ($whole): $(cat "$dir/verify")"
want=$((3600 - lost))

start_daemon "$dir/log2" "$dir/data"
for r in 1 2; do
  "$objwire" read --to "127.0.0.1:$port" -o "$dir/read$r" 2>"$dir/err$r" &
  pids+=($!)
done
for r in 1 2; do
  wait_exit "${pids[r - 1]}" 30 || fail "reader $r still running after 30 s"
  [ "$rc" -eq 5 ] || fail "reader $r exited $rc, want 5: $(cat "$dir/err$r")"
  # The offline verifier gives up on the rest of a segment after a damaged block, the daemon
  # goes on at the next intact block of it, so the daemon may serve more than `want`; never
  # less, never anything of the wholly lost segments, and both readers the same.
  got=$(wc -l <"$dir/read$r")
  [ "$got" -ge "$want" ] && [ "$got" -le $((3600 - whole)) ] ||
    fail "reader $r read $got objects, want every intact one: $want to $((3600 - whole))"
  [ "$r" = 1 ] && served=$got
  [ "$got" -eq "$served" ] || fail "reader $r read $got objects, reader 1 $served"
  grep -q "gap: offsets $(first_of "${segs[1]}") to" "$dir/err$r" ||
    fail "reader $r: no gap at the damaged segment: $(cat "$dir/err$r")"
done
cat "$dir"/in[0-5] >"$dir/sent"
if grep -qvxFf "$dir/sent" "$dir/read1"; then fail "reader 1 read objects never sent"; fi
pids=()
# The daemon still serves others.
make_objects "$dir/more" 10
timeout 30 "$objwire" send "$dir/more" --to "127.0.0.1:$port" 2>"$dir/err-send" ||
  fail "send while readers were served: $(cat "$dir/err-send")"

# Two followers busy in the damaged journal, then SIGTERM: the daemon ends within the grace
# (2 s) and a second.
for r in 1 2; do
  "$objwire" read --to "127.0.0.1:$port" --follow -o "$dir/follow$r" 2>"$dir/errf$r" &
  pids+=($!)
done
for r in 1 2; do
  wait_for_lines "$dir/follow$r" $((served + 10)) 30 || true
  [ "$(wc -l <"$dir/follow$r")" -eq $((served + 10)) ] ||
    fail "follower $r read $(wc -l <"$dir/follow$r"), want $((served + 10))"
done
kill -TERM "$daemon"
# Its own last line marks the stop; the process's exit after it (a sanitizer's leak check on
# a loaded machine) is not the daemon's grace.
wait_for_log "$dir/log2" "stopped:" 3 || fail "objwired did not stop within 3 s of SIGTERM (grace 2 s)"
wait_exit "$daemon" 30 || fail "objwired logged its stop but did not exit"
daemon=""
# A follower waits for the daemon to come back; SIGTERM ends it with the gap's status.
for r in 1 2; do
  kill -TERM "${pids[r - 1]}"
  wait_exit "${pids[r - 1]}" 30 || fail "follower $r did not end on SIGTERM"
  [ "$rc" -eq 5 ] || fail "follower $r exited $rc, want 5: $(cat "$dir/errf$r")"
done
pids=()
echo "damaged segments: ok ($want objects read around $lost lost)"

# 2. A closed segment renamed one offset up (journal-...N.owj to N+1): its first block is
# numbered below the name, so its offsets are lost whatever the name says (and offset N, which
# no segment starts at). A reader from 0 gets every other object, at its offset, and exits 5.
start_daemon "$dir/log-rn" "$dir/data-rn"
for b in 0 1 2 3; do
  "$objwire" send "$dir/in$b" --to "127.0.0.1:$port" 2>/dev/null || fail "send $b (renamed)"
done
kill -TERM "$daemon"
wait "$daemon" || true
mapfile -t segs < <(ls "$dir/data-rn"/journal-*.owj | sort)
[ "${#segs[@]}" -ge 4 ] || fail "want 4 segments or more, have ${#segs[@]}"
a=$(first_of "${segs[1]}")
b=$(first_of "${segs[2]}")
mv "${segs[1]}" "$dir/data-rn/$(printf 'journal-%020d.owj' $((a + 1)))"
start_daemon "$dir/log-rn2" "$dir/data-rn"
rc=0
timeout 30 "$objwire" read --to "127.0.0.1:$port" -o "$dir/read-rn" --offsets "$dir/read-rn.off" \
  2>"$dir/err-rn" || rc=$?
[ "$rc" -eq 5 ] || fail "read of the renamed segment's journal exited $rc, want 5: $(cat "$dir/err-rn")"
cat "$dir"/in[0-3] >"$dir/sent-rn"
# Each object read is the one sent at its offset.
awk 'NR == FNR { at[$1 + 1] = 1; next } FNR in at' "$dir/read-rn.off" "$dir/sent-rn" |
  cmp -s - "$dir/read-rn" || fail "the objects read are not those sent at their offsets"
# The offsets not read are exactly the gaps told, and lie in the renamed segment: offset a,
# then its first block (a later block of it, numbered in order, is read).
seq 0 2399 | grep -vxFf <(cut -f1 "$dir/read-rn.off") >"$dir/missing-rn" || true
grep -o "gap: offsets [0-9]* to [0-9]*" "$dir/err-rn" | while read -r _ _ g _ h; do seq "$g" "$h"; done |
  cmp -s - "$dir/missing-rn" || fail "the offsets not read are not the gaps told: $(cat "$dir/err-rn")"
[ "$(head -n 1 "$dir/missing-rn")" = "$a" ] && [ "$(tail -n 1 "$dir/missing-rn")" -lt "$b" ] &&
  [ "$(wc -l <"$dir/missing-rn")" -gt 1 ] ||
  fail "lost $(wc -l <"$dir/missing-rn") offsets, want from $a into the renamed segment (to $b at most)"
kill -TERM "$daemon"
wait "$daemon" || true
daemon=""
echo "renamed segment: ok ($(wc -l <"$dir/missing-rn") offsets lost from $a, $(wc -l <"$dir/read-rn") objects read)"

# 8. Retention ahead of a reader: 1 MiB segments, 16 MiB kept, 20 MB stored. A reader whose
# output is not consumed stops reading (at most a few MB in pipe and socket buffers); 40 MB more
# are stored meanwhile, and retention deletes what the reader has not read. It tells the gap
# and exits 5; the daemon counts it.
unset OBJWIRE_JOURNAL_SEGMENT_BYTES
export OBJWIRE_JOURNAL_SEGMENT_BYTES=1MiB OBJWIRE_JOURNAL_RETENTION_BYTES=16MiB
export OBJWIRE_JOURNAL_FSYNC=never OBJWIRE_METRICS_LISTEN=127.0.0.1:0
start_daemon "$dir/log3" "$dir/data8"
make_objects "$dir/big" 100000
for b in 1 2; do
  "$objwire" send "$dir/big" --to "127.0.0.1:$port" 2>/dev/null || fail "send big $b"
done
mkfifo "$dir/pipe"
# The reader writes into a pipe nobody reads until $dir/go exists.
"$objwire" read --to "127.0.0.1:$port" >"$dir/pipe" 2>"$dir/err8" &
reader8=$!
pids+=($reader8)
(
  exec <"$dir/pipe"
  wait_until 30 test -e "$dir/go" || true
  cat >"$dir/read8"
) &
pids+=($!)
wait_until 30 grep -q "reader from offset" "$dir/log3" || true
deleted=$(grep -c "retention deleted" "$dir/log3" || true)
for b in 3 4 5; do
  "$objwire" send "$dir/big" --to "127.0.0.1:$port" 2>/dev/null || fail "send big $b"
done
deleted_more() { [ "$(grep -c "retention deleted" "$dir/log3")" -gt $((deleted + 24)) ]; }
wait_until 10 deleted_more || true
touch "$dir/go"
wait_exit "$reader8" 30 || fail "the reader behind retention did not end"
[ "$rc" -eq 5 ] || fail "the reader behind retention exited $rc, want 5: $(cat "$dir/err8")"
grep -q "gap: offsets .* are lost" "$dir/err8" || fail "no gap told: $(cat "$dir/err8")"
mport=$(grep -o 'metrics on http://127.0.0.1:[0-9]*' "$dir/log3" | cut -d: -f3 || true)
[ -n "$mport" ] || fail "no metrics port in the log"
curl -s "http://127.0.0.1:$mport/metrics" >"$dir/metrics" || fail "GET /metrics"
grep -Eq '^objwire_journal_retention_unread_total [1-9]' "$dir/metrics" ||
  fail "retention gap not counted: $(grep retention "$dir/metrics")"
kill -TERM "$daemon"
wait "$daemon" || true
daemon=""
echo "retention ahead of a reader: ok"

# 9. A gap log line whose end is near 2^64 would wrap the offsets: the start refuses, naming
# the line; without it, the journal starts and numbers on as before.
unset OBJWIRE_JOURNAL_SEGMENT_BYTES OBJWIRE_JOURNAL_RETENTION_BYTES
export OBJWIRE_JOURNAL_FSYNC=always
start_daemon "$dir/log4" "$dir/data9"
seq 0 9 | sed 's/.*/{"i":&}/' >"$dir/ten"
"$objwire" send "$dir/ten" --to "127.0.0.1:$port" 2>/dev/null || fail "send ten"
kill -TERM "$daemon"
wait "$daemon" || true
daemon=""
cp "$dir/data9/journal.gaps" "$dir/gaps.saved" 2>/dev/null || : >"$dir/gaps.saved"
echo "gap 10 18446744073709551610 written by hand" >>"$dir/data9/journal.gaps"
rc=0
"$objwired" --listen 127.0.0.1:0 --data-dir "$dir/data9" 2>"$dir/log5" || rc=$?
[ "$rc" -ne 0 ] || fail "objwired started with a gap line near 2^64"
grep -q "journal.gaps line [0-9]*: end offset 18446744073709551610 is beyond" "$dir/log5" ||
  fail "the refusal does not name the line: $(cat "$dir/log5")"
cp "$dir/gaps.saved" "$dir/data9/journal.gaps"
start_daemon "$dir/log6" "$dir/data9"
"$objwire" send "$dir/ten" --to "127.0.0.1:$port" 2>/dev/null || fail "send ten again"
rc=0
"$objwire" read --to "127.0.0.1:$port" -o "$dir/twenty" --offsets "$dir/twenty.off" 2>"$dir/err9" || rc=$?
[ "$rc" -eq 0 ] || fail "read after the gap line was removed exited $rc: $(cat "$dir/err9")"
[ "$(wc -l <"$dir/twenty")" -eq 20 ] || fail "read $(wc -l <"$dir/twenty") objects, want 20"
cut -f1 "$dir/twenty.off" | cmp -s <(seq 0 19) - || fail "offsets not 0 to 19: $(cut -f1 "$dir/twenty.off" | tr "\n" " ")"
echo "gap log overflow: ok"

# 10. Cursor files carry a checksum: a damaged one is named with its reason, by a reader and
# by `cursor list`, which does not leave it out silently.
for c in good bad; do
  "$objwire" read --to "127.0.0.1:$port" --cursor "$c" -o /dev/null 2>/dev/null ||
    fail "cursor reader $c exited $?"
done
grep -q "^owc1 20 [0-9a-f]\{8\}$" "$dir/data9/cursors/bad" ||
  fail "cursor file: $(cat "$dir/data9/cursors/bad")"
sed -i 's/^owc1 20 /owc1 12 /' "$dir/data9/cursors/bad"
rc=0
"$objwire" cursor list --to "127.0.0.1:$port" >"$dir/list" 2>"$dir/err10" || rc=$?
[ "$rc" -ne 0 ] || fail "cursor list left a damaged cursor out: $(cat "$dir/list")"
grep -q "cursor 'bad': the cursor file is damaged" "$dir/err10" ||
  fail "cursor list: $(cat "$dir/err10")"
rc=0
"$objwire" read --to "127.0.0.1:$port" --cursor bad -o /dev/null 2>"$dir/err11" || rc=$?
[ "$rc" -ne 0 ] || fail "a damaged cursor was read"
grep -q "cursor 'bad'.*the cursor file is damaged" "$dir/err11" ||
  fail "damaged cursor read: $(cat "$dir/err11")"
if grep -q "multibyte" "$dir/err10" "$dir/err11"; then fail "errno text for a damaged cursor"; fi
"$objwire" cursor delete bad --to "127.0.0.1:$port" 2>/dev/null || fail "cursor delete bad"
"$objwire" cursor list --to "127.0.0.1:$port" >"$dir/list" 2>"$dir/err12" ||
  fail "cursor list after the delete: $(cat "$dir/err12")"
grep -q "^good	20$" "$dir/list" || fail "cursor list: $(cat "$dir/list")"
kill -TERM "$daemon"
wait "$daemon" || true
daemon=""
echo "cursor files: ok"

# 9. Two faults: the checkpoint deleted and the open segment truncated. Its copy proves how far
# the journal was synced: the start refuses; --repair-journal reports the loss as a gap (to a
# read from 0 before anything new is stored too), and new objects never get a lost offset.
export OBJWIRE_JOURNAL_FSYNC=always
start_daemon "$dir/log7" "$dir/data2f"
for b in 0 1 2; do
  "$objwire" send "$dir/ten" --to "127.0.0.1:$port" 2>/dev/null || fail "send ten $b"
done
kill -TERM "$daemon"
wait "$daemon" || true
daemon=""
open_seg=$(ls "$dir/data2f"/journal-*.owj | sort | tail -n 1)
rm "$dir/data2f/journal.checkpoint"
truncate -s $(($(stat -c %s "$open_seg") / 2)) "$open_seg"
rc=0
"$objwired" --listen 127.0.0.1:0 --data-dir "$dir/data2f" 2>"$dir/log8" || rc=$?
[ "$rc" -ne 0 ] || fail "started after the checkpoint was deleted and the segment cut"
grep -q "synced data lost: offsets [0-9]* to 29" "$dir/log8" || fail "two faults: $(cat "$dir/log8")"
"$objwired" --data-dir "$dir/data2f" --repair-journal >/dev/null 2>"$dir/log9" ||
  fail "repair exited $?"
start_daemon "$dir/log10" "$dir/data2f"
# Before anything new is stored the journal ends inside what the repair cut: a read from 0
# gets every intact object and the cut as a gap (it said "no segment holds offset N", exit 2).
rc=0
"$objwire" read --to "127.0.0.1:$port" -o "$dir/r2c" --offsets "$dir/r2c.off" 2>"$dir/err2c" || rc=$?
[ "$rc" -eq 5 ] || fail "read of the repaired journal exited $rc, want 5: $(cat "$dir/err2c")"
cut_at=$(grep -o "gap: offsets [0-9]* to 29 are lost" "$dir/err2c" | awk '{print $3}')
[ -n "$cut_at" ] || fail "the repair's cut not told as a gap: $(cat "$dir/err2c")"
[ "$(wc -l <"$dir/r2c")" -eq "$cut_at" ] ||
  fail "read $(wc -l <"$dir/r2c") objects of the repaired journal, want the $cut_at intact"
[ "$(cut -f1 "$dir/r2c.off" | tail -n 1)" -eq $((cut_at - 1)) ] || fail "offsets $(cat "$dir/r2c.off")"
"$objwire" send "$dir/ten" --to "127.0.0.1:$port" 2>/dev/null || fail "send after repair"
rc=0
"$objwire" read --to "127.0.0.1:$port" -o "$dir/r2f" --offsets "$dir/r2f.off" 2>"$dir/err2f" || rc=$?
[ "$rc" -eq 5 ] || fail "read after repair exited $rc, want 5: $(cat "$dir/err2f")"
grep -q "gap: offsets [0-9]* to 29 are lost" "$dir/err2f" || fail "no gap told: $(cat "$dir/err2f")"
[ "$(cut -f1 "$dir/r2f.off" | tail -n 10 | head -n 1)" -eq 30 ] ||
  fail "new objects reused lost offsets: $(cut -f1 "$dir/r2f.off" | tr '\n' ' ')"
kill -TERM "$daemon"
wait "$daemon" || true
daemon=""
echo "two faults: ok"

# 10. Both checkpoint files deleted and the open segment truncated: nothing proves how far the
# journal was synced, so the start refuses (new objects could take lost offsets), naming both
# files; --repair-journal opens it at the end the segments show.
start_daemon "$dir/log11" "$dir/data3f"
for b in 0 1 2; do
  "$objwire" send "$dir/ten" --to "127.0.0.1:$port" 2>/dev/null || fail "send ten (3f) $b"
done
kill -TERM "$daemon"
wait "$daemon" || true
daemon=""
open_seg=$(ls "$dir/data3f"/journal-*.owj | sort | tail -n 1)
rm "$dir/data3f/journal.checkpoint" "$dir/data3f/journal.checkpoint2"
truncate -s $(($(stat -c %s "$open_seg") / 2)) "$open_seg"
rc=0
"$objwired" --listen 127.0.0.1:0 --data-dir "$dir/data3f" 2>"$dir/log12" || rc=$?
[ "$rc" -ne 0 ] || fail "started with both checkpoint files gone and the segment cut"
grep -q "journal.checkpoint and journal.checkpoint2 are both missing" "$dir/log12" ||
  fail "three faults: $(cat "$dir/log12")"
"$objwired" --data-dir "$dir/data3f" --repair-journal >/dev/null 2>"$dir/log13" ||
  fail "repair (3f) exited $?: $(cat "$dir/log13")"
start_daemon "$dir/log14" "$dir/data3f"
"$objwire" read --to "127.0.0.1:$port" -o "$dir/r3f" 2>"$dir/err3f" ||
  fail "read after the repair (3f): $(cat "$dir/err3f")"
[ "$(wc -l <"$dir/r3f")" -gt 0 ] || fail "nothing read after the repair (3f)"
kill -TERM "$daemon"
wait "$daemon" || true
daemon=""
echo "three faults: refused, opened by --repair-journal"
