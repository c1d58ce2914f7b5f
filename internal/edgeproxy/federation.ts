/**
 * The ProxyFederation resources that tie the controllers of several clusters together: reading one,
 * how `edgectl federation` prints them (kubectl describe's layout and tables), and asking the
 * federation controller for a sync through the `edgeproxy.io/sync-requested-at` annotation it watches.
 */
import { formatTable } from "../cli/mod.ts";
import type { KubeClient, KubeObject } from "../k8s/mod.ts";
import { getObject, patchObject } from "../k8s/resources.ts";
import { formatAge, withoutManagedFields } from "../k8s/table.ts";
import { apiResource } from "./objects.ts";
import type { Condition } from "../k8s/mod.ts";

export const KIND = "ProxyFederation";
export const SYNC_ANNOTATION = "edgeproxy.io/sync-requested-at";

interface Member {
  name: string;
  endpoint?: string;
  region?: string;
  zone?: string;
}

interface MemberStatus {
  name: string;
  healthy?: boolean;
  lastSeen?: string;
  syncLag?: string;
  agents?: number;
  error?: string;
  vectorClock?: Record<string, number>;
}

interface Conflict {
  kind: string;
  namespace?: string;
  name: string;
  members?: string[];
  detectedAt?: string;
  resolution?: string;
  winner?: string;
  message?: string;
}

export interface Federation extends KubeObject {
  spec?: {
    federationId?: string;
    localMember?: Member;
    members?: Member[];
    sync?: { interval?: string; timeout?: string; batchSize?: number; compression?: boolean };
    conflictResolution?: { strategy?: string; vectorClocks?: boolean };
  };
  status?: {
    phase?: string;
    lastSyncTime?: string;
    localVectorClock?: Record<string, number>;
    members?: MemberStatus[];
    conflicts?: Conflict[];
    conditions?: Condition[];
  };
}

export async function getFederation(
  client: KubeClient,
  name: string,
  namespace: string,
): Promise<Federation> {
  return withoutManagedFields(
    await getObject(client, await apiResource(client, KIND), name, { namespace }),
  ) as Federation;
}

const none = (v: unknown) => v === undefined || v === null || v === "" ? "<none>" : String(v);

export function memberStatus(f: Federation, name: string): MemberStatus | undefined {
  return f.status?.members?.find((m) => m.name === name);
}

function section(title: string, body: string[]): string {
  return [title, ...body.map((l) => `  ${l}`)].join("\n");
}

function tableLines(headers: string[], rows: unknown[][]): string[] {
  return formatTable(headers, rows.map((r) => r.map((c) => c === undefined ? undefined : String(c))))
    .trimEnd()
    .split("\n");
}

export const STATUS_HEADERS = ["NAME", "FEDERATION ID", "LOCAL MEMBER", "PHASE", "AGE"];

export function statusRows(items: readonly Federation[], allNamespaces: boolean, now: Date) {
  return items.map((f) => [
    ...(allNamespaces ? [f.metadata?.namespace] : []),
    f.metadata?.name,
    f.spec?.federationId,
    f.spec?.localMember?.name,
    f.status?.phase,
    formatAge(f.metadata?.creationTimestamp, now),
  ]);
}

/** `federation status NAME` as text: the reference's sections, kubectl describe's layout. */
export function formatFederation(f: Federation, now: Date): string {
  const s = f.spec ?? {};
  const blocks = [
    [
      `Name:           ${f.metadata?.name}`,
      `Namespace:      ${f.metadata?.namespace}`,
      `Federation ID:  ${none(s.federationId)}`,
      `Phase:          ${none(f.status?.phase)}`,
      `Last Sync:      ${
        f.status?.lastSyncTime
          ? `${f.status.lastSyncTime} (${formatAge(f.status.lastSyncTime, now)} ago)`
          : "<none>"
      }`,
    ].join("\n"),
    section("Local Member:", [
      `Name:      ${none(s.localMember?.name)}`,
      `Endpoint:  ${none(s.localMember?.endpoint)}`,
      `Region:    ${none(s.localMember?.region)}`,
      `Zone:      ${none(s.localMember?.zone)}`,
    ]),
    s.members?.length
      ? section(
        "Peers:",
        tableLines(
          ["NAME", "ENDPOINT", "REGION", "ZONE"],
          s.members.map((m) => [m.name, m.endpoint, m.region, m.zone]),
        ),
      )
      : "Peers:  <none>",
    section("Sync Configuration:", [
      `Interval:     ${none(s.sync?.interval)}`,
      `Timeout:      ${none(s.sync?.timeout)}`,
      `Batch Size:   ${none(s.sync?.batchSize)}`,
      `Compression:  ${none(s.sync?.compression)}`,
    ]),
    section("Conflict Resolution:", [
      `Strategy:       ${none(s.conflictResolution?.strategy)}`,
      `Vector Clocks:  ${none(s.conflictResolution?.vectorClocks)}`,
    ]),
    f.status?.members?.length
      ? section("Member Status:", tableLines(MEMBER_HEADERS, memberRows(f, now)))
      : "Member Status:  <none>",
    f.status?.conditions?.length
      ? section(
        "Conditions:",
        tableLines(
          ["TYPE", "STATUS", "REASON", "MESSAGE"],
          f.status.conditions.map((c) => [c.type, c.status, c.reason, c.message]),
        ),
      )
      : "Conditions:  <none>",
  ];
  return blocks.join("\n");
}

