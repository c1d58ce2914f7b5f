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
  ConfigFileError,
  currentHostEnv,
  exposedWarning,
  findHost,
  getCredentials,
  type HostEnv,
  HOSTS,
  type InstallChoices,
  installEntry,
  type InstallResult,
  type InstallState,
  installStatePath,
  isSupportedPlatform,
  locateConfig,
  type LocatedConfig,
  type McpServer,
  readEntry,
  readInstallState,
  sha256,
  transportsOf,
  untouchedLine,
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

interface HostOutcome {
  host: AgentHost;
  result?: InstallResult;
  error?: ConfigFileError;
}

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
  const targets = await selectTargets(h, o.hosts, state);
  if (targets.length === 0) {
    throw new CliError("no agent host found on this machine ('memsvc detect' shows where memsvc looks)");
  }
  const command = stdioCommand(targets);

  // Every file is read and the edit computed before anything happens: one that does not parse stops
  // the install with nothing changed (no token minted either).
  let token = await recoverToken(state, baseUrl);
  const plan = await writeEntries(targets, memsvcServer(baseUrl, token ?? "<API_TOKEN>", command), {
    dryRun: true,
    securePermissions: o.securePermissions,
  });
  const broken = plan.filter((p) => p.error);
  if (broken.length) {
    for (const p of broken) io.stderr.write(untouchedLine(p.host.id, p.error!));
    throw new CliError(`nothing changed: ${broken.length} host config(s) do not parse`);
  }
  if (o.dryRun) {
    for (const p of plan) warnExposed(io, p);
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
    for (const p of plan) io.stderr.write(`  ${p.host.id}: ${p.result!.action} ${p.result!.path}\n`);
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

/** The named hosts (each must be installed), else every detected host; hosts wired before stay in. */
async function selectTargets(
  h: HostEnv,
  named: AgentHost[] | undefined,
  state: InstallState | undefined,
): Promise<{ host: AgentHost; location: LocatedConfig }[]> {
  const targets = [];
  for (const host of HOSTS) {
    const wanted = named ? named.includes(host) : true;
    if (!wanted && !state?.hosts[host.id]) continue;
    const location = await locateConfig(host, h);
    if (location) targets.push({ host, location });
    else if (named?.includes(host)) {
      const path = host.locations(h)[0]!;
      throw new CliError(`${host.name} is not installed: neither ${path.path} nor ${path.appDir} exists`);
    }
  }
  return targets;
}

/** stdio entries run this very binary as `memsvc mcp`; from source there is no binary to point at. */
function stdioCommand(targets: { host: AgentHost }[]): string {
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

async function writeEntries(
  targets: { host: AgentHost; location: LocatedConfig }[],
  server: McpServer,
  options: { dryRun: boolean; securePermissions: boolean },
  io?: Io,
): Promise<HostOutcome[]> {
  const outcomes: HostOutcome[] = [];
  for (const { host, location } of targets) {
    try {
      const result = await installEntry(host, location, server, { tag: SERVER_NAME, ...options });
      const outcome = { host, result };
      outcomes.push(outcome);
      if (io) {
        const backup = result.backup ? ` (backup ${result.backup})` : "";
        io.stderr.write(`${host.id}: ${result.action} ${result.path}${backup}\n`);
        warnExposed(io, outcome);
      }
    } catch (err) {
      const error = err instanceof ConfigFileError
        ? err
        : new ConfigFileError(location.path, (err as Error).message);
      outcomes.push({ host, error });
      io?.stderr.write(untouchedLine(host.id, error));
    }
  }
  return outcomes;
}

/** Warns when a file others can read holds (or in a dry run would hold) the token. */
function warnExposed(io: Io, outcome: HostOutcome): void {
  const warning = outcome.result && exposedWarning(outcome.host.id, outcome.result, "API token");
  if (warning) io.stderr.write(warning);
}

/** Records what was written; an install that changed nothing leaves the state file as it was. */
async function recordState(
  path: string,
  previous: InstallState | undefined,
  run: { baseUrl: string; token: string; tokenLabel?: string; outcomes: HostOutcome[] },
): Promise<void> {
  const now = new Date().toISOString();
  const state: InstallState = {
    version: 1,
    server: run.baseUrl,
    tokenHash: sha256(run.token),
    ...(run.tokenLabel && { tokenLabel: run.tokenLabel }),
    hosts: { ...previous?.hosts },
  };
  for (const { host, result } of run.outcomes) {
    if (!result) continue;
    const recorded = state.hosts[host.id];
    if (recorded?.entryHash === result.entryHash && recorded.path === result.path) continue;
    state.hosts[host.id] = {
      path: result.path,
      transport: result.transport,
      entryHash: result.entryHash,
      installedAt: now,
    };
  }
  if (JSON.stringify(state) !== JSON.stringify(previous)) await writeInstallState(path, state);
}

function printOutcomes(io: Io, outcomes: HostOutcome[], output: OutputFormat, server: string): void {
  const hosts = outcomes.map(({ host, result, error }) => ({
    host: host.id,
    name: host.name,
    action: result?.action ?? "failed",
    transport: result?.transport,
    path: result?.path,
    ...(result?.backup && { backup: result.backup }),
    ...(error && { error: error.message }),
  }));
  printResult(io, { server, hosts }, output, {
    headers: ["host", "action", "transport", "path"],
    rows: (r) => r.hosts.map((x) => [x.host, x.action, x.transport, x.path ?? x.error]),
  });
}

/**
 * The API token the configs already hold: the recorded hash identifies it among the entries we
 * wrote, so a second install reuses it instead of minting another (the plaintext is never stored).
 */
async function recoverToken(state: InstallState | undefined, baseUrl: string): Promise<string | undefined> {
  if (!state || state.server !== baseUrl) return undefined;
  for (const [id, recorded] of Object.entries(state.hosts)) {
    const host = findHost(id);
    if (!host) continue;
    const entry = await readEntry(host, recorded.path, SERVER_NAME).then((r) => r.entry, () => undefined);
    const candidates = JSON.stringify(entry ?? null).match(/nm_[A-Za-z0-9_-]+/g) ?? [];
    const token = candidates.find((t) => sha256(t) === state.tokenHash);
    if (token) return token;
  }
  return undefined;
}

// ---- parsing flags ----

export function parseBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(`invalid --url '${value}': not a URL`, 2);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new CliError(`invalid --url '${value}': use http:// or https://`, 2);
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

export function parseHostIds(value: string): AgentHost[] {
  return value.split(",").map((s) => s.trim()).filter(Boolean).map((id) => {
    const host = findHost(id);
    if (!host) throw new CliError(`unknown host '${id}' (known: ${HOSTS.map((h) => h.id).join(", ")})`, 2);
    return host;
  });
}
