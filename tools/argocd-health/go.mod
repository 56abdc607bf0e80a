module github.com/modelplane/modelplane/tools/argocd-health

go 1.25.11

require github.com/yuin/gopher-lua v1.1.2
