import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CliError } from "../../cli/mod.ts";
import { requireSupportedPlatform } from "./install.ts";
import { statePath } from "./state.ts";
import {
  findVaultHost,
  parseHostIds,
  parseServerUrl,
  transportFor,
  VAULT_HOSTS,
  vaultServer,
  versionAtLeast,
} from "./hosts.ts";

const env = (platform: string, vars: Record<string, string> = {}) => ({
  home: "/home/ada",
  platform,
  env: vars,
});

describe("vault-init hosts", () => {
  it("are the nine of list v1: three HTTP, six stdio only", () => {
    assert.equal(VAULT_HOSTS.length, 9);
    assert.deepEqual(VAULT_HOSTS.filter((v) => v.preferred === "http").map((v) => v.host.id), [
      "claude-code",
      "cursor",
      "codex",
    ]);
    assert.deepEqual(VAULT_HOSTS.filter((v) => v.preferred === "stdio").map((v) => v.host.id).sort(), [
      "claude-desktop",
      "cline",
      "continue",
      "kilo-code",
      "opencode",
      "roo-code",
    ]);
  });

  it("gives Codex HTTP only from a known release on", async () => {
    const codex = findVaultHost("codex")!;
    assert.equal(await transportFor(codex, () => Promise.resolve([0, 66, 0])), "http");
    assert.equal(await transportFor(codex, () => Promise.resolve([1, 0, 0])), "http");
    assert.equal(await transportFor(codex, () => Promise.resolve([0, 46, 9])), "stdio");
    assert.equal(await transportFor(codex, () => Promise.resolve(undefined)), "stdio");
    assert.equal(
      await transportFor(findVaultHost("cursor")!, () => Promise.reject(new Error("not asked"))),
      "http",
    );
    assert.ok(versionAtLeast([0, 66, 1], [0, 66, 0]) && !versionAtLeast([0, 65, 9], [0, 66, 0]));
  });

  it("puts the key in env or a header, never in args", () => {
    const server = vaultServer("https://vault.example.com", "vault_k");
    assert.equal(server.url, "https://vault.example.com/api/mcp");
    assert.deepEqual(server.stdio, {
      command: "npx",
      args: ["-y", "vault-mcp"],
      env: { VAULT_URL: "https://vault.example.com", VAULT_TOKEN: "vault_k" },
    });
    assert.deepEqual(vaultServer("https://v.example", "vault_k", "/opt/vault-mcp").stdio.args, []);
  });

  it("refuses bad --hosts and --server values as usage errors", () => {
    assert.deepEqual(parseHostIds("cursor, codex").map((v) => v.host.id), ["cursor", "codex"]);
    for (const bad of ["windsurf", "", " , "]) {
      assert.throws(() => parseHostIds(bad), (e: CliError) => e.exitCode === 2);
    }
    assert.equal(parseServerUrl("https://vault.example.com/"), "https://vault.example.com");
    assert.equal(parseServerUrl("http://127.0.0.1:8080/notes//"), "http://127.0.0.1:8080/notes");
    for (const bad of ["vault.example.com", "ftp://vault.example.com", "https://ada:pw@vault.example.com"]) {
      assert.throws(() => parseServerUrl(bad), (e: CliError) => e.exitCode === 2, bad);
    }
  });

  it("runs on macOS and Linux only, and keeps its state under ~/.config on both", () => {
    assert.doesNotThrow(() => requireSupportedPlatform(env("linux"), "install"));
    assert.doesNotThrow(() => requireSupportedPlatform(env("darwin"), "install"));
    assert.throws(() => requireSupportedPlatform(env("win32"), "install"), /macOS and Linux only/);
    assert.equal(statePath(env("darwin")), "/home/ada/.config/vault-init/state.json");
    assert.equal(statePath(env("linux", { XDG_CONFIG_HOME: "/xdg" })), "/xdg/vault-init/state.json");
  });
});
