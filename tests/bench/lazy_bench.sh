#!/usr/bin/env bash
# Lazy values against plain ones (docs/COMPRESSION.md, "Lazy values") on `blobs` (Doc{id, title,
# body: ~16 KiB of text, thumb: 4 KiB random}) over plain loopback, a fresh daemon per run:
# bytes on the wire per object, the daemon's CPU time (user + system, from /proc), the journal's
# size on disk, and objects/s. Prints a markdown table; medians of REPEAT runs.
#
#   tests/bench/lazy_bench.sh [BUILD_DIR]   (default: build)   env: REPEAT=3 N=20000
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
repeat=${REPEAT:-3}
n=${N:-20000}
source "$root/tests/bench/bench_helpers.sh"  # logged_port, median, field
ticks=$(getconf CLK_TCK)

# One run against a fresh daemon: `run "ENV=..." "bench arguments"` prints
# "wire_bytes_per_object objects_per_second daemon_cpu_seconds journal_megabytes".
run() {
    local dir port daemon json cpu journal
    dir=$(mktemp -d)
    "$build/daemon/objwired" --listen 127.0.0.1:0 --data-dir "$dir/data" 2>"$dir/log" &
    daemon=$!
    port=$(logged_port "$dir/log")
    # shellcheck disable=SC2086  # both are word lists
    json=$(env $1 "$build/client/objwire" bench --workload blobs -n "$n" $2 \
        --to "127.0.0.1:$port" --json)
    # utime + stime of the daemon (fields 14 and 15 of /proc/PID/stat), once all is acked.
    cpu=$(awk -v t="$ticks" '{printf "%.3f", ($14 + $15) / t}' "/proc/$daemon/stat")
    kill "$daemon"
    wait "$daemon" 2>/dev/null || true
    journal=$(du -sb "$dir/data" | cut -f1)
    rm -rf "$dir"
    echo "$(field bytes_per_object "$json") $(field objects_per_second "$json") $cpu" \
        "$(echo "$journal / 1000000" | bc -l)"
}

# name | settings (environment) | bench arguments
cases=(
    "plain, frames not compressed|OBJWIRE_LAZY_FIELDS=|--compression never"
    "lazy body (zstd), frames not compressed|OBJWIRE_LAZY_FIELDS=Doc.body|--compression never"
    "plain, frames zstd (always)|OBJWIRE_LAZY_FIELDS=|--compression always --codec zstd"
    "lazy body (zstd), frames zstd (always)|OBJWIRE_LAZY_FIELDS=Doc.body|--compression always --codec zstd"
)

echo "| blobs, $n objects | wire bytes/object | objects/s | daemon CPU s | journal MB |"
echo "|---|---|---|---|---|"
case_table "$repeat" run '| %s | %.0f | %.0f | %.2f | %.1f |\n' "${cases[@]}"
