#!/usr/bin/env bash
# `make test-image`: runs the image `make image` built, as a CI service or a Kubernetes pod would,
# and checks it: the health check passes, the process is not root, the shipped stubs are served,
# beyond loopback the admin API wants its token, and SIGTERM stops it cleanly. Prints the image's size.
set -euo pipefail
cd "$(dirname "$0")/.."
IMAGE=${IMAGE:-understudy}
if command -v docker >/dev/null && docker info >/dev/null 2>&1; then
  engine=(docker) run=(docker run)
else
  . tools/podman-env.sh
  # No systemd here for podman's health-check timers: the check's command is run below instead.
  engine=(podman) run=(podman --runtime runc --cgroup-manager=cgroupfs run --ulimit host --network host --no-healthcheck)
fi
port=${PORT:-$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
name="understudy-test-$$"
fail() { echo "test-image: FAIL: $*" >&2; "${engine[@]}" logs "$name" 2>&1 | tail -20 >&2; "${engine[@]}" rm -f "$name" >/dev/null 2>&1; exit 1; }

# The image's entrypoint with another port: host networking shares the machine's ports.
"${run[@]}" -d --name "$name" --entrypoint understudy "$IMAGE" serve --bind 0.0.0.0 --port "$port" --stubs /srv/understudy/stubs >/dev/null
base="http://127.0.0.1:$port"
for _ in $(seq 1 300); do curl -fsS "$base/__admin/health" >/dev/null 2>&1 && break; sleep 0.2; done
curl -fsS "$base/__admin/health" >/dev/null || fail "never healthy"

# 1. The image's own health check (its command, run in the container).
"${engine[@]}" exec "$name" curl -fsS "http://127.0.0.1:$port/__admin/health" >/dev/null || fail "the health check's command failed"
[ "$("${engine[@]}" image inspect "$IMAGE" --format '{{json .Config.Healthcheck.Test}}')" != null ] || fail "no HEALTHCHECK in the image"
# 2. Not root.
uid=$("${engine[@]}" exec "$name" id -u)
[ "$uid" = 10001 ] || fail "runs as uid $uid, not the understudy user (10001)"
# 3. The shipped stubs and emulators are served.
answer=$(curl -fsS "$base/maps/api/geocode/json?address=94086") || fail "the geocoder did not answer"
grep -q '"status" : "OK"\|"status": "OK"' <<<"$answer" || fail "the geocoder did not answer OK"
code=$(curl -s -o /dev/null -w '%{http_code}' "$base/webapp/wcs/stores/servlet/StoreView?storeId=10152&catalogId=10051&langId=-1")
[ "$code" = 200 ] || fail "the storefront answered $code"
# 4. Listening beyond loopback without a token: one is made up and printed; the admin API wants it.
code=$(curl -s -o /dev/null -w '%{http_code}' "$base/__admin/mappings")
[ "$code" = 401 ] || fail "the admin API answered $code without the token"
token=$("${engine[@]}" logs "$name" 2>&1 | sed -n "s/.*'Authorization: Bearer \([^']*\)'.*/\1/p" | head -n 1)
[ -n "$token" ] || fail "no admin token in the log"
code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" "$base/__admin/mappings")
[ "$code" = 200 ] || fail "the admin API answered $code with the token"
# 5. SIGTERM (what docker stop and Kubernetes send) stops it cleanly, well within the grace period.
started=$(date +%s)
"${engine[@]}" stop -t 20 "$name" >/dev/null
status=$("${engine[@]}" inspect "$name" --format '{{.State.ExitCode}}')
[ "$status" = 0 ] || fail "exit status $status after SIGTERM"
[ $(( $(date +%s) - started )) -lt 15 ] || fail "SIGTERM took $(( $(date +%s) - started )) s"
# Read whole before grep: `grep -q` stops reading at the match, and under pipefail the writer's SIGPIPE fails the check.
log=$("${engine[@]}" logs "$name" 2>&1)
grep -q stopping <<<"$log" || fail "no 'stopping' line in the log"
"${engine[@]}" rm "$name" >/dev/null
size=$("${engine[@]}" image inspect "$IMAGE" --format '{{.Size}}')
echo "test-image: ok (healthy, uid 10001, stubs served, admin token wanted, SIGTERM exit 0); image size $(( size / 1000000 )) MB"
