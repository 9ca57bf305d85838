#!/usr/bin/env bash
# daemon/ops/objwired.service passes `systemd-analyze verify` with no warning (an unknown or
# misspelt key is only a warning there, so any output fails the test), with ExecStart pointing
# at the objwired just built; and it keeps the settings the service relies on, the config
# file being the only source of objwired's settings.
set -euo pipefail
unit=$1
objwired=$2
command -v systemd-analyze >/dev/null || { echo "SKIP: no systemd-analyze"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

sed "s|/usr/sbin/objwired|$objwired|" "$unit" >"$dir/objwired.service"
grep -q "^ExecStart=$objwired " "$dir/objwired.service" || fail "ExecStart was not substituted"
rc=0
# --man=no: the pages Documentation= names come with the package (tests/package/deb_lint_test.sh
# checks them there), not with this build.
out=$(systemd-analyze verify --man=no "$dir/objwired.service" 2>&1) || rc=$?
[ "$rc" -eq 0 ] || fail "systemd-analyze verify exited $rc: $out"
[ -z "$out" ] || fail "systemd-analyze verify warned: $out"

for line in 'Documentation=man:objwired(8) man:objwired.toml(5)' Type=notify User=objwire \
            StateDirectory=objwire ProtectSystem=strict \
            NoNewPrivileges=yes 'ExecReload=/bin/kill -HUP $MAINPID' WatchdogSec=30s; do
  grep -qxF "$line" "$unit" || fail "the unit lacks '$line'"
done
# The config file alone says where objects go: a flag would override server.data_dir
# without --check-config seeing it.
grep -qx 'ExecStart=/usr/sbin/objwired --config /etc/objwire/objwired.toml' "$unit" ||
  fail "ExecStart passes more than the config file: $(grep ^ExecStart "$unit")"

# A broken unit fails the same check: the test can fail.
sed 's/^ProtectSystem=strict/ProtectSystm=strict/' "$dir/objwired.service" >"$dir/broken.service"
out=$(systemd-analyze verify "$dir/broken.service" 2>&1 || true)
[ -n "$out" ] || fail "a misspelt key went unnoticed"
echo "service_unit_verify: ok"
