/**
 * The nine agent hosts vault-init wires ("host list v1"), each with the transport it gets. Three speak
 * Streamable HTTP (Claude Code, Cursor, and Codex when its version is known to need no rmcp flag), six
 * get the stdio shim `vault-mcp`. Shapes and paths come from internal/agenthosts, shared with memsvc.
 */
import { execFile } from "node:child_process";
import {
  type AgentHost,
  findHost,
  type McpServer,
  parseHostIds as parseIds,
  parseServerUrl as parseUrl,
  type Transport,
} from "../mod.ts";

/** The entry's name in every host's config. */
export const SERVER_NAME = "vault";
/** Names our backups: `<file>.vault-init-backup-<time>`. */
export const TAG = "vault-init";
/** Backups kept per config file (the newest). */
export const KEEP_BACKUPS = 5;
/** The npm package of the shim that stdio entries start with npx. */
export const SHIM_PACKAGE = "vault-mcp";
export const HOST_LIST_VERSION = "v1";

/**
 * Codex reads Streamable-HTTP servers without `experimental_use_rmcp_client` from this release on
 * (the flag was removed after 0.6x; the exact first release is not documented, so we take a safe one).
 */
export const CODEX_HTTP_MIN_VERSION = [0, 66, 0] as const;

export interface VaultHost {
  host: AgentHost;
  /** "http" hosts fall back to stdio when `httpUsable` says no. */
  preferred: Transport;
}

const table: [string, Transport][] = [
  ["claude-code", "http"],
  ["cursor", "http"],
  ["codex", "http"],
  ["claude-desktop", "stdio"],
  ["opencode", "stdio"],
  ["cline", "stdio"],
  ["continue", "stdio"],
  ["kilo-code", "stdio"],
  ["roo-code", "stdio"],
];

export const VAULT_HOSTS: readonly VaultHost[] = table.map(([id, preferred]) => ({
  host: findHost(id)!,
  preferred,
}));

export function findVaultHost(id: string): VaultHost | undefined {
  return VAULT_HOSTS.find((v) => v.host.id === id);
}

/** `--hosts a,b`: known ids only, refused before any I/O. */
export function parseHostIds(value: string): VaultHost[] {
  return parseIds(value, VAULT_HOSTS.map((v) => v.host)).map((host) => findVaultHost(host.id)!);
}

/** The version `codex --version` prints, or undefined when Codex is not on PATH or says nothing useful. */
export function codexVersion(): Promise<number[] | undefined> {
  return new Promise((resolve) => {
    execFile("codex", ["--version"], { timeout: 5_000 }, (err, stdout) => {
      const match = err ? null : /(\d+)\.(\d+)\.(\d+)/.exec(stdout);
      resolve(match ? match.slice(1, 4).map(Number) : undefined);
    });
  });
}

export function versionAtLeast(version: readonly number[], min: readonly number[]): boolean {
  for (let i = 0; i < min.length; i++) {
    const a = version[i] ?? 0;
    if (a !== min[i]) return a > min[i]!;
  }
  return true;
}

/** The transport each host gets: its preferred one, except Codex without a known recent version. */
export async function transportFor(
  v: VaultHost,
  codex?: () => Promise<number[] | undefined>,
): Promise<Transport> {
  if (v.preferred === "stdio" || v.host.id !== "codex") return v.preferred;
  const version = await (codex ?? codexVersion)();
  return version && versionAtLeast(version, CODEX_HTTP_MIN_VERSION) ? "http" : "stdio";
}

/**
 * The entry's parameters: `<server>/api/mcp` with the key as a bearer for HTTP hosts; for stdio hosts
 * `npx -y vault-mcp` (or `shim`, an absolute path to the vault-mcp binary), the key in env, never args.
 */
export function vaultServer(server: string, key: string, shim?: string): McpServer {
  return {
    name: SERVER_NAME,
    url: `${server}/api/mcp`,
    bearer: { token: key },
    stdio: {
      command: shim ?? "npx",
      args: shim ? [] : ["-y", SHIM_PACKAGE],
      env: { VAULT_URL: server, VAULT_TOKEN: key },
    },
  };
}

/** `--server`: an http(s) URL without a trailing slash; the path is kept (a vault behind a prefix). */
export const parseServerUrl = parseUrl;
