/**
 * `gitsync graph <application>`: the live objects an Application manages and what they own, read
 * with the caller's own credentials (what you may not list is named, never guessed): the managed
 * objects by label, then ReplicaSets, Pods and Jobs they own, each with its health. As a text tree,
 * JSON (nodes and edges), YAML, or Graphviz DOT.
 */
import { type Command, Option } from "@commander-js/extra-typings";
import { addExamples, type Io, printResult } from "../../internal/cli/mod.ts";
import type { KubeClient, KubeObject } from "../../internal/k8s/mod.ts";
import { discoveryFor } from "../../internal/k8s/discovery.ts";
import { isKubeApiError } from "../../internal/k8s/errors.ts";
import { listObjects } from "../../internal/k8s/resources.ts";
import { assessHealth } from "../../controller/gitsync/health/assess.ts";
import type { Application } from "../../controller/gitsync/reconcilers/application.ts";
import { APPLICATION_LABEL, getApplication, OUTPUT_ENV, withSession } from "./kube.ts";

export interface GraphNode {
  id: string;
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  health: string;
  message?: string;
}

export interface Graph {
  application: string;
  namespace: string;
  revision?: string;
  nodes: GraphNode[];
  /** owner -> owned, by node id. */
  edges: { from: string; to: string }[];
  /** Kinds the caller may not list: the graph is shallower there. */
  notListed: string[];
}

/** What workloads own, read to show Pods under their controllers. */
const OWNED_KINDS = [
  { apiVersion: "apps/v1", kind: "ReplicaSet" },
  { apiVersion: "batch/v1", kind: "Job" },
  { apiVersion: "v1", kind: "Pod" },
];

const nodeId = (o: KubeObject) =>
  `${o.kind}/${o.metadata?.namespace ? `${o.metadata.namespace}/` : ""}${o.metadata?.name}`;

async function list(
  client: KubeClient,
  kind: { apiVersion: string; kind: string },
  namespace: string,
  labelSelector: string | undefined,
  notListed: string[],
): Promise<KubeObject[]> {
  try {
    const res = await discoveryFor(client).forKind(kind.apiVersion, kind.kind);
    const items = (await listObjects(client, res, {
      ...(res.namespaced ? { namespace } : {}),
      ...(labelSelector ? { labelSelector } : {}),
    })).items;
    return items.map((i) => ({ ...i, apiVersion: kind.apiVersion, kind: kind.kind }));
  } catch (err) {
    if (isKubeApiError(err, 403)) {
      notListed.push(kind.kind);
      return [];
    }
    throw err;
  }
}

export async function buildGraph(client: KubeClient, app: Application): Promise<Graph> {
  const ns = app.metadata!.namespace!;
  const name = app.metadata!.name!;
  const notListed: string[] = [];
  const managedKinds = (app.status?.managedKinds ?? []).map((k) => ({
    apiVersion: k.group ? `${k.group}/${k.version}` : k.version,
    kind: k.kind,
  }));
  const managed = (await Promise.all(
    managedKinds.map((k) => list(client, k, ns, `${APPLICATION_LABEL}=${name}`, notListed)),
  )).flat();
  const owned = (await Promise.all(OWNED_KINDS.map((k) => list(client, k, ns, undefined, notListed)))).flat();

  const nodes = new Map<string, GraphNode>();
  const byUid = new Map<string, string>();
  const add = (o: KubeObject) => {
    const id = nodeId(o);
    if (nodes.has(id)) return;
    const h = assessHealth(o);
    nodes.set(id, {
      id,
      apiVersion: o.apiVersion!,
      kind: o.kind!,
      ...(o.metadata?.namespace ? { namespace: o.metadata.namespace } : {}),
      name: o.metadata!.name!,
      health: h.status,
      ...(h.message ? { message: h.message } : {}),
    });
    if (o.metadata?.uid) byUid.set(o.metadata.uid, id);
  };
  for (const o of managed) add(o);
  // Owned objects join the graph only below something already in it (walked until nothing changes).
  const edges: { from: string; to: string }[] = [];
  for (let grew = true; grew;) {
    grew = false;
    for (const o of owned) {
      const owner = (o.metadata?.ownerReferences as { uid: string; controller?: boolean }[] | undefined)
        ?.find((r) => r.controller && byUid.has(r.uid));
      if (!owner || nodes.has(nodeId(o))) continue;
      add(o);
      edges.push({ from: byUid.get(owner.uid)!, to: nodeId(o) });
      grew = true;
    }
  }
  const sorted = [...nodes.values()].sort((a, b) => a.id.localeCompare(b.id));
  return {
    application: name,
    namespace: ns,
    ...(app.status?.deployedRevision ? { revision: app.status.deployedRevision } : {}),
    nodes: sorted,
    edges: edges.sort((a, b) => a.from.localeCompare(b.from) || a.to.localeCompare(b.to)),
    notListed: [...new Set(notListed)],
  };
}

