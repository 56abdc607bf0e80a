#!/usr/bin/env bash
# CI check of the oracle fixtures: the CEL package's
# (packages/cel/test/fixtures/cel-oracle.json) and the CRD validation-rule
# fixture (test/fixtures/crd-oracle.json).
#
# With `go` on PATH: rebuilds the Kubernetes oracle if needed (test/oracle,
# into .cache/oracle), asks it every question again into a temporary directory
# and fails (exit 1) with a summary of the differing cases when a committed
# fixture is not what Kubernetes answers today (a changed generator, a changed
# Go module, or a hand-edited fixture). Without Go: prints one line and exits 0;
# the committed fixtures are then used as they are by the oracle tests
# (packages/cel/test/oracle.test.ts, test/schema/crd-oracle.test.ts).
set -euo pipefail

cd "$(dirname "$0")/.."
fixtures=(packages/cel/test/fixtures/cel-oracle.json test/fixtures/crd-oracle.json)

if ! command -v go >/dev/null 2>&1; then
  echo "ci-oracle: skipped (go is not on PATH); using the committed ${fixtures[*]}"
  exit 0
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

npx tsx scripts/oracle/generate.ts --out "$tmp" >"$tmp/generate.log" 2>&1 || {
  echo "ci-oracle: FAILED to regenerate the fixtures:"
  cat "$tmp/generate.log"
  exit 1
}

status=0
for fixture in "${fixtures[@]}"; do
  fresh="$tmp/$(basename "$fixture")"
  if cmp -s "$fixture" "$fresh"; then
    echo "ci-oracle: ok, ${fixture} matches what Kubernetes answers ($(grep -c '"id":' "$fixture") cases)"
    continue
  fi
  # One case per line, so a line diff names the cases that changed.
  diff "$fixture" "$fresh" >"$tmp/diff" || true
  removed=$(grep -c '^<' "$tmp/diff" || true)
  added=$(grep -c '^>' "$tmp/diff" || true)
  echo "ci-oracle: FAILED: ${fixture} is stale (${removed} lines differ from, ${added} lines in the fresh answers)."
  echo "First differences (< committed, > Kubernetes now):"
  # awk, not grep | head: under pipefail an early head exits the script with SIGPIPE (141).
  awk '/^[<>]/ && n++ < 20 { print substr($0, 1, 300) }' "$tmp/diff"
  status=1
done
if [ "$status" -ne 0 ]; then echo "Run 'npm run oracle', review the diff and commit the fixtures."; fi
exit "$status"
