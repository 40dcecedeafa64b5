#!/usr/bin/env bash
# Builds Forgejo, the second real forge the pull request tests run against, from the Go module
# proxy alone, as gitea.sh builds Gitea (no release download, no frontend build).
# usage: forgejo.sh MODULE_VERSION FORGEJO_VERSION OUT_DIR
#   e.g. forgejo.sh v1.21.0-rc0.0.20241219112042-456d05998231 10.0.0-dev-456d05998231 ./bin
#   -> OUT_DIR/forgejo
# env:   WORK=<scratch dir> (default: mktemp -d, removed afterwards).
# Forgejo publishes no module versions of its own: the proxy serves codeberg.org/forgejo/forgejo
# only as pseudo-versions of its main branch (its go.mod still says module code.gitea.io/gitea),
# so MODULE_VERSION names a commit and FORGEJO_VERSION is the version that build reports. The
# ldflags are those of Forgejo's Makefile: main.Version is what /api/v1/version answers (with the
# "+gitea-X.Y.Z" compatibility suffix the Gitea SDK's version checks read), main.ForgejoVersion
# what /api/forgejo/v1/version answers.
set -euo pipefail
MV=$1; FV=${2#v}; OUT=$(mkdir -p "$3" && cd "$3" && pwd)
GITEA_COMPATIBILITY=${GITEA_COMPATIBILITY:-gitea-1.22.0}
if [ -z "${WORK:-}" ]; then WORK=$(mktemp -d); trap 'chmod -R u+w "$WORK" 2>/dev/null; rm -rf "$WORK"' EXIT; fi
export GOFLAGS=-modcacherw GOTOOLCHAIN=${GOTOOLCHAIN:-local}

SRC=$(go mod download -json "codeberg.org/forgejo/forgejo@$MV" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
[ -n "$SRC" ] || { echo "forgejo.sh: codeberg.org/forgejo/forgejo@$MV not downloaded" >&2; exit 1; }
mkdir -p "$WORK"
cp -R "$SRC" "$WORK/src"
chmod -R u+w "$WORK/src"
cd "$WORK/src"
# The module proxy refuses (403) every module of code.forgejo.org, where Forgejo keeps ten of its
# dependencies, so the copy is built against what they were forked from: as Gitea 1.26 pins them
# (already in the module cache once gitea.sh ran), or as of spring 2024 where their API has changed
# since (session's Provider, binding's JSON decoder; act, whose pkg/jobparser Gitea has since moved
# in-tree), or the module Forgejo forked directly (captcha: dchest/captcha). Renamed forks get
# their imports rewritten, forks that replace a module lose the replace; the `forgejo f3` command
# becomes a stub (code.forgejo.org/f3/gof3 has no upstream, and F3 is disabled unless set up: "only
# present for development purposes"). The missing go.sum lines come from the proxy (-mod=mod).
# What Forgejo changed in those forks is not in this binary. Go 1.26 itself needed no change.
while read -r fork upstream version; do
  grep -rlZ --include='*.go' "\"$fork" . | xargs -0r sed -i "s|\"$fork|\"$upstream|g"
  go mod edit -droprequire "$fork" -require "$upstream@$version"
done <<'FORKS'
code.forgejo.org/go-chi/session gitea.com/go-chi/session v0.0.0-20240316035857-16768d98ec96
code.forgejo.org/go-chi/cache gitea.com/go-chi/cache v0.2.1
code.forgejo.org/go-chi/binding gitea.com/go-chi/binding v0.0.0-20240430071103-39a851e106ed
code.forgejo.org/go-chi/captcha github.com/dchest/captcha v1.1.0
code.forgejo.org/forgejo/reply github.com/dimiro1/reply v0.0.0-20200315094148-d0136a4c9e21
code.forgejo.org/forgejo-contrib/go-libravatar strk.kbt.io/projects/go/libravatar v0.0.0-20260301104140-add494e31dab
FORKS
go mod edit -dropreplace github.com/mholt/archiver/v3 -dropreplace github.com/gliderlabs/ssh \
  -replace github.com/nektos/act=gitea.com/gitea/act@v0.259.1 -droprequire code.forgejo.org/f3/gof3/v3
rm -rf services/f3
# Forgejo's ssh fork adds Session.ConnPermissions (the permissions of the key that was accepted, not
# of the last one offered); upstream has them on the session's context. The tests run no SSH server.
sed -i 's/session\.ConnPermissions()/session.Context().Permissions()/' modules/ssh/ssh.go
cat > cmd/forgejo/f3.go <<'GO'
package forgejo

import (
	"context"
	"errors"

	"github.com/urfave/cli/v2"
)

// CmdF3 stands in for F3, left out of this build (see cluster/local/forgejo.sh).
func CmdF3(context.Context) *cli.Command {
	return &cli.Command{Name: "f3", Usage: "F3 (not in this build)",
		Action: func(*cli.Context) error { return errors.New("F3 is not in this build") }}
}
GO
export GOFLAGS="$GOFLAGS -mod=mod"
CGO_ENABLED=0 go generate -tags bindata ./modules/options ./modules/templates ./modules/public ./modules/migration
TAGS='bindata sqlite sqlite_unlock_notify'
V="$FV+$GITEA_COMPATIBILITY"
CGO_ENABLED=1 go build -trimpath -tags "$TAGS" \
  -ldflags "-s -w -X 'main.ReleaseVersion=$V' -X 'main.Version=$V' -X 'main.Tags=$TAGS' -X 'main.ForgejoVersion=$V'" \
  -o "$OUT/.forgejo.tmp" .
mv "$OUT/.forgejo.tmp" "$OUT/forgejo"
"$OUT/forgejo" --version
