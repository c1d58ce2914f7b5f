/**
 * Drift on watched kinds (seed section 5, drift and self-heal): metadata-only informers on the managed
 * objects (label sync.gitsync.io/application) of a few common kinds, cluster-wide. A change that is not
 * gitsync's own apply, or a deletion, asks for the owning Application's drift check at once; every other
 * kind is compared on --drift-resync-interval. Only metadata is cached (no ConfigMap or Secret contents).
 * Without list/watch permission on a kind, that kind falls back to the interval, with one warning.
 */
import type { KubeClient, KubeObject } from "../../internal/k8s/mod.ts";
import { discoveryFor } from "../../internal/k8s/discovery.ts";
import { isKubeApiError } from "../../internal/k8s/errors.ts";
import { Informer } from "../../internal/k8s/informer.ts";
import { resourcePath } from "../../internal/k8s/resources.ts";
import type { Logger } from "../../internal/log/mod.ts";
import { FIELD_MANAGER } from "./rollout/apply.ts";
import { APPLICATION_LABEL } from "./api/mod.ts";

/** What `--drift-watch-kinds` watches by default: the kinds most applications are made of. */
export const DEFAULT_DRIFT_WATCH_KINDS = [
  "v1/ConfigMap",
  "v1/Service",
  "apps/v1/Deployment",
  "apps/v1/StatefulSet",
  "apps/v1/DaemonSet",
];

/** "apps/v1/Deployment" → { apiVersion: "apps/v1", kind: "Deployment" }. */
export function parseWatchKind(text: string): { apiVersion: string; kind: string } | undefined {
  const m = /^(?:([a-z0-9.-]+)\/)?(v[0-9]+(?:(?:alpha|beta)[0-9]+)?)\/([A-Z][A-Za-z0-9]*)$/.exec(text.trim());
  if (!m) return undefined;
  return { apiVersion: m[1] ? `${m[1]}/${m[2]}` : m[2]!, kind: m[3]! };
}

/** Whether the newest write to `o` was gitsync's own apply (then it is not drift). */
function lastWriteIsOurs(o: KubeObject): boolean {
  const fields = (o.metadata?.managedFields ?? []) as { manager?: string; time?: string }[];
  const newest = [...fields].sort((a, b) => (a.time ?? "").localeCompare(b.time ?? "")).at(-1);
  return newest?.manager === FIELD_MANAGER;
}

/** What the cache keeps of a managed object: enough to key it and to tell who changed it last. */
type Watched = KubeObject & { ours?: boolean };
function slim(o: KubeObject): Watched {
  const m = o.metadata ?? {};
  return {
    metadata: {
      name: m.name,
      namespace: m.namespace,
      resourceVersion: m.resourceVersion,
      labels: { [APPLICATION_LABEL]: m.labels?.[APPLICATION_LABEL] ?? "" },
    },
    ours: lastWriteIsOurs(o),
  };
}

export interface DriftWatchOptions {
  client: KubeClient;
  kinds: string[];
  signal: AbortSignal;
  log: Logger;
  /** A managed object of Application namespace/name changed or went away. */
  changed: (namespace: string, application: string) => void;
}

export async function watchManagedObjects(o: DriftWatchOptions): Promise<Promise<void>[]> {
  const runs: Promise<void>[] = [];
  for (const text of o.kinds) {
    const k = parseWatchKind(text)!;
    let path: string;
    try {
      path = resourcePath(await discoveryFor(o.client).forKind(k.apiVersion, k.kind), {});
    } catch (err) {
      o.log.warn("drift watch: kind not served; it is checked on the resync interval", {
        kind: text,
        error: String(err),
      });
      continue;
    }
    const stop = new AbortController();
    o.signal.addEventListener("abort", () => stop.abort(), { once: true });
    const informer = new Informer<Watched>(o.client, {
      path,
      labelSelector: APPLICATION_LABEL,
      metadataOnly: true,
      transform: slim,
      onError: (err) => {
        if (isKubeApiError(err, 403)) {
          o.log.warn("drift watch: no list/watch permission; this kind is checked on the resync interval", {
            kind: text,
          });
          stop.abort();
        }
      },
    });
    informer.onEvent((e) => {
      if (e.type === "add") return; // the first list, and gitsync's own creates
      if (e.type === "update" && e.object.ours) return;
      const app = e.object.metadata?.labels?.[APPLICATION_LABEL];
      const ns = e.object.metadata?.namespace;
      if (app && ns) o.changed(ns, app);
    });
    runs.push(informer.run(stop.signal));
  }
  return runs;
}
