# Shared by the Go tool builds (scripts/keda-build.sh, scripts/traefik-build.sh): sourced,
# never run. Each build pins its Go module under tools/ and writes into .cache/bin, a no-op
# while a stamp (a sha256 over what the binaries are built from) matches.
#
#   go_build_init NAME ARGS...   checks that `go` is on PATH and reads the one option,
#                                --force, into $force (1 rebuilds even when current); any
#                                other argument exits 2 naming it. Sets CGO_ENABLED=0 and
#                                GOFLAGS=-mod=mod for the builds.
#   go_build_current STAMP WANT FILE...
#                                true when not forced, STAMP holds WANT and every FILE exists.
#   go_build_stamp_inputs        prints what every stamp includes besides the build's own
#                                inputs: the Go version and this file.

go_build_init() {
  local name="$1"; shift
  if ! command -v go >/dev/null 2>&1; then
    echo "$name: 'go' is not on PATH; install Go >= 1.26" >&2
    exit 1
  fi
  force=0
  local a
  for a in "$@"; do
    case "$a" in
      --force) force=1 ;;
      *) echo "$name: unknown argument '$a' (only --force)" >&2; exit 2 ;;
    esac
  done
  export CGO_ENABLED=0 GOFLAGS=-mod=mod
}

go_build_current() {
  local stamp="$1" want="$2"; shift 2
  [[ $force == 0 && -f "$stamp" && "$(cat "$stamp")" == "$want" ]] || return 1
  local f
  for f in "$@"; do [[ -e "$f" ]] || return 1; done
}

go_build_stamp_inputs() {
  go version
  cat "${BASH_SOURCE[0]}"
}
