/**
 * Informer probe (scripts/bench/gitsync_informers.ts), compiled like gitsync-manager: @kubernetes/client-node's
 * makeInformer on all Applications until its first list is cached, then a watch event seen. Prints one JSON line.
 */
import * as k8s from "@kubernetes/client-node";

const [kubeconfig, path, expected] = process.argv.slice(2);
const kc = new k8s.KubeConfig();
kc.loadFromFile(kubeconfig!);
const api = kc.makeApiClient(k8s.CustomObjectsApi);
const [, , group, version, plural] = path!.split("/");
const informer = k8s.makeInformer(
  kc,
  path!,
  () => api.listClusterCustomObject({ group: group!, version: version!, plural: plural! }) as never,
);
let watched = false;
informer.on("add", () => {
  if (informer.list().length > Number(expected)) watched = true;
});
informer.on("error", (err) => process.stderr.write(`informer error: ${String(err)}\n`));
await informer.start();
const syncedMs = performance.now();
const items = informer.list().length;
process.stdout.write(`${JSON.stringify({ syncedMs, items, rssMb: process.memoryUsage().rss / 1e6 })}\n`);
for (let i = 0; i < 600 && !watched; i++) await new Promise((r) => setTimeout(r, 50));
process.stdout.write(`${JSON.stringify({ watchedMs: performance.now(), watched })}\n`);
await informer.stop();
process.exit(0);
