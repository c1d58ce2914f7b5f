/**
 * `edgectl federation` (alias `fed`): the ProxyFederation resources that tie the controllers of
 * several clusters together. status/peers/conflicts/vector-clock read what the federation controller
 * records in status; `sync` asks that controller for an immediate full sync by stamping the
 * `edgeproxy.io/sync-requested-at` annotation, which it watches (and answers by moving
 * status.lastSyncTime past the stamp; --wait waits for that).
 */
import type { Command } from "@commander-js/extra-typings";
import {
  addExamples,
  CliError,
  formatTable,
  type Io,
  outputOption,
  printResult,
} from "../../internal/cli/mod.ts";
import type { KubeClient, KubeObject } from "../../internal/k8s/mod.ts";
import { getObject, listObjects, patchObject } from "../../internal/k8s/resources.ts";
import { formatAge, listDocument, withoutManagedFields } from "../../internal/k8s/table.ts";
import { parseDuration } from "../../internal/edgeproxy/duration.ts";
import { OUTPUT_ENV, useKubeOptions, withSession } from "./flags.ts";
import { apiResource } from "../../internal/edgeproxy/objects.ts";

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
    conditions?: {
      type: string;
      status: string;
      reason?: string;
      message?: string;
      lastTransitionTime?: string;
    }[];
  };
}

async function getFederation(client: KubeClient, name: string, namespace: string): Promise<Federation> {
  return withoutManagedFields(
    await getObject(client, await apiResource(client, KIND), name, { namespace }),
  ) as Federation;
}

const none = (v: unknown) => v === undefined || v === null || v === "" ? "<none>" : String(v);

