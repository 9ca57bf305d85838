#!/usr/bin/env bash
# scripts/install-deps.sh never removes a package: with a fake apt-get, dpkg-query and id on
# PATH (a Debian root with Debian's libboost-dev 1.74 is too slow to build here), a simulated
# conflict stops it before any install, naming what would go and the choices; OBJWIRE_DEPS_SKIP
# and OBJWIRE_DEPS_ALLOW_REMOVE do what the message says; an install without conflict is still
# made with --no-remove.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir -p "$dir/bin" "$dir/noboost"
# Installed: everything but the packages in $MISSING. apt-get logs each call; a simulated
# install that includes libboost1.81-dev removes the 1.74 Boost and what depends on it, as
# Debian's apt-get does on such a machine.
cat >"$dir/bin/dpkg-query" <<'FAKE'
#!/bin/sh
for p; do :; done
for m in $MISSING; do [ "$m" = "$p" ] && { echo -n "unknown ok not-installed"; exit 0; }; done
echo -n "install ok installed"
FAKE
cat >"$dir/bin/apt-get" <<'FAKE'
#!/usr/bin/env bash
echo "apt-get $*" >>"$APT_LOG"
case " $* " in
  *" -s "*)
    for a in "$@"; do echo "Inst $a"; done
    case " $* " in *" libboost1.81-dev "*)
      printf 'Remv %s [1.74.0.3]\n' libboost-dev libboost1.74-dev libmsgpack-cxx-dev libmsgpack-dev ;;
    esac ;;
esac
exit 0
FAKE
printf '#!/bin/sh\necho 0\n' >"$dir/bin/id"
chmod +x "$dir/bin/"*

run() { # run NAME [VAR=VALUE...]: the script's exit code in $dir/NAME.rc, output in NAME.out
  local name=$1; shift
  : >"$dir/$name.apt"
  set +e
  env PATH="$dir/bin:$PATH" APT_LOG="$dir/$name.apt" OBJWIRE_DEPS_BOOST_INCLUDE="$dir/noboost" "$@" \
    bash "$src/scripts/install-deps.sh" >"$dir/$name.out" 2>&1
  echo $? >"$dir/$name.rc"
  set -e
}
installs() { grep -v -- " -s " "$dir/$1.apt" | grep " install " || true; }

# A conflict: stops with the reason and the choices, installs and removes nothing.
run conflict MISSING="strace libboost1.81-dev"
[ "$(cat "$dir/conflict.rc")" -eq 3 ] || fail "conflict: exit $(cat "$dir/conflict.rc"): $(cat "$dir/conflict.out")"
[ -z "$(installs conflict)" ] || fail "conflict: it installed: $(installs conflict)"
for want in "nothing installed or removed" "libboost-dev" "libmsgpack-cxx-dev" \
            'OBJWIRE_DEPS_SKIP="libboost1.81-dev"' "OBJWIRE_DEPS_ALLOW_REMOVE=1" "Boost >= 1.81"; do
  grep -qF -- "$want" "$dir/conflict.out" || fail "conflict: '$want' not said: $(cat "$dir/conflict.out")"
done
# Only the package that conflicts is named as the cause.
grep -q "installing libboost1.81-dev$" "$dir/conflict.out" || fail "conflict: cause not named: $(cat "$dir/conflict.out")"

# The first choice: the rest is installed, the conflicting package left out, nothing removed.
run skip MISSING="strace libboost1.81-dev" OBJWIRE_DEPS_SKIP=libboost1.81-dev
[ "$(cat "$dir/skip.rc")" -eq 0 ] || fail "skip: exit $(cat "$dir/skip.rc"): $(cat "$dir/skip.out")"
installs skip | grep -q -- "--no-remove strace$" || fail "skip: not 'install --no-remove strace': $(cat "$dir/skip.apt")"
grep -q "leaving out libboost1.81-dev" "$dir/skip.out" || fail "skip: not said: $(cat "$dir/skip.out")"

# The second choice: all installed, removal allowed and said.
run allow MISSING="strace libboost1.81-dev" OBJWIRE_DEPS_ALLOW_REMOVE=1
[ "$(cat "$dir/allow.rc")" -eq 0 ] || fail "allow: exit $(cat "$dir/allow.rc"): $(cat "$dir/allow.out")"
installs allow | grep -q "strace libboost1.81-dev$" || fail "allow: not installed: $(cat "$dir/allow.apt")"
installs allow | grep -q -- "--no-remove" && fail "allow: --no-remove given"
grep -q "removing libboost-dev" "$dir/allow.out" || fail "allow: removal not said: $(cat "$dir/allow.out")"

# No conflict: installed, and apt-get told never to remove.
run clean MISSING="strace"
[ "$(cat "$dir/clean.rc")" -eq 0 ] || fail "clean: exit $(cat "$dir/clean.rc"): $(cat "$dir/clean.out")"
installs clean | grep -q -- "--no-remove strace$" || fail "clean: not 'install --no-remove strace': $(cat "$dir/clean.apt")"

# A Boost >= 1.81 with Describe already there: its package is not asked for at all.
mkdir -p "$dir/boost/boost"
echo "#define BOOST_VERSION 108300" >"$dir/boost/boost/version.hpp"
touch "$dir/boost/boost/describe.hpp"
run present MISSING="libboost1.81-dev" OBJWIRE_DEPS_BOOST_INCLUDE="$dir/boost"
[ "$(cat "$dir/present.rc")" -eq 0 ] || fail "present: exit $(cat "$dir/present.rc"): $(cat "$dir/present.out")"
[ ! -s "$dir/present.apt" ] || fail "present: apt-get called: $(cat "$dir/present.apt")"
grep -q "a Boost with Describe" "$dir/present.out" || fail "present: not said: $(cat "$dir/present.out")"

# Nothing missing: apt-get is not called.
run none MISSING=""
[ "$(cat "$dir/none.rc")" -eq 0 ] && [ ! -s "$dir/none.apt" ] || fail "none: $(cat "$dir/none.out")"
echo "install_deps: 6 cases passed"
