# Sourced by tools/image.sh and tools/test-image.sh: podman and buildah as they work on a machine
# without a registry, cgroup delegation or overlay mounts: no default ulimits (the host's stay),
# the vfs storage driver, in folders of the project's build directory.
config_dir="$PWD/.build/containers"
mkdir -p "$config_dir"
printf '[containers]\ndefault_ulimits = []\n' > "$config_dir/containers.conf"
printf '[storage]\ndriver = "vfs"\nrunroot = "%s/run"\ngraphroot = "%s/storage"\n' "$config_dir" "$config_dir" > "$config_dir/storage.conf"
export CONTAINERS_CONF="$config_dir/containers.conf" CONTAINERS_STORAGE_CONF="$config_dir/storage.conf"
