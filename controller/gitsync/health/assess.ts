/**
 * Health of one live object, per kind, for the rollout's "each group Healthy before the next" rule
 * and for status. Workloads get the rules `kubectl rollout status` uses; other objects with kstatus
 * conditions (Ready, Reconciling, Stalled, observedGeneration) are read the kstatus way; kinds known
 * to have no status are Healthy once they exist. A kind that is none of these, with no status to
 * read, is Unknown, and Unknown does not count as Healthy: a wave never advances past a custom
 * resource by accident (the failure Argo CD users hit with app-of-apps, argo-cd#14442). A HealthCheck
 * rule (or a `status.conditions` Ready) is what makes such a kind assessable.
 */

export type HealthStatus = "Healthy" | "Progressing" | "Degraded" | "Unknown";

export interface Health {
  status: HealthStatus;
  /** Why, in words a person understands; empty when Healthy for no particular reason. */
  message: string;
}

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

// deno-lint-ignore no-explicit-any
type Obj = Record<string, any>;

/** Kinds whose objects carry no status: they are Healthy as soon as the API server has them. */
const STATUSLESS = new Set([
  "ConfigMap",
  "Secret",
  "ServiceAccount",
  "Role",
  "RoleBinding",
  "ClusterRole",
  "ClusterRoleBinding",
  "NetworkPolicy",
  "LimitRange",
  "ResourceQuota",
  "PodDisruptionBudget",
  "PriorityClass",
  "StorageClass",
  "IngressClass",
  "RuntimeClass",
  "Endpoints",
  "EndpointSlice",
  "ValidatingWebhookConfiguration",
  "MutatingWebhookConfiguration",
  "ValidatingAdmissionPolicy",
  "ValidatingAdmissionPolicyBinding",
  "Lease",
  "CronJob",
]);

const healthy = (message = ""): Health => ({ status: "Healthy", message });
const progressing = (message: string): Health => ({ status: "Progressing", message });
const degraded = (message: string): Health => ({ status: "Degraded", message });

function condition(o: Obj, type: string): Condition | undefined {
  return (o.status?.conditions as Condition[] | undefined)?.find((c) => c.type === type);
}

/** The controller has not seen the latest spec yet. */
function stale(o: Obj): Health | undefined {
  const gen = o.metadata?.generation;
  const seen = o.status?.observedGeneration;
  return gen !== undefined && seen !== undefined && seen < gen
    ? progressing(`waiting for the controller to observe generation ${gen} (at ${seen})`)
    : undefined;
}

function deployment(o: Obj): Health {
  const s = o.status ?? {};
  if (s.observedGeneration === undefined) return progressing("waiting for the deployment controller");
  const lag = stale(o);
  if (lag) return lag;
  const p = condition(o, "Progressing");
  if (p?.reason === "ProgressDeadlineExceeded") {
    return degraded(`deployment exceeded its progress deadline${p.message ? `: ${p.message}` : ""}`);
  }
  const want = o.spec?.replicas ?? 1;
  const updated = s.updatedReplicas ?? 0;
  const total = s.replicas ?? 0;
  const available = s.availableReplicas ?? 0;
  if (updated < want) return progressing(`${updated} of ${want} updated replicas are available`);
  if (total > updated) return progressing(`${total - updated} old replicas are pending termination`);
  if (available < updated) return progressing(`${available} of ${updated} updated replicas are available`);
  return healthy();
}

function statefulSet(o: Obj): Health {
  const s = o.status ?? {};
  if (s.observedGeneration === undefined) return progressing("waiting for the statefulset controller");
  const lag = stale(o);
  if (lag) return lag;
  const want = o.spec?.replicas ?? 1;
  const ready = s.readyReplicas ?? 0;
  if (ready < want) return progressing(`${ready} of ${want} pods are ready`);
  if (o.spec?.updateStrategy?.type === "OnDelete") return healthy();
  const partition = o.spec?.updateStrategy?.rollingUpdate?.partition ?? 0;
  if (partition > 0) {
    const updated = s.updatedReplicas ?? 0;
    return updated < want - partition
      ? progressing(`${updated} of ${want - partition} pods are updated (partition ${partition})`)
      : healthy();
  }
  if (s.updateRevision && s.currentRevision !== s.updateRevision) {
    return progressing(`${s.updatedReplicas ?? 0} of ${want} pods are at revision ${s.updateRevision}`);
  }
  return healthy();
}

function daemonSet(o: Obj): Health {
  const s = o.status ?? {};
  if (s.observedGeneration === undefined) return progressing("waiting for the daemonset controller");
  const lag = stale(o);
  if (lag) return lag;
  const want = s.desiredNumberScheduled ?? 0;
  if (o.spec?.updateStrategy?.type === "OnDelete") return healthy();
  if ((s.updatedNumberScheduled ?? 0) < want) {
    return progressing(`${s.updatedNumberScheduled ?? 0} of ${want} updated pods are scheduled`);
  }
  if ((s.numberAvailable ?? 0) < want) {
    return progressing(`${s.numberAvailable ?? 0} of ${want} pods are available`);
  }
  return healthy();
}

