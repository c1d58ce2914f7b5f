/**
 * The agent hosts we can wire to an MCP server: where each keeps its user-scope config on macOS and
 * Linux, in which format, and the exact entry shape its loader accepts. Facts and their sources are
 * in shared/notes/agent-hosts.md; the shapes differ in small ways that break a host when wrong
 * (Windsurf needs `serverUrl`, Gemini `httpUrl`, Goose `uri`, OpenCode a command array), so each
 * host builds its own entry instead of sharing one generic shape.
 */
import { dirname, join } from "node:path";
import { type HostEnv, macAppSupport, vscodeUserDir, xdgConfigHome } from "./host_paths.ts";

export type ConfigFormat = "json" | "jsonc" | "yaml" | "toml";
export type Transport = "http" | "stdio";
export type Entry = Record<string, unknown>;

/** The server to wire in. Nothing here is specific to one product: callers pass name, URL and secrets. */
export interface McpServer {
  /** The entry's key (or, in list formats, its `name`), e.g. "memsvc". */
  name: string;
  /** The server's Streamable-HTTP MCP endpoint. */
  url: string;
  /**
   * HTTP entries send `Authorization: Bearer <token>`. `{env}` names an environment variable holding
   * the token instead, for hosts whose config can read one (`tokenFromEnv`).
   */
  bearer: { token: string } | { env: string };
  /** How stdio-only hosts start a bridge. Secrets belong in `env`, never in `args`: hosts split and show args. */
  stdio: { command: string; args: string[]; env: Record<string, string> };
}

/** A place a host may keep its config: the file, and the directory whose presence means the host is installed. */
export interface ConfigLocation {
  path: string;
  appDir: string;
}

/** Where entries live inside the file. */
export interface EntryPlace {
  /** Top-level key holding the servers (`mcpServers`, `servers`, `mcp_servers`, ...). */
  root: string;
  /** Set when the servers are list items told apart by this field (Continue) rather than map keys. */
  listKey?: "name";
}

export interface AgentHost {
  id: string;
  name: string;
  format: ConfigFormat;
  place: EntryPlace;
  /** Candidates in order of preference: an existing file wins, then an existing app directory. */
  locations(h: HostEnv): ConfigLocation[];
  /** The Streamable-HTTP entry; absent for hosts that load only stdio servers from their file. */
  http?: (server: McpServer) => Entry;
  stdio: (server: McpServer) => Entry;
  /** Whether `http` supports `bearer: {env}` (a documented way to read the token from the environment). */
  tokenFromEnv: boolean;
  /** Top-level content of a file we create, when the host refuses a file with only our servers in it. */
  newFile?: Entry;
}

/** `Bearer <token>`, or the host's reference to an environment variable when the caller asked for one. */
function authorization(server: McpServer, envReference?: (name: string) => string): string {
  if ("token" in server.bearer) return `Bearer ${server.bearer.token}`;
  if (!envReference) throw new Error("this host cannot read the token from an environment variable");
  return `Bearer ${envReference(server.bearer.env)}`;
}

const headers = (s: McpServer, envReference?: (name: string) => string) => ({
  Authorization: authorization(s, envReference),
});
const plainStdio = (s: McpServer): Entry => ({
  command: s.stdio.command,
  args: s.stdio.args,
  env: s.stdio.env,
});

/** A single-location host: the file, and the directory that marks the host as installed. */
const at = (path: string, appDir: string): ConfigLocation[] => [{ path, appDir }];

const claudeCode: AgentHost = {
  id: "claude-code",
  name: "Claude Code",
  // Strict JSON: Claude Code rewrites this file itself and may wipe it when it meets a comment.
  format: "json",
  place: { root: "mcpServers" },
  // The file sits in HOME, which always exists; ~/.claude is what tells us Claude Code is installed.
  locations: (h) => at(join(h.home, ".claude.json"), join(h.home, ".claude")),
  // `type` is required; "streamable-http" is only an alias in newer builds (claude-code#45836).
  http: (s) => ({ type: "http", url: s.url, headers: headers(s) }),
  stdio: (s) => ({ type: "stdio", ...plainStdio(s) }),
  tokenFromEnv: false,
};

const claudeDesktop: AgentHost = {
  id: "claude-desktop",
  name: "Claude Desktop",
  format: "json",
  place: { root: "mcpServers" },
  locations: (h) => {
    // No official Linux build; community builds follow XDG.
    const dir = h.platform === "darwin" ? join(macAppSupport(h), "Claude") : join(xdgConfigHome(h), "Claude");
    return at(join(dir, "claude_desktop_config.json"), dir);
  },
  // No `http`: remote servers in this file are ignored; they go through Settings › Connectors.
  stdio: plainStdio,
  tokenFromEnv: false,
};

