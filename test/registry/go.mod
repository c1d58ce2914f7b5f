module toolkit/test/registry

// The real OCI distribution registry (CNCF distribution, the registry behind Docker Hub and most
// self-hosted registries), for tests only: image automation scans its tags and manifests over the
// distribution API with token auth. Used by scripts/testenv/go_build.ts; change v3.1.2 here and
// REGISTRY.version in scripts/testenv/servers.ts together.

go 1.24

tool github.com/distribution/distribution/v3/cmd/registry

require github.com/distribution/distribution/v3 v3.1.2
