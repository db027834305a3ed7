#!/usr/bin/env bash
# Builds the release binaries of Earshot: static (CGO_ENABLED=0: SQLite is
# pure Go, so nothing is linked dynamically), stripped (-s -w, -trimpath)
# and stamped with the version, the commit and the build date that
# `earshot version` prints. Writes dist/earshot-VERSION-OS-ARCH for each
# target, LICENSE and NOTICE beside them, and SHA256SUMS over all of it.
#
#   scripts/release.sh [VERSION]
#
# VERSION defaults to `git describe --tags --always --dirty`.
# TARGETS="linux/amd64 linux/arm64 darwin/arm64" (the default) picks the
# platforms; DIST=dist the output directory (emptied first).
# SOURCE_DATE_EPOCH, when set, is the build date: with it, two builds of
# one commit are byte-identical, so anyone can check a published SHA256SUMS.
set -euo pipefail
cd "$(dirname "$0")/.."

version=${1:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain 2>/dev/null)" ]; then
  commit="$commit-dirty"
fi
if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
  date=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)
else
  date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
fi
targets=${TARGETS:-linux/amd64 linux/arm64 darwin/arm64}
dist=${DIST:-dist}

case "$version" in
  *[!A-Za-z0-9._+-]*) echo "release.sh: version $version: only letters, digits and . _ + - (it is part of file names)" >&2; exit 2 ;;
esac

rm -rf "$dist"
mkdir -p "$dist"
pkg=earshot/internal/cli
ldflags="-s -w -X $pkg.Version=$version -X $pkg.Commit=$commit -X $pkg.BuildDate=$date"
for target in $targets; do
  os=${target%/*}
  arch=${target#*/}
  out="$dist/earshot-$version-$os-$arch"
  echo "building $out" >&2
  # -buildvcs=false: the commit is stamped above, and the toolchain's own
  # VCS stamp would fail in a source tree without .git (a tarball, Docker).
  CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -buildvcs=false -ldflags "$ldflags" -o "$out" .
done
cp LICENSE NOTICE "$dist/"
(cd "$dist" && sha256sum -- * > SHA256SUMS)
echo "$dist:" >&2
(cd "$dist" && ls -l) >&2
