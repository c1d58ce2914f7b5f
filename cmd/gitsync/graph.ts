/**
 * `gitsync graph <application>`: the live objects an Application manages and what they own, read
 * with the caller's own credentials (what you may not list is named, never guessed): the managed
 * objects by label, then ReplicaSets, Pods and Jobs they own, each with its health. As a text tree,
 * JSON (nodes and edges), YAML, or Graphviz DOT.
 */
import { type Command, Option } from "@commander-js/extra-typings";
import { addExamples, type Io, printResult } from "../../internal/cli/mod.ts";
import { buildGraph, type Graph } from "../../controller/gitsync/graph/graph.ts";
import { getApplication, OUTPUT_ENV, withSession } from "./kube.ts";

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
