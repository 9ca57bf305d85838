#!/usr/bin/env bash
# `cmake --install BUILD --prefix DIR` places the binaries, the systemd unit (its paths
# pointing at the configured prefix) and the example configs.
set -euo pipefail
build=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$dir" >"$dir.log" 2>&1 || { cat "$dir.log" >&2; rm -f "$dir.log"; fail "cmake --install failed"; }
rm -f "$dir.log"
for f in sbin/objwired bin/objwire; do
  [ -x "$dir/$f" ] || fail "$f not installed (or not executable)"
done
for f in lib/systemd/system/objwired.service etc/objwire/objwired.toml etc/objwire/objwire.toml; do
  [ -f "$dir/$f" ] || fail "$f not installed"
done
"$dir/sbin/objwired" --check-config "$dir/etc/objwire/objwired.toml" >/dev/null ||
  fail "the installed objwired does not accept the installed config"
grep -q '^ExecStart=/.*/objwired --config /.*/objwire/objwired.toml ' "$dir/lib/systemd/system/objwired.service" ||
  fail "installed unit: $(grep ExecStart "$dir/lib/systemd/system/objwired.service")"
echo "cmake_install_layout: ok"
