#!/usr/bin/env bash
# The Debian package as an operator meets it, in a fresh Debian 12 root (debootstrap; nothing
# of objwire in it). `apt-get install ./objwire_*.deb` resolves its dependencies from Debian's
# mirror; the user, /var/lib/objwire, the conffiles and the enabled unit are there, and
# `systemd-analyze verify` passes on the installed unit. Then the operator's routine:
#   start         the daemon answers: `objwire send` then `objwire read` gives the objects back
#   reload good   a changed live key (metrics.listen) takes effect: the metrics endpoint answers
#                 and counts the reload
#   reload bad    a broken settings file: the reload command exits non-zero, the same daemon
#                 serves on with the old settings
#   stop          graceful: exit 0, the stored objects kept
#   upgrade       a second .deb of the same files with a higher version (made here with
#                 dpkg-deb) installed over the first, without a prompt: the conffile the
#                 operator changed keeps the change, the other stays, the stored objects stay,
#                 and the running daemon is restarted (under systemd) or left alone (without)
#   remove        config and stored objects kept
#   purge         /etc/objwire and /var/lib/objwire deleted; the user objwire stays
# in one of two modes, printed as the line `deb_test: mode ...`:
#   nspawn    the root is booted with `systemd-nspawn -b` (its own network namespace), the
#             package installed from inside, and objwired runs under its unit: systemctl start,
#             reload, stop; the maintainer scripts act on it as on a machine.
#   by-hand   where the root cannot be booted (no systemd-nspawn, or the kernel or the
#             sandbox refuse it; the line says why): the root is a chroot and objwired runs
#             as the package's user with the package's config; a reload runs the installed
#             unit's own ExecReload= commands, a stop is SIGTERM.
#   deb_test.sh DEB_FILE | BUILD_DIR      (scripts/package.sh --test builds it and runs this)
# OBJWIRE_DEB_TEST_MODE=nspawn|by-hand forces a mode (auto by default: nspawn if it boots).
# Needs root, debootstrap and the Debian mirror of /etc/apt/sources.list*. The debootstrap
# root is made once and kept in OBJWIRE_DEB_ROOT_CACHE (default
# /var/cache/objwire-test/bookworm-root); each run works on a copy of it.
set -euo pipefail
start=$SECONDS
arg=$1
if [ -d "$arg" ]; then deb=$(ls "$arg"/package/objwire_*.deb 2>/dev/null | head -1); else deb=$arg; fi
[ -f "${deb:-}" ] || { echo "deb_test: no package (scripts/package.sh makes it)" >&2; exit 1; }
deb=$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")
[ "$(id -u)" = 0 ] || { echo "SKIP: deb_test needs root"; exit 77; }
command -v debootstrap >/dev/null || { echo "SKIP: no debootstrap (apt-get install debootstrap)"; exit 77; }
cache=${OBJWIRE_DEB_ROOT_CACHE:-/var/cache/objwire-test/bookworm-root}
mirror=$(sed -n 's/^URIs: *\(http[^ ]*debian\)$/\1/p; s/^deb \(http[^ ]*debian\) bookworm .*/\1/p' \
           /etc/apt/sources.list /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1 || true)
mirror=${mirror:-http://deb.debian.org/debian}
mode=${OBJWIRE_DEB_TEST_MODE:-auto}
case $mode in auto | nspawn | by-hand) ;; *) echo "deb_test: OBJWIRE_DEB_TEST_MODE=$mode: nspawn, by-hand or auto" >&2; exit 1 ;; esac

dir=$(mktemp -d /var/tmp/objwire-deb-test.XXXXXX)
root=$dir/root
machine=objwire-deb-$$
unit=/usr/lib/systemd/system/objwired.service
source "$(dirname "$0")/../support/wait_until.sh"

cleanup() {
  [ -n "${daemon:-}" ] && kill "$daemon" 2>/dev/null || true
  power_off || true
  unmount_chroot
  rm -rf "$dir"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  echo "--- objwired log:" >&2
  daemon_log >&2 || true
  exit 1
}
# objwired's log: the unit's journal, or the files of the daemons started by hand.
daemon_log() {
  if [ "$mode" = nspawn ]; then
    inside journalctl -u objwired -o cat --no-pager
  else
    cat "$dir"/log.* 2>/dev/null
  fi
}
step() { echo "deb_test: $* after $((SECONDS - start)) s"; }

