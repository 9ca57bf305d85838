#!/usr/bin/env bash
# Every target of docs/PERFORMANCE.md's Targets table (section "Latency") measured in one run,
# against fresh objwired daemons on 127.0.0.1: `events` end to end against the hand-written
# msgpack peer (tests/bench/msgpack_peer.cpp, receiving into structs; its value-tree-only
# figure beside it) and its bytes/object, `person`, `auto` against `never` compression, `send`
# of the events JSON lines from a file and from a pipe, p99 ack latency at 50% of the maximum
# rate, 100 connections under `always` and `interval`, 1,000 connections against one, 10
# followers against none. Each figure is the median of REPEAT runs (pairs alternate where two
# settings are compared); prints one Markdown table: target, measured, bound, held.
#
#   tests/bench/targets.sh                        # uses build/ (BUILD_DIR overrides), REPEAT=3
#   REPEAT=1 SCALE=0.05 tests/bench/targets.sh    # a quick look
#   env: SCALE (default 1) multiplies every object count and the 2 s of each rate-limited run
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${BUILD_DIR:-$root/build}" && pwd)
repeat=${REPEAT:-3}
scale=${SCALE:-1}
source "$root/tests/bench/bench_helpers.sh"   # logged_port, median, field
source "$root/tests/bench/latency_helpers.sh" # start, stop, bench, max_rate, objects_for
objwire="$build/client/objwire"
peer="$build/tests/bench/msgpack_peer"
for b in "$build/daemon/objwired" "$objwire" "$peer"; do
    [ -x "$b" ] || { echo "targets: $b missing: build with OBJWIRE_BUILD_BENCH=ON" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "targets: /usr/bin/time missing (Debian package 'time')" >&2; exit 1; }
# 1,000 connections take about 5,000 descriptors in the bench (a socket, an epoll set and its
# eventfds per connection) and 1,000 in objwired: raised to 8,192, or as far as allowed.
[ "$(ulimit -n)" = unlimited ] || [ "$(ulimit -n)" -ge 8192 ] ||
    ulimit -n 8192 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
dir=$(mktemp -d)
jsonl=$dir/runs.jsonl
table=$dir/table.md
daemon=""
trap '[ -n "$daemon" ] && kill "$daemon" 2>/dev/null; rm -rf "$dir"' EXIT

# scaled N [MIN]: N objects times SCALE, at least MIN (default 1,000).
scaled() { awk -v n="$1" -v s="$scale" -v m="${2:-1000}" 'BEGIN { x = int(n * s); print (x > m) ? x : m }'; }
run_seconds=$(awk -v s="$scale" 'BEGIN { print 2 * s }')
PROBE_OBJECTS=$(scaled 20000)
# The settings the bounds are stated in: batch.linger and journal.fsync_interval's defaults.
linger_ms=5
fsync_interval_ms=100

# calc FORMAT EXPR...: awk's printf of the expressions; "?" when a figure in them is missing.
calc() {
    local format=$1
    shift
    case "$*" in *'?'*) echo "?" && return ;; esac
    awk "BEGIN { printf \"$format\", $(IFS=,; echo "$*") }"
}
# held EXPR: yes when the awk condition holds ("?" when a figure in it is missing).
held() {
    case "$1" in *'?'*) echo "?" && return ;; esac
    awk "BEGIN { print ($1) ? \"yes\" : \"no\" }"
}
# values CASE KEY: KEY of each run recorded under CASE, one a line.
values() { grep "\"case\":\"$1\"," "$jsonl" | grep -o "\"$2\":[-0-9.e]*" | cut -d: -f2 || true; }
# of CASE KEY: the median of KEY over the runs recorded under CASE ("?" when none has it).
of() {
    local v
    v=$(values "$1" "$2")
    if [ -n "$v" ]; then median <<<"$v"; else echo "?"; fi
}
# ratios CASE_A CASE_B KEY: the median of A/B over runs paired in order ("?" without pairs).
ratios() {
    local v
    v=$(paste -d' ' <(values "$1" "$3") <(values "$2" "$3") | awk 'NF == 2 && $2 > 0 { print $1 / $2 }')
    if [ -n "$v" ]; then median <<<"$v"; else echo "?"; fi
}
row() { printf '| %s | %s | %s | %s |\n' "$@" >>"$table"; }
millions() { calc '%.2f M' "$1 / 1e6"; }

# peer_run CASE ARGS...: one run of the msgpack peer, recorded like a bench run.
peer_run() {
    local case_name=$1 json
    shift
    json=$("$peer" --json "$@")
    echo "{\"case\":\"$case_name\",${json#\{}" >>"$jsonl"
}

