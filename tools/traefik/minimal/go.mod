// Not a module to build: the stub sources scripts/traefik-build.sh copies into its Traefik
// and lego copies (tools/traefik/README.md). This file keeps them out of tools/traefik's module.
module github.com/modelplane/modelplane/tools/traefik/minimal

go 1.26.0
