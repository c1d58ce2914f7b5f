import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parse as parseToml } from "smol-toml";
import { parse as parseYaml } from "yaml";
import { buildEntry, findHost, HOSTS, type McpServer, transportsOf } from "./hosts.ts";
import { renderEntry } from "./render_entry.ts";

const linux = { home: "/home/ada", platform: "linux", env: {} };
const mac = { home: "/Users/ada", platform: "darwin", env: {} };
const server: McpServer = {
  name: "memsvc",
  url: "https://mem.example/mcp",
  bearer: { token: "nm_secret" },
  stdio: { command: "/usr/local/bin/memsvc", args: ["mcp"], env: { MEMSVC_TOKEN: "nm_secret" } },
};

const pathOf = (id: string, h: typeof linux) => findHost(id)!.locations(h).map((l) => l.path);

describe("host table", () => {
  it("has fifteen hosts with unique ids", () => {
    assert.equal(HOSTS.length, 15);
    assert.equal(new Set(HOSTS.map((h) => h.id)).size, 15);
  });

  it("resolves each host's config path on Linux and macOS", () => {
    const expected: Record<string, [string, string]> = {
      "claude-code": ["/home/ada/.claude.json", "/Users/ada/.claude.json"],
      "claude-desktop": [
        "/home/ada/.config/Claude/claude_desktop_config.json",
        "/Users/ada/Library/Application Support/Claude/claude_desktop_config.json",
      ],
      cursor: ["/home/ada/.cursor/mcp.json", "/Users/ada/.cursor/mcp.json"],
      windsurf: [
        "/home/ada/.codeium/windsurf/mcp_config.json",
        "/Users/ada/.codeium/windsurf/mcp_config.json",
      ],
      vscode: [
        "/home/ada/.config/Code/User/mcp.json",
        "/Users/ada/Library/Application Support/Code/User/mcp.json",
      ],
      cline: [
        "/home/ada/.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
        "/Users/ada/Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
      ],
      "roo-code": [
        "/home/ada/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json",
        "/Users/ada/Library/Application Support/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json",
      ],
      "kilo-code": [
        "/home/ada/.config/Code/User/globalStorage/kilocode.kilo-code/settings/mcp_settings.json",
        "/Users/ada/Library/Application Support/Code/User/globalStorage/kilocode.kilo-code/settings/mcp_settings.json",
      ],
      continue: ["/home/ada/.continue/config.yaml", "/Users/ada/.continue/config.yaml"],
      zed: ["/home/ada/.config/zed/settings.json", "/Users/ada/.config/zed/settings.json"],
      codex: ["/home/ada/.codex/config.toml", "/Users/ada/.codex/config.toml"],
      gemini: ["/home/ada/.gemini/settings.json", "/Users/ada/.gemini/settings.json"],
      goose: ["/home/ada/.config/goose/config.yaml", "/Users/ada/.config/goose/config.yaml"],
      opencode: ["/home/ada/.config/opencode/opencode.json", "/Users/ada/.config/opencode/opencode.json"],
      kiro: ["/home/ada/.kiro/settings/mcp.json", "/Users/ada/.kiro/settings/mcp.json"],
    };
    for (const host of HOSTS) {
      assert.deepEqual([pathOf(host.id, linux)[0], pathOf(host.id, mac)[0]], expected[host.id], host.id);
    }
  });

  it("honours XDG_CONFIG_HOME, CODEX_HOME and CLINE_MCP_SETTINGS_PATH, and looks in a second place", () => {
    const env = { XDG_CONFIG_HOME: "/xdg", CODEX_HOME: "/codex", CLINE_MCP_SETTINGS_PATH: "/c/cline.json" };
    const h = { ...linux, env };
    assert.equal(pathOf("vscode", h)[0], "/xdg/Code/User/mcp.json");
    assert.equal(pathOf("goose", h)[0], "/xdg/goose/config.yaml");
    assert.equal(pathOf("codex", h)[0], "/codex/config.toml");
    assert.equal(pathOf("cline", h)[0], "/c/cline.json");
    assert.equal(pathOf("cline", linux)[1], "/home/ada/.cline/data/settings/cline_mcp_settings.json");
    assert.equal(pathOf("zed", mac)[1], "/Users/ada/Library/Application Support/Zed/settings.json");
    assert.equal(pathOf("opencode", linux)[1], "/home/ada/.config/opencode/opencode.jsonc");
    assert.equal(
      pathOf("vscode", { ...linux, env: { XDG_CONFIG_HOME: "relative" } })[0],
      pathOf("vscode", linux)[0],
    );
  });

  it("prefers HTTP except for Claude Desktop, which loads only stdio servers from its file", () => {
    for (const host of HOSTS) {
      assert.deepEqual(
        transportsOf(host),
        host.id === "claude-desktop" ? ["stdio"] : ["http", "stdio"],
        host.id,
      );
    }
    assert.throws(() => buildEntry(findHost("claude-desktop")!, server, "http"), /only stdio/);
  });

  it("builds stdio entries in each host's shape, with the token never in the arguments", () => {
    assert.deepEqual(buildEntry(findHost("opencode")!, server, "stdio"), {
      type: "local",
      command: ["/usr/local/bin/memsvc", "mcp"],
      environment: { MEMSVC_TOKEN: "nm_secret" },
      enabled: true,
    });
    assert.deepEqual(buildEntry(findHost("goose")!, server, "stdio"), {
      name: "memsvc",
      type: "stdio",
      cmd: "/usr/local/bin/memsvc",
      args: ["mcp"],
      envs: { MEMSVC_TOKEN: "nm_secret" },
      enabled: true,
      timeout: 300,
    });
    assert.deepEqual(buildEntry(findHost("claude-code")!, server, "stdio"), {
      type: "stdio",
      ...server.stdio,
    });
    for (const host of HOSTS) {
      const entry = buildEntry(host, server, "stdio") as { args?: string[]; command?: string[] };
      assert.doesNotMatch(JSON.stringify(entry.args ?? entry.command ?? []), /nm_secret/, host.id);
    }
  });

  it("reads the token from an environment variable where the host documents a way", () => {
    const fromEnv = { ...server, bearer: { env: "MEMSVC_TOKEN" } };
    assert.deepEqual(HOSTS.filter((h) => h.tokenFromEnv).map((h) => h.id), ["cursor", "codex", "kiro"]);
    assert.deepEqual(buildEntry(findHost("cursor")!, fromEnv), {
      url: server.url,
      headers: { Authorization: "Bearer ${env:MEMSVC_TOKEN}" },
    });
    assert.deepEqual(buildEntry(findHost("codex")!, fromEnv), {
      url: server.url,
      bearer_token_env_var: "MEMSVC_TOKEN",
    });
    assert.deepEqual(buildEntry(findHost("kiro")!, fromEnv).headers, {
      Authorization: "Bearer ${MEMSVC_TOKEN}",
    });
    assert.throws(() => buildEntry(findHost("windsurf")!, fromEnv), /environment variable/);
  });

  it("renders a paste-able snippet in each host's format", () => {
    assert.deepEqual(JSON.parse(renderEntry(findHost("vscode")!, server)), {
      servers: { memsvc: { type: "http", url: server.url, headers: { Authorization: "Bearer nm_secret" } } },
    });
    assert.deepEqual(JSON.parse(JSON.stringify(parseToml(renderEntry(findHost("codex")!, server)))), {
      mcp_servers: { memsvc: { url: server.url, http_headers: { Authorization: "Bearer nm_secret" } } },
    });
    assert.deepEqual(parseYaml(renderEntry(findHost("continue")!, server)).mcpServers[0].name, "memsvc");
  });
});
