/**
 * `gitsync graph <application>`: the live objects an Application manages and what they own, read
 * with the caller's own credentials (what you may not list is named, never guessed): the managed
 * objects by label, then ReplicaSets, Pods and Jobs they own, each with its health. As a text tree,
 * JSON (nodes and edges), YAML, or Graphviz DOT.
 */
import { type Command, Option } from "@commander-js/extra-typings";
import { addExamples, type Io, printResult } from "../../internal/cli/mod.ts";
import { buildGraph } from "../../controller/gitsync/graph/graph.ts";
import { OUTPUT_ENV, withSession } from "./kube.ts";
import { getApplication } from "../../controller/gitsync/client/mod.ts";
import { formatDot, formatTree } from "../../controller/gitsync/views/graph.ts";

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
