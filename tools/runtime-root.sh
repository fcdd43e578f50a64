#!/usr/bin/env bash
# tools/runtime-root.sh DEST PACKAGE…: the root file system of the container image's runtime
# (docker/Dockerfile), made in a Debian stage where PACKAGEs are installed: only their files and
# those of the packages they depend on (no documentation), Debian's merged /usr layout, the CA bundle, the users `root` and `understudy` and
# a /tmp. No shell, package manager or other program: the image runs `understudy` alone.
set -euo pipefail
dest=$1
shift
mkdir -p "$dest/usr/lib" "$dest/etc/ssl/certs"
# Debian's merged /usr: /lib, /lib64, /bin, /sbin are links into /usr, as the loader's paths expect.
for link in lib lib64 bin sbin; do
  if [ -L "/$link" ]; then cp -a "/$link" "$dest/"; mkdir -p "$dest/$(readlink "/$link" | sed 's|^/||')"; fi
done
# The packages named and those they depend on (every one of them a library here).
packages=()
pending=("$@")
while [ ${#pending[@]} -gt 0 ]; do
  package=${pending[0]}
  pending=("${pending[@]:1}")
  [[ " ${packages[*]} " == *" $package "* ]] && continue
  packages+=("$package")
  for dependency in $(dpkg-query -W -f '${Depends} ${Pre-Depends}' "$package" | tr ',|' '\n\n' | sed 's/(.*)//; s/:any//' | awk 'NF {print $1}'); do
    dpkg-query -W "$dependency" >/dev/null 2>&1 && pending+=("$dependency")
  done
done
echo "runtime-root: ${packages[*]}"
dpkg -L "${packages[@]}" | sort -u | while read -r path; do
  case "$path" in /usr/share/* | /etc/* | /sbin/* | /usr/sbin/* | /bin/* | /usr/bin/*) continue ;; esac
  if [ -f "$path" ] || [ -L "$path" ]; then printf '%s\n' "${path#/}"; fi
done | tar -C / -cf - -T - | tar -C "$dest" --keep-directory-symlink -xf -
cp /etc/ssl/certs/ca-certificates.crt "$dest/etc/ssl/certs/"
grep -E '^(root|understudy):' /etc/passwd > "$dest/etc/passwd"
grep -E '^(root|understudy):' /etc/group > "$dest/etc/group"
cp /etc/nsswitch.conf "$dest/etc/" 2>/dev/null || true
mkdir -p -m 1777 "$dest/tmp"
