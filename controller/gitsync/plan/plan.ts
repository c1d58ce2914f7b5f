/**
 * A Revision's plan (seed sections 2, 3, 5.6): for each object, what a rollout would do (create,
 * update, unchanged, prune, or keep a high-risk object prune skipped) with a unified diff of the live
 * object against the server-side dry-run result, and the digest approvals bind to:
 * `status.plan.digest` = SHA-256 over the desired state and the full plan. Everything shown is
 * redacted by the caller's redaction function before it is stored or hashed into the plan part, and
 * Secrets never show values at all. The stored plan is bounded: diffs beyond the budget are cut with
 * a note, and the digest covers the full plan, so a cut never hides a change from the approval.
 */
import { createHash } from "node:crypto";
import { createTwoFilesPatch } from "diff";
import { stringify } from "yaml";
import type { KubeObject } from "../../../internal/k8s/mod.ts";
import type { Plan, PlanAction, PlanEntry } from "../api/mod.ts";

/** Bytes of diff text kept in status (etcd objects are limited to 1.5 MiB in all). */
export const PLAN_DIFF_BUDGET = 256 * 1024;

/** Fields the server owns: they would make every object look changed. */
function comparable(o: KubeObject | undefined): KubeObject | undefined {
  if (!o) return undefined;
  const { status: _status, ...rest } = o;
  const m = { ...(o.metadata ?? {}) };
  for (
    const k of ["managedFields", "resourceVersion", "uid", "generation", "creationTimestamp", "selfLink"]
  ) {
    delete m[k];
  }
  if (m.annotations) {
    const { "kubectl.kubernetes.io/last-applied-configuration": _l, ...annotations } = m.annotations;
    m.annotations = annotations;
    if (!Object.keys(annotations).length) delete m.annotations;
  }
  return { ...rest, metadata: m };
}

/**
 * A Secret shows its keys only: values never reach a plan, even redacted. A value that differs from
 * `other`'s shows as "(hidden, changed)", so a changed Secret still reads as an update.
 */
function hideSecretValues(o: KubeObject | undefined, other?: KubeObject): KubeObject | undefined {
  if (!o || o.kind !== "Secret") return o;
  const hide = (field: "data" | "stringData") => {
    const d = o[field] as Record<string, unknown> | undefined;
    if (!d || typeof d !== "object") return {};
    const theirs = (other?.[field] ?? {}) as Record<string, unknown>;
    return {
      [field]: Object.fromEntries(
        Object.keys(d).sort().map((
          k,
        ) => [k, !other || theirs[k] === d[k] ? "(hidden)" : "(hidden, changed)"]),
      ),
    };
  };
  return { ...o, ...hide("data"), ...hide("stringData") };
}

/** JSON with object keys sorted at every level: the same value always gives the same bytes. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(
    value,
    (_key, v) =>
      v && typeof v === "object" && !Array.isArray(v)
        ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, (v as Record<string, unknown>)[k]]))
        : v,
  );
}

export interface PlanInput {
  /** Rendered desired objects with the dry-run result (`after`) and the live object (`before`, absent if new). */
  changes: { desired: KubeObject; before?: KubeObject; after: KubeObject }[];
  /** Managed objects prune would delete, and those it keeps (high-risk kinds). */
  prune: KubeObject[];
  pruneSkipped: KubeObject[];
  /** The one redaction function (seed section 5.6), applied to every diff. */
  redact: (text: string) => string;
}

function entryOf(o: KubeObject, action: PlanAction, diff?: string): PlanEntry {
  return {
    action,
    apiVersion: o.apiVersion ?? "",
    kind: o.kind ?? "",
    ...(o.metadata?.namespace ? { namespace: o.metadata.namespace } : {}),
    name: o.metadata?.name ?? "",
    ...(diff ? { diff } : {}),
  };
}

const refKey = (o: KubeObject) =>
  `${o.apiVersion}/${o.kind}/${o.metadata?.namespace ?? ""}/${o.metadata?.name}`;

const yamlOf = (o: KubeObject | undefined) => (o ? stringify(o, { sortMapEntries: true }) : "");

