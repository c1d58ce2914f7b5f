/**
 * What `memsvc install` does once its flags are parsed: sign in, mint an API token (or reuse the one
 * the configs already hold), and add a memsvc entry to each agent host's MCP config, recording what was
 * written (the token's hash only). Every file is read and its edit computed before anything happens:
 * one that does not parse stops the install with nothing changed.
 */
import { basename } from "node:path";
import { hostname } from "node:os";
import {
  type AgentHost,
  currentHostEnv,
  findHost,
  getCredentials,
  type HostOutcome,
  HOSTS,
  type InstallChoices,
  type InstallState,
  installStatePath,
  isSupportedPlatform,
  type McpServer,
  outcomeRows,
  parseHostIds as parseIds,
  parseServerUrl,
  readInstallState,
  recordHosts,
  recoverSecret,
  selectTargets,
  sha256,
  type Target,
  transportsOf,
  untouchedLine,
  warnExposed,
  writeEntries,
  writeInstallState,
} from "../mod.ts";
import {
  canPrompt,
  CliError,
  confirm,
  type Io,
  type OutputFormat,
  printResult,
  promptLine,
} from "../../cli/mod.ts";
import { deleteToken, mintToken, tokenWorks, withSession } from "./api.ts";

/** The entry's name in every host's config, and the tag of our backups. */
export const SERVER_NAME = "memsvc";
export const DEFAULT_URL = "http://127.0.0.1:7778";

/** The names the shared installer flags use here (internal/agenthosts/installer_flags.ts). */
export const INSTALLER = { tool: "memsvc", envPrefix: "MEMSVC" } as const;

export interface InstallOptions extends InstallChoices {
  url?: string;
  hosts?: AgentHost[];
}

/** How the entry's writes are named: our backups' tag, and the secret in permission warnings. */
const WRITE = { tag: SERVER_NAME, secret: "API token" } as const;

export async function runInstall(o: InstallOptions, io: Io): Promise<void> {
  const h = currentHostEnv();
  if (!isSupportedPlatform(h.platform)) throw new CliError("memsvc install supports macOS and Linux only");
  const statePath = installStatePath("memsvc", h);
  const state = await readInstallState(statePath);
  const baseUrl = o.url ?? state?.server ?? (canPrompt() && !o.yes ? await askBaseUrl() : DEFAULT_URL);
  if (state && state.server !== baseUrl) {
    throw new CliError(
      `memsvc is installed for ${state.server}; run 'memsvc uninstall' before switching to ${baseUrl}`,
    );
  }
  // Hosts wired before stay in the run.
  const targets = await selectTargets(HOSTS, h, o.hosts, (host) => state?.hosts[host.id] !== undefined);
  if (targets.length === 0) {
    throw new CliError("no agent host found on this machine ('memsvc detect' shows where memsvc looks)");
  }
  const command = stdioCommand(targets);

  // Every file is read and the edit computed before anything happens: one that does not parse stops
  // the install with nothing changed (no token minted either).
  let token = await recoverToken(state, baseUrl);
  const plan = await writeEntries(targets, memsvcServer(baseUrl, token ?? "<API_TOKEN>", command), {
    ...WRITE,
    dryRun: true,
    securePermissions: o.securePermissions,
  });
  const broken = plan.filter((p) => p.error);
  if (broken.length) {
    for (const p of broken) io.stderr.write(untouchedLine(p.target.host.id, p.error!));
    throw new CliError(`nothing changed: ${broken.length} host config(s) do not parse`);
  }
  if (o.dryRun) {
    for (const p of plan) warnExposed(io, p, WRITE.secret);
    printOutcomes(io, plan, o.output, baseUrl);
    io.stderr.write(`dry run: nothing changed${token ? "" : "; a new API token would be minted"}\n`);
    return;
  }

  if (!o.yes && !canPrompt()) throw new CliError("no terminal to confirm on: pass --yes", 2);
  if (token && !(await tokenWorks(baseUrl, token))) token = undefined;
  const credentials = token
    ? undefined
    : await getCredentials({ ...o, envPrefix: INSTALLER.envPrefix, env: process.env });
  if (!o.yes) {
    for (const p of plan) io.stderr.write(`  ${p.target.host.id}: ${p.result!.action} ${p.result!.path}\n`);
    const files = plan.length === 1 ? "this file" : `these ${plan.length} files`;
    if (!(await confirm(`Write the memsvc entry into ${files}?`))) {
      throw new CliError("cancelled");
    }
  }
  let tokenLabel = state?.tokenLabel;
  if (credentials) {
    const minted = await withSession(baseUrl, credentials, async (session) => {
      const fresh = await mintToken(
        baseUrl,
        session,
        `${hostname().slice(0, 60)} ${new Date().toISOString()}`,
      );
      // The recorded token could not be used (revoked, or no config holds it any more): retire it.
      if (state) await deleteToken(baseUrl, session, state.tokenHash);
      return fresh;
    });
    token = minted.token;
    tokenLabel = minted.label;
    io.stderr.write(`minted API token '${minted.label}'\n`);
  }

  const outcomes = await writeEntries(targets, memsvcServer(baseUrl, token!, command), {
    ...WRITE,
    dryRun: false,
    securePermissions: o.securePermissions,
  }, io);
  await recordState(statePath, state, { baseUrl, token: token!, tokenLabel, outcomes });
  printOutcomes(io, outcomes, o.output, baseUrl);
  const failed = outcomes.filter((p) => p.error).length;
  if (failed) throw new CliError(`${failed} host config(s) could not be written`);
}