# End to end, a fresh daemon with default settings per run, the peer in between - both ways:
# --struct (each object converted into the workload's struct with strings of its own, as the
# msgpack-cxx program the target was set against receives them: the ratio's side) and the
# value tree alone (printed beside it).
throughput() {
    local events_n person_n
    events_n=$(scaled 1000000)
    person_n=$(scaled 1500000)
    for _ in $(seq "$repeat"); do
        start
        repeat=1 bench '"case":"events"' "" -n "$events_n"
        stop
        peer_run peer -n "$events_n" --array --struct
        peer_run peer_tree -n "$events_n" --array
        start
        WORKLOAD=person repeat=1 bench '"case":"person"' "" -n "$person_n"
        stop
        peer_run peer_person -n "$person_n" --workload person --array --struct
        peer_run peer_person_tree -n "$person_n" --workload person --array
    done
    local ratio bytes
    ratio=$(ratios events peer objects_per_second)
    row "\`events\` >= 1.5x the msgpack peer (objects/s)" \
        "$(millions "$(of events objects_per_second)") against $(millions "$(of peer objects_per_second)") (tree decode: $(millions "$(of peer_tree objects_per_second)")): $(calc '%.2fx' "$ratio")" \
        ">= 1.50x" "$(held "$ratio >= 1.5")"
    bytes=$(of events bytes_per_object)
    row "\`events\` bytes/object" "$(calc '%.2f' "$bytes") (the peer's msgpack arrays: $(calc '%.2f' "$(of peer bytes_per_object)"))" \
        "<= 72" "$(held "$bytes <= 72")"
    row "\`person\` objects/s" "$(millions "$(of person objects_per_second)") (the peer: $(millions "$(of peer_person objects_per_second)"), tree decode: $(millions "$(of peer_person_tree objects_per_second)"))" \
        "-" "-"
}

# `auto` against `never` in alternating pairs on one daemon.
compression() {
    local n ratio pairs
    n=$(scaled 4000000)
    # Two settings within a few percent of each other: three times the pairs of other cases.
    pairs=$((3 * repeat))
    start
    for _ in $(seq "$pairs"); do
        repeat=1 bench '"case":"auto"' "" -n "$n" --compression auto
        repeat=1 bench '"case":"never"' "" -n "$n" --compression never
    done
    stop
    ratio=$(ratios auto never objects_per_second)
    row "\`auto\` >= 0.98x \`never\` on loopback" \
        "$(calc '%.3fx' "$ratio") (median over $pairs pairs of $n objects)" ">= 0.98x" "$(held "$ratio >= 0.98")"
}

# send_run MODE FILE: one `objwire send` of FILE (from the file or through a pipe) into a
# fresh daemon, recorded as its MB/s of JSON and the client's peak RSS.
send_run() {
    local mode=$1 file=$2 t0 t1
    start
    t0=$(date +%s.%N)
    timed_send "$objwire" "$mode" "$file" "127.0.0.1:$port" "$dir/time"
    t1=$(date +%s.%N)
    stop
    echo "{\"case\":\"send_$mode\",\"mb_per_second\":$(calc '%.1f' "$(stat -c %s "$file") / 1e6 / ($t1 - $t0)"),\"rss_mb\":$(
        awk '/Maximum resident set size/ { printf "%.1f", $NF / 1024 }' "$dir/time")}" >>"$jsonl"
}

send_input() {
    local file=$dir/events.jsonl mode
    "$objwire" gen --workload events -n "$(scaled 1000000)" -o "$file"
    for _ in $(seq "$repeat"); do
        send_run file "$file"
        send_run pipe "$file"
    done
    for mode in file pipe; do
        local mb rss
        mb=$(of "send_$mode" mb_per_second)
        rss=$(of "send_$mode" rss_mb)
        row "\`send\` of events.jsonl from a $mode: MB/s, client peak RSS" "$mb MB/s, $rss MB" \
            ">= 600 MB/s, <= 48 MB" "$(held "$mb >= 600 && $rss <= 48")"
    done
}

# paced CASE CLIENT_ENV MAX ARGS...: REPEAT runs at half of MAX objects/s, at least LEAST
# objects (default 1; over many connections, 20 each, so that none sends nothing when a
# busy machine's maximum is low).
paced() {
    local case_name=$1 client_env=$2 rate
    rate=$(calc '%d' "$3 / 2")
    shift 3
    bench "\"case\":\"$case_name\"" "$client_env" -n "$(objects_for "$rate" "${least:-1}")" \
        --rate "$rate/s" "$@"
}

