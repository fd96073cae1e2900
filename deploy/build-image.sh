#!/bin/sh
# Builds the image of deploy/Containerfile where no container registry can be
# reached: the same Debian (from its package mirror, through debootstrap), the
# same packages, the same koth at the same place, the same entry point. Needs
# root, debootstrap and podman (or docker).
#
#   deploy/build-image.sh [TAG]          (TAG: koth by default)
#
# KOTH_BIN: a koth built already (by default: cargo build --release here; it
#   must run on Debian 12, so build it on Debian 12 or older)
# MIRROR:   the Debian mirror (http://deb.debian.org/debian)
# ENGINE:   the container engine's command (podman)
set -eu
tag=${1:-koth}
engine=${ENGINE:-podman}
mirror=${MIRROR:-http://deb.debian.org/debian}
cd "$(dirname "$0")/.."
bin=${KOTH_BIN:-}
if [ -z "$bin" ]; then
  cargo build --release -p koth
  bin=target/release/koth
fi
[ -x "$bin" ] || { echo "error: $bin is not a program (KOTH_BIN)" >&2; exit 1; }
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
# What the Containerfile's second stage installs, on what it starts from.
debootstrap --variant=minbase --include=bubblewrap,python3,nodejs,ca-certificates \
  bookworm "$root" "$mirror" >&2
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/archives/*.deb
install -m 755 "$bin" "$root/usr/local/bin/koth"
mkdir -p "$root/hill"
tar -C "$root" -c . | $engine import \
  --change 'VOLUME /hill' \
  --change 'EXPOSE 8080' \
  --change 'STOPSIGNAL SIGINT' \
  --change 'ENTRYPOINT ["/usr/local/bin/koth"]' \
  --change 'CMD ["hill", "serve", "/hill", "--listen", "0.0.0.0:8080", "--log-format", "json"]' \
  - "$tag"
echo "built $tag: $engine run --rm -v koth-hill:/hill $tag hill init /hill --game coup" >&2