const MEMBER_HEADERS = ["NAME", "HEALTHY", "LAST SEEN", "SYNC LAG", "AGENTS", "ERROR"];

function memberRows(f: Federation, now: Date) {
  return (f.status?.members ?? []).map((m) => [
    m.name,
    m.healthy === undefined ? undefined : String(m.healthy),
    m.lastSeen ? `${formatAge(m.lastSeen, now)} ago` : undefined,
    m.syncLag,
    m.agents,
    m.error,
  ]);
}

export const PEER_HEADERS = ["NAME", "ENDPOINT", "REGION", "HEALTHY", "LAST SEEN", "SYNC LAG", "AGENTS"];

export function peerRows(f: Federation, now: Date) {
  return (f.spec?.members ?? []).map((m) => {
    const st = memberStatus(f, m.name);
    return [
      m.name,
      m.endpoint,
      m.region,
      st?.healthy === undefined ? "Unknown" : String(st.healthy),
      st?.lastSeen ? `${formatAge(st.lastSeen, now)} ago` : undefined,
      st?.syncLag,
      st?.agents,
    ];
  });
}

export const CONFLICT_HEADERS = ["KIND", "NAMESPACE", "NAME", "MEMBERS", "RESOLUTION", "WINNER", "AGE"];

export function conflictRows(f: Federation, now: Date) {
  return (f.status?.conflicts ?? []).map((c) => [
    c.kind,
    c.namespace,
    c.name,
    (c.members ?? []).join(","),
    c.resolution ?? "Pending",
    c.winner,
    formatAge(c.detectedAt, now),
  ]);
}

/** `vector-clock NAME`: the local controller's clock, then each peer's as last exchanged. */
export function formatVectorClocks(f: Federation): string {
  const clock = (c: Record<string, number> | undefined) =>
    c && Object.keys(c).length ? Object.keys(c).sort().map((k) => `${k}: ${c[k]}`) : ["<none>"];
  const local = f.spec?.localMember?.name ?? "<none>";
  const lines = [
    section(`Local Controller:`, [
      `Member:  ${local}`,
      ...section("Clock:", clock(f.status?.localVectorClock)).split("\n"),
    ]),
  ];
  const peers = f.status?.members ?? [];
  lines.push(
    peers.length
      ? section(
        "Peer Vector Clocks:",
        peers.flatMap((m) => section(`${m.name}:`, clock(m.vectorClock)).split("\n")),
      )
      : "Peer Vector Clocks:  <none>",
  );
  return lines.join("\n");
}

/**
 * Stamps the federation with the sync annotation (now, whole seconds, RFC 3339) by a merge patch,
 * which fails with NotFound for a missing federation and touches nothing else; returns the stamp.
 */
export async function requestSync(client: KubeClient, name: string, namespace: string): Promise<string> {
  const res = await apiResource(client, KIND);
  const requested = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace(".000Z", "Z");
  await patchObject(
    client,
    res,
    name,
    { metadata: { annotations: { [SYNC_ANNOTATION]: requested } } },
    { namespace, type: "merge" },
  );
  return requested;
}

/** Waits until status.lastSyncTime is at or after `requested`; returns it, or undefined after `timeoutMs`. */
export async function waitForSync(
  client: KubeClient,
  name: string,
  namespace: string,
  requested: string,
  timeoutMs: number,
): Promise<string | undefined> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const f = await getFederation(client, name, namespace);
    const last = f.status?.lastSyncTime ? Date.parse(f.status.lastSyncTime) : NaN;
    if (last >= Date.parse(requested)) return f.status!.lastSyncTime;
    await new Promise((r) => setTimeout(r, Math.min(500, Math.max(0, deadline - Date.now()))));
  }
  return undefined;
}
