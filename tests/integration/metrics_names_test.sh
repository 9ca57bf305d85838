#!/usr/bin/env bash
# GET /metrics of a running objwired follows Prometheus conventions where a linter would
# look: every sample's family has HELP and TYPE, counters end in _total, base units (bytes,
# seconds) in names; the standard process_* families and objwire_build_info are there.
# With promtool installed, `promtool check metrics` must be clean too.
set -euo pipefail
objwired=$1
dir=$(mktemp -d)
daemon=""
trap '[ -n "$daemon" ] && kill "$daemon" 2>/dev/null; rm -rf "$dir"' EXIT
source "$(dirname "$0")/daemon_helpers.sh"

printf '[metrics]\nlisten = "127.0.0.1:0"\n' >"$dir/objwired.toml"
start_daemon "$dir/log" "$dir/data" -c "$dir/objwired.toml"
metrics=$(logged_metrics_port "$dir/log")
get_metrics "$metrics" "$dir/http.txt"
sed '1,/^\r\{0,1\}$/d' "$dir/http.txt" >"$dir/body.txt"
body=$dir/body.txt

for family in process_cpu_seconds_total process_resident_memory_bytes process_virtual_memory_bytes \
              process_open_fds process_start_time_seconds objwire_reload_failures_total \
              objwire_link_bandwidth_bytes_per_second; do
  grep -q "^# TYPE $family " "$body" || fail "no family $family"
done
grep -Eq '^process_resident_memory_bytes [1-9][0-9]*$' "$body" || fail "no resident memory"
grep -Eq '^process_open_fds [1-9][0-9]*$' "$body" || fail "no open fds"
grep -Eq '^objwire_build_info\{version="[0-9]+\.[0-9]+\.[0-9]+",protocol="[0-9]+"\} 1$' "$body" ||
  fail "no build info: $(grep build_info "$body")"
grep -q 'bits_per_second' "$body" && fail "a bandwidth in bits (the base unit is bytes)"

# Each sample belongs to a family with HELP and TYPE; counters end in _total.
awk '
  /^# HELP / { help[$3] = 1; next }
  /^# TYPE / { type[$3] = $4; if ($4 == "counter" && $3 !~ /_total$/) { print "counter " $3; bad = 1 }; next }
  /^#/ || /^$/ { next }
  {
    name = $1; sub(/\{.*/, "", name); family = name
    if (!(family in type)) { sub(/_(bucket|sum|count)$/, "", family) }
    if (!(family in type) || !(family in help)) { print "no HELP/TYPE for " name; bad = 1 }
  }
  END { exit bad }' "$body" || fail "metrics break the conventions"

if command -v promtool >/dev/null; then
  promtool check metrics <"$body" || fail "promtool check metrics"
  echo "promtool check metrics: clean"
else
  echo "promtool not installed: conventions checked by this script only"
fi
kill "$daemon"; wait "$daemon" || true; daemon=""
echo "metrics_names: ok"
