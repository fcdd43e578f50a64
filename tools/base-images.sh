#!/usr/bin/env bash
# The base image docker/Dockerfile's runtime starts from, made offline where no registry is
# reachable: `debootstrap --variant=minbase bookworm` from Debian's mirror (the one apt uses here),
# trimmed of documentation and package lists, imported into podman as `debian:bookworm-slim`.
# Skipped when the image is there already. (The build stage's `swift:6.3-bookworm` is not made:
# tools/image.sh copies the binary of `make release` in instead.)
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/podman-env.sh
if podman image exists debian:bookworm-slim; then exit 0; fi
command -v debootstrap >/dev/null || { echo "base-images: debootstrap is needed (apt-get install debootstrap)" >&2; exit 1; }
mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
root=$(mktemp -d)
chmod 755 "$root"  # the image's / (mktemp makes it 0700: only root could enter)
trap 'rm -rf "$root"' EXIT
debootstrap --variant=minbase bookworm "$root" "${mirror:-http://deb.debian.org/debian}" >/dev/null
rm -rf "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/locale/* "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*
tar -C "$root" -c . | podman import --change 'CMD ["bash"]' \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' - debian:bookworm-slim >/dev/null
echo "base image debian:bookworm-slim made with debootstrap"
