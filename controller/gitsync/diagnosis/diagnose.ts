/**
 * Diagnosis (seed sections 2 and 8): from the managed objects that are not Healthy, walk down to what
 * is actually wrong — Deployment → ReplicaSet → Pod → container, StatefulSet/DaemonSet/Job → Pod —
 * and name root causes a person can act on: CrashLoopBackOff, ImagePullBackOff, MissingSecret,
 * MissingConfigMap, MissingPersistentVolumeClaim, Unschedulable, a failed Job — and the consequence a person
 * is paged for: a Service selecting the workload's Pods with no ready endpoint (its EndpointSlices). Reads as the Application's service account; a read
 * it may not make is not an error, the diagnosis is only shallower. Bounded: at most 20 selectors,
 * 100 objects per list, 500 objects in all, 10 causes, chains of 10, messages of 512 characters.
 */
import { isKubeApiError, type KubeClient, type KubeObject } from "../../../internal/k8s/mod.ts";
import { assessHealth } from "../health/assess.ts";
import type { Cause, Diagnosis, ObjectRef } from "../api/mod.ts";

const MAX_CAUSES = 10;
const MAX_MESSAGE = 512;
const MAX_LIST = 100;
const MAX_OBJECTS = 500;
const MAX_SELECTORS = 20;
/** Reasons that report an effect rather than its cause; listed after the others. */
const CONSEQUENCES = new Set(["NoEndpoints"]);

// deno-lint-ignore no-explicit-any
type Obj = Record<string, any>;

const ref = (o: KubeObject, kind = o.kind, apiVersion = o.apiVersion): ObjectRef => ({
  apiVersion,
  kind,
  ...(o.metadata?.namespace ? { namespace: o.metadata.namespace } : {}),
  name: o.metadata?.name,
});

/** Reads within the bounds; a Forbidden read gives nothing instead of failing the diagnosis. */
class BoundedReader {
  private objects = 0;
  private selectors = 0;
  constructor(private readonly client: KubeClient, private readonly namespace: string) {}

  async list(path: string, labelSelector?: string): Promise<Obj[]> {
    if (this.objects >= MAX_OBJECTS || (labelSelector && ++this.selectors > MAX_SELECTORS)) return [];
    try {
      const l = await this.client.request<{ items: Obj[] }>({
        path: `${path}`.replace("{ns}", this.namespace),
        query: { limit: MAX_LIST, ...(labelSelector ? { labelSelector } : {}) },
      });
      const items = l.items.slice(0, MAX_OBJECTS - this.objects);
      this.objects += items.length;
      return items;
    } catch (err) {
      if (isKubeApiError(err, 403)) return [];
      throw err;
    }
  }

  /** Whether the object exists; undefined when the account may not tell. */
  async exists(path: string): Promise<boolean | undefined> {
    if (this.objects >= MAX_OBJECTS) return undefined;
    this.objects++;
    try {
      await this.client.request({ path: path.replace("{ns}", this.namespace) });
      return true;
    } catch (err) {
      if (isKubeApiError(err, 404)) return false;
      if (isKubeApiError(err, 403)) return undefined;
      throw err;
    }
  }
}

const selectorOf = (o: Obj) =>
  Object.entries((o.spec?.selector?.matchLabels ?? {}) as Record<string, string>).map(([k, v]) => `${k}=${v}`)
    .join(",");
const ownedBy = (child: Obj, owner: Obj) =>
  (child.metadata?.ownerReferences ?? []).some((r: Obj) => r.uid === owner.metadata?.uid);

