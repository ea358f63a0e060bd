#!/usr/bin/env bash
# Builds a local stand-in for the Dockerfile's base image (node:<major>-bookworm-slim) where Docker
# Hub cannot be reached: Debian bookworm (debootstrap, minbase) with this machine's Node.js and npm
# laid out under /usr/local as the official image does, and a `node` user with uid/gid 1000.
#
#   scripts/image/base-standin.sh node:24-bookworm-slim
#
# Inside a build, npm reaches its registry only if the image trusts the same CA bundle as this
# machine (copied in and named as npm's `cafile`), and better-sqlite3 compiles only against Node's
# headers, which are copied to /usr/local/include/node (npm's `nodedir`). Needs root, debootstrap
# and a Debian mirror (DEBIAN_MIRROR, default deb.debian.org).
set -euo pipefail

tag="${1:?usage: base-standin.sh <tag, e.g. node:24-bookworm-slim>}"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"

# The tag promises a Node major: refuse to label another one with it.
want_major="$(sed -E 's/^[^:]*:([0-9]+).*/\1/' <<<"$tag")"
node_bin="$(readlink -f "$(command -v node)")"
have_major="$("$node_bin" -p 'process.versions.node.split(".")[0]')"
if [ "$want_major" != "$have_major" ]; then
  echo "base-standin: $tag wants Node $want_major, this machine has Node $have_major" >&2
  exit 1
fi
# npm runs on any Node: the one that runs here, wherever it is installed.
npm_dir="$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")"
headers="$(dirname "$(dirname "$node_bin")")/include/node"
[ -d "$headers" ] || { echo "base-standin: Node's headers not found at $headers" >&2; exit 1; }
ca_bundle="${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}"

root="$(mktemp -d /tmp/crm-proxy-base.XXXXXX)"
trap 'rm -rf "$root"' EXIT

echo "base-standin: debootstrap bookworm (minbase) from $mirror"
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.log" 2>&1 || {
  tail -20 "$root.log" >&2
  exit 1
}
rm -f "$root.log"

echo "base-standin: Node $("$node_bin" --version) and npm $(npm --version) under /usr/local"
install -d "$root/usr/local/bin" "$root/usr/local/lib/node_modules" "$root/usr/local/include" \
  "$root/usr/local/etc/ssl"
install -m 0755 "$node_bin" "$root/usr/local/bin/node"
cp -a "$npm_dir" "$root/usr/local/lib/node_modules/npm"
cp -a "$headers" "$root/usr/local/include/node"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
# Outside /etc/ssl, so an apt-get install of ca-certificates in a build does not replace it.
install -m 0644 "$ca_bundle" "$root/usr/local/etc/ssl/ca-bundle.crt"
cat >"$root/usr/local/etc/npmrc" <<'NPMRC'
cafile=/usr/local/etc/ssl/ca-bundle.crt
nodedir=/usr/local
update-notifier=false
fund=false
audit=false
NPMRC

chroot "$root" groupadd --gid 1000 node
chroot "$root" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/archives/*.deb

echo "base-standin: importing as $tag"
tar -C "$root" -c . | docker import \
  --change 'CMD ["node"]' - "$tag" >/dev/null
docker image inspect --format 'base-standin: {{.RepoTags}} {{.Size}} bytes' "$tag"
