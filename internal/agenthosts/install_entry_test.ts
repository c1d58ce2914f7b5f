/**
 * Install and remove our entry in a realistic config of every host (test/fixtures/agenthosts/<host>),
 * in a temporary HOME, and check what a user would: the file still parses, our entry has the host's
 * native shape, nothing else changed, comments survive, a second run changes nothing, removal gives
 * the original back, and symlinks, modes, backups and broken files are handled.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  chmod,
  copyFile,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  rm,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseJsonc, type ParseError } from "jsonc-parser";
import { parse as parseTomlText } from "smol-toml";
import { parse as parseYamlText } from "yaml";
import { ConfigFileError } from "./config_file.ts";
import { entryHash } from "./entry_hash.ts";
import type { HostEnv } from "./host_paths.ts";
import { type AgentHost, findHost, HOSTS, type McpServer } from "./hosts.ts";
import { inspectHost } from "./inspect_host.ts";
import { exposedMode, installEntry } from "./install_entry.ts";
import { locateConfig } from "./locate_config.ts";
import { removeEntry } from "./remove_entry.ts";
import { uninstallEntry } from "./uninstall_entry.ts";

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "test", "fixtures", "agenthosts");
const TOKEN = "nm_test-token-0123456789";
const URL = "http://127.0.0.1:7778/mcp";
const AUTH = { Authorization: `Bearer ${TOKEN}` };
const STDIO = {
  command: "/opt/memsvc/bin/memsvc",
  args: ["mcp"],
  env: { MEMSVC_BASE_URL: "http://127.0.0.1:7778", MEMSVC_TOKEN: TOKEN },
};
const SERVER: McpServer = { name: "memsvc", url: URL, bearer: { token: TOKEN }, stdio: STDIO };
const TAG = { tag: "memsvc" };

/** Each host's native entry, written out by hand from shared/notes/agent-hosts.md. */
const EXPECTED: Record<string, unknown> = {
  "claude-code": { type: "http", url: URL, headers: AUTH },
  "claude-desktop": STDIO,
  cursor: { url: URL, headers: AUTH },
  windsurf: { serverUrl: URL, headers: AUTH },
  vscode: { type: "http", url: URL, headers: AUTH },
  cline: { type: "streamableHttp", url: URL, headers: AUTH, disabled: false },
  "roo-code": { type: "streamable-http", url: URL, headers: AUTH },
  "kilo-code": { type: "streamable-http", url: URL, headers: AUTH },
  continue: { name: "memsvc", type: "streamable-http", url: URL, requestOptions: { headers: AUTH } },
  zed: { url: URL, headers: AUTH },
  codex: { url: URL, http_headers: AUTH },
  gemini: { httpUrl: URL, headers: AUTH },
  goose: { name: "memsvc", type: "streamable_http", uri: URL, headers: AUTH, enabled: true, timeout: 300 },
  opencode: { type: "remote", url: URL, headers: AUTH, enabled: true },
  kiro: { url: URL, headers: AUTH },
};

type Doc = Record<string, unknown>;

/** The host's own reading of the file, independent of the code under test. */
function parseAsHost(host: AgentHost, text: string): Doc {
  switch (host.format) {
    case "json":
      return JSON.parse(text);
    case "jsonc": {
      const errors: ParseError[] = [];
      const doc = parseJsonc(text, errors, { allowTrailingComma: true });
      assert.deepEqual(errors, [], "valid JSONC");
      return doc;
    }
    case "yaml":
      return parseYamlText(text);
    case "toml":
      return JSON.parse(JSON.stringify(parseTomlText(text)));
  }
}

function ours(host: AgentHost, doc: Doc): unknown {
  const servers = doc[host.place.root] as Doc | Doc[];
  return Array.isArray(servers) ? servers.find((s) => s.name === "memsvc") : servers?.memsvc;
}

function withoutOurs(host: AgentHost, doc: Doc): Doc {
  const servers = doc[host.place.root] as Doc | Doc[];
  const rest = Array.isArray(servers)
    ? servers.filter((s) => s.name !== "memsvc")
    : Object.fromEntries(Object.entries(servers).filter(([k]) => k !== "memsvc"));
  return { ...doc, [host.place.root]: rest };
}

function comments(host: AgentHost, text: string): string[] {
  if (host.format === "json") return [];
  const pattern = host.format === "jsonc" ? /\/\/[^\n]*|\/\*[\s\S]*?\*\//g : /#[^\n]*/g;
  return text.match(pattern) ?? [];
}

async function backupsOf(path: string): Promise<string[]> {
  const prefix = `${basename(path)}.memsvc-backup-`;
  return (await readdir(dirname(path))).filter((name) => name.startsWith(prefix)).sort();
}

let root: string;
let n = 0;

