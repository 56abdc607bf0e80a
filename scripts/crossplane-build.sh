#!/usr/bin/env bash
# Builds the real Crossplane binaries the conformance tests run against, from the
# Go modules pinned in tools/crossplane, into .cache/bin (git-ignored):
#
#   .cache/bin/crossplane-core    Crossplane core v2.4.0 (the controller `modelplane dev up`
#                                 runs, and `crossplane internal render`, the render engine)
#                                                                         tools/crossplane/go.mod
#   .cache/bin/crossplane         Crossplane CLI v2.5.0 (`composition render` driving that
#                                 engine, `xpkg build`, `resource validate`)
#                                                                         tools/crossplane/cli/go.mod
#
# and seeds the offline schema cache `crossplane resource validate` needs for
# Crossplane's own kinds (.cache/crossplane-validate, see tools/crossplane/README.md),
# and copies the core release's CRDs (cluster/crds) to .cache/crossplane/crds for
# `modelplane dev up`, which applies them to its API server.
#
# A no-op when the binaries are current (same go.mod/go.sum, this script, Go version).
# Usage: npm run crossplane:build [-- --force]
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

if ! command -v go >/dev/null 2>&1; then
  echo "crossplane:build: 'go' is not on PATH; install Go >= 1.25 to build the real Crossplane CLI" >&2
  exit 1
fi

bin="$root/.cache/bin"
vcache="$root/.cache/crossplane-validate"
tools="$root/tools/crossplane"
stamp="$bin/.crossplane-build.stamp"

# The core release the validate cache seeds Crossplane's own CRDs from, and the
# image name validate is pointed at (never pulled: the cache entry exists).
core_module="github.com/crossplane/crossplane/v2"
core_version="$(cd "$tools" && go list -m -f '{{.Version}}' "$core_module")"
cli_module="github.com/crossplane/cli/v2"
cli_version="$(cd "$tools/cli" && go list -m -f '{{.Version}}' "$cli_module")"
validate_image="modelplane.invalid/crossplane/crossplane:${core_version}"

want="$( {
  go version
  echo "$core_version $cli_version"
  cat "$tools/go.mod" "$tools/go.sum" "$tools/cli/go.mod" "$tools/cli/go.sum"
  cat "${BASH_SOURCE[0]}"
} | sha256sum | cut -d' ' -f1)"

force=0
[[ "${1:-}" == "--force" ]] && force=1

if [[ $force == 0 && -f "$stamp" && "$(cat "$stamp")" == "$want" \
  && -x "$bin/crossplane-core" && -x "$bin/crossplane" \
  && -f "$vcache/.image" && -d "$root/.cache/crossplane/crds" ]]; then
  echo "crossplane:build: up to date (core $core_version, CLI $cli_version) in .cache/bin"
  exit 0
fi

mkdir -p "$bin"
rm -f "$stamp"
export CGO_ENABLED=0

build() { # <module dir> <output> <package> <ldflags>
  local dir="$1" out="$2" pkg="$3" ldflags="$4" t0=$SECONDS
  echo "crossplane:build: building $(basename "$out") ($pkg) ..."
  (cd "$dir" && go build -trimpath -ldflags "-s -w $ldflags" -o "$out.tmp" "$pkg")
  mv -f "$out.tmp" "$out"
  echo "crossplane:build:   done in $((SECONDS - t0))s"
}

t_all=$SECONDS
build "$tools" "$bin/crossplane-core" "$core_module/cmd/crossplane" \
  "-X=github.com/crossplane/crossplane-runtime/v2/pkg/version.version=$core_version"
build "$tools/cli" "$bin/crossplane" "$cli_module/cmd/crossplane" \
  "-X=github.com/crossplane/crossplane-runtime/v2/pkg/version.version=$cli_version"
rm -f "$bin/crossplane-render" # the v2.3-era client of our own, replaced by the real CLI

# Offline cache for `crossplane resource validate --crossplane-image $validate_image`:
# validate looks for <cache-dir>/<image with ':' replaced by '@'>/ and downloads the
# image only when that folder is missing. We fill it with the CRDs of the same core
# release (cluster/crds of the module we just built).
core_dir="$(cd "$tools" && go list -m -f '{{.Dir}}' "$core_module")"
entry="$vcache/${validate_image//:/@}"
rm -rf "$vcache"
mkdir -p "$entry"
for f in "$core_dir"/cluster/crds/*.yaml; do
  cat "$f"
  printf '\n---\n'
done >"$entry/package.yaml"
echo "$validate_image" >"$vcache/.image"
rm -rf "$root/.cache/crossplane/crds"
mkdir -p "$root/.cache/crossplane/crds"
cp "$core_dir"/cluster/crds/*.yaml "$root/.cache/crossplane/crds/"

echo "$want" >"$stamp"
echo "crossplane:build: built core $core_version + CLI $cli_version in $((SECONDS - t_all))s"
