/**
 * Builds the Kubernetes test servers from the pinned recipes in test/k8s/ into a cache outside the
 * repo (see binaries.ts), or reports them as cached.
 *
 *   deno run --allow-all scripts/k8s/build.ts          # kube-apiserver
 *   deno run --allow-all scripts/k8s/build.ts --etcd   # also etcd 3.5 (Debian's etcd 3.4 is the default)
 *
 * Environment: K8S_TEST_CACHE (cache root), XDG_CACHE_HOME. Needs `go` (>= 1.24) and the module proxy.
 */
import { type Component, ensureBinary } from "../testenv/go_build.ts";
import { ETCD, KUBE_APISERVER } from "../testenv/servers.ts";

const args = process.argv.slice(2);
for (const a of args) {
  if (a !== "--etcd") {
    console.error(`error: unknown argument ${a}\nusage: scripts/k8s/build.ts [--etcd]`);
    process.exit(2);
  }
}
const components: Component[] = [KUBE_APISERVER, ...(args.includes("--etcd") ? [ETCD] : [])];

try {
  for (const c of components) {
    const r = await ensureBinary(c);
    console.log(
      r.cached
        ? `${c.name} ${c.version}: cached ${r.path}`
        : `${c.name} ${c.version}: built ${r.path} in ${r.seconds.toFixed(0)} s`,
    );
  }
} catch (err) {
  console.error(`error: ${(err as Error).message}`);
  process.exit(1);
}
