#!/usr/bin/env bash
# Builds Traefik (the control-plane gateway: Gateway API provider, Kubernetes CRD provider
# for its Middleware) from the Go module pinned in tools/traefik/go.mod, into .cache/bin
# (git-ignored), for the e2e suite's front-door step (test/e2e/front-door.ts).
#
#   traefik   github.com/traefik/traefik/v3 cmd/traefik   tools/traefik/go.mod
#
# Three things stand between the module and a build here (tools/traefik/README.md):
#   - Traefik's go-http-auth fork is refused by the module proxy: tools/traefik/go-http-auth
#     (upstream v0.4.0 plus the fork's two functions) stands in;
#   - replace directives of a dependency do not apply, so tools/traefik/go.mod repeats
#     Traefik's (its nested dynamic/ext module is tools/traefik/dynamic-ext/, ours);
#   - what the gateway does not use is cut so the build fits CI: tools/traefik/go.mod replaces
#     Traefik and lego with copies this script makes in .cache/traefik-build from the released
#     modules (nothing of either is committed): Traefik with ten packages (other providers,
#     plugins) replaced by the stubs in tools/traefik/minimal, and lego without its DNS-challenge
#     providers (13 of which import SDK modules the proxy here refuses).
#
# A no-op when current (stamp on go.mod, go.sum, the module's sources, this script and
# the Go version). Usage: scripts/traefik-build.sh [--force]
# TRAEFIK_BIN_DIR overrides the output directory (default .cache/bin).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
# shellcheck source=lib/go-build.sh
source "$root/scripts/lib/go-build.sh"
go_build_init traefik:build "$@"

dir="$root/tools/traefik"
bin="${TRAEFIK_BIN_DIR:-$root/.cache/bin}"
work="$root/.cache/traefik-build"
mkdir -p "$bin" "$work"

stamp_now() {
  {
    go_build_stamp_inputs
    cat "$dir/go.mod" "$dir/go.sum"
    find "$dir" -name '*.go' -type f | LC_ALL=C sort | xargs -r cat
    cat "${BASH_SOURCE[0]}"
  } | sha256sum | cut -d' ' -f1
}
stamp="$bin/.traefik.stamp"
if go_build_current "$stamp" "$(stamp_now)" "$bin/traefik"; then
  echo "traefik:build: up to date in $bin"
  exit 0
fi
echo "traefik:build: building traefik from tools/traefik (cold: about 6.5 minutes on 2 cores; warm build cache: about a minute)"
rm -f "$stamp"
t0=$SECONDS

traefik_module=github.com/traefik/traefik/v3
lego_module=github.com/go-acme/lego/v5
# The pinned Traefik (tools/traefik/go.mod's require) and the lego version it requires,
# each fetched as its released module (an explicit version: both are replaced by copies).
traefik_version="$(awk -v m="$traefik_module" '$1 == "require" && $2 == m { print $3; exit }' "$dir/go.mod")"
[[ -n "$traefik_version" ]] || { echo "traefik:build: tools/traefik/go.mod does not require $traefik_module" >&2; exit 1; }
moddir() { (cd "$dir" && go mod download -json "$1" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p'); }
traefik_src="$(moddir "$traefik_module@$traefik_version")"
lego_version="$(awk -v m="$lego_module" '$1 == m { print $2; exit }' "$traefik_src/go.mod")"
[[ -n "$lego_version" ]] || { echo "traefik:build: $traefik_module does not require $lego_module" >&2; exit 1; }
lego_src="$(moddir "$lego_module@$lego_version")"

# Replaces the Go files of package directory $2 (relative) of copy $1 with the stub files
# under $3/$2, keeping the files named in $4... (its tests go too: they are not built).
stub_package() {
  local copy="$1" pkg="$2" stubs="$3"; shift 3
  [[ -d "$copy/$pkg" ]] || { echo "traefik:build: the copy has no package $pkg to stub" >&2; exit 1; }
  local f keep
  for f in "$copy/$pkg"/*.go; do
    keep=0
    for k in "$@"; do [[ "$f" == "$copy/$k" ]] && keep=1; done
    [[ $keep == 1 ]] || rm -f "$f"
  done
  cp "$stubs/$pkg"/*.go "$copy/$pkg/"
}

# lego as released, without any DNS-challenge provider: their directories go, and the
# provider table (providers/dns) becomes tools/traefik/minimal/lego's, which knows none;
# go mod tidy then drops their SDK requirements (13 of them the proxy here refuses).
lego="$work/lego"
rm -rf "$lego" && cp -r "$lego_src" "$lego" && chmod -R u+w "$lego"
find "$lego/providers/dns" -mindepth 1 -maxdepth 1 -type d -exec rm -rf {} +
rm -rf "$lego/cmd" "$lego/e2e"
stub_package "$lego" providers/dns "$dir/minimal/lego"
(cd "$lego" && GOFLAGS=-mod=mod go mod tidy -e >/dev/null 2>"$work/lego-tidy.log") || {
  echo "traefik:build: tidying the lego copy failed (see $work/lego-tidy.log)" >&2
  exit 1
}

# Traefik as released, less what the control-plane gateway does not use: the providers
# other than file, the internal one, HTTP, REST and Kubernetes' (Docker, Swarm, ECS, Consul
# Catalog, Nomad, Knative and the Consul, etcd, Redis and ZooKeeper KV stores) and plugins
# (Yaegi, WebAssembly), each replaced by its configuration type (tools/traefik/minimal/),
# which refuses at start-up when enabled. Every file of Traefik's own is otherwise unchanged.
traefik="$work/traefik"
rm -rf "$traefik" && cp -r "$traefik_src" "$traefik" && chmod -R u+w "$traefik"
rm -rf "$traefik/docs" "$traefik/integration"
stubbed=0
while IFS= read -r pkg; do
  if [[ $pkg == pkg/plugins ]]; then stub_package "$traefik" "$pkg" "$dir/minimal" pkg/plugins/types.go
  else stub_package "$traefik" "$pkg" "$dir/minimal"; fi
  rm -rf "${traefik:?}/$pkg/fixtures"
  stubbed=$((stubbed + 1))
done < <(cd "$dir/minimal" && find pkg -name '*.go' -printf '%h\n' | LC_ALL=C sort -u)
find "$traefik" -name '*_test.go' -delete
echo "traefik:build: Traefik $traefik_version with $stubbed packages stubbed (tools/traefik/minimal), lego $lego_version without DNS providers"

version="$(cd "$dir" && go list -m -f '{{.Version}}' "$traefik_module")"
ldflags="-s -w -X $traefik_module/pkg/version.Version=$version -X $traefik_module/pkg/version.Codename=modelplane"
ldflags+=" -X $traefik_module/pkg/version.BuildDate=1970-01-01T00:00:00Z"
(cd "$dir" && go build -trimpath -ldflags "$ldflags" -o "$bin/traefik.tmp" "$traefik_module/cmd/traefik")
mv -f "$bin/traefik.tmp" "$bin/traefik"
stamp_now >"$stamp" # after the build: -mod=mod may have completed go.sum
echo "traefik:build: traefik $version built in $((SECONDS - t0))s"