/** The graph as a tree: roots are the managed objects nobody in the graph owns. */
export function formatTree(g: Graph): string {
  const children = new Map<string, string[]>();
  for (const e of g.edges) children.set(e.from, [...(children.get(e.from) ?? []), e.to]);
  const owned = new Set(g.edges.map((e) => e.to));
  const byId = new Map(g.nodes.map((n) => [n.id, n]));
  const lines = [
    `Application ${g.namespace}/${g.application}${g.revision ? ` (Revision ${g.revision})` : ""}`,
  ];
  const walk = (id: string, prefix: string, last: boolean) => {
    const n = byId.get(id)!;
    lines.push(
      `${prefix}${last ? "└── " : "├── "}${n.kind}/${n.name}  ${n.health}${
        n.message ? ` (${n.message})` : ""
      }`,
    );
    const kids = children.get(id) ?? [];
    kids.forEach((k, i) => walk(k, prefix + (last ? "    " : "│   "), i === kids.length - 1));
  };
  const roots = g.nodes.filter((n) => !owned.has(n.id));
  roots.forEach((n, i) => walk(n.id, "", i === roots.length - 1));
  if (!g.nodes.length) lines.push("(no managed objects yet)");
  if (g.notListed.length) lines.push(`(not shown: you may not list ${g.notListed.join(", ")})`);
  return lines.join("\n");
}

/** Graphviz DOT: nodes coloured by health, edges from owner to owned. */
export function formatDot(g: Graph): string {
  const color: Record<string, string> = {
    Healthy: "palegreen",
    Progressing: "lightblue",
    Degraded: "salmon",
    Unknown: "lightgrey",
  };
  const q = (s: string) => `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
  return [
    `digraph ${q(`${g.namespace}/${g.application}`)} {`,
    "  node [shape=box, style=filled];",
    ...g.nodes.map((n) =>
      `  ${q(n.id)} [label=${q(`${n.kind}\n${n.name}`)}, fillcolor=${color[n.health] ?? "white"}];`
    ),
    ...g.edges.map((e) => `  ${q(e.from)} -> ${q(e.to)};`),
    "}",
  ].join("\n");
}

export function registerGraph(program: Command, io: Io) {
  const command = program
    .command("graph")
    .summary("Show the live objects an Application manages and what they own, with their health")
    .description(
      "Read, with your own credentials, the objects the Application manages (by its label, for the kinds its " +
        "last rollout applied) and the ReplicaSets, Jobs and Pods they own, each with its health. Kinds you may " +
        "not list are named at the end instead of being guessed. Output: a text tree, JSON or YAML (nodes and " +
        "edges), or Graphviz DOT (-o dot | dot -Tsvg > graph.svg).",
    )
    .argument("<application>", "Application name")
    .addOption(
      new Option("-o, --output <format>", "Output format")
        .choices(["table", "json", "yaml", "dot"] as const)
        .default("table" as const)
        .env(OUTPUT_ENV),
    )
    .action(async (name, flags, cmd) => {
      await withSession(cmd, async ({ client, namespace }) => {
        const graph = await buildGraph(client, await getApplication(client, namespace, name));
        if (flags.output === "dot") {
          io.stdout.write(`${formatDot(graph)}\n`);
          return;
        }
        printResult(io, graph, flags.output, formatTree);
      });
    });
  addExamples(command, [
    "# The tree of Application web\ngitsync graph web -n shop",
    "# As an SVG picture\ngitsync graph web -n shop -o dot | dot -Tsvg > web.svg",
  ]);
}
