#!/usr/bin/env bash
# CI check of the CEL oracle fixture (test/fixtures/cel-oracle.json).
#
# With `go` on PATH: rebuilds the Kubernetes oracle if needed (test/oracle,
# into .cache/oracle), asks it every question again into a temporary file and
# fails (exit 1) with a summary of the differing cases when the committed
# fixture is not what Kubernetes answers today (a changed generator, a changed
# Go module, or a hand-edited fixture). Without Go: prints one line and exits 0;
# the committed fixture is then used as is by test/cel/oracle.test.ts.
set -euo pipefail

cd "$(dirname "$0")/.."
fixture=test/fixtures/cel-oracle.json

if ! command -v go >/dev/null 2>&1; then
  echo "ci-oracle: skipped (go is not on PATH); using the committed ${fixture}"
  exit 0
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fresh="$tmp/cel-oracle.json"

npx tsx scripts/oracle/generate.ts --out "$fresh" >"$tmp/generate.log" 2>&1 || {
  echo "ci-oracle: FAILED to regenerate the fixture:"
  cat "$tmp/generate.log"
  exit 1
}

if cmp -s "$fixture" "$fresh"; then
  echo "ci-oracle: ok, ${fixture} matches what Kubernetes answers ($(grep -c '"id":' "$fixture") cases)"
  exit 0
fi

# One case per line, so a line diff names the cases that changed.
diff "$fixture" "$fresh" >"$tmp/diff" || true
removed=$(grep -c '^<' "$tmp/diff" || true)
added=$(grep -c '^>' "$tmp/diff" || true)
echo "ci-oracle: FAILED: ${fixture} is stale (${removed} lines differ from, ${added} lines in the fresh answers)."
echo "First differences (< committed, > Kubernetes now):"
# awk, not grep | head: under pipefail an early head exits the script with SIGPIPE (141).
awk '/^[<>]/ && n++ < 20 { print substr($0, 1, 300) }' "$tmp/diff"
echo "Run 'npm run oracle', review the diff and commit the fixture."
exit 1
