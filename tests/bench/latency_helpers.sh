# shellcheck shell=bash disable=SC2154  # build, dir, repeat, run_seconds, jsonl: the caller's
# Shared by tests/bench/latency_sweep.sh and tests/bench/targets.sh (source it after
# bench_helpers.sh, with `build`, `dir`, `repeat`, `run_seconds` and `jsonl` set): a fresh
# objwired per setting, and `objwire bench --workload events` runs recorded one JSON line each.

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

# objects_for RATE [MIN]: the objects a run at RATE objects/s sends in RUN_SECONDS (which may
# be a fraction), at least MIN (default 1).
objects_for() {
    awk -v r="$1" -v s="$run_seconds" -v m="${2:-1}" 'BEGIN { n = int(r * s); print (n > m) ? n : m }'
}

# bench CASE_JSON CLIENT_ENV ARGS...: REPEAT runs of the WORKLOAD (default events), each line
# of $jsonl = the case's fields followed by the bench's own.
bench() {
    local case_json=$1 client_env=$2
    shift 2
    for _ in $(seq "$repeat"); do
        local json
        # shellcheck disable=SC2086  # a word list
        json=$(env $client_env "$build/client/objwire" bench --workload "${WORKLOAD:-events}" \
            --to "127.0.0.1:$port" --json "$@")
        echo "{${case_json},${json#\{}" >>"$jsonl"
    done
}

# max_rate CASE_JSON CLIENT_ENV: one sender's closed-loop objects/s, the median of REPEAT runs
# of about RUN_SECONDS each and at least PROBE_OBJECTS (sized by a first, unrecorded run of
# PROBE_OBJECTS, default 20,000), recorded under the case.
max_rate() {
    local probe least=${PROBE_OBJECTS:-20000}
    # shellcheck disable=SC2086  # a word list
    probe=$(env $2 "$build/client/objwire" bench --workload events -n "$least" \
        --to "127.0.0.1:$port" --json | grep -o '"objects_per_second":[0-9]*' | cut -d: -f2)
    bench "$1" "$2" -n "$(objects_for "$probe" "$least")"
    tail -n "$repeat" "$jsonl" | grep -o '"objects_per_second":[0-9]*' | cut -d: -f2 | median
}
