/**
 * Starts a throwaway cluster by hand, the same way the test harness does, building what is not
 * cached yet. By default the whole workload environment (kube-apiserver, etcd,
 * kube-controller-manager, kube-scheduler and kwok's fake nodes); `--api-only` starts just
 * kube-apiserver and etcd. Prints one `export KUBECONFIG=...` line and runs until Ctrl-C, then stops
 * everything and deletes its files.
 *
 *   deno task k8s:up              # with workloads: Deployments roll out, Jobs complete
 *   deno task k8s:up --api-only   # API only, a few seconds faster
 */
import { startKubeApiServer } from "../../test/harness/k8s.ts";
import { ensureBinary } from "../testenv/go_build.ts";
import { ETCD, KUBE_APISERVER, KUBE_CONTROLLER_MANAGER, KUBE_SCHEDULER, KWOK } from "../testenv/servers.ts";

const args = process.argv.slice(2);
for (const a of args) {
  if (a !== "--api-only") {
    console.error(`error: unknown argument ${a}\nusage: deno task k8s:up [--api-only]`);
    process.exit(2);
  }
}
const workloads = !args.includes("--api-only");

try {
  const components = [
    KUBE_APISERVER,
    ETCD,
    ...(workloads ? [KUBE_CONTROLLER_MANAGER, KUBE_SCHEDULER, KWOK] : []),
  ];
  for (const c of components) {
    const built = await ensureBinary(c);
    if (!built.cached) console.error(`built ${built.path} in ${built.seconds.toFixed(0)} s`);
  }
  const k8s = await startKubeApiServer({ workloads });
  console.error(
    `kube-apiserver ${KUBE_APISERVER.version} ready at ${k8s.server} in ${
      (k8s.startupMs / 1000).toFixed(1)
    } s` +
      (workloads ? ` with workload controllers, kube-scheduler and kwok nodes ${k8s.nodes.join(", ")}` : ""),
  );
  console.log(`export KUBECONFIG=${k8s.kubeconfigPath}`);
  console.error("Ctrl-C stops it.");
  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    console.error("stopping");
    await k8s.stop();
    process.exit(0);
  };
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
  // Keep the event loop alive until a signal arrives.
  setInterval(() => {}, 1 << 30);
} catch (err) {
  console.error(`error: ${(err as Error).message}`);
  process.exit(1);
}
