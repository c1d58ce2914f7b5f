module toolkit/wasm/helm

// Helm's template engine (pkg/chart/loader, pkg/chartutil, pkg/engine) compiled to WebAssembly
// (main.go). Pinned to the same Helm as the test binary (test/helm/go.mod, v3.16.4) so that output
// equals `helm template`. Built by scripts/lib/wasm.ts.

go 1.24

require helm.sh/helm/v3 v3.16.4