function memberStatus(f: Federation, name: string): MemberStatus | undefined {
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

export function registerFederation(program: Command, io: Io) {
  const fed = program
    .command("federation")
    .alias("fed")
    .summary("Inspect the federation of controllers across clusters, and request a sync")
    .description(
      "The ProxyFederation resources (edgeproxy.io/v1alpha1) that join the controllers of several " +
        "clusters: their members, health, sync lag, vector clocks and conflicts, as the federation " +
        "controller records them in status. Member clusters are ProxyCluster resources " +
        "(`edgectl get clusters`, `edgectl describe cluster <name>`).",
    );
  useKubeOptions(fed, { namespace: true });

  const status = fed
    .command("status")
    .summary("List federations, or show one in detail")
    .argument("[name]", "Federation name")
    .option("-A, --all-namespaces", "List the federations of every namespace", false)
    .addOption(outputOption({ env: OUTPUT_ENV }))
    .action(async (name, flags, cmd) => {
      if (name !== undefined && flags.allNamespaces) {
        cmd.error("a resource cannot be retrieved by name across all namespaces");
      }
      await withSession(cmd, async ({ client, namespace }) => {
        const now = new Date();
        if (name !== undefined) {
          const f = await getFederation(client, name, namespace);
          printResult(io, f, flags.output, () => formatFederation(f, now));
          return;
        }
        const list = await listObjects(
          client,
          await apiResource(client, KIND),
          flags.allNamespaces ? { allNamespaces: true } : { namespace },
        );
        const items = list.items.map((o) => withoutManagedFields(o) as Federation);
        printResult(io, listDocument(items), flags.output, {
          headers: [...(flags.allNamespaces ? ["NAMESPACE"] : []), ...STATUS_HEADERS],
          rows: () => statusRows(items, flags.allNamespaces, now),
          empty: flags.allNamespaces ? "No resources found" : `No resources found in ${namespace} namespace.`,
        });
      });
    });
  addExamples(status, [
    "# The federations of the current namespace\nedgectl federation status",
    "# Every namespace\nedgectl fed status -A",
    "# One federation in detail: members, sync settings, member health, conditions\nedgectl fed status global -n edge-system",
  ]);

  const one = (
    word: string,
    summary: string,
    examples: string[],
    print: (f: Federation, format: "table" | "json" | "yaml", now: Date) => void,
  ) => {
    const command = fed
      .command(word)
      .summary(summary)
      .argument("<name>", "Federation name")
      .addOption(outputOption({ env: OUTPUT_ENV }))
      .action(async (name, flags, cmd) => {
        await withSession(cmd, async ({ client, namespace }) => {
          print(await getFederation(client, name, namespace), flags.output as "table", new Date());
        });
      });
    addExamples(command, examples);
  };

  one("peers", "The federation's peers with their health and sync lag", [
    "# Peers of federation global\nedgectl federation peers global",
    "# As JSON\nedgectl fed peers global -o json",
  ], (f, format, now) => {
    const doc = {
      federation: f.metadata?.name,
      peers: (f.spec?.members ?? []).map((m) => ({ ...m, status: memberStatus(f, m.name) ?? null })),
    };
    printResult(io, doc, format, {
      headers: PEER_HEADERS,
      rows: () => peerRows(f, now),
      empty: `Federation ${f.metadata?.name} has no peers.`,
    });
  });

  one("conflicts", "Resources changed on several members at once, and how each was resolved", [
    "# Conflicts of federation global\nedgectl federation conflicts global",
    "# As YAML\nedgectl fed conflicts global -o yaml",
  ], (f, format, now) => {
    const doc = { federation: f.metadata?.name, conflicts: f.status?.conflicts ?? [] };
    printResult(io, doc, format, {
      headers: CONFLICT_HEADERS,
      rows: () => conflictRows(f, now),
      empty: `No conflicts in federation ${f.metadata?.name}.`,
    });
  });

  one("vector-clock", "The local controller's vector clock and each peer's", [
    "# Vector clocks of federation global\nedgectl federation vector-clock global",
    "# As JSON\nedgectl fed vector-clock global -o json",
  ], (f, format) => {
    const doc = {
      federation: f.metadata?.name,
      localMember: f.spec?.localMember?.name ?? null,
      localVectorClock: f.status?.localVectorClock ?? {},
      peers: Object.fromEntries((f.status?.members ?? []).map((m) => [m.name, m.vectorClock ?? {}])),
    };
    printResult(io, doc, format, () => formatVectorClocks(f));
  });

  const sync = fed
    .command("sync")
    .summary("Ask the federation controller for an immediate full sync")
    .description(
      `Stamps the federation with the ${SYNC_ANNOTATION} annotation (the current time, RFC 3339); the ` +
        "federation controller watches it and starts a full sync with every peer. With --wait, edgectl " +
        "waits until status.lastSyncTime is at or after the stamp, or fails after --timeout.",
    )
    .argument("<name>", "Federation name")
    .option("--wait", "Wait until the controller reports the sync done", false)
    .option("--timeout <duration>", "How long --wait waits", "60s")
    .action(async (name, flags, cmd) => {
      const timeoutMs = parseDuration(flags.timeout);
      if (timeoutMs === undefined || timeoutMs <= 0) {
        cmd.error(`--timeout: "${flags.timeout}" is not a duration`);
      }
      await withSession(cmd, async ({ client, namespace }) => {
        const res = await apiResource(client, KIND);
        const requested = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace(".000Z", "Z");
        // A merge patch: fails with NotFound for a missing federation, and touches nothing else.
        await patchObject(
          client,
          res,
          name,
          { metadata: { annotations: { [SYNC_ANNOTATION]: requested } } },
          {
            namespace,
            type: "merge",
          },
        );
        io.stdout.write(`proxyfederation.edgeproxy.io/${name} sync requested at ${requested}\n`);
        if (!flags.wait) return;
        const deadline = Date.now() + timeoutMs!;
        while (Date.now() < deadline) {
          const f = await getFederation(client, name, namespace);
          const last = f.status?.lastSyncTime ? Date.parse(f.status.lastSyncTime) : NaN;
          if (last >= Date.parse(requested)) {
            io.stdout.write(`proxyfederation.edgeproxy.io/${name} synced at ${f.status!.lastSyncTime}\n`);
            return;
          }
          await new Promise((r) => setTimeout(r, Math.min(500, Math.max(0, deadline - Date.now()))));
        }
        throw new CliError(
          `federation ${name}: no sync reported within ${flags.timeout} (status.lastSyncTime)`,
        );
      });
    });
  addExamples(sync, [
    "# Request a sync of federation global\nedgectl federation sync global",
    "# And wait up to 2 minutes for it\nedgectl fed sync global --wait --timeout 2m",
  ]);
}
