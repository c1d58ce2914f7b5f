// Wrapper module that builds etcd 3.5 from pinned upstream Go modules, for kube-apiserver tests
// when Debian's etcd 3.4 is not enough. etcd's own go.mod files replace their sibling modules with
// local paths, so `go install go.etcd.io/etcd/server/v3@v3.5.35` is refused; requiring the
// published siblings at the same version here gives the same build.
// Used by scripts/testenv/go_build.ts. Change every v3.5.35 / v2.305.35 below and ETCD.version
// in scripts/testenv/servers.ts together, then delete go.sum and run the build once to regenerate it.
module toolkit.local/k8s-test-env/etcd

go 1.26.0

tool go.etcd.io/etcd/server/v3

require (
	go.etcd.io/etcd/api/v3 v3.5.35
	go.etcd.io/etcd/client/pkg/v3 v3.5.35
	go.etcd.io/etcd/client/v2 v2.305.35
	go.etcd.io/etcd/client/v3 v3.5.35
	go.etcd.io/etcd/pkg/v3 v3.5.35
	go.etcd.io/etcd/raft/v3 v3.5.35
	go.etcd.io/etcd/server/v3 v3.5.35
)
