#!/usr/bin/env bash
# Builds ZincSearch (github.com/zincsearch/zincsearch), the Elasticsearch-compatible server the
# search-index tests run against, from the Go module proxy: its module is copied out of the
# module cache, given the empty web/dist/index.html its embed needs (the UI is not in the
# module), and built with Go 1.21 (a dependency does not build with newer Go; the go command
# fetches that toolchain from the proxy).
# Usage: scripts/zincsearch.sh VERSION OUT
set -euo pipefail
version=$1
out=$(realpath -m "$2")
go=${GO:-go}
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
# Outside any module, so that the download changes no go.mod.
dir=$(cd "$work" && GOFLAGS= $go mod download -json "github.com/zincsearch/zincsearch@$version" |
  sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -n "$dir" ] || { echo "zincsearch $version: not downloaded" >&2; exit 1; }
cp -r "$dir" "$work/src"
chmod -R u+w "$work/src"
mkdir -p "$work/src/web/dist"
: >"$work/src/web/dist/index.html"
mkdir -p "$(dirname "$out")"
(cd "$work/src" && GOTOOLCHAIN=go1.21.13 GOFLAGS=-buildvcs=false $go build -trimpath -o "$out.tmp" ./cmd/zincsearch)
mv "$out.tmp" "$out"
