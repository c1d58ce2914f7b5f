/**
 * `edgectl federation` (alias `fed`): the ProxyFederation resources that tie the controllers of
 * several clusters together. status/peers/conflicts/vector-clock read what the federation controller
 * records in status; `sync` asks that controller for an immediate full sync by stamping the
 * `edgeproxy.io/sync-requested-at` annotation, which it watches (and answers by moving
 * status.lastSyncTime past the stamp; --wait waits for that).
 */
import type { Command } from "@commander-js/extra-typings";
import { addExamples, CliError, type Io, outputOption, printResult } from "../../internal/cli/mod.ts";
import { listObjects } from "../../internal/k8s/resources.ts";
import { listDocument, withoutManagedFields } from "../../internal/k8s/table.ts";
import { parseDuration } from "../../internal/duration/duration.ts";
import { OUTPUT_ENV, useKubeOptions, withSession } from "./flags.ts";
import { apiResource } from "../../internal/edgeproxy/objects.ts";
import {
  CONFLICT_HEADERS,
  conflictRows,
  type Federation,
  formatFederation,
  formatVectorClocks,
  getFederation,
  KIND,
  memberStatus,
  PEER_HEADERS,
  peerRows,
  requestSync,
  STATUS_HEADERS,
  statusRows,
  SYNC_ANNOTATION,
  waitForSync,
} from "../../internal/edgeproxy/federation.ts";

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
        const requested = await requestSync(client, name, namespace);
        io.stdout.write(`proxyfederation.edgeproxy.io/${name} sync requested at ${requested}\n`);
        if (!flags.wait) return;
        const synced = await waitForSync(client, name, namespace, requested, timeoutMs!);
        if (synced === undefined) {
          throw new CliError(
            `federation ${name}: no sync reported within ${flags.timeout} (status.lastSyncTime)`,
          );
        }
        io.stdout.write(`proxyfederation.edgeproxy.io/${name} synced at ${synced}\n`);
      });
    });
  addExamples(sync, [
    "# Request a sync of federation global\nedgectl federation sync global",
    "# And wait up to 2 minutes for it\nedgectl fed sync global --wait --timeout 2m",
  ]);
}