/**
 * A dry-run create invents values a real create would invent again differently: the object's uid
 * (a Job's selector and template labels carry it) and a Service's cluster IPs and node ports. They
 * are shown as "(generated)" so that planning the same commit twice gives the same digest.
 */
function withoutInventedValues(after: KubeObject, desired: KubeObject): KubeObject {
  const uid = after.metadata?.uid;
  const replaced = JSON.parse(
    JSON.stringify(after, (_k, v) => (uid && v === uid ? "(generated)" : v)),
  ) as KubeObject;
  if (after.kind === "Service" && after.apiVersion === "v1") {
    const spec = (replaced.spec ?? {}) as Record<string, unknown>;
    const want = (desired.spec ?? {}) as Record<string, unknown>;
    if (!want.clusterIP && spec.clusterIP && spec.clusterIP !== "None") spec.clusterIP = "(generated)";
    if (!want.clusterIPs && Array.isArray(spec.clusterIPs)) {
      spec.clusterIPs = spec.clusterIPs.map((ip) => (ip === "None" ? ip : "(generated)"));
    }
    const wantPorts = (want.ports ?? []) as { nodePort?: number }[];
    if (Array.isArray(spec.ports)) {
      spec.ports = (spec.ports as { nodePort?: unknown }[]).map((p, i) =>
        p.nodePort !== undefined && wantPorts[i]?.nodePort === undefined
          ? { ...p, nodePort: "(generated)" }
          : p
      );
    }
  }
  return replaced;
}

export function buildPlan(input: PlanInput): Plan {
  const entries: PlanEntry[] = [];
  for (const c of input.changes) {
    const live = comparable(c.before);
    const next = comparable(c.before ? c.after : withoutInventedValues(c.after, c.desired));
    const action: PlanAction = !live
      ? "create"
      : canonicalJson(live) === canonicalJson(next)
      ? "unchanged"
      : "update";
    const before = yamlOf(hideSecretValues(live));
    const after = yamlOf(hideSecretValues(next, live));
    const name = `${c.desired.kind}/${c.desired.metadata?.name}`;
    const diff = action === "unchanged" ? undefined : input.redact(
      createTwoFilesPatch(`live/${name}`, `desired/${name}`, before, after, "", "", { context: 3 }),
    );
    entries.push(entryOf(c.desired, action, diff));
  }
  for (const o of input.prune) {
    entries.push(entryOf(o, "prune", input.redact(yamlOf(hideSecretValues(comparable(o))))));
  }
  for (const o of input.pruneSkipped) entries.push(entryOf(o, "prune-skipped"));
  entries.sort((a, b) =>
    `${a.namespace ?? ""}/${a.kind}/${a.name}`.localeCompare(`${b.namespace ?? ""}/${b.kind}/${b.name}`)
  );

  const desired = canonicalJson(
    input.changes.map((c) => c.desired).sort((a, b) => refKey(a).localeCompare(refKey(b))),
  );
  const digest = "sha256:" + createHash("sha256")
    .update(desired)
    .update("\0")
    .update(canonicalJson(entries))
    .digest("hex");

  let budget = PLAN_DIFF_BUDGET;
  let truncated = false;
  const bounded = entries.map((e) => {
    if (!e.diff) return e;
    if (e.diff.length <= budget) {
      budget -= e.diff.length;
      return e;
    }
    truncated = true;
    const { diff: _d, ...rest } = e;
    return rest;
  });
  const summary = { create: 0, update: 0, unchanged: 0, prune: 0, pruneSkipped: 0 };
  for (const e of entries) summary[e.action === "prune-skipped" ? "pruneSkipped" : e.action]++;
  return {
    digest,
    desiredStateHash: desiredStateHash(input.changes.map((c) => c.desired)),
    entries: bounded,
    summary,
    truncated,
  };
}

/** sha256 over the desired objects in canonical JSON and a fixed order (see Plan.desiredStateHash). */
export function desiredStateHash(objects: KubeObject[]): string {
  const sorted = [...objects].sort((a, b) => refKey(a).localeCompare(refKey(b)));
  return "sha256:" + createHash("sha256").update(canonicalJson(sorted)).digest("hex");
}
