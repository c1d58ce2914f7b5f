module toolkit/test/helm

// The real helm binary, for tests only: it renders and lints deploy/gitsync/chart (and is the reference
// output for the Helm renderer's corpus). Used by scripts/testenv/go_build.ts; change v3.16.4 here and
// HELM.version in scripts/testenv/servers.ts together.

go 1.24

tool helm.sh/helm/v3/cmd/helm

require helm.sh/helm/v3 v3.16.4
