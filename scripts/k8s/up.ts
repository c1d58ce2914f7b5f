/**
 * Starts a throwaway kube-apiserver + etcd by hand, the same way the test harness does, building
 * kube-apiserver first if it is not cached. Prints an `export KUBECONFIG=...` line and runs until
 * Ctrl-C, then stops both servers and deletes their files.
 *
 *   deno run --allow-all scripts/k8s/up.ts
 */
import { startKubeApiServer } from "../../test/harness/k8s.ts";
import { ensureBinary } from "../testenv/go_build.ts";
import { KUBE_APISERVER } from "../testenv/servers.ts";

try {
  const built = await ensureBinary(KUBE_APISERVER);
  if (!built.cached) console.error(`built ${built.path} in ${built.seconds.toFixed(0)} s`);
  const k8s = await startKubeApiServer();
  console.error(
    `kube-apiserver ${KUBE_APISERVER.version} ready at ${k8s.server} in ${
      (k8s.startupMs / 1000).toFixed(1)
    } s`,
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