# p99 ack latency at 50% of the maximum for one fsync policy and linger 0 and default; sets
# interval_max (the closed-loop maximum with the default linger) for the cases after it.
ack_latency() {
    local fsync=$1 linger client_env max
    start OBJWIRE_JOURNAL_FSYNC="$fsync"
    for linger in 0 $linger_ms; do
        client_env=""
        [ "$linger" = 0 ] && client_env=OBJWIRE_BATCH_LINGER=0
        max=$(max_rate "\"case\":\"max_${fsync}_$linger\"" "$client_env")
        [ "$fsync" = interval ] && [ "$linger" != 0 ] && interval_max=$max
        paced "half_${fsync}_$linger" "$client_env" "$max"
        latency_row "$fsync" "$linger"
    done
    stop
}

# latency_row FSYNC LINGER: never is bound by the linger + 1 ms, interval by the sync interval
# + the linger + 2 ms.
latency_row() {
    local p99 bound
    p99=$(of "half_$1_$2" ack_latency_p99_ms)
    bound=$(($2 + 1))
    [ "$1" = interval ] && bound=$((fsync_interval_ms + $2 + 2))
    row "50% of max, \`$1\`, linger $2 ms: p99 ack latency" "$p99 ms (max $(of "max_$1_$2" objects_per_second) objects/s)" \
        "<= $bound ms" "$(held "$p99 <= $bound")"
}

# Closed loop over N connections on the current daemon, sized from interval's maximum.
connections() {
    bench "\"case\":\"$1\"" "" -n "$(objects_for "$interval_max" $(($2 * 20)))" --connections "$2"
}

# Connections and followers on one `interval` daemon, then 100 connections under `always`.
load_shapes() {
    start OBJWIRE_JOURNAL_FSYNC=interval
    connections interval_100 100
    for _ in $(seq "$repeat"); do
        repeat=1 connections one 1
        repeat=1 connections thousand 1000
    done
    least=20000 paced thousand_half "" "$interval_max" --connections 1000
    for _ in $(seq "$repeat"); do
        repeat=1 bench '"case":"readers_0"' "" -n "$(objects_for "$interval_max")" --readers 0
        repeat=1 bench '"case":"readers_10"' "" -n "$(objects_for "$interval_max")" --readers 10
    done
    paced readers_half "" "$interval_max" --readers 10
    stop
    start OBJWIRE_JOURNAL_FSYNC=always
    connections always_100 100
    stop
}

# slowest_share CASE: the median of each run's slowest connection over its mean.
slowest_share() {
    local v
    v=$(paste -d' ' <(values "$1" connection_objects_per_second_min) \
        <(values "$1" connection_objects_per_second_mean) | awk 'NF == 2 && $2 > 0 { printf "%.3f\n", $1 / $2 }')
    if [ -n "$v" ]; then median <<<"$v"; else echo "?"; fi
}

load_rows() {
    local always interval ratio closed paced_share readers
    always=$(of always_100 objects_per_second)
    interval=$(of interval_100 objects_per_second)
    ratio=$(calc '%.2f' "$always / $interval")
    row "\`always\`, 100 connections >= half of \`interval\`'s objects/s" \
        "$(millions "$always") against $(millions "$interval"): ${ratio}x" ">= 0.50x" "$(held "$ratio >= 0.5")"
    ratio=$(ratios thousand one objects_per_second)
    row "1,000 senders against one sender's objects/s" \
        "$(millions "$(of thousand objects_per_second)") against $(millions "$(of one objects_per_second)"): $(calc '%.0f%%' "$ratio * 100")" \
        ">= 80%" "$(held "$ratio >= 0.8")"
    closed=$(slowest_share thousand)
    paced_share=$(slowest_share thousand_half)
    row "1,000 senders: slowest / mean connection" "closed loop $closed, paced at 50% $paced_share" \
        ">= 0.50 both" "$(held "$closed >= 0.5 && $paced_share >= 0.5")"
    readers=$(ratios readers_10 readers_0 objects_per_second)
    row "10 followers: sender objects/s against none" \
        "$(millions "$(of readers_10 objects_per_second)") against $(millions "$(of readers_0 objects_per_second)"): $(calc '%.2fx' "$readers")" \
        ">= 0.80x" "$(held "$readers >= 0.8")"
    row "10 followers, paced at 50%: delivery p99 after the ack" \
        "$(of readers_half delivery_latency_p99_ms) ms (ack p99 $(of readers_half ack_latency_p99_ms) ms)" \
        "<= 10 ms" "$(held "$(of readers_half delivery_latency_p99_ms) <= 10")"
}

echo "targets: REPEAT=$repeat SCALE=$scale, $build" >&2
{
    echo "| target | measured | bound | held |"
    echo "|---|---|---|---|"
} >"$table"
throughput
compression
send_input
ack_latency never
ack_latency interval
load_shapes
load_rows
cat "$table"