# A command in the root: through the booted container's namespaces, or chroot.
inside() {
  if [ -n "${leader:-}" ]; then
    nsenter -t "$leader" -m -u -i -n -p -r -w /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"
  else
    chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"
  fi
}
apt_in_root() {
  inside env DEBIAN_FRONTEND=noninteractive apt-get -y -q --no-install-recommends "$@" </dev/null >"$dir/apt.log" 2>&1 ||
    fail "apt-get $*: $(tail -20 "$dir/apt.log")"
}
mount_chroot() {
  mount -t proc proc "$root/proc"
  mount --bind /dev "$root/dev"
}
unmount_chroot() {
  local m
  for m in proc dev; do umount -l "$root/$m" 2>/dev/null || true; done
}

# --- The root, and whether it boots ---------------------------------------------------------
if [ ! -x "$cache/usr/bin/apt-get" ]; then
  echo "deb_test: debootstrap bookworm from $mirror into $cache (once)"
  rm -rf "$cache.new"
  debootstrap --variant=minbase --include=systemd bookworm "$cache.new" "$mirror" >"$dir/debootstrap.log" 2>&1 ||
    { tail -20 "$dir/debootstrap.log" >&2; fail "debootstrap failed"; }
  mv "$cache.new" "$cache"
fi
cp -a "$cache" "$root"
inside dpkg-query -W objwire >/dev/null 2>&1 && fail "the fresh root already has objwire"
mount_chroot
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
step "root ready"

# The container has no network of its own, so apt fetches the dependencies first, from the
# chroot; apt-get install inside then takes them from its cache.
v1=$(dpkg-deb -f "$deb" Version)
mkdir -p "$root/var/tmp/objwire"
cp "$deb" "$root/var/tmp/objwire/"
deb1=/var/tmp/objwire/$(basename "$deb")
apt_in_root update
apt_in_root install --download-only "$deb1"

# The same package with a higher version: the upgrade an operator gets, with unchanged files.
v2=$v1+upgrade1
dpkg-deb -R "$deb" "$dir/v2"
sed -i "s/^Version: .*/Version: $v2/" "$dir/v2/DEBIAN/control"
dpkg-deb -b "$dir/v2" "$root/var/tmp/objwire/objwire_${v2}_upgrade.deb" >/dev/null
deb2=/var/tmp/objwire/objwire_${v2}_upgrade.deb
dpkg --compare-versions "$v2" gt "$v1" || fail "$v2 is not above $v1"

# Settled: the container's init answers running or degraded, or nspawn has exited.
boot_settled() {
  kill -0 "$nspawn" 2>/dev/null || return 0
  local pid
  pid=$(ps -o pid= --ppid "$nspawn" | head -1 | tr -d ' ')
  [ -n "$pid" ] || return 1
  state=$(nsenter -t "$pid" -m -u -i -n -p -r -w /usr/bin/env -i PATH=/usr/bin:/bin \
            timeout 5 systemctl is-system-running 2>/dev/null) || true
  [ "$state" = running ] || [ "$state" = degraded ] || return 1
  leader=$pid
}
# Boots the root; when it cannot, says why in $why and returns 1.
try_boot() {
  command -v systemd-nspawn >/dev/null || { why="no systemd-nspawn (apt-get install systemd-container)"; return 1; }
  unmount_chroot
  state=""
  # --keep-unit --register=no: the host's PID 1 need not be systemd, nor machined running.
  systemd-nspawn -D "$root" -b -M "$machine" --register=no --keep-unit --private-network \
    --console=pipe </dev/null >"$dir/boot.log" 2>&1 &
  nspawn=$!
  if wait_until 120 boot_settled && [ -n "${leader:-}" ]; then return 0; fi
  why="systemd-nspawn -b did not boot (state: ${state:-none}): $(grep -v '^$' "$dir/boot.log" | tail -1)"
  power_off
  mount_chroot
  return 1
}
power_off() {
  [ -n "${nspawn:-}" ] || return 0
  kill -TERM "$nspawn" 2>/dev/null || true
  wait_until 60 nspawn_gone || kill -KILL "$nspawn" 2>/dev/null || true
  wait "$nspawn" 2>/dev/null || true
  nspawn=""
  leader=""
  # nspawn leaves this behind when /run is not a tmpfs.
  rm -rf "/run/systemd/nspawn/propagate/$machine"
}
nspawn_gone() { ! kill -0 "$nspawn" 2>/dev/null; }

