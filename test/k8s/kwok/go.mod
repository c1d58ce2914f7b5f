// Wrapper module that builds the kwok controller (fake nodes and pods for the workload tests) from its
// pinned upstream Go module. Only the `kwok` binary is built: `kwokctl` downloads binaries at run time.
// Used by scripts/testenv/go_build.ts. Change v0.8.0 here and KWOK.version in scripts/testenv/servers.ts
// together, then delete go.sum and run `deno task testenv:build kwok` once to regenerate it.
module toolkit.local/k8s-test-env/kwok

go 1.26.0

tool sigs.k8s.io/kwok/cmd/kwok

require sigs.k8s.io/kwok v0.8.0
