/**
 * The edge proxy's Pods, found by label. The proxy's manifests are expected to label them
 *
 *   app.kubernetes.io/name: edgeproxy
 *   app.kubernetes.io/component: controller | agent
 *
 * (the Kubernetes recommended labels), in the namespace it is installed in: `--proxy-namespace`,
 * else EDGECTL_PROXY_NAMESPACE, else `edge-system`. Agents run one per node (a DaemonSet), so
 * `--node` selects them by `spec.nodeName`.
 */
import { CliError } from "../cli/mod.ts";
import type { KubeClient } from "../k8s/mod.ts";

export const NAME_LABEL = "app.kubernetes.io/name";
export const COMPONENT_LABEL = "app.kubernetes.io/component";
export const PROXY_NAME = "edgeproxy";
export const DEFAULT_PROXY_NAMESPACE = "edge-system";

export type ProxyComponent = "controller" | "agent";

export interface Pod {
  metadata: { name: string; namespace: string; creationTimestamp?: string };
  spec: { nodeName?: string; containers: { name: string }[] };
  status?: { phase?: string };
}

/** One container of one Pod: what a log stream is read from. */
export interface LogSource {
  pod: string;
  namespace: string;
  container: string;
  node?: string;
}

export function labelSelector(component: ProxyComponent): string {
  return `${NAME_LABEL}=${PROXY_NAME},${COMPONENT_LABEL}=${component}`;
}

/** The Pods of a component, oldest first; none found is an error naming what was looked for. */
export async function findProxyPods(
  client: KubeClient,
  namespace: string,
  component: ProxyComponent,
  node?: string,
): Promise<Pod[]> {
  const pods = await listProxyPods(client, namespace, component, node);
  if (pods.length === 0) {
    throw new CliError(
      `no ${component} Pods (${labelSelector(component)}) in namespace ${namespace}` +
        (node ? ` on node ${node}` : "") +
        (namespace === DEFAULT_PROXY_NAMESPACE
          ? "; is the proxy installed elsewhere? use --proxy-namespace"
          : ""),
    );
  }
  return pods;
}

/** The Pods of a component, oldest first, possibly none. */
export async function listProxyPods(
  client: KubeClient,
  namespace: string,
  component: ProxyComponent,
  node?: string,
): Promise<Pod[]> {
  const list = await client.request<{ items: Pod[] }>({
    path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods`,
    query: {
      labelSelector: labelSelector(component),
      ...(node ? { fieldSelector: `spec.nodeName=${node}` } : {}),
    },
  });
  const pods = list.items.sort((a, b) =>
    (a.metadata.creationTimestamp ?? "").localeCompare(b.metadata.creationTimestamp ?? "") ||
    a.metadata.name.localeCompare(b.metadata.name)
  );
  return pods;
}

/** Every container of every Pod. */
export function logSources(pods: readonly Pod[]): LogSource[] {
  return pods.flatMap((pod) =>
    pod.spec.containers.map((c) => ({
      pod: pod.metadata.name,
      namespace: pod.metadata.namespace,
      container: c.name,
      ...(pod.spec.nodeName ? { node: pod.spec.nodeName } : {}),
    }))
  );
}
