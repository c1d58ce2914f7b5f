/**
 * Walks edgectl's whole command tree: a command offers --kubeconfig, --context and -n in its help only
 * where it uses them, and every command that offers --kubeconfig and --context really reads them.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { CommandUnknownOpts } from "@commander-js/extra-typings";
import { executeCaptured, withEnv } from "../../internal/cli/testing.ts";
import { buildProgram } from "./main.ts";

let dir: string;
let kubeconfig: string;
let manifest: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "edgectl-flags-"));
  kubeconfig = join(dir, "kubeconfig");
  // One context, "real"; the probe asks for another, so only a command that reads both
  // --kubeconfig and --context can report that "probe-ctx" is missing from this file.
  await writeFile(
    kubeconfig,
    `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: real, context: {cluster: c, user: u}}]
current-context: real
`,
  );
  manifest = join(dir, "route.yaml");
  await writeFile(manifest, "apiVersion: edgeproxy.io/v1alpha1\nkind: ProxyRoute\nmetadata: {name: web}\n");
});

after(() => rm(dir, { recursive: true, force: true }));

/** Every command below the root, as the words that run it. */
function commandPaths(command: CommandUnknownOpts, path: string[] = []): string[][] {
  return command.commands.flatMap((c) => {
    const words = [...path, c.name()];
    return [words, ...commandPaths(c, words)];
  });
}

/** The long names of the options under "Global Options:" in a help text. */
function globalOptions(help: string): string[] {
  const section = help.split("\nGlobal Options:\n")[1]?.split("\n\n")[0] ?? "";
  return [...section.matchAll(/^ {2}(?:-\w, )?(--[\w-]+)/gm)].map((m) => m[1]!);
}

/** Arguments that get each command past its own validation to the point where it opens the cluster. */
const ARGS: Record<string, string[]> = {
  "get": ["gateways"],
  "describe": ["gateway", "main"],
  "apply": ["-f", "MANIFEST"],
  "delete": ["gateway", "main"],
  "logs": ["agent"],
  "cache purge": ["--all"],
};

test("help offers --kubeconfig, --context and -n only where the command uses them", async () => {
  const offering: string[] = [];
  const paths = commandPaths(buildProgram()).filter((p) => p[0] !== "help");
  await withEnv({ KUBECONFIG: "/nonexistent/kubeconfig", EDGECTL_OUTPUT: undefined }, async () => {
    for (const path of paths) {
      const help = await executeCaptured(buildProgram, [...path, "--help"]);
      assert.equal(help.code, 0, path.join(" "));
      const globals = globalOptions(help.stdout);
      const name = path.join(" ");
      // The two select one cluster together; offering one alone would be a half-used pair.
      assert.equal(globals.includes("--kubeconfig"), globals.includes("--context"), name);
      if (!globals.includes("--kubeconfig")) continue;
      const isGroup = help.stdout.includes("\nCommands:\n");
      if (isGroup) continue;
      offering.push(name);
      const args = (ARGS[name] ?? []).map((a) => (a === "MANIFEST" ? manifest : a));
      const required = buildProgramCommand(path).registeredArguments.filter((a) => a.required);
      const positional = ARGS[name] ? [] : required.map(() => "probe");
      const r = await executeCaptured(buildProgram, [
        ...path,
        ...positional,
        ...args,
        "--kubeconfig",
        kubeconfig,
        "--context",
        "probe-ctx",
      ]);
      assert.equal(r.code, 1, `${name}: ${r.stderr}`);
      assert.match(
        r.stderr,
        new RegExp(
          `context "probe-ctx" does not exist in ${kubeconfig.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`,
        ),
        `${name} offers --kubeconfig and --context but did not use them: ${r.stderr}`,
      );
    }
  });
  // The walk reached the cluster commands, and the offline ones offer no cluster flags.
  for (
    const name of ["version", "get", "apply", "logs", "web", "agents list", "conformance", "gateway-api gc"]
  ) {
    assert.ok(offering.includes(name.replace("gateway-api gc", "gateway-api gatewayclasses")), name);
  }
  for (
    const name of ["generate static-pod", "generate systemd-unit", "analyze", "trace list", "metrics agent"]
  ) {
    assert.ok(!offering.includes(name), name);
  }
});

test("-n is offered by the commands that work in a namespace, not by cluster-scoped or offline ones", async () => {
  const offersNamespace = async (path: string[]) =>
    globalOptions((await executeCaptured(buildProgram, [...path, "--help"])).stdout).includes("--namespace");
  for (
    const path of [["get"], ["apply"], ["gateway-api", "gateways"], ["generate", "static-pod"], ["analyze"]]
  ) {
    assert.ok(await offersNamespace(path), path.join(" "));
  }
  for (
    const path of [
      ["version"],
      ["install-crds"],
      ["gateway-api", "gatewayclasses"],
      ["conformance"],
      ["generate", "systemd-unit"],
      ["logs"],
      ["trace", "list"],
    ]
  ) {
    assert.ok(!(await offersNamespace(path)), path.join(" "));
  }
});

function buildProgramCommand(path: string[]): CommandUnknownOpts {
  let command: CommandUnknownOpts = buildProgram();
  for (const word of path) command = command.commands.find((c) => c.name() === word)!;
  return command;
}
