#!/usr/bin/env bash
# tests/bench/link.sh holds its rate: inside `link.sh 40mbit`, the loopback carries a tbf
# qdisc of that rate, and `objwire bench` of 400 `blobs` objects (about 8 MB, not compressed)
# to an objwired in the same namespace moves its wire bytes no faster than the rate (+5% for
# the bucket's burst). Only an upper bound: a slow or loaded machine may go slower, never
# faster, so the check does not depend on the machine's speed. Skipped (77) where network
# namespaces cannot be made (no root, no user namespaces) or iproute2 is missing.
set -euo pipefail
objwired=$1
objwire=$2
here=$(cd "$(dirname "$0")" && pwd)
command -v tc >/dev/null || { echo "SKIP: tc (iproute2) is not installed"; exit 77; }
unshare_flags=-n
[ "$(id -u)" -eq 0 ] || unshare_flags=-rn
unshare $unshare_flags true 2>/dev/null || { echo "SKIP: cannot create a network namespace"; exit 77; }

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat >"$dir/inside.sh" <<'INNER'
#!/usr/bin/env bash
set -euo pipefail
objwired=$1 objwire=$2 dir=$3 here=$4
source "$here/../integration/daemon_helpers.sh"
trap 'kill $daemon 2>/dev/null || true' EXIT
tc qdisc show dev lo >"$dir/qdisc"
start_daemon "$dir/log" "$dir/data"
"$objwire" bench --workload blobs -n 400 --compression never --to "127.0.0.1:$port" --json \
  >"$dir/bench.json" || fail "bench exited $?"
INNER
bash "$here/link.sh" 40mbit bash "$dir/inside.sh" "$objwired" "$objwire" "$dir" "$here"

fail() { echo "FAIL: $*" >&2; exit 1; }
grep -q 'tbf' "$dir/qdisc" || fail "no tbf qdisc on lo: $(cat "$dir/qdisc")"
grep -qE 'rate 40Mbit' "$dir/qdisc" || fail "the qdisc's rate is not 40Mbit: $(cat "$dir/qdisc")"
wire=$(grep -o '"wire_bytes":[0-9]*' "$dir/bench.json" | cut -d: -f2)
seconds=$(grep -o '"seconds":[0-9.e+-]*' "$dir/bench.json" | cut -d: -f2)
[ -n "$wire" ] && [ -n "$seconds" ] || fail "bench printed no wire_bytes/seconds: $(cat "$dir/bench.json")"
[ "$wire" -gt 8000000 ] || fail "only $wire wire bytes: too few to measure a rate"
# bits per second over the rate, in per mille
permille=$(awk -v b="$wire" -v s="$seconds" 'BEGIN { printf "%d", b * 8 / s / 40e6 * 1000 }')
echo "link_test: $wire wire bytes in $seconds s = $permille per mille of 40 Mbit/s"
[ "$permille" -le 1050 ] || fail "the link carried $permille per mille of its rate: not shaped"
echo "link_test: ok"
