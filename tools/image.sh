#!/usr/bin/env bash
# `make image`: builds docker/Dockerfile as the image `understudy`, tagged `latest` and with the
# version (Sources/MockCore/Observability/UnderstudyVersion.swift), which deploy/kubernetes pins.
# - With a Docker engine (`docker info` answers): `docker build`, the multi-stage build from source,
#   its base images pulled from the registry.
# - Else with podman and buildah (Debian's), as on a machine that reaches no registry: the base image
#   made offline from Debian's packages (tools/base-images.sh) and the binary of `make release`
#   copied in (the Dockerfile's `runtime-prebuilt` stage). Containers of `podman` here want
#   `--runtime runc --cgroup-manager=cgroupfs --ulimit host --network host`: tools/test-image.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
IMAGE=${IMAGE:-understudy}
VERSION=$(sed -n 's/.*current = "\(.*\)".*/\1/p' Sources/MockCore/Observability/UnderstudyVersion.swift)

if command -v docker >/dev/null && docker info >/dev/null 2>&1; then
  exec docker build -f docker/Dockerfile -t "$IMAGE" -t "$IMAGE:$VERSION" .
fi
for tool in buildah podman patchelf; do
  command -v "$tool" >/dev/null || { echo "image: no Docker engine, and no $tool here (apt-get install buildah podman runc debootstrap patchelf)" >&2; exit 1; }
done
. tools/podman-env.sh
tools/base-images.sh
make --no-print-directory release
# The binary and the dashboard's files of `make release`, where the Dockerfile's context takes them.
rm -rf .build/image && mkdir -p .build/image
cp "$(readlink -f .build/release/understudy)" .build/image/understudy
# Its debug information stays here, in .build/image/understudy.debug (tools/slim-binary.sh).
tools/slim-binary.sh .build/image/understudy
cp -R .build/release/Understudy_MockCore.resources .build/image/
# Docker's format keeps the HEALTHCHECK (OCI's drops it).
buildah bud --isolation chroot --network host --format docker --target runtime-prebuilt \
  -f docker/Dockerfile -t "$IMAGE" -t "$IMAGE:$VERSION" .
podman image inspect "$IMAGE" --format 'image {{.RepoTags}}: {{.Size}} bytes'
