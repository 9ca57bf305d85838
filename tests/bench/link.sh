#!/usr/bin/env bash
# Runs a command on an emulated link: in a private network namespace of its own, whose loopback
# (127.0.0.1) carries at most RATE, shaped by a token bucket (tc tbf) at an Ethernet MTU. Both
# ends of the link - objwired and the client - run inside the command, so the command is
# usually a script that starts both. The namespace ends with the command: nothing to clean up.
#
#   tests/bench/link.sh RATE CMD [ARG...]      e.g. tests/bench/link.sh 100mbit ./run.sh
#
# RATE is tc's: 10mbit, 100mbit, 1gbit, 500kbit. Bandwidth only: the kernels this runs on have
# no netem, so there is no added delay or loss. Data and ACKs of both directions share the one
# bucket. Needs root, or unprivileged user namespaces (then `unshare -rn`). Needs ip and tc
# (Debian: iproute2, installed by scripts/install-bench-deps.sh).
# Environment: LINK_MTU (default 1500: at loopback's own 65536 a bucket this small drops whole
# 64 KiB packets and goodput collapses), LINK_BURST (bytes; default the larger of 32 KiB and
# 1 ms at RATE), LINK_LATENCY (how long a packet may queue, default 20ms).
# tests/bench/link_test.sh checks that the rate holds.
set -euo pipefail

usage() {
    sed -n '2,16p' "$0" >&2
    exit 2
}
[ $# -ge 2 ] || usage
rate=$1
shift

# RATE in bits per second, for the default burst.
bits_per_second() {
    local r=${1,,} n unit
    [[ $r =~ ^([0-9]+)(gbit|mbit|kbit|bit)$ ]] ||
        { echo "link.sh: rate '$1' is not Nkbit, Nmbit or Ngbit" >&2; exit 2; }
    n=${BASH_REMATCH[1]}
    unit=${BASH_REMATCH[2]}
    case $unit in
        gbit) echo $((n * 1000000000)) ;;
        mbit) echo $((n * 1000000)) ;;
        kbit) echo $((n * 1000)) ;;
        bit) echo "$n" ;;
    esac
}

bps=$(bits_per_second "$rate")
burst=${LINK_BURST:-$((bps / 8 / 1000 > 32768 ? bps / 8 / 1000 : 32768))}
mtu=${LINK_MTU:-1500}
latency=${LINK_LATENCY:-20ms}
for tool in ip tc unshare; do
    command -v "$tool" >/dev/null ||
        { echo "link.sh: '$tool' not found (apt-get install iproute2 util-linux)" >&2; exit 2; }
done

ns_flags=(-n)
[ "$(id -u)" -eq 0 ] || ns_flags=(-r -n)

# Inside the new namespace: only `lo` exists; shape it, then become the command.
exec unshare "${ns_flags[@]}" bash -c '
    set -euo pipefail
    mtu=$1 rate=$2 burst=$3 latency=$4
    shift 4
    ip link set dev lo mtu "$mtu"
    ip link set dev lo up
    tc qdisc add dev lo root tbf rate "$rate" burst "$burst" latency "$latency"
    exec "$@"
' link-ns "$mtu" "$rate" "$burst" "$latency" "$@"
