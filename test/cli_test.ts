/**
 * Black-box: every binary in dist/ answers --version, version, --help and rejects unknown flags, and
 * prints errors as the README says (kubectl's shape): a failure is one `error:` line and exit 1; a usage
 * error adds `Run '<command> --help' for usage.` and exits 2.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TOOLS } from "../scripts/lib/tools.ts";
import pkg from "../package.json" with { type: "json" };
import { runBinary } from "./harness/binary.ts";
import { freePort } from "./harness/ports.ts";

const VERSION = `v${pkg.version}`;

/** How `version` is asked offline and what it prints: edgectl's also asks the cluster unless --client. */
const OFFLINE_VERSION: Partial<Record<string, { args: string[]; text: string; json: object }>> = {
  edgectl: {
    args: ["version", "--client"],
    text: `Client Version: ${VERSION}`,
    json: { clientVersion: VERSION },
  },
};

for (const tool of TOOLS) {
  describe(`dist/${tool}`, () => {
    it("prints the same version for --version and version", async () => {
      const offline = OFFLINE_VERSION[tool] ??
        { args: ["version"], text: VERSION, json: { version: VERSION } };
      const flag = await runBinary(tool, ["--version"]);
      const cmd = await runBinary(tool, offline.args);
      assert.equal(flag.code, 0, flag.stderr);
      assert.equal(cmd.code, 0, cmd.stderr);
      assert.equal(flag.stdout.trim(), VERSION);
      assert.equal(cmd.stdout.trim(), offline.text);
      const json = await runBinary(tool, [...offline.args, "-o", "json"]);
      assert.deepEqual(JSON.parse(json.stdout), offline.json);
    });

    it("explains itself in --help, with examples", async () => {
      const r = await runBinary(tool, ["--help"]);
      assert.equal(r.code, 0);
      assert.match(r.stdout, new RegExp(`Usage: ${tool}`));
      assert.match(r.stdout, /Examples:/);
      assert.match(r.stdout, /version/);
    });

    it("exits 2 with one clear line on an unknown flag or command", async () => {
      for (const args of [["--no-such-flag"], ["no-such-command"]]) {
        const r = await runBinary(tool, args);
        assert.equal(r.code, 2, `${args}: ${r.stderr}`);
        assert.match(r.stderr, /^error: /);
        assert.equal(r.stdout, "");
      }
    });
  });
}

/** A clean HOME and a loopback port nothing listens on (claimed in the ledger, never bound). */
let home: string;
let closed: string;

before(async () => {
  home = await mkdtemp(join(tmpdir(), "cli-errors-"));
  closed = `127.0.0.1:${await freePort()}`;
});

after(() => rm(home, { recursive: true, force: true }));

interface Case {
  args: string[];
  env?: Record<string, string>;
  /** What the failure says (run-time cases). */
  says?: RegExp;
}

/**
 * For each binary, a command that fails at run time (exit 1) and usage errors of its own (exit 2)
 * besides the unknown flag and command every binary shares. vault-mcp has no run-time failure: a
 * shim must keep the agent host's session, so an unreachable vault or a refused key becomes the
 * JSON-RPC error of the request it hit, and only bad settings stop it (a usage error).
 */
const ERRORS: Record<string, () => { runtime?: Case; usage: Case[] }> = {
  memsvc: () => ({
    runtime: {
      args: ["backup", "--url", `http://${closed}`, join(home, "b.jsonl.gz")],
      env: { MEMSVC_TOKEN: "t" },
      says: /cannot reach/,
    },
    usage: [{ args: ["serve"], env: { MEMSVC_PORT: "http" } }],
  }),
  "gitsync-manager": () => ({
    runtime: {
      args: ["install-crds"],
      env: { KUBECONFIG: "/nonexistent/kubeconfig" },
      says: /no kubeconfig/,
    },
    usage: [{ args: ["render"] }],
  }),
  gitsync: () => ({
    runtime: { args: ["apps"], env: { KUBECONFIG: "/nonexistent/kubeconfig" }, says: /no kubeconfig/ },
    usage: [{ args: ["apps", "-o", "xml"] }],
  }),
  edgectl: () => ({
    runtime: {
      args: ["get", "routes"],
      env: { KUBECONFIG: "/nonexistent/kubeconfig" },
      says: /no kubeconfig/,
    },
    usage: [{ args: ["get", "gatways"] }, { args: ["delete", "gw"] }],
  }),
  vault: () => ({
    runtime: {
      args: ["serve"],
      env: {
        BETTER_AUTH_SECRET: "s".repeat(40),
        DATABASE_URL: `postgres://u:p@${closed}/vault`,
        VAULT_PORT: "0",
      },
      says: /cannot connect to PostgreSQL/,
    },
    usage: [{ args: ["serve"] }],
  }),
  "vault-init": () => ({
    // A clean HOME has no agent host to wire.
    runtime: { args: ["install", "--server", `http://${closed}`, "--yes"], says: /no agent host found/ },
    usage: [{ args: ["install", "--server", "ftp://vault.example"] }],
  }),
  "vault-mcp": () => ({
    usage: [{ args: [] }, { args: ["serve"], env: { VAULT_URL: "http://x", VAULT_TOKEN: "t" } }],
  }),
};

const ONE_ERROR_LINE = /^error: [^\n]+\n$/;
const USAGE_ERROR = /^error: [^\n]+\nRun '[\w -]+ --help' for usage\.\n$/;

for (const tool of TOOLS) {
  describe(`dist/${tool} errors`, () => {
    const run = (c: Case) => runBinary(tool, c.args, { env: { HOME: home, ...c.env }, cwd: home });

    // vault-mcp has no run-time failure to show (see ERRORS), so it has no such case rather than a skip.
    if (ERRORS[tool]!().runtime) {
      it("a failure is one line, `error: ...`, and exit 1", async () => {
        const runtime = ERRORS[tool]!().runtime!; // built now: home and the closed port exist from here on
        const r = await run(runtime);
        assert.equal(r.code, 1, r.stderr);
        assert.match(r.stderr, ONE_ERROR_LINE);
        assert.match(r.stderr, runtime.says!);
      });
    }

    it("a usage error adds the --help hint and exits 2, an unknown command even with --help", async () => {
      const shared = [["--no-such-flag"], ["no-such-command"], ["no-such-command", "--help"], [
        "help",
        "no-such-command",
      ]];
      for (const c of [...shared.map((args) => ({ args })), ...ERRORS[tool]!().usage]) {
        const r = await run(c);
        const what = `${tool} ${c.args.join(" ")}`;
        assert.equal(r.code, 2, `${what}: ${r.stderr}`);
        assert.equal(r.stdout, "", what);
        assert.match(r.stderr, USAGE_ERROR, what);
      }
    });
  });
}
