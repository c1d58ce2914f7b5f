/**
 * Black-box: dist/vault-init against dist/vault, in a fixture HOME with all nine v1 hosts (issue 22).
 * Real configs with comments and unknown keys, a symlinked Cursor config managed by "dotfiles", a
 * user's own .bak, a Roo Code file that does not parse at first, Claude Code rewriting its own file
 * and a hand-edited Cursor entry before uninstall; the minted key works, is reused, and is refused
 * with 401 once uninstall revoked it. The state file is checked for its mode and that it never holds
 * the key.
 */
import assert from "node:assert/strict";
import {
  chmod,
  copyFile,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { parse as parseJsonc } from "jsonc-parser";
import { parse as parseToml } from "smol-toml";
import { parse as parseYaml } from "yaml";
import { spawn } from "node:child_process";
import { baseEnv, binaryPath, runBinary, type RunningBinary, startBinary } from "../harness/binary.ts";
import { TEST_AUTH_SECRET, VaultClient, vaultEnv } from "../harness/vault.ts";

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "agenthosts");
const ADA = { email: "ada@example.test", password: "ada-Pa55word-123", name: "Ada" };
const VSCODE = ".config/Code/User/globalStorage";
const WRONG_PASSWORD = "not-Ada's-password-42";

/** Where each host keeps its config on Linux (shared/notes/agent-hosts.md), and its fixture. */
const HOSTS: Record<string, { path: string; fixture: string }> = {
  "claude-code": { path: ".claude.json", fixture: "claude-code/.claude.json" },
  cursor: { path: ".cursor/mcp.json", fixture: "cursor/mcp.json" },
  codex: { path: ".codex/config.toml", fixture: "codex/config.toml" },
  "claude-desktop": {
    path: ".config/Claude/claude_desktop_config.json",
    fixture: "claude-desktop/claude_desktop_config.json",
  },
  opencode: { path: ".config/opencode/opencode.json", fixture: "opencode/opencode.json" },
  cline: {
    path: `${VSCODE}/saoudrizwan.claude-dev/settings/cline_mcp_settings.json`,
    fixture: "cline/cline_mcp_settings.json",
  },
  continue: { path: ".continue/config.yaml", fixture: "continue/config.yaml" },
  "kilo-code": {
    path: `${VSCODE}/kilocode.kilo-code/settings/mcp_settings.json`,
    fixture: "kilo-code/mcp_settings.json",
  },
  "roo-code": {
    path: `${VSCODE}/rooveterinaryinc.roo-cline/settings/mcp_settings.json`,
    fixture: "roo-code/mcp_settings.json",
  },
};

const BROKEN_ROO = '{\n  "mcpServers": {\n    "context7": { "type": "streamable-http",\n';

