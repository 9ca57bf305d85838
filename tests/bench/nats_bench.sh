#!/usr/bin/env bash
# The NATS sink against the local journal: `objwire bench --workload events` through
# one objwired on 127.0.0.1 whose sink is (a) the journal with fsync interval (the default),
# (b) a JetStream stream (R1, file storage) on one nats-server on 127.0.0.1 and (c) an R3
# stream on three nats-servers with cluster routes on loopback ports. Each case runs
# REPEAT times (default 3) against a fresh daemon and store; medians of objects/s, wire
# bytes/object (bench --json) and stored bytes/object (the data directory, or the nats-server
# store directories - all three replicas for R3 - after the run, divided by the objects).
#
#   tests/bench/nats_bench.sh                    # uses build/ (run scripts/build.sh first)
#   REPEAT=1 SCALE=0.1 tests/bench/nats_bench.sh  # a quick look
set -euo pipefail
cd "$(dirname "$0")/../.."
source tests/bench/bench_helpers.sh
build=${BUILD_DIR:-build}
repeat=${REPEAT:-3}
scale=${SCALE:-1}
objwired="$build/daemon/objwired"
objwire="$build/client/objwire"
nats_server=$(command -v nats-server || echo /usr/sbin/nats-server)
for b in "$objwired" "$objwire" "$nats_server"; do
  [ -x "$b" ] || { echo "nats_bench: $b missing" >&2; exit 1; }
done
n=$(awk -v s="$scale" 'BEGIN { printf "%d", 1000000 * s }')
work=$(mktemp -d)
daemon_pid=""
nats_pid=""
cleanup() {
  [ -n "$daemon_pid" ] && kill -TERM "$daemon_pid" 2>/dev/null && wait "$daemon_pid" 2>/dev/null
  [ -n "$nats_pid" ] && kill -TERM $nats_pid 2>/dev/null && wait $nats_pid 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

start_nats() {  # $1: servers (1, or 3 with cluster routes)
  local count=$1 ports=() cports=() i j routes
  rm -rf "$work/nats"
  nats_pids=()
  for i in $(seq 0 $((count - 1))); do ports+=("$(free_port)"); cports+=("$(free_port)"); done
  nats_url=""
  for i in $(seq 0 $((count - 1))); do
    local args=(-a 127.0.0.1 -p "${ports[$i]}" -js -sd "$work/nats/n$i" -n "n$i")
    if [ "$count" -gt 1 ]; then
      routes=""
      for j in $(seq 0 $((count - 1))); do
        [ "$j" = "$i" ] || routes="$routes,nats://127.0.0.1:${cports[$j]}"
      done
      args+=(--cluster_name bench --cluster "nats://127.0.0.1:${cports[$i]}" --routes "${routes#,}")
    fi
    "$nats_server" "${args[@]}" >"$work/nats$i.log" 2>&1 &
    nats_pids+=($!)
    nats_url="$nats_url,nats://127.0.0.1:${ports[$i]}"
  done
  nats_url=${nats_url#,}
  for i in $(seq 0 $((count - 1))); do
    wait_for_port "${ports[$i]}" || true
  done
  nats_pid=${nats_pids[*]}
}

stop_nats() { kill -TERM $nats_pid; wait $nats_pid || true; nats_pid=""; }

start_daemon() {  # $1: journal | nats-r1 | nats-r3
  rm -rf "$work/data" "$work/daemon.out" "$work/daemon.err"
  local env=()
  case $1 in
    nats-r1) env=(OBJWIRE_SINK_KIND=nats "OBJWIRE_NATS_SERVERS=$nats_url") ;;
    nats-r3) env=(OBJWIRE_SINK_KIND=nats "OBJWIRE_NATS_SERVERS=$nats_url" OBJWIRE_NATS_REPLICAS=3) ;;
  esac
  env "${env[@]}" OBJWIRE_METRICS_LISTEN= "$objwired" --listen 127.0.0.1:0 \
    --data-dir "$work/data" >"$work/daemon.out" 2>"$work/daemon.err" &
  daemon_pid=$!
  local port
  port=$(logged_port "$work/daemon.out" "$work/daemon.err") ||
    { echo "nats_bench: objwired did not start" >&2; cat "$work/daemon.err" >&2; exit 1; }
  addr="127.0.0.1:$port"
}

stop_daemon() { kill -TERM "$daemon_pid"; wait "$daemon_pid" || true; daemon_pid=""; }


run_case() {  # $1: journal | nats-r1 | nats-r3
  local sink=$1 store
  : >"$work/$sink.runs"
  for _ in $(seq "$repeat"); do
    [ "$sink" = nats-r1 ] && start_nats 1
    [ "$sink" = nats-r3 ] && start_nats 3
    start_daemon "$sink"
    "$objwire" bench --workload events -n "$n" --to "$addr" --json >"$work/bench.json"
    stop_daemon
    if [ "$sink" = journal ]; then store="$work/data"; else store="$work/nats"; fi
    local stored
    stored=$(du -sb "$store" | cut -f1)
    [ "$sink" = journal ] || stop_nats
    python3 - "$work/bench.json" "$stored" "$n" <<'PY' >>"$work/$sink.runs"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["acked_objects"] == int(sys.argv[3]), "not every object was acknowledged"
print(r["objects_per_second"], r["bytes_per_object"], int(sys.argv[2]) / int(sys.argv[3]))
PY
  done
  printf '| %s | %s | %.0f | %.2f | %.2f |\n' "$sink" "$n" \
    "$(cut -d' ' -f1 "$work/$sink.runs" | median)" \
    "$(cut -d' ' -f2 "$work/$sink.runs" | median)" \
    "$(cut -d' ' -f3 "$work/$sink.runs" | median)"
}

echo "| sink | events | objects/s | wire bytes/object | stored bytes/object |"
echo "|---|---|---|---|---|"
run_case journal
run_case nats-r1
run_case nats-r3
