#!/usr/bin/env bash
# The Debian package as an operator meets it, in a fresh Debian 12 root (debootstrap; nothing
# of objwire in it): `apt-get install ./objwire_*.deb` resolves its dependencies from Debian's
# mirror; the user, /var/lib/objwire, the conffiles and the enabled (not started) unit are
# there; `systemd-analyze verify` passes on the installed unit; /usr/sbin/objwired runs as
# the package's user with the package's config and /usr/bin/objwire sends to it and reads
# back; `apt-get remove` keeps config and data, `apt-get purge` deletes them.
#   deb_test.sh DEB_FILE | BUILD_DIR      (scripts/package.sh --test builds it and runs this)
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

dir=$(mktemp -d /var/tmp/objwire-deb-test.XXXXXX)
root=$dir/root
cleanup() {
  [ -n "${daemon:-}" ] && kill "$daemon" 2>/dev/null || true
  for m in proc dev/pts dev; do umount -l "$root/$m" 2>/dev/null || true; done
  rm -rf "$dir"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; [ -f "$dir/log" ] && { echo "--- objwired log:" >&2; cat "$dir/log" >&2; }; exit 1; }
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }
source "$(dirname "$0")/../support/wait_until.sh"

if [ ! -x "$cache/usr/bin/apt-get" ]; then
  echo "deb_test: debootstrap bookworm from $mirror into $cache (once)"
  rm -rf "$cache.new"
  debootstrap --variant=minbase --include=systemd bookworm "$cache.new" "$mirror" >"$dir/debootstrap.log" 2>&1 ||
    { tail -20 "$dir/debootstrap.log" >&2; fail "debootstrap failed"; }
  mv "$cache.new" "$cache"
fi
cp -a "$cache" "$root"
in_root dpkg-query -W objwire >/dev/null 2>&1 && fail "the fresh root already has objwire"
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
echo "deb_test: root ready after $((SECONDS - start)) s"

# Install: apt resolves the dependencies.
cp "$deb" "$root/tmp/"
in_root apt-get update -q >"$dir/apt.log" 2>&1 || fail "apt-get update: $(tail -5 "$dir/apt.log")"
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
  "/tmp/$(basename "$deb")" >"$dir/apt.log" 2>&1 || fail "apt-get install: $(tail -20 "$dir/apt.log")"
echo "deb_test: installed after $((SECONDS - start)) s: $(grep -c '^Setting up' "$dir/apt.log") packages set up"
in_root objwired --version
in_root objwire --version

# What the package put in place.
in_root getent passwd objwire >/dev/null || fail "no user objwire"
[ "$(in_root stat -c %U:%G /var/lib/objwire)" = objwire:objwire ] || fail "/var/lib/objwire: $(in_root stat -c %U:%G /var/lib/objwire)"
conffiles=$(in_root dpkg-query -W -f='${Conffiles}' objwire)
for f in /etc/objwire/objwired.toml /etc/objwire/objwire.toml; do
  grep -q " $f " <<<"$conffiles " || fail "$f is not a conffile: $conffiles"
done
[ -L "$root/etc/systemd/system/multi-user.target.wants/objwired.service" ] || fail "the unit is not enabled"
unit=/usr/lib/systemd/system/objwired.service
grep -qx 'ExecStart=/usr/sbin/objwired --config /etc/objwire/objwired.toml' "$root$unit" ||
  fail "unit: $(grep ExecStart "$root$unit")"
out=$(in_root systemd-analyze verify "$unit" 2>&1) || fail "systemd-analyze verify: $out"
[ -z "$out" ] || fail "systemd-analyze verify warned: $out"
echo "deb_test: user, data directory, conffiles, enabled unit: ok; systemd-analyze verify $unit: ok"

# objwired as the package's user with the package's config (metrics off: the host may have
# something on 9464), objwire sending to it; the config alone puts the objects in
# /var/lib/objwire, as under the unit.
chroot --userspec=objwire:objwire "$root" /usr/bin/env -i OBJWIRE_METRICS_LISTEN= \
  /usr/sbin/objwired --config /etc/objwire/objwired.toml --listen 127.0.0.1:0 2>"$dir/log" &
daemon=$!
port=$(logged_port "$dir/log") || fail "objwired did not start"
in_root sh -c "objwire gen --workload person -n 1000 -o /tmp/person.jsonl && objwire send /tmp/person.jsonl --to 127.0.0.1:$port" \
  >"$dir/send.log" 2>&1 || fail "objwire send: $(cat "$dir/send.log")"
in_root objwire read --to "127.0.0.1:$port" -o /tmp/back.jsonl 2>>"$dir/send.log" || fail "objwire read: $(cat "$dir/send.log")"
cmp -s "$root/tmp/person.jsonl" "$root/tmp/back.jsonl" || fail "read back differs from what was sent"
kill -TERM "$daemon"
wait "$daemon" || fail "objwired exited $? on SIGTERM"
daemon=""
stored=$(find "$root/var/lib/objwire" -type f | wc -l)
[ "$stored" -gt 0 ] || fail "nothing stored in /var/lib/objwire"
echo "deb_test: objwired as objwire stored 1000 objects sent with /usr/bin/objwire, read back equal: ok"

# Remove keeps config and data; purge deletes them.
echo "# changed by the operator" >>"$root/etc/objwire/objwired.toml"
in_root env DEBIAN_FRONTEND=noninteractive apt-get remove -y -q objwire >"$dir/apt.log" 2>&1 || fail "apt-get remove: $(tail -5 "$dir/apt.log")"
[ ! -e "$root/usr/sbin/objwired" ] || fail "objwired still there after remove"
grep -q "changed by the operator" "$root/etc/objwire/objwired.toml" || fail "remove did not keep /etc/objwire/objwired.toml"
[ "$(find "$root/var/lib/objwire" -type f | wc -l)" = "$stored" ] || fail "remove did not keep /var/lib/objwire"
echo "deb_test: apt-get remove kept /etc/objwire and /var/lib/objwire: ok"
in_root env DEBIAN_FRONTEND=noninteractive apt-get purge -y -q objwire >"$dir/apt.log" 2>&1 || fail "apt-get purge: $(tail -5 "$dir/apt.log")"
[ ! -e "$root/etc/objwire" ] || fail "purge left /etc/objwire: $(ls -A "$root/etc/objwire")"
[ ! -e "$root/var/lib/objwire" ] || fail "purge left /var/lib/objwire"
echo "deb_test: apt-get purge deleted them: ok"
echo "deb_package: ok in $((SECONDS - start)) s"
