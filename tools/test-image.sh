#!/usr/bin/env bash
# `make test-image`: runs the image `make image` built, as a CI service or a Kubernetes pod would,
# and checks it: the health check passes (and fails with no server), it is slim (one ICU, no curl,
# at most 150 MB), the process is not root, the shipped stubs are served,
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

# 1. The image's own health check: its command (on this run's port), run in the container, passes,
#    and fails where nothing answers.
check=$("${engine[@]}" image inspect "$IMAGE" --format '{{json .Config.Healthcheck.Test}}')
[ "$check" = '["CMD","understudy","health","--url","http://127.0.0.1:8080"]' ] || fail "the HEALTHCHECK is $check, not understudy health"
"${engine[@]}" exec "$name" understudy health --url "http://127.0.0.1:$port" || fail "the health check's command failed"
if "${engine[@]}" exec "$name" understudy health --url "http://127.0.0.1:1" 2>/dev/null; then fail "the health check passed with no server"; fi
# Slim: the binary alone (no shell, no curl) with one ICU (Foundation's, in the binary: libxml2 is
#    linked in), no debug information. Read from the container's files (there is no shell to ask).
files=$("${engine[@]}" export "$name" | tar -t)
grep -q '^usr/local/bin/understudy$' <<<"$files" || fail "no /usr/local/bin/understudy in the image"
for unwanted in 'bin/sh$' 'bin/bash$' 'bin/curl$' 'libicu' 'libxml2' 'bin/apt$' 'bin/dpkg$'; do
  if grep -q "$unwanted" <<<"$files"; then fail "the image holds $(grep "$unwanted" <<<"$files" | head -n 1)"; fi
done
grep -q 'gconv/CP1252.so$' <<<"$files" || fail "glibc's character converters are not in the image"
grep -q '^etc/ssl/certs/ca-certificates.crt$' <<<"$files" || fail "no CA bundle in the image (https upstreams)"
binary=$(mktemp)
"${engine[@]}" cp "$name:/usr/local/bin/understudy" "$binary"
needed=$(readelf -d "$binary" | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' | tr '\n' ' ')
sections=$(readelf -S "$binary")
rm -f "$binary"
if grep -q 'libxml2\|libicu' <<<"$needed"; then fail "the binary loads $needed"; fi
if grep -q '\.debug_info' <<<"$sections"; then fail "the binary carries its debug information"; fi
# 2. Not root (the process's user, read from the host's /proc).
pid=$("${engine[@]}" inspect "$name" --format '{{.State.Pid}}')
uid=$(awk '/^Uid:/ {print $2}' "/proc/$pid/status")
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
# 5. XML read by the libxml2 linked into the binary, in an encoding that takes glibc's converters:
#    a status update in windows-1252 posted to the Lotus emulator reads back as UTF-8.
status="$base/profiles/atom/mv/theboard/entry/status.do?email=npoore@renovations.example.com"
code=$(printf '<?xml version="1.0" encoding="windows-1252"?><entry xmlns="http://www.w3.org/2005/Atom"><content type="text">caf\xe9 \x80</content></entry>' \
  | curl -s -o /dev/null -w '%{http_code}' -u npoore@renovations.example.com:passw0rd -X PUT -H 'Content-Type: application/atom+xml' --data-binary @- "$status")
[ "$code" = 200 ] || fail "posting a windows-1252 status update answered $code"
curl -fsS -u npoore@renovations.example.com:passw0rd "$status" | grep -q '<content type="text">café €</content>' \
  || fail "the windows-1252 status update did not read back as café €"
# 6. SIGTERM (what docker stop and Kubernetes send) stops it cleanly, well within the grace period.
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
[ "$size" -le 150000000 ] || fail "the image is $(( size / 1000000 )) MB, more than 150 MB"
echo "test-image: ok (healthy, slim, uid 10001, stubs served, XML read, admin token wanted, SIGTERM exit 0); image size $(( size / 1000000 )) MB"