if [ "$mode" = by-hand ]; then
  why="OBJWIRE_DEB_TEST_MODE=by-hand"
elif try_boot; then
  mode=nspawn
elif [ "$mode" = nspawn ]; then
  fail "OBJWIRE_DEB_TEST_MODE=nspawn: $why"
else
  mode=by-hand
fi
if [ "$mode" = nspawn ]; then
  echo "deb_test: mode nspawn (systemd $(inside systemctl --version | head -1 | awk '{print $2}') booted in the root, state $(inside systemctl is-system-running || true))"
else
  echo "deb_test: mode by-hand (why: $why)"
fi

# --- Install, and what the package put in place ------------------------------------------------
apt_in_root install "$deb1"
step "installed: $(grep -c '^Setting up' "$dir/apt.log") packages set up"
inside objwired --version
inside objwire --version
inside getent passwd objwire >/dev/null || fail "no user objwire"
[ "$(inside stat -c %U:%G /var/lib/objwire)" = objwire:objwire ] || fail "/var/lib/objwire: $(inside stat -c %U:%G /var/lib/objwire)"
conffiles=$(inside dpkg-query -W -f='${Conffiles}' objwire)
for f in /etc/objwire/objwired.toml /etc/objwire/objwire.toml; do
  grep -q " $f " <<<"$conffiles " || fail "$f is not a conffile: $conffiles"
done
[ -L "$root/etc/systemd/system/multi-user.target.wants/objwired.service" ] || fail "the unit is not enabled"
grep -qx 'ExecStart=/usr/sbin/objwired --config /etc/objwire/objwired.toml' "$root$unit" ||
  fail "unit: $(grep ExecStart "$root$unit")"
out=$(inside systemd-analyze verify --man=no "$unit" 2>&1) || fail "systemd-analyze verify: $out"
[ -z "$out" ] || fail "systemd-analyze verify warned: $out"
if [ "$mode" = nspawn ]; then
  [ "$(inside systemctl is-enabled objwired)" = enabled ] || fail "the unit is not enabled: $(inside systemctl is-enabled objwired)"
  ! inside systemctl -q is-active objwired || fail "the install started objwired"
fi
echo "deb_test: user, data directory, conffiles, enabled unit$([ "$mode" = nspawn ] && echo ", not started"): ok; systemd-analyze verify $unit: ok"