const cursor: AgentHost = {
  id: "cursor",
  name: "Cursor",
  format: "json",
  place: { root: "mcpServers" },
  locations: (h) => at(join(h.home, ".cursor", "mcp.json"), join(h.home, ".cursor")),
  http: (s) => ({ url: s.url, headers: headers(s, (name) => `\${env:${name}}`) }),
  stdio: plainStdio,
  tokenFromEnv: true,
};

const windsurf: AgentHost = {
  id: "windsurf",
  name: "Windsurf",
  format: "json",
  place: { root: "mcpServers" },
  locations: (h) => {
    const dir = join(h.home, ".codeium", "windsurf");
    return at(join(dir, "mcp_config.json"), dir);
  },
  // `url` does not work here.
  http: (s) => ({ serverUrl: s.url, headers: headers(s) }),
  stdio: plainStdio,
  tokenFromEnv: false,
};

const vscode: AgentHost = {
  id: "vscode",
  name: "VS Code",
  format: "jsonc",
  place: { root: "servers" },
  locations: (h) => at(join(vscodeUserDir(h), "mcp.json"), vscodeUserDir(h)),
  http: (s) => ({ type: "http", url: s.url, headers: headers(s) }),
  stdio: (s) => ({ type: "stdio", ...plainStdio(s) }),
  tokenFromEnv: false,
};

const cline: AgentHost = {
  id: "cline",
  name: "Cline",
  format: "json",
  place: { root: "mcpServers" },
  locations: (h) => {
    const override = h.env.CLINE_MCP_SETTINGS_PATH;
    // The extension's globalStorage, not its install directory (a defect of the reference installer).
    const extension = join(vscodeUserDir(h), "globalStorage", "saoudrizwan.claude-dev");
    return [
      ...(override ? [{ path: override, appDir: dirname(override) }] : []),
      { path: join(extension, "settings", "cline_mcp_settings.json"), appDir: extension },
      {
        path: join(h.home, ".cline", "data", "settings", "cline_mcp_settings.json"),
        appDir: join(h.home, ".cline"),
      },
    ];
  },
  http: (s) => ({ type: "streamableHttp", url: s.url, headers: headers(s), disabled: false }),
  stdio: (s) => ({ ...plainStdio(s), disabled: false, autoApprove: [] }),
  tokenFromEnv: false,
};

const rooCode: AgentHost = {
  id: "roo-code",
  name: "Roo Code",
  format: "json",
  place: { root: "mcpServers" },
  locations: (h) => {
    const extension = join(vscodeUserDir(h), "globalStorage", "rooveterinaryinc.roo-cline");
    return at(join(extension, "settings", "mcp_settings.json"), extension);
  },
  // `type` is required (Roo-Code#9118).
  http: (s) => ({ type: "streamable-http", url: s.url, headers: headers(s) }),
  stdio: (s) => ({ ...plainStdio(s), alwaysAllow: [], disabled: false }),
  tokenFromEnv: false,
};

const kiloCode: AgentHost = {
  id: "kilo-code",
  name: "Kilo Code",
  format: "json",
  place: { root: "mcpServers" },
  // The extension's globalStorage (a Roo Code fork, same file name), then the Kilo CLI's settings. The
  // reference installer's `$XDG_CONFIG_HOME/kilocode/mcp.json` matches no documented location. Kilo's
  // newer ~/.config/kilo/kilo.jsonc (OpenCode's shape under `mcp`) is not written yet.
  locations: (h) => {
    const extension = join(vscodeUserDir(h), "globalStorage", "kilocode.kilo-code");
    return [
      { path: join(extension, "settings", "mcp_settings.json"), appDir: extension },
      {
        path: join(h.home, ".kilocode", "cli", "global", "settings", "mcp_settings.json"),
        appDir: join(h.home, ".kilocode"),
      },
    ];
  },
  http: (s) => ({ type: "streamable-http", url: s.url, headers: headers(s) }),
  stdio: (s) => ({ ...plainStdio(s), alwaysAllow: [], disabled: false }),
  tokenFromEnv: false,
};

const continueDev: AgentHost = {
  id: "continue",
  name: "Continue",
  format: "yaml",
  // A list, deduplicated by `name`; the reference installer wrote a map and broke the file.
  place: { root: "mcpServers", listKey: "name" },
  locations: (h) => at(join(h.home, ".continue", "config.yaml"), join(h.home, ".continue")),
  // Continue sends headers from `requestOptions.headers`; a bare `headers` is ignored (continue#9475).
  http: (s) => ({
    name: s.name,
    type: "streamable-http",
    url: s.url,
    requestOptions: { headers: headers(s) },
  }),
  stdio: (s) => ({ name: s.name, ...plainStdio(s) }),
  tokenFromEnv: false,
  // config.yaml must carry a name and a version; Continue writes them itself on first start.
  newFile: { name: "Local Config", version: "1.0.0", schema: "v1" },
};

