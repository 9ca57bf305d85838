#!/usr/bin/env bash
# Latency the way messaging systems are judged, over plain loopback: `bench --rate` (open
# loop, each object's latency from its due time to its acknowledgement) for `events` at 10%,
# 50% and 90% of the maximum rate measured just before, for journal.fsync never / interval /
# always and batch.linger 0 / default; 1, 10, 100 and 1,000 connections; 10 followers while
# one sender writes. Every run's JSON goes to OUT/latency.jsonl, one line each with its case;
# tests/bench/latency_report.py then writes the median table and the plot from it.
#
#   tests/bench/latency_sweep.sh [BUILD_DIR] [OUT_DIR]   (default: build, build/latency)
#   env: REPEAT=3 (runs per case), RUN_SECONDS=2 (length of a paced run)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
out=${2:-$build/latency}
repeat=${REPEAT:-3}
run_seconds=${RUN_SECONDS:-2}
source "$root/tests/bench/bench_helpers.sh"  # logged_port, median
source "$root/tests/bench/latency_helpers.sh"  # start, stop, bench, max_rate, objects_for
mkdir -p "$out"
jsonl=$out/latency.jsonl
: >"$jsonl"
dir=$(mktemp -d)
daemon=""
trap '[ -n "$daemon" ] && kill "$daemon" 2>/dev/null; rm -rf "$dir"' EXIT

for fsync in never interval always; do
    start OBJWIRE_JOURNAL_FSYNC=$fsync
    for linger in 0 default; do
        client_env=""
        [ "$linger" = 0 ] && client_env=OBJWIRE_BATCH_LINGER=0
        max=$(max_rate "\"case\":\"max\",\"fsync\":\"$fsync\",\"linger\":\"$linger\"" "$client_env")
        for pct in 10 50 90; do
            rate=$((max * pct / 100))
            bench "\"case\":\"rate\",\"fsync\":\"$fsync\",\"linger\":\"$linger\",\"percent\":$pct,\"max_rate\":$max" \
                "$client_env" -n "$(objects_for "$rate")" --rate "$rate/s"
        done
        echo "fsync $fsync, linger $linger: max $max objects/s" >&2
        [ "$fsync" = interval ] && [ "$linger" = default ] && interval_max=$max
    done
    if [ "$fsync" = always ]; then  # syncs shared across connections: 100 senders, closed loop
        bench "\"case\":\"connections\",\"fsync\":\"$fsync\",\"linger\":\"default\"" "" \
            -n "$(objects_for "$interval_max")" --connections 100
    fi
    stop
done

start OBJWIRE_JOURNAL_FSYNC=interval
for n in 1 10 100 1000; do
    bench "\"case\":\"connections\",\"fsync\":\"interval\",\"linger\":\"default\"" "" -n "$(objects_for "$interval_max")" --connections $n
    rate=$((interval_max / 2))
    bench "\"case\":\"connections_rate\",\"fsync\":\"interval\",\"linger\":\"default\"" "" \
        -n "$(objects_for "$rate")" --rate "$rate/s" --connections $n
done
for readers in 0 10; do
    bench "\"case\":\"readers\",\"fsync\":\"interval\",\"linger\":\"default\"" "" -n "$(objects_for "$interval_max")" --readers $readers
done
rate=$((interval_max / 2))
bench "\"case\":\"readers_rate\",\"fsync\":\"interval\",\"linger\":\"default\"" "" \
    -n "$(objects_for "$rate")" --rate "$rate/s" --readers 10
stop
echo "wrote $jsonl" >&2
python3 "$root/tests/bench/latency_report.py" "$jsonl" "$out"
