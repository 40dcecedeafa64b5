#!/usr/bin/env bash
# Builds Gitea, the real forge the pull request tests run against, from the Go module proxy alone
# (no release download, no frontend build: the API and Git over HTTP need neither).
# usage: gitea.sh VERSION OUT_DIR    e.g. gitea.sh 1.26.0 ./bin   -> OUT_DIR/gitea
# env:   WORK=<scratch dir> (default: mktemp -d, removed afterwards).
# `go install code.gitea.io/gitea@v…` is refused (Gitea's go.mod has replace directives), so the
# module's source is copied and built as the main module. bindata embeds options/, templates/ and
# public/, so the binary runs from anywhere; sqlite is the only database the tests use.
set -euo pipefail
V=v${1#v}; OUT=$(mkdir -p "$2" && cd "$2" && pwd)
if [ -z "${WORK:-}" ]; then WORK=$(mktemp -d); trap 'chmod -R u+w "$WORK" 2>/dev/null; rm -rf "$WORK"' EXIT; fi
export GOFLAGS=-modcacherw GOTOOLCHAIN=${GOTOOLCHAIN:-local}

SRC=$(go mod download -json "code.gitea.io/gitea@$V" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
[ -n "$SRC" ] || { echo "gitea.sh: code.gitea.io/gitea@$V not downloaded" >&2; exit 1; }
cp -R "$SRC" "$WORK/src" && chmod -R u+w "$WORK/src" && cd "$WORK/src"
CGO_ENABLED=0 go generate -tags bindata ./modules/options ./modules/templates ./modules/public ./modules/migration
# cgo: Gitea's sqlite driver is mattn/go-sqlite3. Written aside and moved, so an interrupted build
# never leaves a binary that the Makefile would take as done.
CGO_ENABLED=1 go build -trimpath -tags 'bindata sqlite sqlite_unlock_notify' \
  -ldflags "-s -w -X main.Version=${V#v}" -o "$OUT/.gitea.tmp" .
mv "$OUT/.gitea.tmp" "$OUT/gitea"
"$OUT/gitea" --version
