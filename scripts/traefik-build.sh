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
#   - lego (ACME), which Traefik links whole, has 13 DNS-challenge providers whose cloud
#     SDK modules the module proxy here refuses. tools/traefik/go.mod replaces lego with
#     .cache/traefik-build/lego, which this script makes from the module lego release
#     Traefik requires, less exactly those providers (their directories, their rows in
#     lego's generated provider table, their requirements); nothing of lego is committed. ACME over HTTP-01/TLS-ALPN
#     and every other DNS provider are unchanged; naming a dropped one in a certificate
#     resolver fails with lego's own "unrecognized DNS provider".
#
# A no-op when current (stamp on go.mod, go.sum, the module's sources, this script and
# the Go version). Usage: scripts/traefik-build.sh [--force]
# TRAEFIK_BIN_DIR overrides the output directory (default .cache/bin).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

if ! command -v go >/dev/null 2>&1; then
  echo "traefik:build: 'go' is not on PATH; install Go >= 1.26" >&2
  exit 1
fi
force=0
for a in "$@"; do
  case "$a" in
    --force) force=1 ;;
    *) echo "traefik:build: unknown argument '$a' (only --force)" >&2; exit 2 ;;
  esac
done

dir="$root/tools/traefik"
bin="${TRAEFIK_BIN_DIR:-$root/.cache/bin}"
work="$root/.cache/traefik-build"
mkdir -p "$bin" "$work"
export CGO_ENABLED=0 GOFLAGS=-mod=mod

# The lego DNS providers (providers/dns/<name>) whose SDK module the proxy refuses.
dropped=(alidns aliesa azion dnsimple edgedns edgeone huaweicloud oraclecloud regfish
  sakuracloud tencentcloud ucloud yandexcloud)

stamp_now() {
  {
    go version
    cat "$dir/go.mod" "$dir/go.sum"
    find "$dir" -name '*.go' -type f | LC_ALL=C sort | xargs -r cat
    cat "${BASH_SOURCE[0]}"
  } | sha256sum | cut -d' ' -f1
}
want="$(stamp_now)"
stamp="$bin/.traefik.stamp"
if [[ $force == 0 && -x "$bin/traefik" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
  echo "traefik:build: up to date in $bin"
  exit 0
fi
echo "traefik:build: building traefik from tools/traefik (cold: over an hour on 2 shared cores; warm build cache: about a minute)"
rm -f "$stamp"
t0=$SECONDS

traefik_module=github.com/traefik/traefik/v3
lego_module=github.com/go-acme/lego/v5
# The lego version the pinned Traefik requires (its go.mod), fetched as that module.
traefik_dir="$(cd "$dir" && go mod download -json "$traefik_module" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')"
lego_version="$(awk -v m="$lego_module" '$1 == m { print $2; exit }' "$traefik_dir/go.mod")"
[[ -n "$lego_version" ]] || { echo "traefik:build: $traefik_module does not require $lego_module" >&2; exit 1; }
lego_src="$(cd "$dir" && go mod download -json "$lego_module@$lego_version" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')"

# tools/traefik/go.mod replaces lego with this copy: lego as released, less the dropped
# providers' directories, their requirements and their rows in the provider table.
lego="$work/lego"
rm -rf "$lego" && cp -r "$lego_src" "$lego" && chmod -R u+w "$lego"
for p in "${dropped[@]}"; do
  [[ -d "$lego/providers/dns/$p" ]] || { echo "traefik:build: lego $lego_version has no DNS provider '$p'" >&2; exit 1; }
  rm -rf "$lego/providers/dns/$p"
done
rm -rf "$lego/cmd" "$lego/e2e" "$lego/providers/dns/dns_providers_test.go"
table="$lego/providers/dns/zz_gen_dns_providers.go"

# The provider table without the dropped providers: their import line, and each
# `case ...:` line whose `return <name>.NewDNSProvider()` follows, with that return.
drop_re="$(IFS='|'; echo "${dropped[*]}")"
awk -v re="^($drop_re)\$" '
  function pkg_of_import(l,   m) { if (match(l, /"github.com\/go-acme\/lego\/v5\/providers\/dns\/[a-z0-9]+"/)) { m = substr(l, RSTART, RLENGTH); gsub(/"/, "", m); sub(/.*\//, "", m); return m } return "" }
  function pkg_of_return(l,   m) { if (match(l, /^[ \t]*return [a-z0-9]+\.NewDNSProvider\(\)/)) { m = l; sub(/^[ \t]*return /, "", m); sub(/\..*/, "", m); return m } return "" }
  { lines[NR] = $0 }
  END {
    for (i = 1; i <= NR; i++) {
      p = pkg_of_import(lines[i]); if (p != "" && p ~ re) { dropped_imports++; continue }
      if (lines[i] ~ /^[ \t]*case / && i < NR) { p = pkg_of_return(lines[i + 1]); if (p != "" && p ~ re) { dropped_cases++; i++; continue } }
      print lines[i]
    }
    if (dropped_imports != dropped_cases) { print "traefik:build: dropped " dropped_imports " imports but " dropped_cases " cases" > "/dev/stderr"; exit 1 }
  }' "$lego_src/providers/dns/zz_gen_dns_providers.go" >"$table"
n_dropped="$(($(grep -c 'providers/dns/' "$lego_src/providers/dns/zz_gen_dns_providers.go") - $(grep -c 'providers/dns/' "$table")))"
if [[ $n_dropped != "${#dropped[@]}" ]]; then
  echo "traefik:build: expected to drop ${#dropped[@]} lego DNS providers, dropped $n_dropped" >&2
  exit 1
fi
# Requirements no remaining lego package imports (the refused SDKs among them).
(cd "$lego" && GOFLAGS=-mod=mod go mod tidy -e >/dev/null 2>"$work/lego-tidy.log") || {
  echo "traefik:build: tidying the lego copy failed (see $work/lego-tidy.log)" >&2
  exit 1
}

version="$(cd "$dir" && go list -m -f '{{.Version}}' "$traefik_module")"
ldflags="-s -w -X $traefik_module/pkg/version.Version=$version -X $traefik_module/pkg/version.Codename=modelplane"
ldflags+=" -X $traefik_module/pkg/version.BuildDate=1970-01-01T00:00:00Z"
(cd "$dir" && go build -trimpath -ldflags "$ldflags" -o "$bin/traefik.tmp" "$traefik_module/cmd/traefik")
mv -f "$bin/traefik.tmp" "$bin/traefik"
stamp_now >"$stamp" # after the build: -mod=mod may have completed go.sum
echo "traefik:build: traefik $version built in $((SECONDS - t0))s"
