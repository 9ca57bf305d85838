#!/usr/bin/env bash
# Installs the Debian 12 packages objwire builds and tests with - only those missing, so a
# second run changes nothing and says so. Needs root (or sudo) only when something is missing.
#
# It never removes a package: apt-get is first asked what it would do (`apt-get install -s`);
# when that removes anything (Debian's default libboost-dev 1.74 conflicts with
# libboost1.81-dev, for one) it stops, names the packages and the choices, and changes nothing.
#   OBJWIRE_DEPS_SKIP="PKG ..."   install the others and leave these out
#   OBJWIRE_DEPS_ALLOW_REMOVE=1   install all and let apt-get remove what it named
set -euo pipefail

packages=(
  cmake g++ ninja-build pkg-config
  libasio-dev libspdlog-dev libfmt-dev zlib1g-dev libtomlplusplus-dev libcli11-dev
  libsimdjson-dev libzstd-dev liblz4-dev libssl-dev openssl
  libgtest-dev libgmock-dev libbenchmark-dev
  clang-14 libclang-rt-14-dev  # libFuzzer and the sanitizer runtimes: scripts/fuzz.sh, scripts/tsan.sh
  strace  # tests/integration/write_calls_test.sh counts the client's write system calls
  libsystemd-dev  # sd_notify: READY/RELOADING/STOPPING/WATCHDOG under systemd (daemon/ops/service_notify.cpp)
  nats-server libnats-dev  # the nats sink (daemon/sinks/nats_sink.*) and its integration tests
  iproute2  # tests/bench/link.sh (ip, tc) and its test tests/bench/link_test.sh
  valgrind  # tests/bench/instruction_guard.sh: callgrind instruction counts, a CI guard
  libboost1.81-dev  # Boost.Describe: field names of the structs include/objwire/typed.hpp sends
  time  # /usr/bin/time -v: the client's peak RSS in tests/integration/send_rss_test.sh
  python3  # packaging/make_docs.py: the man pages and bash completion, at build time
  lintian  # tests/package/deb_lint_test.sh: the .deb passes lintian without error or warning
  debootstrap systemd-container  # tests/package/deb_test.sh: a fresh Debian 12 root, booted with systemd-nspawn
  prometheus  # promtool: tests/repo/alert_rules_test.sh, tests/integration/metrics_values_test.sh
  pybind11-dev python3-dev python3-pytest  # the Python module (client/python) and its tests (tests/python)
)
boost_package=libboost1.81-dev
# Where a Boost is looked for when its package is not installed (a test points it elsewhere).
boost_include=${OBJWIRE_DEPS_BOOST_INCLUDE:-/usr/include}
read -r -a skip <<<"${OBJWIRE_DEPS_SKIP:-}"

is_skipped() {
  local s
  for s in "${skip[@]}"; do [ "$s" = "$1" ] && return 0; done
  return 1
}

# A Boost of 1.81 or later installed some other way (a backport, a source install) has
# Describe and is what CMake asks for: no need for Debian's 1.81 package then.
boost_present() {
  local v
  v=$(sed -n 's/^#define BOOST_VERSION \([0-9]*\)/\1/p' "$boost_include/boost/version.hpp" 2>/dev/null)
  [ -n "$v" ] && [ "$v" -ge 108100 ] && [ -f "$boost_include/boost/describe.hpp" ]
}

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" && continue
  if is_skipped "$p"; then
    echo "install-deps: leaving out $p (OBJWIRE_DEPS_SKIP)"
    continue
  fi
  if [ "$p" = "$boost_package" ] && boost_present; then
    echo "install-deps: a Boost with Describe is in $boost_include; not installing $p"
    continue
  fi
  missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
if ! $sudo apt-get update -q >"$log/update" 2>&1; then
  echo "install-deps: 'apt-get update' failed; its output:" >&2
  tail -20 "$log/update" >&2
  exit 1
fi

# What apt-get would remove to install PKG...: the names after its "Remv" lines.
would_remove() {
  apt-get install -s -q --no-install-recommends "$@" 2>/dev/null | sed -n 's/^Remv \([^ ]*\).*/\1/p'
}

remove_flag=(--no-remove)
removed=$(would_remove "${missing[@]}" | tr '\n' ' ')
if [ -n "$removed" ]; then
  if [ "${OBJWIRE_DEPS_ALLOW_REMOVE:-0}" = 1 ]; then
    echo "install-deps: removing ${removed}(OBJWIRE_DEPS_ALLOW_REMOVE=1)"
    remove_flag=()
  else
    culprits=()
    for p in "${missing[@]}"; do
      [ -n "$(would_remove "$p")" ] && culprits+=("$p")
    done
    {
      echo "install-deps: stopped, nothing installed or removed: installing ${culprits[*]:-${missing[*]}}"
      echo "  would remove installed packages: $removed"
      echo "choices:"
      echo "  OBJWIRE_DEPS_SKIP=\"${culprits[*]:-}\" $0"
      echo "      installs the rest and leaves these out;"
      if printf '%s\n' "${culprits[@]}" | grep -qx "$boost_package"; then
        echo "      without $boost_package the build needs a Boost >= 1.81 (Describe, for the typed"
        echo "      records of include/objwire/typed.hpp) from elsewhere: cmake -DBoost_ROOT=DIR"
      fi
      echo "  OBJWIRE_DEPS_ALLOW_REMOVE=1 $0"
      echo "      installs all and lets apt-get remove the packages above"
      echo "  or run on a machine (a container: docker/Dockerfile) where nothing conflicts"
    } >&2
    exit 3
  fi
fi

echo "install-deps: installing ${missing[*]}"
if ! $sudo apt-get install -y -q --no-install-recommends "${remove_flag[@]}" "${missing[@]}" >"$log/install" 2>&1; then
  echo "install-deps: 'apt-get install ${missing[*]}' failed; its output:" >&2
  tail -20 "$log/install" >&2
  exit 1
fi
echo "install-deps: installed ${#missing[@]} packages"
