#!/usr/bin/env bash
# Conformance against the real Crossplane CLI and core (test/conformance).
# With Go on PATH: builds the pinned binaries (npm run crossplane:build; a build
# failure fails CI) and runs the conformance tests. Without Go: one skip line.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v go >/dev/null 2>&1; then
  echo "conformance: skipped: go not on PATH (run npm run crossplane:build (needs Go), then npx vitest run test/conformance)"
  exit 0
fi

npm run crossplane:build
npx vitest run test/conformance
