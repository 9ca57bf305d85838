#!/usr/bin/env bash
# A thousand producers behind one address against objwired with default settings, both
# programs started with the soft descriptor limit most shells give (1024): each raises its
# soft limit to the hard one, the daemon admits every connection (no cap per address by
# default) and every object is stored. Counts only: no figure of speed is asserted.
set -euo pipefail
objwired=$1
objwire=$2
dir=$(mktemp -d)
daemon=
trap '[ -n "$daemon" ] && kill $daemon 2>/dev/null; rm -rf "$dir"' EXIT
source "$(dirname "$0")/daemon_helpers.sh"

connections=1000
objects=5000
# bench holds a socket and an event loop per connection: about 6 descriptors each.
hard=$(ulimit -Hn)
[ "$hard" = unlimited ] || [ "$hard" -ge $((7 * connections)) ] ||
  fail "the hard descriptor limit ($hard, ulimit -Hn) is below the $((7 * connections)) this test needs"
ulimit -Sn 1024

start_daemon "$dir/log" "$dir/data"
grep -q "descriptor limit (RLIMIT_NOFILE) raised from 1024 to " "$dir/log" ||
  [ "$hard" = 1024 ] || fail "objwired did not raise its soft descriptor limit"

"$objwire" bench --workload events -n $objects --connections $connections \
  --to "127.0.0.1:$port" >"$dir/bench.txt" 2>&1 || fail "bench exited $?: $(cat "$dir/bench.txt")"
grep -q "$objects objects over $connections connections" "$dir/bench.txt" ||
  fail "bench: $(cat "$dir/bench.txt")"
grep -q "acknowledged: $objects of $objects objects" "$dir/bench.txt" ||
  fail "bench: $(cat "$dir/bench.txt")"
! grep -q "refused" "$dir/log" || fail "objwired refused a producer"

"$objwire" read --from 0 --to "127.0.0.1:$port" >"$dir/all.jsonl" 2>"$dir/read.err" ||
  fail "read exited $?: $(cat "$dir/read.err")"
stored=$(wc -l <"$dir/all.jsonl")
[ "$stored" -eq $objects ] || fail "stored $stored objects, want $objects"
echo "bench --connections $connections under a soft limit of 1024: $stored objects stored"

# A hard limit of 1024 too: bench cannot have its connections, and says so instead of aborting.
rc=0
(ulimit -n 1024 && exec "$objwire" bench --workload events -n $objects --connections $connections \
  --to "127.0.0.1:$port") >"$dir/low.txt" 2>&1 || rc=$?
[ $rc = 2 ] || fail "bench under a hard limit of 1024 exited $rc: $(cat "$dir/low.txt")"
grep -q "^objwire bench: connection [0-9]* of $connections: .*Too many open files" "$dir/low.txt" ||
  fail "bench under a hard limit of 1024: $(cat "$dir/low.txt")"
grep -q "(ulimit -Hn): raise the hard limit or use fewer --connections" "$dir/low.txt" ||
  fail "bench under a hard limit of 1024: $(cat "$dir/low.txt")"
