module toolkit/test/sops

// The real sops binary, for tests only: it encrypts the fixtures controller/gitsync/sops is checked
// against. Used by scripts/testenv/go_build.ts; change v3.13.3 here and SOPS.version in
// scripts/testenv/servers.ts together.

go 1.24

tool github.com/getsops/sops/v3/cmd/sops

require github.com/getsops/sops/v3 v3.13.3