async function askBaseUrl(): Promise<string> {
  return parseBaseUrl(await promptLine("memsvc server URL", DEFAULT_URL));
}

/** stdio entries run this very binary as `memsvc mcp`; from source there is no binary to point at. */
function stdioCommand(targets: Target[]): string {
  const needs = targets.filter((t) => transportsOf(t.host)[0] === "stdio").map((t) => t.host.name);
  if (needs.length && !memsvcExecutable()) {
    throw new CliError(
      `the stdio entry for ${
        needs.join(", ")
      } runs the memsvc binary: run the compiled memsvc, not the sources`,
    );
  }
  return memsvcExecutable() ?? "memsvc";
}

/** Absolute path of the running memsvc binary (process.execPath once compiled), or undefined from source. */
export function memsvcExecutable(): string | undefined {
  return ["deno", "bun", "node"].includes(basename(process.execPath)) ? undefined : process.execPath;
}

/** The entry's parameters: `<base>/mcp` with a bearer for HTTP hosts, `memsvc mcp` with env for stdio ones. */
export function memsvcServer(baseUrl: string, token: string, command: string): McpServer {
  return {
    name: SERVER_NAME,
    url: `${baseUrl}/mcp`,
    bearer: { token },
    stdio: { command, args: ["mcp"], env: { MEMSVC_BASE_URL: baseUrl, MEMSVC_TOKEN: token } },
  };
}

/** Records what was written; an install that changed nothing leaves the state file as it was. */
async function recordState(
  path: string,
  previous: InstallState | undefined,
  run: { baseUrl: string; token: string; tokenLabel?: string; outcomes: HostOutcome[] },
): Promise<void> {
  const now = new Date().toISOString();
  const { hosts } = recordHosts(previous?.hosts, run.outcomes, ({ result }) => ({
    path: result.path,
    transport: result.transport,
    entryHash: result.entryHash,
    installedAt: now,
  }));
  const state: InstallState = {
    version: 1,
    server: run.baseUrl,
    tokenHash: sha256(run.token),
    ...(run.tokenLabel && { tokenLabel: run.tokenLabel }),
    hosts,
  };
  if (JSON.stringify(state) !== JSON.stringify(previous)) await writeInstallState(path, state);
}

function printOutcomes(io: Io, outcomes: HostOutcome[], output: OutputFormat, server: string): void {
  const hosts = outcomeRows(outcomes, { action: "failed", withPath: false });
  printResult(io, { server, hosts }, output, {
    headers: ["host", "action", "transport", "path"],
    rows: (r) => r.hosts.map((x) => [x.host, x.action, x.transport, x.path ?? x.error]),
  });
}

/** The API token the configs already hold, picked out by the recorded hash (the plaintext is never stored). */
function recoverToken(state: InstallState | undefined, baseUrl: string): Promise<string | undefined> {
  if (!state || state.server !== baseUrl) return Promise.resolve(undefined);
  return recoverSecret(state.hosts, {
    findHost,
    serverName: SERVER_NAME,
    pattern: /nm_[A-Za-z0-9_-]+/g,
    sha256: state.tokenHash,
  });
}

// ---- parsing flags ----

export const parseBaseUrl = parseServerUrl;

export function parseHostIds(value: string): AgentHost[] {
  return parseIds(value, HOSTS);
}
