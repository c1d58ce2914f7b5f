/**
 * Informer probe (scripts/bench/gitsync_informers.ts), compiled like gitsync-manager: internal/k8s's
 * informer on all Applications until the first list is cached, then a watch event seen. Prints one JSON line.
 */
import { Informer, KubeClient } from "../../../internal/k8s/mod.ts";

const [kubeconfig, path, expected] = process.argv.slice(2);
const client = KubeClient.fromKubeconfig({ path: kubeconfig! });
const informer = new Informer(client, { path: path! });
const stop = new AbortController();
let watched = false;
informer.onEvent((e) => {
  if (e.type === "add" && informer.list().length > Number(expected)) watched = true;
});
void informer.run(stop.signal);
await informer.synced;
const syncedMs = performance.now();
const items = informer.list().length;
process.stdout.write(`${JSON.stringify({ syncedMs, items, rssMb: process.memoryUsage().rss / 1e6 })}\n`);
// The bench creates one more object now; report once the watch has delivered it.
for (let i = 0; i < 600 && !watched; i++) await new Promise((r) => setTimeout(r, 50));
process.stdout.write(`${JSON.stringify({ watchedMs: performance.now(), watched })}\n`);
stop.abort();
client.close();
process.exit(0);
