/** The shared install steps on a temporary home: targets, writes that fail per file, records, the reused secret. */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { captureIo } from "../cli/testing.ts";
import type { HostEnv } from "./host_paths.ts";
import { findHost, type McpServer } from "./hosts.ts";
import { recordHosts, recoverSecret, selectTargets, writeEntries } from "./install_hosts.ts";
import { sha256 } from "./state_file.ts";

const cursor = findHost("cursor")!;
const claude = findHost("claude-code")!;
const windsurf = findHost("windsurf")!;
const TOKEN = "nm_0123456789abcdef";
const server = (token: string): McpServer => ({
  name: "memsvc",
  url: "http://127.0.0.1:7778/mcp",
  bearer: { token },
  stdio: { command: "memsvc", args: ["mcp"], env: { MEMSVC_TOKEN: token } },
});
const WRITE = { tag: "memsvc", securePermissions: false, secret: "API token" };

describe("install steps", () => {
  let home = "";
  let h: HostEnv;
  before(async () => {
    home = await mkdtemp(join(tmpdir(), "install-hosts-"));
    h = { home, platform: "linux", env: {} };
    await mkdir(join(home, ".cursor"));
    await writeFile(join(home, ".cursor", "mcp.json"), '{"mcpServers": {}}\n');
    await mkdir(join(home, ".claude"));
  });
  after(() => rm(home, { recursive: true, force: true }));

  it("selects the detected hosts, the named ones only, or refuses a named one that is not installed", async () => {
    const all = await selectTargets([cursor, claude, windsurf], h, undefined);
    assert.deepEqual(all.map((t) => t.host.id), ["cursor", "claude-code"]);
    const named = await selectTargets([cursor, claude], h, [cursor], (host) => host === claude);
    assert.deepEqual(named.map((t) => t.host.id), ["cursor", "claude-code"], "wired before: still in");
    await assert.rejects(selectTargets([windsurf], h, [windsurf]), /Windsurf is not installed: neither /);
  });

  it("plans without writing, then writes, hashing each file before; a file that fails is reported, not thrown", async () => {
    const targets = await selectTargets([cursor, claude], h, undefined);
    const before = await readFile(join(home, ".cursor", "mcp.json"), "utf8");
    const plan = await writeEntries(targets, server(TOKEN), { ...WRITE, dryRun: true, recordPreHash: true });
    assert.deepEqual(plan.map((o) => o.result?.action), ["added", "created"]);
    assert.equal(await readFile(join(home, ".cursor", "mcp.json"), "utf8"), before, "a plan writes nothing");

    // Not a file that does not parse: one that cannot be read at all (a directory where the file should be).
    await mkdir(join(home, ".claude.json"));
    const { io, stderr } = captureIo();
    try {
      const outcomes = await writeEntries(
        targets,
        server(TOKEN),
        { ...WRITE, dryRun: false, recordPreHash: true },
        io,
      );
      assert.equal(outcomes[0]!.result?.action, "added");
      assert.equal(outcomes[0]!.preHash, `sha256:${sha256(before)}`);
      assert.equal(outcomes[1]!.result, undefined);
      assert.match(outcomes[1]!.error!.message, /\.claude\.json/);
      const lines = stderr().split("\n");
      assert.match(lines[0]!, /^cursor: added .*mcp\.json \(backup .*\)$/);
      assert.match(
        lines[1]!,
        /^warning: cursor: .* is readable by others \(mode 0644\) and holds the API token/,
      );
      assert.match(lines[2]!, /^claude-code: left untouched: .*EISDIR/);
    } finally {
      await rm(join(home, ".claude.json"), { recursive: true });
    }
  });

  it("records only hosts whose entry changed, and finds the secret the configs hold by its hash", async () => {
    const targets = await selectTargets([cursor], h, undefined);
    const outcomes = await writeEntries(targets, server(TOKEN), { ...WRITE, dryRun: false });
    const make = (
      { result }: { result: { path: string; transport: "http" | "stdio"; entryHash: string } },
    ) => ({
      path: result.path,
      transport: result.transport,
      entryHash: result.entryHash,
      installedAt: "now",
    });
    const first = recordHosts(undefined, outcomes, make);
    assert.equal(first.changed, true);
    assert.equal(recordHosts(first.hosts, outcomes, make).changed, false);

    const found = (hash: string) =>
      recoverSecret(first.hosts, {
        findHost,
        serverName: "memsvc",
        pattern: /nm_[A-Za-z0-9_-]+/g,
        sha256: hash,
      });
    assert.equal(await found(sha256(TOKEN)), TOKEN);
    assert.equal(await found(sha256("nm_other")), undefined);
  });
});
