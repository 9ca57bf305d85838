#!/usr/bin/env bash
# The Debian package as Debian's tools judge it, without installing it:
#  - `lintian` reports no error and no warning on the .deb (it is built here with cpack from
#    this build, as scripts/package.sh does);
#  - its man pages render without a groff/man warning, objwire(1) names every subcommand of
#    `objwire --help` and objwired.toml(5) every key of `objwire config show` (both programs);
#    objwired(8) has SIGNALS, EXIT STATUS, ENVIRONMENT, FILES and METRICS, and the unit's
#    Documentation= names it;
#  - its bash completion is installed and offers every subcommand and every flag of each
#    subcommand's --help, and the values of a flag with a fixed set;
#  - its postinst (upgrade) and prerm (remove) restart and stop the daemon through
#    deb-systemd-invoke, and a policy-rc.d that exits 101 stops both. They run in a mount
#    namespace (unshare -rm, no root needed) whose /run has /run/systemd/system, as on a host
#    booted with systemd, with a `systemctl` on PATH that records its calls and fakes of the
#    commands that would change this machine (getent, install, deb-systemd-helper); the real
#    deb-systemd-invoke finds the policy-rc.d under DPKG_ROOT.
#   deb_lint_test.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
objwire=$build/client/objwire
command -v lintian >/dev/null || { echo "FAIL: no lintian (scripts/install-deps.sh installs it)" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cpack --config "$build/CPackConfig.cmake" -G DEB -B "$dir/out" >"$dir/cpack.log" 2>&1 ||
  fail "cpack: $(tail -20 "$dir/cpack.log")"
deb=$(ls "$dir"/out/objwire_*.deb)

# lintian: errors and warnings fail (informational tags do not).
lintian --fail-on error,warning --tag-display-limit 0 "$deb" >"$dir/lintian.log" 2>&1 ||
  fail "lintian on $(basename "$deb"): $(cat "$dir/lintian.log")"
echo "deb_lint: lintian $(lintian --version | awk '{print $2}'): no error, no warning"
# The Python module's package, when the build has the module (docs/PYTHON.md).
if [ -d "$build/python/objwire" ]; then
  pydeb=$(ls "$dir"/out/python3-objwire_*.deb) || fail "no python3-objwire package"
  lintian --fail-on error,warning --tag-display-limit 0 "$pydeb" >"$dir/lintian-py.log" 2>&1 ||
    fail "lintian on $(basename "$pydeb"): $(cat "$dir/lintian-py.log")"
  grep -q "/usr/lib/python3/dist-packages/objwire/__init__.py" <<<"$(dpkg-deb -c "$pydeb")" ||
    fail "python3-objwire holds no objwire package in dist-packages"
  echo "deb_lint: python3-objwire: no error, no warning"
fi

dpkg-deb -x "$deb" "$dir/root"
dpkg-deb -e "$deb" "$dir/control"
root=$dir/root
for f in usr/share/doc/objwire/copyright usr/share/doc/objwire/changelog.gz; do
  [ -s "$root/$f" ] || fail "no /$f in the package"
done
version=$(dpkg-deb -f "$deb" Version)
[ "$(zcat "$root/usr/share/doc/objwire/changelog.gz" | head -1)" = "objwire ($version) unstable; urgency=medium" ] ||
  fail "the changelog's last entry is not $version: $(zcat "$root/usr/share/doc/objwire/changelog.gz" | head -1)"

# Man pages: render without warnings, and say what the programs say.
for page in man1/objwire.1.gz man5/objwired.toml.5.gz man8/objwired.8.gz; do
  f=$root/usr/share/man/$page
  [ -s "$f" ] || fail "no /usr/share/man/$page"
  warnings=$(MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -l "$f" 2>&1 >/dev/null)
  [ -z "$warnings" ] || fail "$page renders with warnings: $warnings"
done
render() { MANWIDTH=200 LC_ALL=C.UTF-8 man -l "$root/usr/share/man/$1" 2>/dev/null | col -bx; }
subcommands() { "$objwire" "$@" --help | sed -n '/^Subcommands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p'; }
man1=$(render man1/objwire.1.gz)
n=0
for sub in $(subcommands); do
  grep -q "^   objwire $sub\$" <<<"$man1" || fail "objwire(1) has no section for 'objwire $sub'"
  for nested in $(subcommands "$sub"); do
    grep -q "^   objwire $sub $nested\$" <<<"$man1" || fail "objwire(1) has no 'objwire $sub $nested'"
  done
  n=$((n + 1))
done
[ "$n" -ge 5 ] || fail "objwire --help lists only $n subcommands"
man5=$(render man5/objwired.toml.5.gz)
keys() {
  "$objwire" config show "$@" |
    awk '/^\[/ {gsub(/[][]/, ""); s = $0; next} /^[a-z_]+ *=/ {print s "." $1}'
}
k=0
for key in $( (keys --daemon; keys --to 127.0.0.1:1) | sort -u); do
  grep -q "^       $key (" <<<"$man5" || fail "objwired.toml(5) has no key $key (objwire config show has it)"
  k=$((k + 1))
done
[ "$k" -ge 60 ] || fail "objwire config show printed only $k keys"
man8=$(render man8/objwired.8.gz)
grep -q -- "--check-config" <<<"$man8" || fail "objwired(8) lacks --check-config"
# What an operator looks up: the signals, the exit codes, the variables, the files, the metrics.
for section in SIGNALS "EXIT STATUS" ENVIRONMENT FILES METRICS; do
  grep -q "^$section\$" <<<"$man8" || fail "objwired(8) has no $section section"
done
for word in SIGHUP SIGTERM 78 OBJWIRE_SERVER_LISTEN JOURNAL_STREAM /var/lib/objwire /metrics; do
  grep -q -- "$word" <<<"$man8" || fail "objwired(8) does not mention $word"
done
# The unit points systemctl status and help at the man page.
unit=$root/lib/systemd/system/objwired.service
[ -f "$unit" ] || unit=$(find "$root" -name objwired.service | head -1)
grep -q '^Documentation=man:objwired(8)' "$unit" || fail "the unit has no Documentation=man:objwired(8)"
echo "deb_lint: 3 man pages render without warnings; objwire(1) has all $n subcommands, objwired.toml(5) all $k keys"

# Bash completion, as bash runs it for `objwire WORDS... CUR<TAB>`.
completion=$root/usr/share/bash-completion/completions/objwire
[ -s "$completion" ] || fail "no /usr/share/bash-completion/completions/objwire"
complete_words() {
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _objwire; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$completion" objwire "$@"
}
offered() { grep -qx -- "$1" <<<"$2" || fail "completing 'objwire ${*:3}' does not offer $1: $(tr '\n' ' ' <<<"$2")"; }
flags() { "$objwire" "$@" --help | sed -n '/^Options:/,/^$/s/^  \(-[^ ]*\).*/\1/p' | tr ',' '\n' | grep '^-'; }
top=$(complete_words "")
for sub in $(subcommands); do
  offered "$sub" "$top" ""
  for flag in $(flags "$sub"); do offered "$flag" "$(complete_words "$sub" -)" "$sub" -; done
  for nested in $(subcommands "$sub"); do
    offered "$nested" "$(complete_words "$sub" "")" "$sub"
    for flag in $(flags "$sub" "$nested"); do
      offered "$flag" "$(complete_words "$sub" "$nested" -)" "$sub" "$nested" -
    done
  done
done
codecs=$(complete_words send --codec "")
for c in zlib zstd lz4; do offered "$c" "$codecs" send --codec; done
[ "$(complete_words conf)" = config ] || fail "'objwire conf' completes to $(complete_words conf)"
echo "deb_lint: bash completion offers every subcommand and flag of objwire --help"

# policy-rc.d: the maintainer scripts in a namespace with /run/systemd/system.
fakes=$dir/fakes
mkdir -p "$fakes" "$dir/policy/usr/sbin"
printf '#!/bin/sh\necho "systemctl $*" >>"%s/calls"\n' "$dir" >"$fakes/systemctl"
printf '#!/bin/sh\necho "deb-systemd-helper $*" >>"%s/calls"\n' "$dir" >"$fakes/deb-systemd-helper"
printf '#!/bin/sh\nexit 0\n' >"$fakes/getent"
printf '#!/bin/sh\necho "install $*" >>"%s/calls"\n' "$dir" >"$fakes/install"
chmod +x "$fakes"/*
run_script() { # POLICY_EXIT SCRIPT ARGS...: the systemctl calls it made
  local policy=$1
  shift
  printf '#!/bin/sh\nexit %s\n' "$policy" >"$dir/policy/usr/sbin/policy-rc.d"
  chmod +x "$dir/policy/usr/sbin/policy-rc.d"
  : >"$dir/calls"
  unshare -rm sh -c 'mount -t tmpfs tmpfs /run && mkdir -p /run/systemd/system && exec "$@"' _ \
    env -i PATH="$fakes:/usr/sbin:/usr/bin:/sbin:/bin" DPKG_ROOT="$dir/policy" "$@" 2>"$dir/stderr" ||
    fail "$* exited $?: $(cat "$dir/stderr")"
  grep '^systemctl ' "$dir/calls" || true
}
calls=$(run_script 0 "$dir/control/postinst" configure 0.0.9)
grep -q "try-restart objwired.service" <<<"$calls" || fail "postinst (upgrade) did not restart: $calls"
calls=$(run_script 101 "$dir/control/postinst" configure 0.0.9)
grep -q "daemon-reload" <<<"$calls" || fail "postinst did not run in the namespace with systemd: $calls"
! grep -Eq "start|restart|stop" <<<"$calls" || fail "policy-rc.d exit 101, yet postinst ran: $calls"
calls=$(run_script 0 "$dir/control/prerm" remove)
grep -q "stop objwired.service" <<<"$calls" || fail "prerm (remove) did not stop: $calls"
calls=$(run_script 101 "$dir/control/prerm" remove)
[ -z "$calls" ] || fail "policy-rc.d exit 101, yet prerm ran: $calls"
calls=$(run_script 0 "$dir/control/postinst" configure "")
! grep -Eq "start|stop" <<<"$calls" || fail "a first install started the daemon: $calls"
echo "deb_lint: postinst restarts and prerm stops objwired only when policy-rc.d allows (exit 101: neither)"
echo "deb_lint: ok"
