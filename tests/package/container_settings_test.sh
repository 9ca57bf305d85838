#!/usr/bin/env bash
# The image's runtime settings with the programs just built: the Dockerfile's ENV puts the
# metrics endpoint on every interface, on a port the image EXPOSEs; OBJWIRE_METRICS_LISTEN=
# (empty) turns it off; the HEALTHCHECK command succeeds against a running objwired and fails
# without one; the data directory is a VOLUME and the entrypoint is exec form (objwired is
# PID 1 and gets SIGTERM), and SIGTERM ends objwired with exit status 0 after draining.
#   container_settings_test.sh SOURCE_DIR OBJWIRED OBJWIRE
set -euo pipefail
src=$1
objwired=$2
objwire=$3
dockerfile=$src/docker/Dockerfile
dir=$(mktemp -d)
trap 'kill ${daemon:-} 2>/dev/null || true; rm -rf "$dir"' EXIT
source "$src/tests/integration/daemon_helpers.sh"
runtime=$(awk '/^FROM /{n++} n==2' "$dockerfile")  # the runtime stage

metrics=$(sed -n 's/^ENV OBJWIRE_METRICS_LISTEN=\([^ ]*\)$/\1/p' <<<"$runtime")
[[ $metrics == 0.0.0.0:* ]] || fail "the image's metrics listen on '$metrics', not on every interface"
grep -q "^EXPOSE .*\b${metrics#0.0.0.0:}\b" <<<"$runtime" || fail "the image does not EXPOSE metrics port ${metrics#0.0.0.0:}"
grep -q '^VOLUME /var/lib/objwire$' <<<"$runtime" || fail "/var/lib/objwire is not a VOLUME"
grep -q '^ENTRYPOINT \["objwired",.*"--data-dir", "/var/lib/objwire"\]$' <<<"$runtime" ||
  fail "the ENTRYPOINT is not objwired in exec form with the volume as data directory"

OBJWIRE_METRICS_LISTEN=$metrics "$objwire" config show --daemon | grep -q "^listen = \"$metrics\" .*OBJWIRE_METRICS_LISTEN" ||
  fail "OBJWIRE_METRICS_LISTEN=$metrics is not what objwired reads"
OBJWIRE_METRICS_LISTEN= "$objwire" config show --daemon | grep -q '^listen = "" .*OBJWIRE_METRICS_LISTEN' ||
  fail "OBJWIRE_METRICS_LISTEN= does not turn metrics off: $(OBJWIRE_METRICS_LISTEN= "$objwire" config show --daemon | grep -A1 '^\[metrics\]')"

# HEALTHCHECK's command, pointed at a daemon started with metrics off by the environment.
health=$(sed -n 's/^ *CMD \[\(.*\)\]$/\1/p' <<<"$runtime" | tr -d '",')
read -r -a health_cmd <<<"$health"
[ "${health_cmd[0]}" = objwire ] || fail "HEALTHCHECK runs '${health_cmd[*]}', not objwire"
OBJWIRE_METRICS_LISTEN= start_daemon "$dir/log" "$dir/data"
grep -q 'metrics endpoint off' "$dir/log" || fail "OBJWIRE_METRICS_LISTEN= did not turn the endpoint off"
args=("${health_cmd[@]:1}")
args=("${args[@]/127.0.0.1:7878/127.0.0.1:$port}")
"$objwire" "${args[@]}" >/dev/null || fail "the HEALTHCHECK command failed against a running objwired"
kill -TERM "$daemon"
rc=0
wait "$daemon" || rc=$?
daemon=""
[ "$rc" = 0 ] || fail "objwired exited $rc on SIGTERM"
"$objwire" "${args[@]}" >/dev/null 2>&1 && fail "the HEALTHCHECK command succeeds with no daemon"
echo "container_settings: ok"