/** Root causes inside one Pod: its containers' states, the Secrets and ConfigMaps it needs, scheduling. */
async function podCauses(reader: BoundedReader, pod: Obj, chain: ObjectRef[]): Promise<Cause[]> {
  const here = [...chain, ref(pod as KubeObject, "Pod", "v1")];
  const causes: Cause[] = [];
  const scheduled = (pod.status?.conditions ?? []).find((c: Obj) => c.type === "PodScheduled");
  if (scheduled?.status === "False" && scheduled.reason === "Unschedulable") {
    // A claim that does not exist keeps a Pod from scheduling: name it before the scheduler's message.
    const missing = (await missingReferences(reader, pod)).filter((m) =>
      m.reason === "MissingPersistentVolumeClaim"
    );
    causes.push(...missing.map((m) => ({ ...m, chain: here })));
    causes.push({
      reason: "Unschedulable",
      message: scheduled.message ?? "no node fits the Pod",
      chain: here,
    });
  }
  for (const s of [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])]) {
    const waiting = s.state?.waiting;
    const terminated = s.lastState?.terminated ?? s.state?.terminated;
    if (waiting?.reason === "CreateContainerConfigError" || waiting?.reason === "CreateContainerError") {
      // Usually a Secret or ConfigMap the container reads is missing: say which.
      const missing = await missingReferences(reader, pod);
      if (missing.length) {
        causes.push(...missing.map((m) => ({ ...m, chain: here })));
        continue;
      }
    }
    if (waiting?.reason && waiting.reason !== "ContainerCreating" && waiting.reason !== "PodInitializing") {
      const last = terminated?.exitCode !== undefined ? ` (last exit code ${terminated.exitCode})` : "";
      causes.push({
        reason: waiting.reason,
        message: `container ${s.name}: ${waiting.message ?? waiting.reason}${last}`,
        chain: here,
      });
    }
  }
  if (!causes.length && pod.status?.phase === "Failed") {
    for (const s of pod.status?.containerStatuses ?? []) {
      const t = s.state?.terminated;
      if (t && t.exitCode !== 0) {
        causes.push({
          reason: t.reason ?? "Error",
          message: `container ${s.name} exited with code ${t.exitCode}${t.message ? `: ${t.message}` : ""}`,
          chain: here,
        });
      }
    }
  }
  if (!causes.length) {
    const missing = await missingReferences(reader, pod);
    causes.push(...missing.map((m) => ({ ...m, chain: here })));
  }
  return causes;
}

type Referenced = "Secret" | "ConfigMap" | "PersistentVolumeClaim";
const PLURAL: Record<Referenced, string> = {
  Secret: "secrets",
  ConfigMap: "configmaps",
  PersistentVolumeClaim: "persistentvolumeclaims",
};

/** Secrets, ConfigMaps and PVCs the Pod references (volumes, env, envFrom) that do not exist. */
async function missingReferences(reader: BoundedReader, pod: Obj): Promise<Omit<Cause, "chain">[]> {
  const wanted = new Map<string, { kind: Referenced; name: string; optional?: boolean }>();
  const want = (kind: Referenced, name: string | undefined, optional?: boolean) => {
    if (name && !optional) wanted.set(`${kind}/${name}`, { kind, name });
  };
  for (const v of pod.spec?.volumes ?? []) {
    want("Secret", v.secret?.secretName, v.secret?.optional);
    want("ConfigMap", v.configMap?.name, v.configMap?.optional);
    want("PersistentVolumeClaim", v.persistentVolumeClaim?.claimName);
  }
  for (const c of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) {
    for (const e of c.env ?? []) {
      want("Secret", e.valueFrom?.secretKeyRef?.name, e.valueFrom?.secretKeyRef?.optional);
      want("ConfigMap", e.valueFrom?.configMapKeyRef?.name, e.valueFrom?.configMapKeyRef?.optional);
    }
    for (const f of c.envFrom ?? []) {
      want("Secret", f.secretRef?.name, f.secretRef?.optional);
      want("ConfigMap", f.configMapRef?.name, f.configMapRef?.optional);
    }
  }
  const out: Omit<Cause, "chain">[] = [];
  for (const w of wanted.values()) {
    if (await reader.exists(`/api/v1/namespaces/{ns}/${PLURAL[w.kind]}/${w.name}`) === false) {
      out.push({ reason: `Missing${w.kind}`, message: `${w.kind} ${w.name} does not exist` });
    }
  }
  return out;
}

/**
 * Services whose selector picks the workload's Pods and whose EndpointSlices hold no ready endpoint: what
 * the workload's failure does to traffic, named after its root causes.
 */