# --- The daemon, under its unit or by hand ------------------------------------------------------
start_daemon() {
  if [ "$mode" = nspawn ]; then
    inside timeout 60 systemctl start objwired || fail "systemctl start objwired: $(inside systemctl status objwired)"
    port=7878
  else
    starts=$((${starts:-0} + 1))
    local log=$dir/log.$starts
    chroot --userspec=objwire:objwire "$root" /usr/bin/env -i /usr/sbin/objwired \
      --config /etc/objwire/objwired.toml 2>"$log" &
    daemon=$!
    port=$(logged_port "$log") || fail "objwired did not start"
  fi
}
main_pid() {
  if [ "$mode" = nspawn ]; then inside systemctl show -P MainPID objwired; else echo "${daemon:-0}"; fi
}
# What `systemctl reload` runs: the unit's ExecReload= lines in order, as its user, $MAINPID
# filled in; the first that fails ends it with its status.
reload_daemon() {
  if [ "$mode" = nspawn ]; then
    inside timeout 60 systemctl reload objwired
    return
  fi
  local line words
  while read -r line; do
    read -r -a words <<<"${line//\$MAINPID/$daemon}"
    chroot --userspec=objwire:objwire "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
      timeout 60 "${words[@]}" || return
  done < <(sed -n 's/^ExecReload=//p' "$root$unit")
}
# Stops the daemon and checks that it exited 0.
stop_daemon() {
  if [ "$mode" = nspawn ]; then
    inside timeout 60 systemctl stop objwired || fail "systemctl stop objwired"
    stopped_cleanly || fail "objwired did not exit 0 on stop: $(inside systemctl show -p Result -p ExecMainStatus objwired)"
  else
    kill -TERM "$daemon"
    wait "$daemon" || fail "objwired exited $? on SIGTERM"
    daemon=""
  fi
}
stopped_cleanly() {
  [ "$(inside systemctl show -P ExecMainStatus objwired)" = 0 ] &&
    [ "$(inside systemctl show -P Result objwired)" = success ]
}
stat_value() {
  inside objwire stats --json --to "127.0.0.1:$port" | grep -o "\"$1\":[0-9]*" | cut -d: -f2
}
metrics_port() { daemon_log | grep -o 'metrics on http://127.0.0.1:[0-9]*' | tail -1 | sed 's/.*://' | grep .; }
metrics_text() {
  inside timeout 10 bash -c 'exec 3<>/dev/tcp/127.0.0.1/$1 && printf "GET /metrics HTTP/1.0\r\n\r\n" >&3 && cat <&3' _ "$1"
}
work=/var/tmp/objwire
# Sends N more person objects and checks that objwire read gives back everything sent so far.
send_and_read_back() {
  inside objwire gen --workload person -n "$1" -o "$work/batch.jsonl" >"$dir/send.log" 2>&1 ||
    fail "objwire gen: $(cat "$dir/send.log")"
  inside objwire send "$work/batch.jsonl" --to "127.0.0.1:$port" >>"$dir/send.log" 2>&1 ||
    fail "objwire send: $(cat "$dir/send.log")"
  cat "$root$work/batch.jsonl" >>"$dir/sent.jsonl"
  read_back
}
read_back() {
  inside objwire read --to "127.0.0.1:$port" -o "$work/back.jsonl" 2>>"$dir/send.log" || fail "objwire read: $(cat "$dir/send.log")"
  cmp -s "$dir/sent.jsonl" "$root$work/back.jsonl" ||
    fail "read back $(wc -l <"$root$work/back.jsonl") objects, not the $(wc -l <"$dir/sent.jsonl") sent"
}
stored_files() { find "$root/var/lib/objwire" -type f -printf '%P %s\n' | sort; }

# --- The operator's routine ---------------------------------------------------------------------
# The operator's own settings: metrics off to begin with; by hand, on the host's network, a
# free port instead of 7878.
conf=/etc/objwire/objwired.toml
cp "$root$conf" "$dir/shipped.toml"
cp "$root/etc/objwire/objwire.toml" "$dir/shipped-client.toml"
sed -i 's|^listen = "127.0.0.1:9464"$|listen = ""|' "$root$conf"
[ "$mode" = nspawn ] || sed -i 's|^listen = "127.0.0.1:7878"$|listen = "127.0.0.1:0"|' "$root$conf"
echo "# changed by the operator" >>"$root$conf"
: >"$dir/sent.jsonl"

start_daemon
pid=$(main_pid)
send_and_read_back 1000
echo "deb_test: start: objwired (pid $pid) stored 1000 objects sent with /usr/bin/objwire, read back equal: ok"

# Reload, good: metrics.listen is live.
sed -i 's|^listen = ""$|listen = "127.0.0.1:0"|' "$root$conf"
cp "$root$conf" "$dir/operator.toml"
reload_daemon >"$dir/reload.log" 2>&1 || fail "the reload of a good file exited $?: $(cat "$dir/reload.log")"
wait_until 10 metrics_port >/dev/null || fail "the reload did not open the metrics endpoint"
mport=$(metrics_port)
metrics_text "$mport" | grep -qx 'objwire_reloads_total 1' || fail "metrics after the reload: $(metrics_text "$mport" | grep reload)"
[ "$(main_pid)" = "$pid" ] || fail "the reload replaced the daemon"
echo "deb_test: reload good: metrics.listen applied live, the endpoint on :$mport counts 1 reload: ok"

# Reload, bad: the check refuses the file, the daemon is not signalled and serves on.
sed -i 's|^max_connections = 1024$|max_connections = 0|' "$root$conf"
grep -qx 'max_connections = 0' "$root$conf" || fail "no max_connections = 1024 in $conf"
if reload_daemon >"$dir/reload.log" 2>&1; then fail "the reload of a broken file succeeded"; fi
[ "$(main_pid)" = "$pid" ] || fail "the bad reload replaced the daemon"
[ "$(stat_value objwire_reloads_total)" = 1 ] || fail "the bad file was reloaded: $(stat_value objwire_reloads_total) reloads"
metrics_text "$mport" | grep -q '^objwire_reloads_total 1' || fail "the metrics endpoint changed on the bad reload"
send_and_read_back 500
# The check's message, on the terminal by hand, in the unit's journal under systemd.
refusal=$({ cat "$dir/reload.log"; daemon_log; } | grep -m1 "^$conf:[0-9]" || true)
grep -q max_connections <<<"$refusal" || fail "the refused reload did not name the key: $(cat "$dir/reload.log")"
cp "$dir/operator.toml" "$root$conf"
echo "deb_test: reload bad: exited non-zero, \"$refusal\", same daemon serves with the old settings: ok"

