/** The shared uninstall on a temporary home, with a stand-in for the server's sign-in and revocation. */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, beforeEach, describe, it } from "node:test";
import { z } from "zod";
import { captureIo, withEnv } from "../cli/testing.ts";
import type { HostEnv } from "./host_paths.ts";
import { findHost, type McpServer } from "./hosts.ts";
import { recordHosts, selectTargets, writeEntries } from "./install_hosts.ts";
import { hostRecordSchema } from "./install_state_schema.ts";
import { readStateFile, writeStateFile } from "./state_file.ts";
import {
  type InstallerState,
  uninstallHosts,
  type UninstallOptions,
  type UninstallSpec,
} from "./uninstall_hosts.ts";

interface State extends InstallerState {
  stamped?: boolean;
}
const SCHEMA = z.object({
  server: z.string(),
  stamped: z.boolean().optional(),
  hosts: z.record(z.string(), hostRecordSchema),
});
const readState = (path: string) =>
  readStateFile<State>(path, (json) => SCHEMA.safeParse(json), "a test state file");
const SERVER: McpServer = {
  name: "tool",
  url: "http://127.0.0.1:1/mcp",
  bearer: { token: "tk_secret" },
  stdio: { command: "tool", args: ["mcp"], env: {} },
};
const ORIGINAL = '{"mcpServers": {"other": {"url": "http://example.com"}}}\n';

describe("uninstallHosts", () => {
  let home = "";
  let statePath = "";
  let calls: string[] = [];
  const { io, stderr } = captureIo();
  const spec = (): UninstallSpec<State> => ({
    tool: "tool",
    envPrefix: "TOOL",
    notRecorded: "not wired by tool",
    serverName: "tool",
    tag: "tool",
    findHost,
    statePath,
    readState,
    stamp: (state) => ({ ...state, stamped: true }),
    withSession: async (_server, credentials, fn) => {
      if (credentials.password !== "right") throw new Error("wrong email or password");
      calls.push("sign-in");
      return await fn("session");
    },
    revoke: (_state, session) => {
      calls.push(`revoke with ${session}`);
      return Promise.resolve(true);
    },
    secretLine: (_state, outcome, stillUsedBy) => `token ${outcome} ${stillUsedBy.join(",")}\n`,
    dryRunLine: (revoke) => `dry run: ${revoke ? "would revoke" : "would keep"}\n`,
  });
  const flags = (more: Partial<UninstallOptions> = {}): UninstallOptions => ({
    force: false,
    dryRun: false,
    keepKey: false,
    output: "json",
    email: "ada@example.com",
    yes: true,
    passwordStdin: false,
    ...more,
  });
  const cursorFile = () => join(home, ".cursor", "mcp.json");

  beforeEach(async () => {
    await rm(home, { recursive: true, force: true }).catch(() => {});
    home = await mkdtemp(join(tmpdir(), "uninstall-hosts-"));
    statePath = join(home, "state.json");
    calls = [];
    const h: HostEnv = { home, platform: "linux", env: {} };
    await mkdir(join(home, ".cursor"));
    await writeFile(cursorFile(), ORIGINAL);
    await mkdir(join(home, ".claude"));
    const targets = await selectTargets([findHost("cursor")!, findHost("claude-code")!], h, undefined);
    const outcomes = await writeEntries(targets, SERVER, {
      tag: "tool",
      dryRun: false,
      securePermissions: false,
      secret: "token",
    });
    const { hosts } = recordHosts(undefined, outcomes, ({ result }) => ({
      path: result.path,
      transport: result.transport,
      entryHash: result.entryHash,
      installedAt: "then",
    }));
    await writeStateFile(statePath, { server: "http://127.0.0.1:1", hosts });
  });
  after(() => rm(home, { recursive: true, force: true }));

  it("a dry run changes nothing and says the token would be revoked", async () => {
    await uninstallHosts(spec(), flags({ dryRun: true }), io);
    assert.notEqual(await readFile(cursorFile(), "utf8"), ORIGINAL);
    assert.deepEqual(calls, []);
    assert.match(stderr(), /dry run: would revoke\n$/);
  });

  it("one host of two: its entry goes, the token stays for the other, the state is stamped", async () => {
    await uninstallHosts(spec(), flags({ hosts: [findHost("cursor")!] }), io);
    assert.equal(await readFile(cursorFile(), "utf8"), ORIGINAL);
    assert.deepEqual(calls, [], "no sign-in to keep a token");
    assert.match(stderr(), /token kept claude-code\n$/);
    const state = await readState(statePath);
    assert.deepEqual(Object.keys(state!.hosts), ["claude-code"]);
    assert.equal(state!.stamped, true);
  });

  it("every host: signs in first, removes the entries, revokes the token and removes the state file", async () => {
    await withEnv({ TOOL_PASSWORD: "right" }, () => uninstallHosts(spec(), flags(), io));
    assert.deepEqual(calls, ["sign-in", "revoke with session"]);
    assert.equal(await readFile(cursorFile(), "utf8"), ORIGINAL);
    assert.equal(await readState(statePath), undefined);
  });

  it("a wrong password changes nothing", async () => {
    await assert.rejects(
      withEnv({ TOOL_PASSWORD: "wrong" }, () => uninstallHosts(spec(), flags(), io)),
      /wrong email or password/,
    );
    assert.notEqual(await readFile(cursorFile(), "utf8"), ORIGINAL);
    assert.equal(Object.keys((await readState(statePath))!.hosts).length, 2);
  });
});