async function servicesWithoutEndpoints(
  reader: BoundedReader,
  workload: Obj,
  chain: ObjectRef[],
): Promise<Cause[]> {
  const labels = (workload.spec?.template?.metadata?.labels ?? {}) as Record<string, string>;
  const selecting = (await reader.list("/api/v1/namespaces/{ns}/services")).filter((svc) => {
    const selector = Object.entries((svc.spec?.selector ?? {}) as Record<string, string>);
    return selector.length > 0 && selector.every(([k, v]) => labels[k] === v);
  });
  const out: Cause[] = [];
  for (const svc of selecting) {
    const slices = await reader.list(
      "/apis/discovery.k8s.io/v1/namespaces/{ns}/endpointslices",
      `kubernetes.io/service-name=${svc.metadata?.name}`,
    );
    const ready = slices.flatMap((s) => (s.endpoints ?? []) as Obj[])
      .filter((e) => e.conditions?.ready !== false).length;
    if (ready === 0) {
      out.push({
        reason: "NoEndpoints",
        message: `Service ${svc.metadata?.name} has no ready endpoints: none of the Pods it selects is ready`,
        chain: [...chain, ref(svc as KubeObject, "Service", "v1")],
      });
    }
  }
  return out;
}

async function podsOf(reader: BoundedReader, owner: Obj): Promise<Obj[]> {
  const selector = selectorOf(owner);
  if (!selector) return [];
  return (await reader.list("/api/v1/namespaces/{ns}/pods", selector)).filter((p) => ownedBy(p, owner));
}

/** The causes below one unhealthy managed object. */
async function causesOf(reader: BoundedReader, o: Obj): Promise<Cause[]> {
  const chain = [ref(o as KubeObject)];
  if (o.kind === "Pod") return await podCauses(reader, o, []);
  if (o.kind === "Deployment") {
    const sets = (await reader.list("/apis/apps/v1/namespaces/{ns}/replicasets", selectorOf(o)))
      .filter((rs) => ownedBy(rs, o))
      .sort((a, b) =>
        Number(b.metadata?.annotations?.["deployment.kubernetes.io/revision"] ?? 0) -
        Number(a.metadata?.annotations?.["deployment.kubernetes.io/revision"] ?? 0)
      );
    const newest = sets[0];
    if (!newest) return [];
    const below = [...chain, ref(newest as KubeObject, "ReplicaSet", "apps/v1")];
    const out: Cause[] = [];
    for (const pod of await podsOf(reader, newest)) out.push(...await podCauses(reader, pod, below));
    return [...out, ...await servicesWithoutEndpoints(reader, o, chain)];
  }
  if (o.kind === "StatefulSet" || o.kind === "DaemonSet" || o.kind === "Job") {
    const out: Cause[] = [];
    for (const pod of await podsOf(reader, o)) out.push(...await podCauses(reader, pod, chain));
    if (o.kind !== "Job") out.push(...await servicesWithoutEndpoints(reader, o, chain));
    if (!out.length && o.kind === "Job") {
      const failed = (o.status?.conditions ?? []).find((c: Obj) =>
        c.type === "Failed" && c.status === "True"
      );
      if (failed) out.push({ reason: failed.reason ?? "JobFailed", message: failed.message ?? "", chain });
    }
    return out;
  }
  const h = assessHealth(o);
  return h.status === "Degraded" ? [{ reason: "Degraded", message: h.message, chain }] : [];
}

/** Diagnoses `objects` (the live managed objects that are not Healthy) in `namespace`. */
export async function diagnose(
  client: KubeClient,
  namespace: string,
  objects: KubeObject[],
  redact: (text: string) => string,
  now: Date = new Date(),
): Promise<Diagnosis> {
  const reader = new BoundedReader(client, namespace);
  const causes: Cause[] = [];
  for (const o of objects) {
    if (causes.length >= MAX_CAUSES) break;
    causes.push(...await causesOf(reader, o as Obj));
  }
  // One entry per distinct reason and message (ten crash-looping replicas are one cause); consequences
  // (a Service without endpoints) after the causes that explain them.
  const seen = new Set<string>();
  const consequence = (c: Cause) => (CONSEQUENCES.has(c.reason) ? 1 : 0);
  const distinct = causes.sort((a, b) => consequence(a) - consequence(b)).filter((c) => {
    const key = `${c.reason}\0${c.message.replace(/pod=\S+/, "")}\0${c.chain[0]?.kind}/${c.chain[0]?.name}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  }).slice(0, MAX_CAUSES).map((c) => ({
    reason: c.reason,
    message: redact(c.message).slice(0, MAX_MESSAGE),
    chain: c.chain.slice(0, 10),
  }));
  const first = distinct[0];
  return {
    ...(first
      ? { firstRootCause: { reason: first.reason, message: first.message, resource: first.chain.at(-1)! } }
      : {}),
    causes: distinct,
    diagnosedAt: now.toISOString().replace(/\.\d{3}Z$/, "Z"),
  };
}
