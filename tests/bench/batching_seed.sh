#!/usr/bin/env bash
# Batching measured in objwire's own stack, over plain loopback with a fresh daemon per run:
# (1) one write per object (batch.linger 0: every send flushes its own frame) against batched
# frames, in write system calls and time; (2) each object compressed on its
# own (the same, with compression always and no size floor) against whole 64 KiB frames
# compressed, in bytes/object and time. Prints a markdown table; medians of REPEAT runs.
#
#   tests/bench/batching_seed.sh [BUILD_DIR]   (default: build)   env: REPEAT=3
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
repeat=${REPEAT:-3}

# One bench run against a fresh daemon: `run "ENV=... ENV=..." "bench arguments"` prints the
# bench's JSON.
run() {
    local dir port daemon
    dir=$(mktemp -d)
    "$build/daemon/objwired" --listen 127.0.0.1:0 --data-dir "$dir/data" 2>"$dir/log" &
    daemon=$!
    port=$(logged_port "$dir/log") || true
    # shellcheck disable=SC2086  # both are word lists
    env $1 "$build/client/objwire" bench $2 --to "127.0.0.1:$port" --json
    kill "$daemon"
    wait "$daemon" 2>/dev/null || true
    rm -rf "$dir"
}
source "$root/tests/bench/bench_helpers.sh"  # logged_port, case_table, field

# One run's figures: objects/s, seconds, write calls, bytes/object.
row() {
    local json
    json=$(run "$1" "$2")
    echo "$(field objects_per_second "$json") $(field seconds "$json") $(field write_calls "$json") $(field bytes_per_object "$json")"
}

# name | settings (environment) | bench arguments
cases=(
    "person, one frame and write per object|OBJWIRE_BATCH_LINGER=0|--workload person -n 100000 --compression never"
    "person, batched 64 KiB frames|OBJWIRE_BATCH_LINGER=5ms|--workload person -n 100000 --compression never"
    "events, one frame per object, plain|OBJWIRE_BATCH_LINGER=0|--workload events -n 100000 --compression never"
    "events, one frame per object, each zstd-1|OBJWIRE_BATCH_LINGER=0 OBJWIRE_COMPRESSION_MIN_FRAME_BYTES=0|--workload events -n 100000 --compression always --codec zstd --level 1"
    "events, 64 KiB frames, each zstd-1|OBJWIRE_BATCH_LINGER=5ms|--workload events -n 100000 --compression always --codec zstd --level 1"
)
echo "| case | objects/s | seconds | write calls | bytes/object |"
echo "|---|---:|---:|---:|---:|"
case_table "$repeat" row '| %s | %.0f | %.3f | %.0f | %.2f |\n' "${cases[@]}"
