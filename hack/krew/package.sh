#!/usr/bin/env bash
# Builds kubectl-grove for every Krew platform into bin/krew/ (one
# kubectl-grove_<os>_<arch>.tar.gz each) and renders the Krew manifest
# hack/krew/grove.yaml into bin/krew/grove.yaml with the version, the
# archives' URLs and their sha256.
#
#   VERSION         the plugin version (default: git describe)
#   KREW_BASE_URL   where the archives will be published (default: the GitHub release of VERSION)
#   KREW_PLATFORMS  os/arch list (default: linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VERSION=${VERSION:-$(git -C "$ROOT" describe --tags --always --dirty 2>/dev/null || echo v0.0.0-dev)}
KREW_BASE_URL=${KREW_BASE_URL:-https://github.com/grove-project/grove/releases/download/$VERSION}
KREW_PLATFORMS=${KREW_PLATFORMS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64}
OUT=$ROOT/bin/krew
rm -rf "$OUT" && mkdir -p "$OUT"
platforms=""
for p in $KREW_PLATFORMS; do
  os=${p%/*} arch=${p#*/} bin=kubectl-grove
  [ "$os" = windows ] && bin=kubectl-grove.exe
  stage=$(mktemp -d)
  (cd "$ROOT" && CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -ldflags "-s -w" -o "$stage/$bin" ./api/cmd/kubectl-grove)
  archive=kubectl-grove_${os}_${arch}.tar.gz
  tar -C "$stage" -czf "$OUT/$archive" "$bin"
  rm -rf "$stage"
  sum=$(sha256sum "$OUT/$archive" | cut -d' ' -f1)
  platforms+="  - selector:
      matchLabels:
        os: $os
        arch: $arch
    uri: $KREW_BASE_URL/$archive
    sha256: $sum
    bin: $bin
"
  echo "[krew] $archive sha256 $sum"
done
awk -v version="$VERSION" -v platforms="$platforms" '
  /^#/ && !body { next }
  { body = 1 }
  /@PLATFORMS@/ { printf "%s", platforms; next }
  { gsub(/@VERSION@/, version); print }
' "$ROOT/hack/krew/grove.yaml" > "$OUT/grove.yaml"
echo "[krew] wrote $OUT/grove.yaml"
