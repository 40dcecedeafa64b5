#!/usr/bin/env bash
# Builds the envtest control plane (kube-apiserver, etcd) from the Go module proxy alone, for
# machines with no route to the setup-envtest download index (CI here reaches only the proxy).
# usage: envtest-bins.sh K8S_VERSION ETCD_VERSION OUT_DIR    e.g. envtest-bins.sh 1.37.2 3.6.16 ./bin/x
# env:   WORK=<scratch dir> (default: mktemp -d), WITH_KUBECTL=1 to also build kubectl.
set -euo pipefail
KV=v${1#v}; EV=v${2#v}; OUT=$(mkdir -p "$3" && cd "$3" && pwd)
WORK=${WORK:-$(mktemp -d)}
export GOFLAGS=-modcacherw CGO_ENABLED=0 GOTOOLCHAIN=local
SV=v0.${KV#v1.}                       # staging repos are tagged v0.<minor>.<patch>
MINOR=$(cut -d. -f2 <<<"$KV")
TOOLS="kube-apiserver"; [ -z "${WITH_KUBECTL:-}" ] || TOOLS="$TOOLS kubectl"

# kube-apiserver: a scratch module requiring k8s.io/kubernetes with every staging repo pinned,
# because kubernetes' own go.mod requires them at v0.0.0 behind replace directives.
mkdir -p "$WORK/k8s" && cd "$WORK/k8s"
KMOD=$(go mod download -json "k8s.io/kubernetes@$KV" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
{
  printf 'module local/k8s-bins\n\ngo %s\n\nrequire k8s.io/kubernetes %s\n\nreplace (\n' \
    "$(awk '$1=="go"{print $2; exit}' "$KMOD")" "$KV"
  awk -v sv="$SV" '$2=="=>" && $3 ~ /^\.\/staging\// {print "\t" $1 " => " $1 " " sv}' "$KMOD"
  printf ')\n\ntool (\n'; for t in $TOOLS; do printf '\tk8s.io/kubernetes/cmd/%s\n' "$t"; done; printf ')\n'
} > go.mod
go mod tidy
V="k8s.io/component-base/version"; C="k8s.io/client-go/pkg/version"
LDF="-s -w -X $V.gitVersion=$KV -X $V.gitMajor=1 -X $V.gitMinor=$MINOR -X $V.gitTreeState=clean"
LDF="$LDF -X $C.gitVersion=$KV -X $C.gitMajor=1 -X $C.gitMinor=$MINOR"
for t in $TOOLS; do go build -trimpath -ldflags "$LDF" -o "$OUT/$t" "k8s.io/kubernetes/cmd/$t"; done

# etcd: its own scratch module; merged with the k8s one, MVS would build etcd against the
# api/client versions kubernetes requires.
mkdir -p "$WORK/etcd" && cd "$WORK/etcd"
printf 'module local/etcd-bin\n\ngo 1.26.0\n\nrequire go.etcd.io/etcd/server/v3 %s\n\ntool go.etcd.io/etcd/server/v3\n' "$EV" > go.mod
go mod tidy
go build -trimpath -ldflags "-s -w" -o "$OUT/etcd" go.etcd.io/etcd/server/v3

# sed, not head: under pipefail, head exiting after one line can kill etcd with SIGPIPE (exit 141).
"$OUT/kube-apiserver" --version; "$OUT/etcd" --version | sed -n 1p