describe("vault-init against dist/vault", () => {
  let root: string;
  let home: string;
  let server: RunningBinary;
  let ada: VaultClient;
  /** Each host's file as the fixture had it. */
  const original: Record<string, string> = {};
  let env: Record<string, string>;
  let key = "";

  const at = (id: string) => join(home, HOSTS[id]!.path);
  const cli = (args: string[], input?: string) =>
    runBinary("vault-init", args, { env, input, timeoutMs: 60_000 });
  const json = (text: string) => JSON.parse(text);
  const me = (bearer: string) =>
    fetch(`${server.url}/api/me`, { headers: { authorization: `Bearer ${bearer}` } });
  const statePath = () => join(home, ".config", "vault-init", "state.json");
  const vaultKeys = async () =>
    ((await ada.get("/api/api-keys")).body.keys as { name: string }[]).filter((k) =>
      k.name.startsWith("vault-init-")
    );

  before(async () => {
    root = await mkdtemp(join(tmpdir(), "vault-init-"));
    const serverHome = join(root, "server");
    await mkdir(serverHome);
    server = await startBinary("vault", ["serve"], {
      cwd: serverHome,
      env: vaultEnv(serverHome),
      timeoutMs: 60_000,
    });
    ada = new VaultClient(server.url);
    const signUp = await ada.post("/api/auth/sign-up/email", ADA);
    assert.equal(signUp.status, 201, JSON.stringify(signUp.body));

    home = join(root, "home");
    for (const [id, { path, fixture }] of Object.entries(HOSTS)) {
      const file = join(home, path);
      await mkdir(dirname(file), { recursive: true });
      if (id === "cursor") {
        // A dotfile manager's link: the write must go through it, not replace it.
        const target = join(home, "dotfiles", "cursor-mcp.json");
        await mkdir(dirname(target), { recursive: true });
        await copyFile(join(FIXTURES, fixture), target);
        await symlink(target, file);
      } else if (id === "roo-code") await writeFile(file, BROKEN_ROO);
      else await copyFile(join(FIXTURES, fixture), file);
      if (id !== "cursor") await chmod(file, 0o640);
      original[id] = await readFile(file, "utf8");
    }
    await mkdir(join(home, ".claude"));
    await writeFile(`${at("cursor")}.bak`, "the user's own backup\n");
    // Codex is found on PATH; a release that reads Streamable HTTP without the rmcp flag gets HTTP.
    const bin = join(root, "bin");
    await mkdir(bin);
    await writeFile(join(bin, "codex"), "#!/bin/sh\necho 'codex-cli 0.70.0'\n", { mode: 0o755 });
    env = {
      HOME: home,
      PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}`,
      VAULT_EMAIL: ADA.email,
      VAULT_PASSWORD: ADA.password,
    };
  });

  after(async () => {
    const output = server?.output() ?? "";
    await server?.stop();
    await rm(root, { recursive: true, force: true });
    for (const secret of [ADA.password, WRONG_PASSWORD, TEST_AUTH_SECRET, key].filter(Boolean)) {
      assert.ok(!output.includes(secret), "the vault's log holds a secret");
    }
  });

  it("detect lists the nine hosts with their transports and writes nothing", async () => {
    const res = await cli(["detect", "-o", "json"]);
    assert.equal(res.code, 0, res.stderr);
    const hosts = json(res.stdout).hosts as { host: string; transport: string; path: string }[];
    assert.deepEqual(hosts.map((h) => h.host).sort(), Object.keys(HOSTS).sort());
    const transports = Object.fromEntries(hosts.map((h) => [h.host, h.transport]));
    assert.deepEqual(
      Object.keys(transports).filter((id) => transports[id] === "http").sort(),
      ["claude-code", "codex", "cursor"],
    );
    assert.equal(hosts.find((h) => h.host === "cursor")!.path, at("cursor"));
  });

  it("refuses bad input before any I/O", async () => {
    assert.equal((await cli(["install", "--hosts", "windsurf", "--server", server.url, "--yes"])).code, 2);
    assert.equal((await cli(["install", "--server", "ftp://x", "--yes"])).code, 2);
    const noServer = await cli(["install", "--yes"]);
    assert.equal(noServer.code, 2);
    assert.match(noServer.stderr, /--server/);
  });

  it("a dry run reports the unparseable file and changes nothing", async () => {
    const res = await cli(["install", "--server", server.url, "--yes", "--dry-run", "-o", "json"]);
    assert.equal(res.code, 1, res.stderr);
    const hosts = json(res.stdout).hosts as { host: string; action: string }[];
    assert.equal(hosts.find((h) => h.host === "roo-code")!.action, "invalid");
    assert.match(
      res.stderr,
      new RegExp(`roo-code: left untouched: ${at("roo-code")}:4:1: does not parse as JSON`),
    );
    for (const id of Object.keys(HOSTS)) assert.equal(await readFile(at(id), "utf8"), original[id], id);
    assert.deepEqual(await vaultKeys(), [], "no key minted");
    await assert.rejects(stat(statePath()));
  });

  it("a comment in Cursor's strict-JSON config is reported with file, line, column and what to do", async () => {
    const target = join(home, "dotfiles", "cursor-mcp.json");
    const commented = original.cursor!.replace('"mcpServers": {', '// my servers\n  "mcpServers": {');
    await writeFile(target, commented);
    try {
      for (const dryRun of [["--dry-run"], []]) {
        const res = await cli(["install", "--server", server.url, "--hosts", "cursor", "--yes", ...dryRun]);
        assert.equal(res.code, 1, res.stderr);
        assert.ok(
          res.stderr.includes(
            `cursor: left untouched: ${at("cursor")}:2:3: does not parse as JSON: a comment, and strict ` +
              "JSON has none; Cursor reads this file as strict JSON: remove the comment, then run again " +
              "(or leave cursor out with --hosts)\n",
          ),
          res.stderr,
        );
        assert.equal(await readFile(target, "utf8"), commented);
      }
      assert.deepEqual(await vaultKeys(), [], "no key minted for a run that can write nothing");
    } finally {
      await writeFile(target, original.cursor!);
    }
  });

  it("a wrong password (from stdin) changes nothing", async () => {
    const res = await runBinary("vault-init", [
      "install",
      "--server",
      server.url,
      "--yes",
      "--password-stdin",
    ], {
      env: { ...env, VAULT_PASSWORD: "" },
      input: `${WRONG_PASSWORD}\n`,
      timeoutMs: 60_000,
    });
    assert.equal(res.code, 1, res.stderr);
    assert.match(res.stderr, /wrong email or password/);
    assert.ok(!res.stderr.includes(WRONG_PASSWORD));
    for (const id of Object.keys(HOSTS)) assert.equal(await readFile(at(id), "utf8"), original[id], id);
    assert.deepEqual(await vaultKeys(), []);
    await assert.rejects(stat(statePath()));
  });

  it("install wires eight hosts, leaves the unparseable one untouched and reports it", async () => {
    const res = await cli(["install", "--server", server.url, "--yes", "-o", "json"]);
    assert.equal(res.code, 1, res.stderr);
    assert.match(res.stderr, /mcp_settings\.json/);
    const out = json(res.stdout);
    const actions = Object.fromEntries(
      (out.hosts as { host: string; action: string }[]).map((h) => [h.host, h.action]),
    );
    assert.equal(actions["roo-code"], "invalid");
    assert.equal(await readFile(at("roo-code"), "utf8"), BROKEN_ROO);
    // The key went into files others can read (0640 here): each is named, with the flag that fixes it.
    for (const id of ["claude-code", "claude-desktop", "cline"]) {
      assert.ok(
        res.stderr.includes(
          `warning: ${id}: ${at(id)} is readable by others (mode 0640) and holds the API key: run again ` +
            "with --secure-permissions to make it 0600",
        ),
        `${id}: ${res.stderr}`,
      );
    }

    // The key: named as the contract says, working, and found in Claude Code's HTTP entry.
    const claude = json(await readFile(at("claude-code"), "utf8"));
    const auth = claude.mcpServers.vault.headers.Authorization as string;
    key = auth.replace(/^Bearer /, "");
    assert.match(key, /^vault_/);
    assert.deepEqual(claude.mcpServers.vault, {
      type: "http",
      url: `${server.url}/api/mcp`,
      headers: { Authorization: `Bearer ${key}` },
    });
    assert.equal((await me(key)).status, 200);
    const keys = await vaultKeys();
    assert.equal(keys.length, 1);
    assert.match(keys[0]!.name, /^vault-init-.+-\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(out.apiKey.prefix, key.slice(0, 16));

    // Everything else in Claude Code's file is as it was (its own keys, a project-scoped memsvc).
    const before = json(original["claude-code"]!);
    delete claude.mcpServers.vault;
    assert.deepEqual(claude, before);

    // The symlink is still a link, and its target got the entry (Cursor's HTTP shape: no type).
    assert.ok((await lstat(at("cursor"))).isSymbolicLink());
    const cursor = json(await readFile(at("cursor"), "utf8"));
    assert.deepEqual(cursor.mcpServers.vault, {
      url: `${server.url}/api/mcp`,
      headers: { Authorization: `Bearer ${key}` },
    });
    assert.equal(await readFile(`${at("cursor")}.bak`, "utf8"), "the user's own backup\n");

    // Codex over HTTP with http_headers; its comments survive.
    const codexText = await readFile(at("codex"), "utf8");
    for (
      const comment of ["# Codex configuration", "# ask before running commands", "# Documentation lookups"]
    ) {
      assert.ok(codexText.includes(comment), comment);
    }
    assert.deepEqual(json(JSON.stringify(parseToml(codexText).mcp_servers)), {
      ...json(JSON.stringify(parseToml(original.codex!).mcp_servers)),
      vault: { url: `${server.url}/api/mcp`, http_headers: { Authorization: `Bearer ${key}` } },
    });

    // The six stdio hosts start the shim with the key in env, never in args, each in its own shape.
    const shimEnv = { VAULT_URL: server.url, VAULT_TOKEN: key };
    const stdio = { command: "npx", args: ["-y", "vault-mcp"], env: shimEnv };
    assert.deepEqual(json(await readFile(at("claude-desktop"), "utf8")).mcpServers.vault, stdio);
    assert.deepEqual(json(await readFile(at("cline"), "utf8")).mcpServers.vault, {
      ...stdio,
      disabled: false,
      autoApprove: [],
    });
    assert.deepEqual(json(await readFile(at("kilo-code"), "utf8")).mcpServers.vault, {
      ...stdio,
      alwaysAllow: [],
      disabled: false,
    });
    const opencodeText = await readFile(at("opencode"), "utf8");
    assert.ok(opencodeText.includes("// MCP servers"), "OpenCode's comment survives");
    assert.deepEqual(parseJsonc(opencodeText).mcp.vault, {
      type: "local",
      command: ["npx", "-y", "vault-mcp"],
      environment: shimEnv,
      enabled: true,
    });
    const continueText = await readFile(at("continue"), "utf8");
    assert.ok(continueText.includes("# the project database"), "Continue's comment survives");
    const servers = parseYaml(continueText).mcpServers as { name: string }[];
    assert.deepEqual(servers.map((s) => s.name), ["SQLite", "vault"], "a list item, not a map");
    assert.deepEqual(servers[1], { name: "vault", ...stdio });

    // Modes kept; one backup beside each changed file, holding the original.
    assert.equal((await stat(at("claude-desktop"))).mode & 0o777, 0o640);
    const backups = (await readdir(dirname(at("claude-desktop")))).filter((n) =>
      n.includes(".vault-init-backup-")
    );
    assert.equal(backups.length, 1);
    assert.equal(
      await readFile(join(dirname(at("claude-desktop")), backups[0]!), "utf8"),
      original["claude-desktop"],
    );

    // The state file: 0600, the key's id, prefix and hash, each config's pre-write hash; never the key.
    const stateText = await readFile(statePath(), "utf8");
    assert.equal((await stat(statePath())).mode & 0o777, 0o600);
    assert.ok(!stateText.includes(key), "the state file never holds the key");
    const state = json(stateText);
    assert.equal(state.server, server.url);
    assert.equal(state.apiKey.prefix, key.slice(0, 16));
    assert.equal(typeof state.apiKey.id, "string");
    assert.deepEqual(
      Object.keys(state.hosts).sort(),
      Object.keys(HOSTS).filter((id) => id !== "roo-code").sort(),
    );
    const { createHash } = await import("node:crypto");
    assert.equal(
      state.hosts["claude-desktop"].preHash,
      `sha256:${createHash("sha256").update(original["claude-desktop"]!).digest("hex")}`,
    );
  });

  it("a second run after the file is fixed wires Roo Code with the same key and changes nothing else", async () => {
    await writeFile(at("roo-code"), await readFile(join(FIXTURES, HOSTS["roo-code"]!.fixture)));
    original["roo-code"] = await readFile(at("roo-code"), "utf8");
    const others = Object.fromEntries(
      await Promise.all(Object.keys(HOSTS).map(async (id) => [id, await readFile(at(id), "utf8")])),
    );
    const res = await cli(["install", "--yes", "-o", "json"]);
    assert.equal(res.code, 0, res.stderr);
    const actions = Object.fromEntries(
      (json(res.stdout).hosts as { host: string; action: string }[]).map((h) => [h.host, h.action]),
    );
    assert.equal(actions["roo-code"], "added");
    for (const id of Object.keys(HOSTS).filter((id) => id !== "roo-code")) {
      assert.equal(actions[id], "unchanged", id);
      assert.equal(await readFile(at(id), "utf8"), others[id], id);
    }
    assert.deepEqual(json(await readFile(at("roo-code"), "utf8")).mcpServers.vault, {
      command: "npx",
      args: ["-y", "vault-mcp"],
      env: { VAULT_URL: server.url, VAULT_TOKEN: key },
      alwaysAllow: [],
      disabled: false,
    });
    assert.equal((await vaultKeys()).length, 1, "the key is reused, not minted again");

    const stateBefore = await readFile(statePath(), "utf8");
    const again = await cli(["install", "--yes", "--secure-permissions", "-o", "json"]);
    assert.equal(again.code, 0, again.stderr);
    assert.ok((json(again.stdout).hosts as { action: string }[]).every((h) => h.action === "unchanged"));
    // --secure-permissions: the files holding the key, and vault-init's backups of them, are owner-only now.
    assert.doesNotMatch(again.stderr, /warning:/);
    for (const id of ["claude-code", "claude-desktop", "cline"]) {
      assert.equal((await stat(at(id))).mode & 0o777, 0o600, id);
      assert.match(again.stderr, new RegExp(`${id}: ${at(id)} holds the API key: its mode is now 0600`));
      for (
        const backup of (await readdir(dirname(at(id)))).filter((n) => n.includes(".vault-init-backup-"))
      ) {
        assert.equal((await stat(join(dirname(at(id)), backup))).mode & 0o077, 0, backup);
      }
    }
    assert.equal(
      await readFile(statePath(), "utf8"),
      stateBefore,
      "an idempotent run leaves the state alone",
    );
  });

  it("status shows nine configured hosts and the key by hash only", async () => {
    const res = await cli(["status", "-o", "yaml"]);
    assert.equal(res.code, 0, res.stderr);
    assert.ok(!res.stdout.includes(key));
    const status = parseYaml(res.stdout);
    assert.equal(status.server.healthy, true);
    assert.equal(status.hosts.length, 9);
    assert.ok(status.hosts.every((h: { state: string }) => h.state === "configured"));
    const { createHash } = await import("node:crypto");
    assert.equal(status.apiKey.sha256, createHash("sha256").update(key).digest("hex"));
  });

  it("mcp prints the contract's snippets with a key placeholder", async () => {
    const http = await cli(["mcp"]);
    assert.equal(http.code, 0, http.stderr);
    assert.deepEqual(json(http.stdout), {
      mcpServers: {
        vault: { type: "http", url: `${server.url}/api/mcp`, headers: { Authorization: "Bearer <API_KEY>" } },
      },
    });
    const stdio = await cli(["mcp", "--transport", "stdio"]);
    assert.deepEqual(json(stdio.stdout).mcpServers.vault, {
      command: "npx",
      args: ["-y", "vault-mcp"],
      env: { VAULT_URL: server.url, VAULT_TOKEN: "<API_KEY>" },
    });
    const opencode = await cli(["mcp", "--host", "opencode"]);
    assert.deepEqual(json(opencode.stdout).mcp.vault.command, ["npx", "-y", "vault-mcp"]);
    assert.equal((await cli(["mcp", "--host", "nope"])).code, 2);
  });

  it("uninstall removes exactly its entries, keeps what changed since, restores only untouched files", async () => {
    // Claude Code rewrites its own file; the user hand-edits the vault entry in Cursor's and nothing else;
    // in Cline's, a server is added after install and Cline adds a timeout to every entry, ours too.
    const claude = json(await readFile(at("claude-code"), "utf8"));
    claude.numStartups = 43;
    await writeFile(at("claude-code"), JSON.stringify(claude, null, 2));
    const cursor = json(await readFile(at("cursor"), "utf8"));
    cursor.mcpServers.vault.url = "https://elsewhere.example/api/mcp";
    await writeFile(at("cursor"), JSON.stringify(cursor, null, 2));
    const cline = json(await readFile(at("cline"), "utf8"));
    cline.mcpServers.added = { command: "added-after-install", disabled: false, timeout: 60 };
    cline.mcpServers.vault.timeout = 60;
    const clineEdited = JSON.stringify(cline, null, 2);
    await writeFile(at("cline"), clineEdited);

    const res = await cli(["uninstall", "--yes", "-o", "json"]);
    assert.equal(res.code, 1, res.stderr);
    const out = json(res.stdout);
    const actions = Object.fromEntries(
      (out.hosts as { host: string; action: string }[]).map((h) => [h.host, h.action]),
    );
    assert.equal(actions["cursor"], "restored");
    assert.equal(actions["claude-code"], "removed");
    // Restoring Cline's backup would lose the server added since: the file is left as it is, and said so.
    assert.equal(actions["cline"], "drifted");
    assert.equal(await readFile(at("cline"), "utf8"), clineEdited);
    assert.match(res.stderr, /cline: the vault entry in .* was edited since install, and so was the rest/);
    assert.equal(out.apiKey.status, "kept", "Cline's entry still holds the key");

    // Claude Code: only our entry is gone; its own rewrite stays.
    const after = json(await readFile(at("claude-code"), "utf8"));
    assert.equal(after.numStartups, 43);
    assert.deepEqual(after, { ...json(original["claude-code"]!), numStartups: 43 });
    // Cursor: the file as it was before install, still through the link; the user's .bak untouched.
    assert.ok((await lstat(at("cursor"))).isSymbolicLink());
    assert.equal(await readFile(at("cursor"), "utf8"), original.cursor);
    assert.equal(await readFile(`${at("cursor")}.bak`, "utf8"), "the user's own backup\n");
    // The others are as the fixtures had them (JSON and TOML byte for byte, YAML by content).
    for (const id of ["codex", "claude-desktop", "opencode", "kilo-code", "roo-code"]) {
      assert.equal(await readFile(at(id), "utf8"), original[id], id);
    }
    assert.deepEqual(parseYaml(await readFile(at("continue"), "utf8")), parseYaml(original.continue!));
    assert.equal((await me(key)).status, 200, "not revoked while a config holds it");

    // --force takes out Cline's vault entry and nothing else; then no config holds the key.
    const forced = await cli(["uninstall", "--yes", "--force", "-o", "json"]);
    assert.equal(forced.code, 0, forced.stderr);
    assert.deepEqual(
      (json(forced.stdout).hosts as { host: string; action: string }[]).map((h) => [h.host, h.action]),
      [["cline", "removed"]],
    );
    const { vault: _ours, ...rest } = cline.mcpServers;
    assert.deepEqual(json(await readFile(at("cline"), "utf8")), { ...cline, mcpServers: rest });
    assert.equal(json(forced.stdout).apiKey.status, "revoked");
    for (const id of Object.keys(HOSTS)) {
      const backups = (await readdir(dirname(at(id)))).filter((n) => n.includes(".vault-init-backup-"));
      assert.ok(backups.length >= 1 && backups.length <= 5, `${id}: ${backups.length} backups`);
    }

    assert.equal((await me(key)).status, 401, "the revoked key is refused");
    assert.deepEqual(await vaultKeys(), []);
    await assert.rejects(stat(statePath()), "the state file is gone");
    const status = await cli(["status", "-o", "json"]);
    assert.equal(json(status.stdout).installed, false);
  });

  it("on a terminal, asks for the server, a confirmation, the email and the password without echo", async () => {
    // util-linux `script` gives vault-init a pseudo-terminal; the answers are typed when each prompt shows.
    const child = spawn("script", [
      "-qfec",
      `${binaryPath("vault-init")} install --hosts cursor`,
      "/dev/null",
    ], {
      env: baseEnv({ HOME: home, PATH: env.PATH! }),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let screen = "";
    const answers: [RegExp, string][] = [
      [/Vault server URL.*: $/, server.url],
      [/\[Y\/n\]: $/, "y"],
      [/Email: $/, ADA.email],
      [/Password: $/, ADA.password],
    ];
    child.stdout.on("data", (d) => {
      screen += d;
      const next = answers[0];
      // Readline moves the cursor with escape sequences after each prompt.
      // deno-lint-ignore no-control-regex
      const plain = screen.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "").trimEnd();
      if (next && next[0].test(`${plain} `)) {
        answers.shift();
        child.stdin.write(`${next[1]}\r`);
      }
    });
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
      child.on("close", (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    assert.equal(code, 0, screen);
    assert.deepEqual(answers, [], `every question was asked:\n${screen}`);
    assert.ok(screen.includes(ADA.email), "the email is echoed");
    assert.ok(!screen.includes(ADA.password), "the password is not");
    const entry = json(await readFile(at("cursor"), "utf8")).mcpServers.vault;
    const fresh = (entry.headers.Authorization as string).replace(/^Bearer /, "");
    assert.equal((await me(fresh)).status, 200);
    assert.equal((await vaultKeys()).length, 1);
  });
});