/** A fresh, empty HOME per test. */
async function newHome(): Promise<HostEnv> {
  const home = join(root, `home-${++n}`);
  await mkdir(home);
  return { home, platform: "linux", env: {} };
}

/** Puts a fixture where the host looks for its config, with a mode of 0640 to see it kept. */
async function placeFixture(host: AgentHost, h: HostEnv, fixture = host.id): Promise<string> {
  const path = host.locations(h)[0]!.path;
  const [name] = await readdir(join(FIXTURES, fixture));
  await mkdir(dirname(path), { recursive: true });
  await copyFile(join(FIXTURES, fixture, name!), path);
  await chmod(path, 0o640);
  return path;
}

before(async () => {
  root = await mkdtemp(join(tmpdir(), "agenthosts-"));
});

after(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("installEntry and removeEntry on every host's fixture", () => {
  it("has a fixture for every host", async () => {
    assert.deepEqual(
      (await readdir(FIXTURES)).filter((d) => d !== "broken").sort(),
      HOSTS.map((h) => h.id).sort(),
    );
  });

  for (const host of HOSTS) {
    it(host.name, async () => {
      const h = await newHome();
      const path = await placeFixture(host, h);
      const original = await readFile(path, "utf8");
      const location = await locateConfig(host, h);
      assert.equal(location?.path, path);
      assert.equal(location?.found, "file");
      assert.equal((await inspectHost(host, h, "memsvc")).state, "detected");

      const first = await installEntry(host, location!, SERVER, {
        ...TAG,
        now: new Date("2026-11-22T09:14:03Z"),
      });
      assert.equal(first.action, "added");
      assert.equal(first.transport, host.id === "claude-desktop" ? "stdio" : "http");
      const installed = await readFile(path, "utf8");
      const before = parseAsHost(host, original);
      const doc = parseAsHost(host, installed);
      assert.deepEqual(ours(host, doc), EXPECTED[host.id], "native entry shape");
      assert.deepEqual(withoutOurs(host, doc), before, "everything else unchanged");
      for (const comment of comments(host, original)) {
        assert.ok(installed.includes(comment), `kept: ${comment}`);
      }
      assert.equal((await stat(path)).mode & 0o777, 0o640, "mode kept");
      assert.deepEqual(await backupsOf(path), [`${basename(path)}.memsvc-backup-20261122T091403Z`]);
      assert.equal(await readFile(first.backup!, "utf8"), original);
      assert.equal(first.entryHash, entryHash(EXPECTED[host.id]));

      const recorded = { path, entryHash: first.entryHash };
      assert.equal((await inspectHost(host, h, "memsvc", recorded)).state, "configured");
      const second = await installEntry(host, location!, SERVER, TAG);
      assert.equal(second.action, "unchanged");
      assert.equal(await readFile(path, "utf8"), installed, "second install changes nothing");
      assert.equal((await backupsOf(path)).length, 1, "and makes no backup");

      const removed = await uninstallEntry(host, { path, entryHash: first.entryHash }, "memsvc", TAG);
      assert.equal(removed.action, "removed");
      const restored = await readFile(path, "utf8");
      if (host.format === "yaml") {
        assert.deepEqual(parseAsHost(host, restored), before);
        for (const comment of comments(host, original)) {
          assert.ok(restored.includes(comment), `kept: ${comment}`);
        }
      } else {
        assert.equal(restored, original, "byte-identical after removal");
      }
      assert.equal((await inspectHost(host, h, "memsvc", recorded)).state, "missing");
      assert.equal((await removeEntry(host, path, "memsvc", TAG)).action, "absent");
      assert.equal(await readFile(path, "utf8"), restored, "second removal is a no-op");
      assert.equal((await backupsOf(path)).length, 2);
    });
  }
});

describe("installEntry edge cases", () => {
  it("keeps only the newest backups with keepBackups, never a user's own .bak", async () => {
    const h = await newHome();
    const cursor = findHost("cursor")!;
    const path = await placeFixture(cursor, h);
    const own = `${path}.bak`;
    await writeFile(own, "the user's own backup");
    const old = [
      "20250101T000000Z",
      "20250101T000000Z-2",
      "20250102T000000Z",
      "20250103T000000Z",
      "20250104T000000Z",
      "20250105T000000Z",
    ].map((stamp) => `${basename(path)}.memsvc-backup-${stamp}`);
    for (const name of old) await writeFile(join(dirname(path), name), name);
    const result = await installEntry(cursor, (await locateConfig(cursor, h))!, SERVER, {
      ...TAG,
      keepBackups: 5,
      now: new Date("2026-11-22T09:14:03Z"),
    });
    assert.deepEqual(await backupsOf(path), [
      `${basename(path)}.memsvc-backup-20250102T000000Z`,
      `${basename(path)}.memsvc-backup-20250103T000000Z`,
      `${basename(path)}.memsvc-backup-20250104T000000Z`,
      `${basename(path)}.memsvc-backup-20250105T000000Z`,
      basename(result.backup!),
    ]);
    assert.equal(await readFile(own, "utf8"), "the user's own backup");
  });

  it("creates a missing file with mode 0600 when the host's app directory exists", async () => {
    const h = await newHome();
    const cline = findHost("cline")!;
    await mkdir(join(h.home, ".config/Code/User/globalStorage/saoudrizwan.claude-dev"), { recursive: true });
    const location = await locateConfig(cline, h);
    assert.equal(location?.found, "directory");
    assert.equal((await inspectHost(cline, h, "memsvc")).state, "detected");
    const result = await installEntry(cline, location!, SERVER, TAG);
    assert.equal(result.action, "created");
    assert.equal(result.backup, undefined);
    assert.equal((await stat(location!.path)).mode & 0o777, 0o600);
    assert.deepEqual(JSON.parse(await readFile(location!.path, "utf8")), {
      mcpServers: { memsvc: EXPECTED.cline },
    });
  });

  it("creates Continue's file with the name and version Continue requires", async () => {
    const h = await newHome();
    const host = findHost("continue")!;
    await mkdir(join(h.home, ".continue"));
    await installEntry(host, (await locateConfig(host, h))!, SERVER, TAG);
    assert.deepEqual(parseYamlText(await readFile(join(h.home, ".continue/config.yaml"), "utf8")), {
      name: "Local Config",
      version: "1.0.0",
      schema: "v1",
      mcpServers: [EXPECTED.continue],
    });
  });

  it("reports a host that is not installed and refuses to create its directories", async () => {
    const h = await newHome();
    const cursor = findHost("cursor")!;
    assert.equal(await locateConfig(cursor, h), undefined);
    assert.equal((await inspectHost(cursor, h, "memsvc")).state, "not-installed");
    await assert.rejects(
      installEntry(cursor, cursor.locations(h)[0]!, SERVER, TAG),
      /does not look installed/,
    );
    assert.deepEqual(await readdir(h.home), []);
  });

  it("refuses a file that does not parse, naming it, and leaves it untouched", async () => {
    const h = await newHome();
    const codex = findHost("codex")!;
    const path = await placeFixture(codex, h, "broken");
    const original = await readFile(path, "utf8");
    await assert.rejects(installEntry(codex, (await locateConfig(codex, h))!, SERVER, TAG), (err) => {
      assert.ok(err instanceof ConfigFileError);
      assert.match(err.message, new RegExp(`^${path}:\\d+:\\d+: does not parse as TOML: `));
      return true;
    });
    assert.equal((await inspectHost(codex, h, "memsvc")).state, "invalid");

    const claude = findHost("claude-code")!;
    const claudePath = join(h.home, ".claude.json");
    const commented = '{\n  // Claude Code wipes files with comments\n  "mcpServers": {}\n}\n';
    await writeFile(claudePath, commented);
    await assert.rejects(installEntry(claude, claude.locations(h)[0]!, SERVER, TAG), (err) => {
      assert.ok(err instanceof ConfigFileError);
      // Where, and what to do: the editor's place of the comment, and that the host reads strict JSON.
      assert.equal(
        err.message,
        `${claudePath}:2:3: does not parse as JSON: a comment, and strict JSON has none`,
      );
      assert.equal(err.fix, "Claude Code reads this file as strict JSON: remove the comment");
      return true;
    });
    assert.equal(await readFile(path, "utf8"), original);
    assert.equal(await readFile(claudePath, "utf8"), commented);
    assert.deepEqual([...await backupsOf(path), ...await backupsOf(claudePath)], []);
  });

  it("writes through a symlinked config, which stays a link to the updated target", async () => {
    const h = await newHome();
    const gemini = findHost("gemini")!;
    const target = join(h.home, "dotfiles", "gemini-settings.json");
    await mkdir(dirname(target));
    await copyFile(join(FIXTURES, "gemini", "settings.json"), target);
    const link = join(h.home, ".gemini", "settings.json");
    await mkdir(dirname(link));
    await symlink("../dotfiles/gemini-settings.json", link);

    await installEntry(gemini, (await locateConfig(gemini, h))!, SERVER, TAG);
    assert.ok((await lstat(link)).isSymbolicLink());
    assert.equal(await readlink(link), "../dotfiles/gemini-settings.json");
    assert.deepEqual(JSON.parse(await readFile(target, "utf8")).mcpServers.memsvc, EXPECTED.gemini);
    assert.equal((await backupsOf(link)).length, 1, "the backup sits beside the path the host uses");
    assert.deepEqual((await readdir(dirname(target))).sort(), ["gemini-settings.json"], "no temp files left");
  });

  it("uninstall keeps what changed since install, and restores the backup only when nothing else did", async () => {
    const h = await newHome();
    const cline = findHost("cline")!;
    const fixture = await readFile(join(FIXTURES, "cline", "cline_mcp_settings.json"), "utf8");
    const install = async () => {
      const path = await placeFixture(cline, h);
      const { entryHash } = await installEntry(cline, (await locateConfig(cline, h))!, SERVER, TAG);
      return { path, entryHash };
    };
    const edit = async (path: string, change: (doc: { mcpServers: Record<string, Doc> }) => void) => {
      const doc = JSON.parse(await readFile(path, "utf8"));
      change(doc);
      await writeFile(path, JSON.stringify(doc, null, 2));
    };
    const editEntry = (doc: { mcpServers: Record<string, Doc> }) => (doc.mcpServers.memsvc!.timeout = 60);
    const addServer = (
      doc: { mcpServers: Record<string, Doc> },
    ) => (doc.mcpServers.added = { command: "added-later" });

    // Only our entry changed (Cline added a field to it): the file before install comes back, byte for byte.
    let recorded = await install();
    await edit(recorded.path, editEntry);
    assert.equal((await inspectHost(cline, h, "memsvc", recorded)).state, "drifted");
    let r = await uninstallEntry(cline, recorded, "memsvc", TAG);
    assert.equal(r.action, "restored");
    assert.equal(await readFile(recorded.path, "utf8"), fixture);

    // A server added since install stays: our unchanged entry is removed as text, nothing else moves.
    recorded = await install();
    await edit(recorded.path, addServer);
    const withAdded = await readFile(recorded.path, "utf8");
    r = await uninstallEntry(cline, recorded, "memsvc", TAG);
    assert.equal(r.action, "removed");
    const after = JSON.parse(await readFile(recorded.path, "utf8"));
    assert.deepEqual(after.mcpServers.added, { command: "added-later" });
    assert.equal(after.mcpServers.memsvc, undefined);
    assert.deepEqual(after, {
      ...JSON.parse(withAdded),
      mcpServers: withoutOurs(cline, JSON.parse(withAdded)).mcpServers,
    });

    // Both: restoring would lose the added server, so the file stays as it is; --force takes our entry only.
    recorded = await install();
    await edit(recorded.path, (doc) => {
      editEntry(doc);
      addServer(doc);
    });
    const both = await readFile(recorded.path, "utf8");
    r = await uninstallEntry(cline, recorded, "memsvc", TAG);
    assert.equal(r.action, "drifted");
    assert.equal(await readFile(recorded.path, "utf8"), both);
    r = await uninstallEntry(cline, recorded, "memsvc", { ...TAG, force: true });
    assert.equal(r.action, "removed");
    const forced = JSON.parse(await readFile(recorded.path, "utf8"));
    assert.deepEqual(forced.mcpServers.added, { command: "added-later" });
    assert.equal(forced.mcpServers.memsvc, undefined);
    assert.equal((await uninstallEntry(cline, recorded, "memsvc", TAG)).action, "absent");
  });

  it("reports a config others can read, and narrows it (and its backups) with securePermissions", async () => {
    const h = await newHome();
    const cursor = findHost("cursor")!;
    const path = await placeFixture(cursor, h);
    await chmod(path, 0o644);
    const location = (await locateConfig(cursor, h))!;
    const dry = await installEntry(cursor, location, SERVER, { ...TAG, dryRun: true });
    assert.equal(dry.mode, 0o644);
    assert.ok(exposedMode(dry.mode));
    const first = await installEntry(cursor, location, SERVER, TAG);
    assert.deepEqual([first.mode, first.secured], [0o644, undefined]);
    assert.equal((await stat(path)).mode & 0o777, 0o644, "without the option the mode is kept");

    // Already wired: nothing to write, but the mode is still narrowed, the earlier backup too.
    const secured = await installEntry(cursor, location, SERVER, { ...TAG, securePermissions: true });
    assert.deepEqual([secured.action, secured.mode, secured.secured], ["unchanged", 0o600, true]);
    assert.equal((await stat(path)).mode & 0o777, 0o600);
    const [backup] = await backupsOf(path);
    assert.equal((await stat(join(dirname(path), backup!))).mode & 0o777, 0o600);
    assert.ok(!exposedMode(secured.mode));
  });

  it("changes nothing in a dry run", async () => {
    const h = await newHome();
    const vscode = findHost("vscode")!;
    const path = await placeFixture(vscode, h);
    const original = await readFile(path, "utf8");
    const result = await installEntry(vscode, (await locateConfig(vscode, h))!, SERVER, {
      ...TAG,
      dryRun: true,
    });
    assert.equal(result.action, "added");
    assert.equal(await readFile(path, "utf8"), original);
    assert.deepEqual(await backupsOf(path), []);
  });
});
