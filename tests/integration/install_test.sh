#!/usr/bin/env bash
# `cmake --install BUILD --prefix DIR` places the binaries (and their --version is right), the
# systemd unit, the example configs and the library, and the unit's paths are DIR's - worked
# out at install time, so two installs of one build to two prefixes get two different units -
# and pass `systemd-analyze verify` (when there is one).
set -euo pipefail
build=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

check_prefix() {
  local p=$1 unit=$1/lib/systemd/system/objwired.service
  cmake --install "$build" --prefix "$p" >"$dir/install.log" 2>&1 ||
    { cat "$dir/install.log" >&2; fail "cmake --install --prefix $p failed"; }
  for f in sbin/objwired bin/objwire; do
    [ -x "$p/$f" ] || fail "$f not installed (or not executable)"
  done
  for f in lib/systemd/system/objwired.service etc/objwire/objwired.toml etc/objwire/objwire.toml \
           include/objwire/connection.hpp lib/cmake/objwire/objwireConfig.cmake \
           lib/pkgconfig/objwire.pc; do
    [ -f "$p/$f" ] || fail "$f not installed"
  done
  # The Python module, when the build has it: importable from the prefix's Python path.
  if [ -d "$build/python/objwire" ]; then
    PYTHONPATH="$p/lib/python3/dist-packages" /usr/bin/python3 -c 'import objwire, sys; sys.exit(objwire.__file__.startswith(sys.argv[1]) is False)' "$p" ||
      fail "the Python module installed under $p does not import from there"
  fi
  "$p/sbin/objwired" --check-config "$p/etc/objwire/objwired.toml" >/dev/null ||
    fail "the installed objwired does not accept the installed config"
  grep -qx "ExecStart=$p/sbin/objwired --config $p/etc/objwire/objwired.toml" "$unit" ||
    fail "installed unit under $p: $(grep ExecStart "$unit")"
  if grep -n "/usr/local\|/usr/sbin\|/etc/objwire" "$unit" | grep -v "^[0-9]*:#" | grep -v "$p" >&2; then
    fail "the unit installed under $p names another prefix's paths (above)"
  fi
  # --version: the project's version (the one the package and objwire.pc carry), the
  # protocol version and the codecs built in; exit 0.
  local version
  version=$(sed -n 's/^Version: //p' "$p/lib/pkgconfig/objwire.pc")
  for prog in sbin/objwired bin/objwire; do
    out=$("$p/$prog" --version) || fail "$prog --version exited $?"
    [[ $out =~ ^objwired?\ $version\ \(protocol\ [0-9]+\;\ codecs:\ none\ zlib ]] ||
      fail "$prog --version printed '$out' (version $version)"
  done
  if command -v systemd-analyze >/dev/null; then
    out=$(systemd-analyze verify --man=no "$unit" 2>&1) || fail "systemd-analyze verify $unit: $out"
    [ -z "$out" ] || fail "systemd-analyze verify $unit warned: $out"
  fi
}
check_prefix "$dir/one"
check_prefix "$dir/two"
echo "cmake_install_layout: ok"
