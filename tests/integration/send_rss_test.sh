#!/usr/bin/env bash
# `objwire send`'s memory does not grow with its input: the client's peak RSS (from
# /usr/bin/time -v) for a JSON-lines input of SIZE_MIB MiB, sent to a real objwired from the file
# and from a pipe, stays within BOUND_MB - a bound set by the client's settings (read block,
# batches in flight, send window, replay buffer), not by the input, and not by speed. CI runs it
# with 256 MiB (many times the bound); the same script with 1024 checks a 1 GiB input. With
# BOUND_MB 0 (a sanitizer build, whose memory ASan inflates) the bound is not checked: the runs
# still must store every object.
#
#   tests/integration/send_rss_test.sh OBJWIRED OBJWIRE [SIZE_MIB [BOUND_MB]]
set -euo pipefail
objwired=$1
objwire=$2
size_mib=${3:-256}
bound_mb=${4:-48}
dir=$(mktemp -d)
daemon=""
trap '[ -n "$daemon" ] && kill $daemon 2>/dev/null; rm -rf "$dir"' EXIT
source "$(dirname "$0")/daemon_helpers.sh"
[ -x /usr/bin/time ] || fail "/usr/bin/time missing (Debian package 'time', scripts/install-deps.sh)"

# The events workload: lines of 188.6 bytes on average.
lines=$((size_mib * 1048576 * 10 / 1886))
"$objwire" gen --workload events -n "$lines" -o "$dir/in.jsonl"
bytes=$(stat -c %s "$dir/in.jsonl")
[ "$bytes" -ge $((size_mib * 1048576 * 95 / 100)) ] || fail "input of $bytes bytes, want ~$size_mib MiB"

# peak_rss MODE: sends the input (MODE file or pipe) to a fresh daemon, checks that every object
# was acknowledged, sets kib to the client's peak RSS in KiB.
peak_rss() {
  rm -rf "$dir/data"
  start_daemon "$dir/log" "$dir/data"
  if [ "$1" = file ]; then
    /usr/bin/time -v -o "$dir/time" "$objwire" send "$dir/in.jsonl" --to "127.0.0.1:$port" 2>"$dir/send.err" ||
      fail "send ($1) exited $?: $(cat "$dir/send.err")"
  else
    cat "$dir/in.jsonl" | /usr/bin/time -v -o "$dir/time" "$objwire" send - --to "127.0.0.1:$port" 2>"$dir/send.err" ||
      fail "send ($1) exited $?: $(cat "$dir/send.err")"
  fi
  grep -q "sent $lines objects ($lines acknowledged)" "$dir/send.err" || fail "send ($1): $(cat "$dir/send.err")"
  kill -TERM $daemon
  wait $daemon || fail "daemon exited $? on SIGTERM"
  daemon=""
  kib=$(awk '/Maximum resident set size/ {print $NF}' "$dir/time")
}

for mode in file pipe; do
  peak_rss $mode
  echo "send_rss: $size_mib MiB ($bytes bytes, $lines lines) from a $mode: client peak RSS $((kib / 1024)) MB"
  if [ "$bound_mb" -gt 0 ] && [ "$kib" -gt $((bound_mb * 1024)) ]; then
    fail "send of $size_mib MiB from a $mode: client peak RSS $((kib / 1024)) MB, over the bound of $bound_mb MB"
  fi
done
echo "send_rss: ok"
