#!/usr/bin/env bash
# Installs the system packages Understudy needs, when they are missing.
#   tools/install-deps.sh build   libevent, SQLite, OpenSSL, zlib, libxml2 and on Linux jemalloc (headers +
#                                 pkg-config) to build and test
#   tools/install-deps.sh python  python3 with venv, Chromium with its WebDriver, NSS's certutil and a
#                                 JDK, for the Python clients, the browser tests, the differential
#                                 test against WireMock and the WireMock Java client test of `make test`
#   tools/install-deps.sh bench   also wrk, valgrind, a C compiler and nginx, for `make bench`
# On Debian/Ubuntu it runs apt-get (as root, or through sudo); elsewhere it prints what to install.
set -euo pipefail

need=()
if [ "${1:-build}" = python ]; then
  python3 -c 'import venv, ensurepip' 2>/dev/null || need+=(python3 python3-venv)
  { command -v chromium >/dev/null || command -v chromium-browser >/dev/null; } || need+=(chromium)
  command -v chromedriver >/dev/null || need+=(chromium-driver)
  # The device-mode browser test trusts Understudy's local CA in an NSS database with certutil.
  command -v certutil >/dev/null || need+=(libnss3-tools)
  # The differential test runs the real WireMock (the jar of the `wiremock` PyPI package) on Java,
  # and the Java client test compiles a program against that jar.
  { command -v java >/dev/null && command -v javac >/dev/null; } || need+=(default-jdk-headless)
  # The team-server test runs replicas behind the real nginx with deploy/nginx/understudy.conf.
  { command -v nginx >/dev/null || [ -x /usr/sbin/nginx ]; } || need+=(nginx)
else
  pkg-config --exists libevent 2>/dev/null || need+=(libevent-dev pkg-config)
  pkg-config --exists sqlite3 2>/dev/null || need+=(libsqlite3-dev)
  pkg-config --exists openssl 2>/dev/null || need+=(libssl-dev)
  pkg-config --exists zlib 2>/dev/null || need+=(zlib1g-dev)
  pkg-config --exists libxml-2.0 2>/dev/null || need+=(libxml2-dev)
  # The release build links jemalloc on Linux (tools/release-flags.sh).
  if [ "$(uname)" = Linux ]; then pkg-config --exists jemalloc 2>/dev/null || need+=(libjemalloc-dev); fi
  # Tests make self-signed certificates with the openssl command, and fetch through the device
  # proxy with curl.
  command -v openssl >/dev/null || need+=(openssl)
  command -v curl >/dev/null || need+=(curl)
fi
if [ "${1:-build}" = bench ]; then
  command -v wrk >/dev/null || need+=(wrk)
  command -v valgrind >/dev/null || need+=(valgrind)
  command -v cc >/dev/null || need+=(gcc)
  command -v python3 >/dev/null || need+=(python3)
  # The team-server bench puts nginx in front of the replicas.
  { command -v nginx >/dev/null || [ -x /usr/sbin/nginx ]; } || need+=(nginx)
fi
[ ${#need[@]} -eq 0 ] && exit 0

echo "Understudy needs: ${need[*]}"
if command -v apt-get >/dev/null; then
  if [ "$(id -u)" -eq 0 ]; then sudo=""; elif command -v sudo >/dev/null; then sudo="sudo"; else sudo="none"; fi
  if [ "$sudo" != none ]; then
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}"
    exit 0
  fi
fi
cat >&2 <<HELP
Install them, then run make again:
  Debian/Ubuntu:  sudo apt-get install ${need[*]}
  macOS:          brew install libevent sqlite openssl zlib libxml2 pkg-config wrk valgrind python chromium chromedriver nss
HELP
exit 1
