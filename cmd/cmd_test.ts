/** Every binary's entry point, run in-process: version, help and usage errors behave the same. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Command, type CommandUnknownOpts } from "@commander-js/extra-typings";
import type { Io } from "../internal/cli/mod.ts";
import { captureIo, executeCaptured, withEnv } from "../internal/cli/testing.ts";
import * as edgectl from "./edgectl/main.ts";
import * as gitsyncManager from "./gitsync-manager/main.ts";
import * as gitsync from "./gitsync/main.ts";
import * as memsvc from "./memsvc/main.ts";
import * as vaultInit from "./vault-init/main.ts";
import * as vaultMcp from "./vault-mcp/main.ts";
import * as vault from "./vault/main.ts";

const tools: {
  name: string;
  build: (io: Io) => Command;
  commands: string[];
  versionArgs?: string[];
  versionOutput?: (version: string) => string;
  /** The command run when none is named: usage errors point at its help. */
  defaultCommand?: string;
}[] = [
  {
    name: "memsvc",
    build: memsvc.buildProgram,
    commands: [
      "version",
      "serve",
      "mcp",
      "install",
      "uninstall",
      "status",
      "detect",
      "mcp-config",
      "export",
      "import",
      "backup",
      "restore",
      "migrate",
    ],
  },
  {
    name: "gitsync-manager",
    build: gitsyncManager.buildProgram,
    commands: ["version", "install-crds", "run", "render", "console"],
  },
  {
    name: "gitsync",
    build: gitsync.buildProgram,
    commands: [
      "version",
      "apps",
      "get|status",
      "repos",
      "plan",
      "revision",
      "history",
      "logs",
      "diagnose",
      "graph",
      "approve",
      "sync",
      "retry",
      "rollback",
      "suspend",
      "resume",
    ],
  },
  {
    name: "edgectl",
    build: edgectl.buildProgram,
    commands: [
      "version",
      "install-crds",
      "get",
      "describe",
      "apply",
      "delete",
      "logs",
      "logs-access",
      "metrics",
      "trace",
      "web",
      "agent",
      "agents",
      "cache",
      "federation|fed",
      "sdwan",
      "gateway-api|gwapi",
      "conformance",
      "generate",
      "check",
      "analyze",
    ],
    // edgectl's version command also asks the cluster; --client keeps it offline.
    versionArgs: ["version", "--client"],
    versionOutput: (version) => `Client Version: ${version}`,
  },
  { name: "vault", build: vault.buildProgram, commands: ["version", "serve", "import", "export"] },
  {
    name: "vault-init",
    build: vaultInit.buildProgram,
    commands: ["version", "install", "uninstall", "status", "detect", "mcp"],
    defaultCommand: "install",
  },
  {
    name: "vault-mcp",
    build: vaultMcp.buildProgram,
    commands: ["version", "serve"],
    defaultCommand: "serve",
  },
];

/** Every command below the root, as the words that run it. */
function commandPaths(command: CommandUnknownOpts, path: string[] = []): string[][] {
  return command.commands.flatMap((c) => {
    const words = [...path, c.name()];
    return [words, ...commandPaths(c, words)];
  });
}

/**
 * Plurals made by appending "s" where English wants more: "GatewayClasss", "ProxyPolicys",
 * "Patchs", "Boxs". (A vowel before "y" is fine: "Gateways", "keys", "days".)
 */
const MALFORMED_PLURAL = /\b[A-Za-z]*(?:sss|[b-df-hj-np-tv-z]ys|xs|chs|shs)\b/g;
/** Words the rule above would flag that are right as they are. */
const PLURAL_EXCEPTIONS = new Set(["standbys"]);

/** The names in the "Commands:" section of a help text. */
function helpCommands(help: string): string[] {
  const section = help.split("\nCommands:\n")[1]?.split("\n\n")[0] ?? "";
  return section.split("\n").filter((line) => /^ {2}\S/.test(line)).map((line) =>
    line.trim().split(/\s/)[0]!
  );
}

for (const tool of tools) {
  test(`${tool.name}: --version and version print the same version`, async () => {
    await withEnv({ EDGECTL_OUTPUT: undefined }, async () => {
      const flag = await executeCaptured(tool.build, ["--version"]);
      const command = await executeCaptured(tool.build, tool.versionArgs ?? ["version"]);
      assert.equal(flag.code, 0);
      assert.match(flag.stdout, /^v\d+\.\d+\.\d+\n$/);
      const version = flag.stdout.trim();
      assert.deepEqual(command, { ...flag, stdout: `${tool.versionOutput?.(version) ?? version}\n` });
    });
  });

  test(`${tool.name}: --help exits 0, says what the tool is and lists exactly its commands`, async () => {
    const { code, stdout, stderr } = await executeCaptured(tool.build, ["--help"]);
    assert.equal(code, 0);
    assert.equal(stderr, "");
    assert.match(
      stdout,
      new RegExp(`^Usage: ${tool.name} \\[options\\] \\[command\\]\\n\\n${tool.name} `),
    );
    assert.deepEqual(helpCommands(stdout).sort(), ["help", ...tool.commands].sort());
    assert.match(stdout, /\nExamples:\n {2}# /);
    assert.match(stdout, /\nDocumentation: .*(README|docs\/[\w-]+)\.md/);
  });

  test(`${tool.name}: an unknown flag and an unknown command exit 2`, async () => {
    assert.deepEqual(await executeCaptured(tool.build, ["--bogus"]), {
      code: 2,
      stdout: "",
      stderr: `error: unknown option '--bogus'\nRun '${
        [tool.name, tool.defaultCommand].filter(Boolean).join(" ")
      } --help' for usage.\n`,
    });
    // Also when help is asked for: there is no help for a command that does not exist.
    for (const args of [["bogus"], ["bogus", "--help"], ["help", "bogus"]]) {
      const unknown = await executeCaptured(tool.build, args);
      assert.equal(unknown.code, 2, args.join(" "));
      assert.equal(unknown.stdout, "", args.join(" "));
      // Commander may add a suggestion of a similar command.
      assert.equal(
        unknown.stderr.replace(/ \(Did you mean [\w-]+\?\)/, ""),
        `error: unknown command 'bogus'\nRun '${tool.name} --help' for usage.\n`,
        args.join(" "),
      );
    }
  });
}

test("no command's help of any binary misspells a plural", async () => {
  for (const tool of tools) {
    for (const path of [[], ...commandPaths(tool.build(captureIo().io))]) {
      const { stdout } = await executeCaptured(tool.build, [...path, "--help"]);
      const bad = (stdout.match(MALFORMED_PLURAL) ?? []).filter((w) =>
        !PLURAL_EXCEPTIONS.has(w.toLowerCase())
      );
      assert.deepEqual(bad, [], `${tool.name} ${path.join(" ")} --help: ${bad?.join(", ")}`);
    }
  }
});
