/** `gitsync graph` as text: a tree of owners and what they own, or Graphviz DOT. */
import type { Graph } from "../graph/graph.ts";

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
