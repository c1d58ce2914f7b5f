import { type Command, Option } from "@commander-js/extra-typings";
import { createHash } from "node:crypto";
import { hostname } from "node:os";
import { basename } from "node:path";
import {
  type AgentHost,
  ConfigFileError,
  type Credentials,
  currentHostEnv,
  exposedWarning,
  findHost,
  getCredentials,
  type HostEnv,
  HOSTS,
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
  transportsOf,
  untouchedLine,
  withInstallFlags,
  writeInstallState,
} from "../../internal/agenthosts/mod.ts";
import {
  addExamples,
  canPrompt,
  CliError,
  confirm,
  type Io,
  type OutputFormat,
  printResult,
  promptLine,
} from "../../internal/cli/mod.ts";

/** The entry's name in every host's config, and the tag of our backups. */
export const SERVER_NAME = "memsvc";
export const DEFAULT_URL = "http://127.0.0.1:7778";

/** `memsvc install`: sign in, mint an API token and add a memsvc entry to each agent host's MCP config. */
export function registerInstall(program: Command, io: Io): void {
  const command = program
    .command("install")
    .summary("Wire this machine's AI agent hosts to a memsvc server")
    .description(
      "Connect the AI agent hosts on this machine (Claude Code, Cursor, VS Code, Codex, ...) to a memsvc " +
        "server. Signs in, mints an API token labelled '<hostname> <time>', signs out, and adds a memsvc " +
        "entry to each detected host's MCP config: the HTTP form (<server>/mcp with the token in an " +
        "Authorization header) where the host accepts remote servers, else a stdio entry that runs this " +
        "binary as `memsvc mcp`. Only that entry is touched; each changed file is backed up first. What " +
        "was written is recorded in ~/.config/memsvc/install.json (token hash only). Running it again " +
        "reuses the token and changes nothing that is already right. The flags are vault-init's.",
    );
  const install = withInstallFlags(command, {
    ...INSTALLER,
    serverEnv: "MEMSVC_BASE_URL",
    serverHelp: `memsvc server URL (default ${DEFAULT_URL})`,
  })
    .addOption(urlAlias())
    .action(async (flags) => {
      const server = flags.server ?? flags.url;
      const options = {
        url: server === undefined ? undefined : parseBaseUrl(server),
        hosts: flags.hosts === undefined ? undefined : parseHostIds(flags.hosts),
        email: flags.email,
        passwordStdin: flags.passwordStdin === true,
        dryRun: flags.dryRun === true,
        yes: flags.yes === true,
        securePermissions: flags.securePermissions === true,
        output: flags.output,
      };
      await runInstall(options, io);
    });
  addExamples(install, [
    "# Ask for the server, email and password, then wire every detected host\nmemsvc install",
    "# Unattended: password from a secret store, only Claude Code and Cursor\n" +
    "pass show memsvc | memsvc install --server https://mem.example.com --email ada@example.com \\\n" +
    "  --password-stdin --hosts claude-code,cursor --yes",
    "# See what would change\nmemsvc install --dry-run",
  ]);
}

/** The names the shared installer flags use here (internal/agenthosts/installer_flags.ts). */
export const INSTALLER = { tool: "memsvc", envPrefix: "MEMSVC" } as const;

/** `--url`, the older spelling of `--server`: still accepted, no longer shown. */
export function urlAlias() {
  return new Option("--url <base>", "the older spelling of --server").hideHelp();
}

interface InstallOptions {
  url?: string;
  hosts?: AgentHost[];
  email?: string;
  passwordStdin: boolean;
  dryRun: boolean;
  yes: boolean;
  securePermissions: boolean;
  output: OutputFormat;
}

interface HostOutcome {
  host: AgentHost;
  result?: InstallResult;
  error?: ConfigFileError;
}

async function runInstall(o: InstallOptions, io: Io): Promise<void> {
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

export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
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

// ---- credentials and the memsvc API ----

interface Reply {
  status: number;
  // deno-lint-ignore no-explicit-any
  body: any;
}

async function call(
  baseUrl: string,
  method: string,
  path: string,
  bearer?: string,
  body?: unknown,
): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  let res: Response;
  try {
    res = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
  } catch (err) {
    throw new CliError(`cannot reach memsvc at ${baseUrl}: ${(err as Error).message}`);
  }
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text for the error message
  }
  return { status: res.status, body: parsed };
}

function failure(what: string, reply: Reply): CliError {
  const detail = reply.body?.error ?? reply.body?.message ?? `HTTP ${reply.status}`;
  return new CliError(`${what}: ${detail}`);
}

/** Signs in, runs `fn` with the session token (sent as `Bearer ns_<token>`), and always signs out. */
export async function withSession<T>(
  baseUrl: string,
  credentials: Credentials,
  fn: (session: string) => Promise<T>,
): Promise<T> {
  const reply = await call(baseUrl, "POST", "/api/auth/sign-in/email", undefined, credentials);
  if (reply.status === 401) throw new CliError(`sign-in to ${baseUrl} failed: wrong email or password`);
  if (reply.status !== 200 || typeof reply.body?.token !== "string") throw failure("sign-in failed", reply);
  const session = `ns_${reply.body.token}`;
  try {
    return await fn(session);
  } finally {
    // Best effort: the session expires on its own, and a failed sign-out must not hide the result.
    await call(baseUrl, "POST", "/api/auth/sign-out", session, {}).catch(() => undefined);
  }
}

async function mintToken(
  baseUrl: string,
  session: string,
  label: string,
): Promise<{ token: string; tokenHash: string; label: string }> {
  const reply = await call(baseUrl, "POST", "/v1/me/tokens", session, { label });
  if (reply.status !== 201) throw failure("minting an API token failed", reply);
  return reply.body;
}

/** Deletes one of the user's tokens by hash; false when the server has no such token (already gone). */
export async function deleteToken(baseUrl: string, session: string, tokenHash: string): Promise<boolean> {
  const reply = await call(baseUrl, "DELETE", `/v1/me/tokens/${tokenHash}`, session);
  if (reply.status === 404) return false;
  if (reply.status !== 200) throw failure("revoking the API token failed", reply);
  return true;
}

/** Whether the token is still accepted (not revoked, its user not banned). */
async function tokenWorks(baseUrl: string, token: string): Promise<boolean> {
  const reply = await call(baseUrl, "GET", "/v1/recent?limit=1", token);
  if (reply.status === 401) return false;
  if (reply.status !== 200) throw failure("checking the recorded API token failed", reply);
  return true;
}

/** GET /health: whether the server answers `{ok: true}`, or why not. */
export async function checkHealth(baseUrl: string): Promise<{ ok: boolean; error?: string }> {
  try {
    const reply = await call(baseUrl, "GET", "/health");
    return reply.status === 200 && reply.body?.ok === true
      ? { ok: true }
      : { ok: false, error: `HTTP ${reply.status}` };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}