const zed: AgentHost = {
  id: "zed",
  name: "Zed",
  format: "jsonc",
  place: { root: "context_servers" },
  locations: (h) => {
    const dir = join(xdgConfigHome(h), "zed");
    const main = { path: join(dir, "settings.json"), appDir: dir };
    // One installer uses Application Support on macOS (unverified); look there second.
    if (h.platform !== "darwin") return [main];
    const mac = join(macAppSupport(h), "Zed");
    return [main, { path: join(mac, "settings.json"), appDir: mac }];
  },
  http: (s) => ({ url: s.url, headers: headers(s) }),
  stdio: plainStdio,
  tokenFromEnv: false,
};

const codex: AgentHost = {
  id: "codex",
  name: "Codex CLI",
  format: "toml",
  place: { root: "mcp_servers" },
  locations: (h) => {
    const dir = h.env.CODEX_HOME || join(h.home, ".codex");
    return at(join(dir, "config.toml"), dir);
  },
  // An inline `bearer_token` is rejected; headers go in `http_headers`, or the token in a named variable.
  http: (s) =>
    "env" in s.bearer
      ? { url: s.url, bearer_token_env_var: s.bearer.env }
      : { url: s.url, http_headers: headers(s) },
  stdio: plainStdio,
  tokenFromEnv: true,
};

const gemini: AgentHost = {
  id: "gemini",
  name: "Gemini CLI",
  format: "json",
  place: { root: "mcpServers" },
  locations: (h) => at(join(h.home, ".gemini", "settings.json"), join(h.home, ".gemini")),
  // `url` means SSE here; Streamable HTTP is `httpUrl`.
  http: (s) => ({ httpUrl: s.url, headers: headers(s) }),
  stdio: plainStdio,
  tokenFromEnv: false,
};

const goose: AgentHost = {
  id: "goose",
  name: "Goose",
  format: "yaml",
  place: { root: "extensions" },
  locations: (h) => {
    const dir = join(xdgConfigHome(h), "goose");
    return at(join(dir, "config.yaml"), dir);
  },
  http: (s) => ({
    name: s.name,
    type: "streamable_http",
    uri: s.url,
    headers: headers(s),
    enabled: true,
    timeout: 300,
  }),
  stdio: (s) => ({
    name: s.name,
    type: "stdio",
    cmd: s.stdio.command,
    args: s.stdio.args,
    envs: s.stdio.env,
    enabled: true,
    timeout: 300,
  }),
  tokenFromEnv: false,
};

const opencode: AgentHost = {
  id: "opencode",
  name: "OpenCode",
  format: "jsonc",
  place: { root: "mcp" },
  locations: (h) => {
    const dir = join(xdgConfigHome(h), "opencode");
    return [
      { path: join(dir, "opencode.json"), appDir: dir },
      { path: join(dir, "opencode.jsonc"), appDir: dir },
    ];
  },
  http: (s) => ({ type: "remote", url: s.url, headers: headers(s), enabled: true }),
  // The schema forbids `args` (additionalProperties: false): the command is one array.
  stdio: (s) => ({
    type: "local",
    command: [s.stdio.command, ...s.stdio.args],
    environment: s.stdio.env,
    enabled: true,
  }),
  tokenFromEnv: false,
};

const kiro: AgentHost = {
  id: "kiro",
  name: "Kiro",
  format: "json",
  place: { root: "mcpServers" },
  locations: (h) => at(join(h.home, ".kiro", "settings", "mcp.json"), join(h.home, ".kiro")),
  // Kiro expands `${VAR}` after the user approves it.
  http: (s) => ({ url: s.url, headers: headers(s, (name) => `\${${name}}`) }),
  stdio: (s) => ({ ...plainStdio(s), disabled: false }),
  tokenFromEnv: true,
};

export const HOSTS: readonly AgentHost[] = [
  claudeCode,
  claudeDesktop,
  cursor,
  windsurf,
  vscode,
  cline,
  rooCode,
  kiloCode,
  continueDev,
  zed,
  codex,
  gemini,
  goose,
  opencode,
  kiro,
];

export function findHost(id: string): AgentHost | undefined {
  return HOSTS.find((host) => host.id === id);
}

/** The transports a host accepts, preferred first: HTTP where the host loads remote servers. */
export function transportsOf(host: AgentHost): Transport[] {
  return host.http ? ["http", "stdio"] : ["stdio"];
}

/** The host's native entry for `server` over `transport` (default: the host's preferred one). */
export function buildEntry(host: AgentHost, server: McpServer, transport = transportsOf(host)[0]!): Entry {
  if (transport === "stdio") return host.stdio(server);
  if (!host.http) throw new Error(`${host.name} loads only stdio servers from its config file`);
  return host.http(server);
}