/** Waiting reasons that mean the container will not start without a change. */
const STUCK = new Set([
  "CrashLoopBackOff",
  "ImagePullBackOff",
  "ErrImagePull",
  "InvalidImageName",
  "CreateContainerConfigError",
  "CreateContainerError",
  "RunContainerError",
]);

function pod(o: Obj): Health {
  const s = o.status ?? {};
  if (s.phase === "Succeeded") return healthy("pod completed");
  if (s.phase === "Failed") return degraded(s.message || s.reason || "pod failed");
  const statuses = [...(s.initContainerStatuses ?? []), ...(s.containerStatuses ?? [])];
  for (const c of statuses) {
    const reason = c.state?.waiting?.reason;
    if (reason && STUCK.has(reason)) {
      return degraded(
        `container ${c.name}: ${reason}${c.state.waiting.message ? `: ${c.state.waiting.message}` : ""}`,
      );
    }
  }
  const scheduled = condition(o, "PodScheduled");
  if (scheduled?.status === "False" && scheduled.reason === "Unschedulable") {
    return progressing(`unschedulable: ${scheduled.message ?? ""}`.trim());
  }
  if (s.phase === "Running" && condition(o, "Ready")?.status === "True") return healthy();
  return progressing(
    s.phase === "Running" ? "pod is running but not ready" : `pod is ${s.phase ?? "pending"}`,
  );
}

function job(o: Obj): Health {
  const failed = condition(o, "Failed");
  if (failed?.status === "True") {
    return degraded(`job failed: ${failed.reason ?? ""}${failed.message ? `: ${failed.message}` : ""}`);
  }
  if (condition(o, "Complete")?.status === "True") return healthy("job completed");
  if (o.spec?.suspend) return progressing("job is suspended");
  return progressing(
    `job is running (${o.status?.active ?? 0} active, ${o.status?.succeeded ?? 0} succeeded)`,
  );
}

function pvc(o: Obj): Health {
  switch (o.status?.phase) {
    case "Bound":
      return healthy();
    case "Lost":
      return degraded("the claim lost its volume");
    default:
      return progressing(`claim is ${o.status?.phase ?? "Pending"}`);
  }
}

function service(o: Obj): Health {
  if (o.spec?.type !== "LoadBalancer") return healthy();
  return (o.status?.loadBalancer?.ingress ?? []).length
    ? healthy()
    : progressing("waiting for the load balancer's address");
}

function crd(o: Obj): Health {
  if (condition(o, "NamesAccepted")?.status === "False") {
    return degraded(condition(o, "NamesAccepted")?.message ?? "names not accepted");
  }
  return condition(o, "Established")?.status === "True"
    ? healthy()
    : progressing("waiting for the CRD to be established");
}

/** kstatus for objects that report conditions; undefined when the object reports nothing to read. */
function kstatus(o: Obj): Health | undefined {
  const lag = stale(o);
  if (lag) return lag;
  const stalled = condition(o, "Stalled");
  if (stalled?.status === "True") return degraded(stalled.message || stalled.reason || "stalled");
  const reconciling = condition(o, "Reconciling");
  if (reconciling?.status === "True") {
    return progressing(reconciling.message || reconciling.reason || "reconciling");
  }
  const ready = condition(o, "Ready");
  if (ready) {
    return ready.status === "True" ? healthy() : progressing(ready.message || ready.reason || "not ready");
  }
  if (o.status?.conditions?.length || o.status?.observedGeneration !== undefined) return healthy();
  return undefined;
}

/**
 * The object's health. `kindsWithoutStatus` names further kinds (from HealthCheck rules or the
 * CRD's own declaration) that are Healthy once they exist.
 */
export function assessHealth(o: Obj, kindsWithoutStatus: ReadonlySet<string> = new Set()): Health {
  switch (o.kind) {
    case "Deployment":
      return deployment(o);
    case "StatefulSet":
      return statefulSet(o);
    case "DaemonSet":
      return daemonSet(o);
    case "ReplicaSet":
      return (o.status?.readyReplicas ?? 0) >= (o.spec?.replicas ?? 1)
        ? healthy()
        : progressing("replicas not ready");
    case "Pod":
      return pod(o);
    case "Job":
      return job(o);
    case "PersistentVolumeClaim":
      return pvc(o);
    case "Service":
      return service(o);
    case "Ingress":
      // An Ingress reports an address only where a controller publishes one; its absence is not a fault.
      return healthy();
    case "CustomResourceDefinition":
      return crd(o);
    case "Namespace":
      return o.status?.phase === "Terminating" ? progressing("namespace is terminating") : healthy();
    case "APIService":
      return condition(o, "Available")?.status === "True"
        ? healthy()
        : progressing("API service not available");
  }
  if (STATUSLESS.has(o.kind) || kindsWithoutStatus.has(o.kind)) return healthy();
  return kstatus(o) ??
    { status: "Unknown", message: `${o.kind} reports no status to assess; add a HealthCheck rule for it` };
}
