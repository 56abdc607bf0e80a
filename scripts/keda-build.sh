#!/usr/bin/env bash
# Builds what drives autoscaling on the dev control plane (docs/autoscaling.md) from the Go
# modules pinned in tools/keda/go.mod and tools/prometheus/go.mod, into .cache/bin (git-ignored):
#
#   keda-operator   github.com/kedacore/keda/v2 cmd/operator          tools/keda (ScaledObject → HPA, 0 ↔ 1)
#   keda-adapter    github.com/kedacore/keda/v2 cmd/adapter           tools/keda (external.metrics.k8s.io for the HPA)
#   prometheus      github.com/prometheus/prometheus cmd/prometheus   tools/prometheus (the version KEDA pins, in
#                   its own module graph: its Kubernetes discovery does not build against KEDA's client-go)
#
# and KEDA's CRDs (config/crd/bases of the module) into .cache/keda/crds, with the version in
# .cache/keda/version. KEDA's and Prometheus's own replace directives are repeated in their
# go.mod (a dependency's replaces do not apply). A no-op when current (stamp on both go.mod and
# go.sum, this script and the Go version). Usage: scripts/keda-build.sh [--force]
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
# shellcheck source=lib/go-build.sh
source "$root/scripts/lib/go-build.sh"
go_build_init keda:build "$@"

dir="$root/tools/keda"
promdir="$root/tools/prometheus"
bin="$root/.cache/bin"
out="$root/.cache/keda"
mkdir -p "$bin" "$out"

stamp_now() {
  { go_build_stamp_inputs; cat "$dir/go.mod" "$dir/go.sum" "$promdir/go.mod" "$promdir/go.sum" "${BASH_SOURCE[0]}"; } | sha256sum | cut -d' ' -f1
}
stamp="$bin/.keda.stamp"
if go_build_current "$stamp" "$(stamp_now)" "$bin/keda-operator" "$bin/keda-adapter" "$bin/prometheus" "$out/version"; then
  echo "keda:build: up to date in $bin"
  exit 0
fi
rm -f "$stamp"
t0=$SECONDS
keda=github.com/kedacore/keda/v2
prom=github.com/prometheus/prometheus
version="$(cd "$dir" && go list -m -f '{{.Version}}' "$keda")"
prom_version="$(cd "$promdir" && go list -m -f '{{.Version}}' "$prom")"
echo "keda:build: KEDA $version (operator, adapter) and Prometheus $prom_version (cold: about 12 minutes on 2 cores)"
ldflags="-s -w -X $keda/version.Version=$version -X $keda/version.GitCommit=module"
(cd "$dir" && go build -trimpath -ldflags "$ldflags" -o "$bin/keda-operator.tmp" "$keda/cmd/operator")
(cd "$dir" && go build -trimpath -ldflags "$ldflags" -o "$bin/keda-adapter.tmp" "$keda/cmd/adapter")
# Prometheus 3.x is module version v0.3MM.P: release 3.MM.P.
prom_release="$(echo "$prom_version" | sed -E 's/^v0\.3([0-9]{2})\.([0-9]+)$/3.\1.\2/; s/^3\.0([0-9])/3.\1/')"
(cd "$promdir" && go build -trimpath -ldflags "-s -w -X github.com/prometheus/common/version.Version=$prom_release" -o "$bin/prometheus.tmp" "$prom/cmd/prometheus")
for b in keda-operator keda-adapter prometheus; do mv -f "$bin/$b.tmp" "$bin/$b"; done

src="$(cd "$dir" && go mod download -json "$keda@$version" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')"
rm -rf "$out/crds" && mkdir -p "$out/crds"
cp "$src"/config/crd/bases/*.yaml "$out/crds/"
chmod -R u+w "$out/crds"
echo "$version" >"$out/version"
stamp_now >"$stamp"
echo "keda:build: built in $((SECONDS - t0))s"
