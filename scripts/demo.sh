#!/usr/bin/env bash
# The main job on the embedded defaults: install what is missing, build, start objwired on
# 127.0.0.1 with a data directory inside the build tree, send the `person` workload through it
# with `objwire bench`, show where the objects went, and stop the daemon cleanly.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# Only the two programs the demo runs: the first thing shown comes after their build, not
# after every test program's.
OBJWIRE_BUILD_TARGETS="objwire objwired" scripts/build.sh

data=build/demo-data
rm -rf "$data"
mkdir -p "$data"
log="$data/objwired.log"
# Default settings, except port 0 (a free port, so the demo never collides with a running
# daemon) and the data directory.
build/daemon/objwired --listen 127.0.0.1:0 --data-dir "$data" 2>"$log" &
daemon=$!
trap 'kill "$daemon" 2>/dev/null || true' EXIT

port=""
for _ in $(seq 100); do
  port=$(grep -o 'listening on 127.0.0.1:[0-9]*' "$log" | head -1 | cut -d: -f2 || true)
  [ -n "$port" ] && break
  kill -0 "$daemon" 2>/dev/null || { cat "$log" >&2; echo "demo: objwired did not start" >&2; exit 1; }
  sleep 0.1
done
[ -n "$port" ] || { cat "$log" >&2; echo "demo: objwired did not report its port" >&2; exit 1; }
echo "demo: objwired listening on 127.0.0.1:$port"

build/client/objwire bench --workload person -n 100000 --to "127.0.0.1:$port"

kill -TERM "$daemon"
status=0
wait "$daemon" || status=$?
trap - EXIT
echo "demo: objwired stopped with exit status $status"
# The journal holds them; --dump-journal prints it as JSON lines.
build/daemon/objwired --data-dir "$data" --dump-journal >"$data/dump.jsonl"
echo "demo: $(wc -l <"$data/dump.jsonl") objects in the journal ($(ls "$data"/journal-*.owj | tr '\n' ' ')); the first and last:"
head -1 "$data/dump.jsonl"
tail -1 "$data/dump.jsonl"
echo "demo: daemon log ($log):"
sed 's/^/  /' "$log"
exit "$status"
