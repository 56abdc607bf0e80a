#!/usr/bin/env bash
# Builds the real control plane the e2e suite and `modelplane dev up` run, from the
# Go modules pinned under tools/, into .cache/bin (git-ignored):
#
#   kube-apiserver, kube-controller-manager,
#   kube-scheduler, kubectl                            k8s.io/kubernetes      tools/kube/go.mod
#   kwok (and kwok's node stages, into .cache/kwok/)   sigs.k8s.io/kwok       tools/kwok/go.mod
#   lws-controller (and its CRD, into .cache/lws/)     sigs.k8s.io/lws        tools/lws/go.mod
#   etcd                                               go.etcd.io/etcd/server tools/etcd/go.mod
#   registry                                           OCI registry (TLS)     tools/registry/go.mod
#   provider-kubernetes                                crossplane-contrib     tools/provider-kubernetes/go.mod
#     (and its package folder, crossplane.yaml + CRDs, into .cache/provider-kubernetes/)
#
# Each group is a no-op when current (stamp on its go.mod/go.sum, its sources, this
# script and the Go version). Crossplane core itself is scripts/crossplane-build.sh.
# Usage: scripts/kube-build.sh [--force] [GROUP...]   (GROUP: kube kwok lws etcd registry provider-kubernetes)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

if ! command -v go >/dev/null 2>&1; then
  echo "kube:build: 'go' is not on PATH; install Go >= 1.26 to build the control plane" >&2
  exit 1
fi

force=0
groups=()
for a in "$@"; do
  case "$a" in
    --force) force=1 ;;
    kube | kwok | lws | etcd | registry | provider-kubernetes) groups+=("$a") ;;
    *) echo "kube:build: unknown argument '$a' (groups: kube kwok lws etcd registry provider-kubernetes)" >&2; exit 2 ;;
  esac
done
[[ ${#groups[@]} == 0 ]] && groups=(kube kwok lws etcd registry provider-kubernetes)

bin="$root/.cache/bin"
mkdir -p "$bin"
export CGO_ENABLED=0 GOFLAGS=-mod=mod

# stamp_of <module dir>: what the binaries of one group are built from.
stamp_of() {
  local dir="$1"
  {
    go version
    cat "$dir/go.mod" "$dir/go.sum"
    find "$dir" -name '*.go' -type f | LC_ALL=C sort | xargs -r cat
    cat "${BASH_SOURCE[0]}"
  } | sha256sum | cut -d' ' -f1
}

# build_group <name> <module dir> <expected minutes cold> <output=package ldflags>...
build_group() {
  local name="$1" dir="$2" minutes="$3"
  shift 3
  local stamp="$bin/.$name.stamp" want
  want="$(stamp_of "$dir")"
  local missing=0 spec out
  for spec in "$@"; do
    out="${spec%%=*}"
    [[ -x "$bin/$out" ]] || missing=1
  done
  if [[ $force == 0 && $missing == 0 && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    echo "kube:build: $name up to date in .cache/bin"
    return 0
  fi
  echo "kube:build: building $name from $dir (cold: up to ~$minutes min on 2 cores; warm: under a minute)"
  rm -f "$stamp"
  local t0=$SECONDS rest pkg ldflags
  for spec in "$@"; do
    out="${spec%%=*}"
    rest="${spec#*=}"
    pkg="${rest%% *}"
    ldflags=""
    [[ "$rest" == *" "* ]] && ldflags="${rest#* }"
    local t1=$SECONDS
    (cd "$dir" && go build -trimpath -ldflags "-s -w $ldflags" -o "$bin/$out.tmp" "$pkg")
    mv -f "$bin/$out.tmp" "$bin/$out"
    echo "kube:build:   $out in $((SECONDS - t1))s"
  done
  echo "$want" >"$stamp"
  echo "kube:build: $name built in $((SECONDS - t0))s"
}

# module_files <tool dir> <module> <out dir> <file>...: files of the module pinned in <tool dir>'s
# go.mod, copied flat into <out dir> (emptied first) with the module's version in <out dir>/version.
module_files() {
  local tool="$1" module="$2" out="$3"
  shift 3
  local dir f
  dir="$(cd "$tool" && go list -m -f '{{.Dir}}' "$module")"
  rm -rf "$out" && mkdir -p "$out"
  for f in "$@"; do cp "$dir/$f" "$out/"; done
  chmod -R u+w "$out"
  (cd "$tool" && go list -m -f '{{.Version}}' "$module") >"$out/version"
}

kube_version="$(cd tools/kube && go list -m -f '{{.Version}}' k8s.io/kubernetes)"
kube_minor="$(echo "$kube_version" | cut -d. -f2)"
kv=""
for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  kv+=" -X $p.gitVersion=$kube_version -X $p.gitMajor=1 -X $p.gitMinor=$kube_minor"
  kv+=" -X $p.gitTreeState=clean -X $p.buildDate=1970-01-01T00:00:00Z"
done

for g in "${groups[@]}"; do
  case "$g" in
    kube)
      build_group kube tools/kube 30 \
        "kube-apiserver=k8s.io/kubernetes/cmd/kube-apiserver$kv" \
        "kube-controller-manager=k8s.io/kubernetes/cmd/kube-controller-manager$kv" \
        "kube-scheduler=k8s.io/kubernetes/cmd/kube-scheduler$kv" \
        "kubectl=k8s.io/kubernetes/cmd/kubectl$kv"
      ;;
    kwok)
      build_group kwok tools/kwok 6 "kwok=sigs.k8s.io/kwok/cmd/kwok"
      # kwok's own node stages (initialize, heartbeat with a lease), which `modelplane dev up`
      # loads beside our pod stages (cli/dev/kwok.ts).
      module_files tools/kwok sigs.k8s.io/kwok "$root/.cache/kwok" \
        kustomize/stage/node/fast/node-initialize.yaml \
        kustomize/stage/node/heartbeat-with-lease/node-heartbeat-with-lease.yaml
      ;;
    lws)
      build_group lws tools/lws 6 "lws-controller=sigs.k8s.io/lws/cmd"
      # Its CRD as the module ships it (the chart installs the same), for `modelplane dev up` (cli/dev/lws.ts).
      module_files tools/lws sigs.k8s.io/lws "$root/.cache/lws" config/crd/bases/leaderworkerset.x-k8s.io_leaderworkersets.yaml
      ;;
    etcd)
      build_group etcd tools/etcd 5 "etcd=go.etcd.io/etcd/server/v3"
      ;;
    registry)
      build_group registry tools/registry 2 "registry=./cmd/registry"
      ;;
    provider-kubernetes)
      pk_module=github.com/crossplane-contrib/provider-kubernetes
      pk_out="$root/.cache/provider-kubernetes"
      build_group provider-kubernetes tools/provider-kubernetes 8 \
        "provider-kubernetes=$pk_module/cmd/provider"
      # Its package (crossplane.yaml + CRDs) as the module ships it, for `modelplane dev up`.
      pk_dir="$(cd tools/provider-kubernetes && go list -m -f '{{.Dir}}' "$pk_module")"
      rm -rf "$pk_out" && mkdir -p "$pk_out"
      cp -r "$pk_dir/package" "$pk_out/package" && chmod -R u+w "$pk_out/package"
      (cd tools/provider-kubernetes && go list -m -f '{{.Version}}' "$pk_module") >"$pk_out/version"
      ;;
  esac
done