# Stop: graceful, data kept.
stop_daemon
before=$(stored_files)
[ -n "$before" ] || fail "nothing stored in /var/lib/objwire"
echo "deb_test: stop: exit 0, $(wc -l <<<"$before") files kept in /var/lib/objwire: ok"

# Upgrade over a running daemon; no conffile prompt (stdin is /dev/null).
start_daemon
pid=$(main_pid)
apt_in_root install "$deb2"
[ "$(inside dpkg-query -W -f='${Version}' objwire)" = "$v2" ] || fail "after the upgrade: $(inside dpkg-query -W objwire)"
cmp -s "$dir/operator.toml" "$root$conf" || fail "the upgrade changed the operator's $conf"
cmp -s "$dir/shipped-client.toml" "$root/etc/objwire/objwire.toml" || fail "the upgrade changed /etc/objwire/objwire.toml"
leftovers=$(find "$root/etc/objwire" -name '*.dpkg-*')
[ -z "$leftovers" ] || fail "the upgrade left $leftovers"
if [ "$mode" = nspawn ]; then
  inside systemctl -q is-active objwired || fail "objwired not running after the upgrade"
  [ "$(main_pid)" != "$pid" ] || fail "the upgrade did not restart objwired (pid $pid)"
  how="restarted (pid $pid -> $(main_pid))"
else
  # Without systemd the maintainer scripts leave a daemon alone.
  kill -0 "$pid" || fail "the upgrade stopped the daemon started by hand"
  read_back
  stop_daemon
  start_daemon
  how="left running (pid $pid) by the maintainer scripts, restarted by hand"
fi
read_back
echo "deb_test: upgrade $v1 -> $v2: operator's objwired.toml kept, objwire.toml kept, no prompt, objwired $how, $(wc -l <"$dir/sent.jsonl") objects read back: ok"

# Remove: under systemd prerm stops the daemon; by hand the operator does.
if [ "$mode" = nspawn ]; then
  apt_in_root remove objwire
  ! inside systemctl -q is-active objwired || fail "objwired still running after remove"
  stopped_cleanly || fail "objwired did not exit 0 when removed: $(inside systemctl show -p Result -p ExecMainStatus objwired)"
  # Every daemon of the routine (start, upgrade's restart, remove's stop) exited 0.
  unclean=$(daemon_log | grep -E 'Main process exited|Failed with result' || true)
  [ -z "$unclean" ] || fail "systemd says: $unclean"
  [ "$(daemon_log | grep -c '^stopped: ')" = 3 ] || fail "not 3 drained stops: $(daemon_log | grep '^stopped')"
else
  stop_daemon
  apt_in_root remove objwire
fi
[ ! -e "$root/usr/sbin/objwired" ] || fail "objwired still there after remove"
cmp -s "$dir/operator.toml" "$root$conf" || fail "remove did not keep $conf"
lost=$(comm -23 <(cut -d' ' -f1 <<<"$before") <(stored_files | cut -d' ' -f1))
[ -z "$lost" ] || fail "remove did not keep /var/lib/objwire: $lost gone"
echo "deb_test: remove: objwired stopped, /etc/objwire and /var/lib/objwire kept: ok"

apt_in_root purge objwire
[ ! -e "$root/etc/objwire" ] || fail "purge left /etc/objwire: $(ls -A "$root/etc/objwire")"
[ ! -e "$root/var/lib/objwire" ] || fail "purge left /var/lib/objwire"
inside getent passwd objwire >/dev/null || fail "purge deleted the user objwire (the scripts keep it)"
echo "deb_test: purge: /etc/objwire and /var/lib/objwire deleted, user objwire kept: ok"
power_off
echo "deb_package: ok in $((SECONDS - start)) s (mode $mode)"
