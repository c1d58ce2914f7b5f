/**
 * Black-box: `memsvc install`, `status`, `detect`, `mcp-config` and `uninstall` of dist/memsvc against a
 * running `dist/memsvc serve`, on a temporary HOME holding a few agent host configs.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { parse as parseYaml } from "yaml";
import { binaryPath, ROOT, runBinary, type RunningBinary, startBinary } from "../harness/binary.ts";
import { Client } from "../harness/http_client.ts";

const ADMIN = { email: "root@example.test", password: "bootstrap-Pa55word!" };
const FIXTURES = join(ROOT, "test", "fixtures", "agenthosts");

/** Host configs placed in the user's HOME: fixture → path relative to HOME. */
const CONFIGS: Record<string, string> = {
  "claude-code/.claude.json": ".claude.json",
  "claude-desktop/claude_desktop_config.json": ".config/Claude/claude_desktop_config.json",
  "cursor/mcp.json": ".cursor/mcp.json",
  "codex/config.toml": ".codex/config.toml",
  "continue/config.yaml": ".continue/config.yaml",
};

describe("memsvc install / uninstall", () => {
  let serverHome: string;
  let home: string;
  let server: RunningBinary;
  const originals: Record<string, string> = {};

  const path = (relative: string) => join(home, relative);
  const statePath = () => path(".config/memsvc/install.json");
  const memsvc = (args: string[], input?: string) =>
    runBinary("memsvc", args, { env: { HOME: home }, input, timeoutMs: 60_000 });
  const credentialFlags = () => ["--email", ADMIN.email, "--password-stdin"];
  const snapshot = async () => {
    const files: Record<string, string> = {};
    for (const relative of Object.values(CONFIGS)) files[relative] = await readFile(path(relative), "utf8");
    return files;
  };
  const backups = async () => {
    const all = [];
    for (const relative of Object.values(CONFIGS)) {
      all.push(...(await readdir(dirname(path(relative)))).filter((f) => f.includes(".memsvc-backup-")));
    }
    return all.sort();
  };

  before(async () => {
    serverHome = await mkdtemp(join(tmpdir(), "memsvc-installer-server-"));
    home = await mkdtemp(join(tmpdir(), "memsvc-installer-home-"));
    server = await startBinary("memsvc", ["serve"], {
      cwd: serverHome,
      env: {
        HOME: serverHome,
        MEMSVC_PORT: "0",
        MEMSVC_LOG_FORMAT: "json",
        MEMSVC_COOKIE_SECRET: "installer-test-cookie-secret-0123456789abcdef",
        MEMSVC_BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
        MEMSVC_BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
      },
    });
    await mkdir(path(".claude"));
    for (const [fixture, relative] of Object.entries(CONFIGS)) {
      await mkdir(dirname(path(relative)), { recursive: true });
      await copyFile(join(FIXTURES, fixture), path(relative));
      originals[relative] = await readFile(path(relative), "utf8");
    }
  });

  after(async () => {
    await server?.stop();
    await rm(serverHome, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  });

  it("detects the hosts whose configs exist", async () => {
    const r = await memsvc(["detect", "-o", "json"]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(
      JSON.parse(r.stdout).hosts.map((h: { host: string }) => h.host),
      ["claude-code", "claude-desktop", "cursor", "continue", "codex"],
    );
  });

  it("takes the same install and uninstall flags as vault-init, --yes included", async () => {
    const flags = async (tool: string, command: string) => {
      const r = await runBinary(tool, [command, "--help"]);
      assert.equal(r.code, 0, r.stderr);
      const options = r.stdout.slice(r.stdout.indexOf("\nOptions:"), r.stdout.indexOf("\nGlobal Options:"));
      return [...options.matchAll(/^ {2}(?:-\w, )?(--[\w-]+)/gm)].map((m) => m[1]).sort();
    };
    for (const command of ["install", "uninstall"]) {
      const vaultInit = (await flags("vault-init", command)).filter((f) => f !== "--shim");
      assert.deepEqual(await flags("memsvc", command), vaultInit, command);
    }
    const noState = await memsvc(["uninstall", "--yes"]);
    assert.equal(noState.code, 0, noState.stderr);
    assert.match(noState.stderr, /not installed/);
  });

  it("vault-init pointed at memsvc names the server and the command that wires hosts to it", async () => {
    const r = await runBinary("vault-init", ["install", "--server", server.url, "--yes"], {
      env: { HOME: home, VAULT_EMAIL: ADMIN.email, VAULT_PASSWORD: ADMIN.password },
      timeoutMs: 60_000,
    });
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stderr,
      new RegExp(
        `error: ${server.url} is a memsvc server, not a vault: .*'memsvc install --server ${server.url}'`,
      ),
    );
    assert.doesNotMatch(r.stderr, /404/);
    assert.deepEqual(await snapshot(), originals);
    await assert.rejects(stat(path(".config/vault-init/state.json")));
  });

  it("refuses to run unattended without the email, naming the flag, and changes nothing", async () => {
    const r = await memsvc(["install", "--url", server.url, "--password-stdin", "--yes"], ADMIN.password);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /--email/);
    const unknown = await memsvc(["install", "--hosts", "cursor,notepad", "--yes"]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown host 'notepad'/);
    assert.deepEqual(await snapshot(), originals);
    await assert.rejects(stat(statePath()));
  });

  it("prints what it would do in a dry run and changes nothing", async () => {
    const r = await memsvc(["install", "--url", server.url, "--dry-run", "-o", "json"]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(
      JSON.parse(r.stdout).hosts.map((h: { action: string }) => h.action),
      Array(5).fill("added"),
    );
    assert.deepEqual(await snapshot(), originals);
    assert.deepEqual(await backups(), []);
  });

  let token: string;

  it("installs: native entries with a working token, and a 0600 state file without it", async () => {
    const r = await memsvc(
      ["install", "--url", server.url, ...credentialFlags(), "--yes"],
      `${ADMIN.password}\n`,
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^HOST\s+ACTION\s+TRANSPORT\s+PATH\n/);
    assert.match(r.stderr, /cursor: added /);
    // The fixtures are 0644: the token now sits in files others can read, and install says so.
    assert.ok(
      r.stderr.includes(
        `warning: claude-code: ${path(".claude.json")} is readable by others (mode 0644) and holds the API ` +
          "token: run again with --secure-permissions to make it 0600",
      ),
      r.stderr,
    );

    const cursor = JSON.parse(await readFile(path(".cursor/mcp.json"), "utf8")).mcpServers.memsvc;
    assert.equal(cursor.url, `${server.url}/mcp`);
    token = cursor.headers.Authorization.replace(/^Bearer /, "");
    assert.match(token, /^nm_/);
    assert.deepEqual(JSON.parse(await readFile(path(".claude.json"), "utf8")).mcpServers.memsvc, {
      type: "http",
      url: `${server.url}/mcp`,
      headers: { Authorization: `Bearer ${token}` },
    });
    assert.deepEqual(
      JSON.parse(await readFile(path(".config/Claude/claude_desktop_config.json"), "utf8")).mcpServers.memsvc,
      {
        command: binaryPath("memsvc"),
        args: ["mcp"],
        env: { MEMSVC_BASE_URL: server.url, MEMSVC_TOKEN: token },
      },
      "Claude Desktop gets the stdio bridge: this binary, `memsvc mcp`",
    );
    const codex = JSON.parse(JSON.stringify(parseToml(await readFile(path(".codex/config.toml"), "utf8"))));
    assert.deepEqual(codex.mcp_servers.memsvc, {
      url: `${server.url}/mcp`,
      http_headers: { Authorization: `Bearer ${token}` },
    });
    const cont = parseYaml(await readFile(path(".continue/config.yaml"), "utf8"));
    assert.deepEqual(cont.mcpServers.map((s: { name: string }) => s.name), ["SQLite", "memsvc"]);

    const state = await readFile(statePath(), "utf8");
    assert.equal((await stat(statePath())).mode & 0o777, 0o600);
    assert.doesNotMatch(state, /nm_/, "no plaintext token in the state file");
    const parsed = JSON.parse(state);
    assert.equal(parsed.server, server.url);
    assert.equal(parsed.tokenHash, createHash("sha256").update(token).digest("hex"));
    assert.deepEqual(Object.keys(parsed.hosts).sort(), [
      "claude-code",
      "claude-desktop",
      "codex",
      "continue",
      "cursor",
    ]);

    const data = await new Client(server.url, { bearer: token }).get("/v1/recent?limit=1");
    assert.equal(data.status, 200, "the minted token works on the data plane");
  });

  it("reports every host configured and the server healthy", async () => {
    const r = await memsvc(["status", "-o", "json"]);
    assert.equal(r.code, 0, r.stderr);
    const status = JSON.parse(r.stdout);
    assert.deepEqual(status.server, { url: server.url, healthy: true });
    assert.deepEqual(status.hosts.map((h: { state: string }) => h.state), Array(5).fill("configured"));
    const table = await memsvc(["status"]);
    assert.match(table.stdout, /cursor\s+configured\s+/);
    assert.match(table.stdout, /Server http:\/\/127\.0\.0\.1:\d+: healthy/);
  });

  it("changes nothing when run again", async () => {
    const files = await snapshot();
    const beforeBackups = await backups();
    const state = await readFile(statePath(), "utf8");
    const r = await memsvc(["install", "--url", server.url, ...credentialFlags(), "--yes"], ADMIN.password);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /minted/, "the recorded token is reused");
    assert.deepEqual(await snapshot(), files);
    assert.deepEqual(await backups(), beforeBackups);
    assert.equal(await readFile(statePath(), "utf8"), state);
  });

  it("prints a host's entry with a placeholder, never the real token", async () => {
    const r = await memsvc(["mcp-config", "--host", "cursor", "--url", server.url]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout.split("\n").slice(1).join("\n")), {
      mcpServers: { memsvc: { url: `${server.url}/mcp`, headers: { Authorization: "Bearer <API_TOKEN>" } } },
    });
    assert.ok(!r.stdout.includes(token));
  });

  it("uninstalls: the files come back, the state file goes and the token is revoked", async () => {
    const r = await memsvc(["uninstall", ...credentialFlags(), "--yes"], `${ADMIN.password}\n`);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /revoked/);
    const files = await snapshot();
    for (const relative of Object.values(CONFIGS)) {
      if (relative.endsWith(".yaml")) {
        assert.deepEqual(parseYaml(files[relative]!), parseYaml(originals[relative]!));
      } else assert.equal(files[relative], originals[relative], relative);
    }
    await assert.rejects(stat(statePath()));
    const data = await new Client(server.url, { bearer: token }).get("/v1/recent?limit=1");
    assert.equal(data.status, 401);
    const again = await memsvc(["uninstall"]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /not installed/);
  });
});
