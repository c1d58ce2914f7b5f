/**
 * What `edgectl check` checks, in the spirit of `linkerd check`: the edgeproxy.io CRDs installed and
 * established, the controller and every agent Pod Ready, and the proxy's GatewayClasses Accepted.
 */
import type { KubeClient, KubeObject } from "../k8s/mod.ts";
import { discoveryFor } from "../k8s/discovery.ts";
import { isKubeApiError } from "../k8s/errors.ts";
import type { Check } from "./check_results.ts";
import { loadCrds } from "./crds.ts";
import { field } from "./field.ts";
import { conditionStatus, GATEWAY_GROUP } from "./gateway_api_view.ts";
import { labelSelector, listProxyPods, type Pod, type ProxyComponent } from "./proxy_pods.ts";

export async function crdChecks(client: KubeClient): Promise<Check[]> {
  const wanted = (await loadCrds()).map((c) => c.metadata!.name!);
  const missing: string[] = [];
  const notEstablished: string[] = [];
  for (const name of wanted) {
    try {
      const crd = await client.request<KubeObject>({
        path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`,
      });
      if (conditionStatus(field(crd, "status.conditions"), "Established") !== "True") {
        notEstablished.push(name);
      }
    } catch (err) {
      if (!isKubeApiError(err, "NotFound")) throw err;
      missing.push(name);
    }
  }
  const installed = wanted.length - missing.length;
  return [
    {
      description: `the edgeproxy.io CRDs are installed (${installed}/${wanted.length})`,
      result: missing.length ? "error" : "success",
      ...(missing.length ? { error: `missing: ${missing.join(", ")}`, hint: "edgectl install-crds" } : {}),
    },
    {
      description: "the edgeproxy.io CRDs are established",
      result: notEstablished.length ? "error" : "success",
      ...(notEstablished.length ? { error: `not established: ${notEstablished.join(", ")}` } : {}),
    },
  ];
}

function podReady(pod: Pod): boolean {
  return conditionStatus(field(pod, "status.conditions"), "Ready") === "True";
}

/** Why a Pod is not Ready, from its container states: CrashLoopBackOff, ImagePullBackOff, Pending. */
function notReadyReason(pod: Pod): string {
  const statuses = field(pod, "status.containerStatuses");
  if (Array.isArray(statuses)) {
    for (const s of statuses) {
      const reason = field(s, "state.waiting.reason") ?? field(s, "state.terminated.reason");
      if (typeof reason === "string") return reason;
    }
  }
  return String(pod.status?.phase ?? "Pending");
}

export async function podChecks(
  client: KubeClient,
  namespace: string,
  component: ProxyComponent,
): Promise<Check[]> {
  const pods = await listProxyPods(client, namespace, component);
  const description = `${component} Pods are Ready`;
  if (pods.length === 0) {
    return [{
      description,
      result: "error",
      error: `no ${component} Pods (${labelSelector(component)}) in namespace ${namespace}`,
      hint: "install the proxy, or point --proxy-namespace at where it runs",
    }];
  }
  const notReady = pods.filter((p) => !podReady(p));
  return [{
    description: `${description} (${pods.length - notReady.length}/${pods.length})`,
    result: notReady.length ? "error" : "success",
    ...(notReady.length
      ? {
        error: notReady.map((p) =>
          `${p.metadata.name}${p.spec.nodeName ? ` on ${p.spec.nodeName}` : ""}: ${notReadyReason(p)}`
        ).join("\n"),
        hint: `edgectl logs ${component}${component === "agent" ? " --node <node>" : ""}`,
      }
      : {}),
  }];
}

export async function gatewayClassChecks(client: KubeClient, controller: string): Promise<Check[]> {
  const res = (await discoveryFor(client).mapper({ refresh: true })).find(`gatewayclasses.${GATEWAY_GROUP}`);
  if (!res) {
    return [{
      description: "the Gateway API CRDs are installed",
      result: "warning",
      error: "gateway.networking.k8s.io is not served; Gateway API resources cannot be used",
      hint: "https://gateway-api.sigs.k8s.io/guides/#installing-gateway-api (v1.4.0 standard channel)",
    }];
  }
  const list = await client.request<{ items: KubeObject[] }>({
    path: `/apis/${GATEWAY_GROUP}/${res.version}/gatewayclasses`,
  });
  const ours = list.items.filter((c) => field(c, "spec.controllerName") === controller);
  if (ours.length === 0) {
    return [{
      description: `a GatewayClass of ${controller} exists`,
      result: "warning",
      error: `no GatewayClass has spec.controllerName ${controller}`,
    }];
  }
  const rejected = ours.filter((c) => conditionStatus(field(c, "status.conditions"), "Accepted") !== "True");
  return [{
    description: `GatewayClasses of ${controller} are Accepted (${
      ours.length - rejected.length
    }/${ours.length})`,
    result: rejected.length ? "error" : "success",
    ...(rejected.length
      ? {
        error: rejected.map((c) => {
          const cond =
            (field(c, "status.conditions") as { type: string; status: string; reason?: string }[] ?? [])
              .find((x) => x.type === "Accepted");
          return `${c.metadata?.name}: Accepted ${cond?.status ?? "<none>"}${
            cond?.reason ? ` (${cond.reason})` : ""
          }`;
        }).join("\n"),
        hint: "edgectl gateway-api conformance",
      }
      : {}),
  }];
}
