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
mkdir -p "$out"
jsonl=$out/latency.jsonl
: >"$jsonl"
dir=$(mktemp -d)
daemon=""
trap '[ -n "$daemon" ] && kill "$daemon" 2>/dev/null; rm -rf "$dir"' EXIT

# start ENV...: a fresh objwired with these settings (1,000 connections from one address allowed).
start() {
    rm -rf "$dir/data" "$dir/log"
    env OBJWIRE_LIMITS_MAX_CONNECTIONS_PER_ADDRESS=2000 OBJWIRE_SERVER_MAX_CONNECTIONS=2000 "$@" \
        "$build/daemon/objwired" --listen 127.0.0.1:0 --data-dir "$dir/data" 2>"$dir/log" &
    daemon=$!
    port=$(logged_port "$dir/log")
}
stop() {
    kill "$daemon"
    wait "$daemon" 2>/dev/null || true
    daemon=""
}

# bench CASE_JSON CLIENT_ENV ARGS...: REPEAT runs, each line of OUT/latency.jsonl = the case's
# fields followed by the bench's own.
bench() {
    local case_json=$1 client_env=$2
    shift 2
    for _ in $(seq "$repeat"); do
        local json
        # shellcheck disable=SC2086  # a word list
        json=$(env $client_env "$build/client/objwire" bench --workload events --to "127.0.0.1:$port" --json "$@")
        echo "{${case_json},${json#\{}" >>"$jsonl"
    done
}
# max_rate CLIENT_ENV: one sender's closed-loop objects/s, the median of REPEAT runs of about
# RUN_SECONDS each (sized by a first, unrecorded run of 20,000 objects).
max_rate() {
    local probe n
    # shellcheck disable=SC2086  # a word list
    probe=$(env $1 "$build/client/objwire" bench --workload events -n 20000 --to "127.0.0.1:$port" --json |
        grep -o '"objects_per_second":[0-9]*' | cut -d: -f2)
    n=$((probe * run_seconds > 20000 ? probe * run_seconds : 20000))
    bench "\"case\":\"max\",\"fsync\":\"$fsync\",\"linger\":\"$linger\"" "$1" -n "$n"
    tail -n "$repeat" "$jsonl" | grep -o '"objects_per_second":[0-9]*' | cut -d: -f2 | median
}

for fsync in never interval always; do
    start OBJWIRE_JOURNAL_FSYNC=$fsync
    for linger in 0 default; do
        client_env=""
        [ "$linger" = 0 ] && client_env=OBJWIRE_BATCH_LINGER=0
        max=$(max_rate "$client_env")
        for pct in 10 50 90; do
            rate=$((max * pct / 100))
            bench "\"case\":\"rate\",\"fsync\":\"$fsync\",\"linger\":\"$linger\",\"percent\":$pct,\"max_rate\":$max" \
                "$client_env" -n $((rate * run_seconds)) --rate "$rate/s"
        done
        echo "fsync $fsync, linger $linger: max $max objects/s" >&2
        [ "$fsync" = interval ] && [ "$linger" = default ] && interval_max=$max
    done
    if [ "$fsync" = always ]; then  # syncs shared across connections: 100 senders, closed loop
        bench "\"case\":\"connections\",\"fsync\":\"$fsync\",\"linger\":\"default\"" "" \
            -n $((interval_max * run_seconds)) --connections 100
    fi
    stop
done

start OBJWIRE_JOURNAL_FSYNC=interval
for n in 1 10 100 1000; do
    bench "\"case\":\"connections\",\"fsync\":\"interval\",\"linger\":\"default\"" "" -n $((interval_max * run_seconds)) --connections $n
    rate=$((interval_max / 2))
    bench "\"case\":\"connections_rate\",\"fsync\":\"interval\",\"linger\":\"default\"" "" \
        -n $((rate * run_seconds)) --rate "$rate/s" --connections $n
done
for readers in 0 10; do
    bench "\"case\":\"readers\",\"fsync\":\"interval\",\"linger\":\"default\"" "" -n $((interval_max * run_seconds)) --readers $readers
done
rate=$((interval_max / 2))
bench "\"case\":\"readers_rate\",\"fsync\":\"interval\",\"linger\":\"default\"" "" \
    -n $((rate * run_seconds)) --rate "$rate/s" --readers 10
stop
echo "wrote $jsonl" >&2
python3 "$root/tests/bench/latency_report.py" "$jsonl" "$out"
