/**
 * What `vault-init install` does once its flags are parsed: sign in, mint an API key (or reuse the one
 * the configs already hold), and write the 'vault' entry into each agent host's config, recording what
 * was written in the state file. Every file is read and its edit computed first; one that does not
 * parse is reported and left out.
 */
import { hostname } from "node:os";
import {
  currentHostEnv,
  getCredentials,
  type HostEnv,
  type HostOutcome,
  type InstallChoices,
  isSupportedPlatform,
  outcomeRows,
  recordHosts,
  recoverSecret,
  selectTargets,
  type Target,
  untouchedLine,
  warnExposed,
  writeEntries,
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
import { type HostRecord, readState, sha256, type State, statePath, writeState } from "./state.ts";
import {
  findVaultHost,
  HOST_LIST_VERSION,
  KEEP_BACKUPS,
  parseServerUrl,
  SERVER_NAME,
  TAG,
  transportFor,
  VAULT_HOSTS,
  type VaultHost,
  vaultServer,
} from "./hosts.ts";
import { keyWorks, type MintedKey, mintKey, requireVault, revokeKey, withSession } from "./api.ts";

/** The names the shared installer flags use here. */
export const INSTALLER = { tool: "vault-init", envPrefix: "VAULT" } as const;

/** Stands in for the key in a dry run, before one is minted. */
const PLACEHOLDER = "<API_KEY>";

/** Refuses Windows (and anything else without known host paths) before any I/O. */
export function requireSupportedPlatform(h: HostEnv, command: string): void {
  if (!isSupportedPlatform(h.platform)) {
    throw new CliError(
      `vault-init ${command} supports macOS and Linux only (this is ${h.platform}); on Windows, paste the ` +
        "snippet from 'vault-init mcp' into your host's config by hand",
    );
  }
}

export function hostIds(): string {
  return VAULT_HOSTS.map((v) => v.host.id).join(", ");
}

export interface InstallOptions extends InstallChoices {
  server?: string;
  hosts?: VaultHost[];
  shim?: string;
}

type Outcome = HostOutcome<Target & { transport: NonNullable<Target["transport"]> }>;

/** How the entry's writes are named: our backups, how many are kept, the secret in permission warnings. */
const WRITE = { tag: TAG, keepBackups: KEEP_BACKUPS, secret: "API key", recordPreHash: true } as const;

export async function runInstall(o: InstallOptions, io: Io): Promise<void> {
  const h = currentHostEnv();
  requireSupportedPlatform(h, "install");
  if (o.shim !== undefined && !o.shim.startsWith("/")) {
    throw new CliError("--shim must be an absolute path", 2);
  }
  const path = statePath(h);
  const state = await readState(path);
  const server = o.server ?? state?.server ?? await askServer(o);
  if (state && state.server !== server) {
    throw new CliError(
      `vault-init is installed for ${state.server}; run 'vault-init uninstall' before switching to ${server}`,
    );
  }
  const targets = await selectVaultTargets(h, o.hosts);
  if (targets.length === 0) {
    throw new CliError(`no agent host found on this machine ('vault-init detect' shows where it looks)`);
  }

  // Every file is read and its edit computed first: one that does not parse is reported and skipped.
  let key = await recoverKey(state);
  const plan = await writeEntries(targets, vaultServer(server, key ?? PLACEHOLDER, o.shim), {
    ...WRITE,
    dryRun: true,
    securePermissions: o.securePermissions,
  });
  const writable = plan.filter((p) => !p.error);
  for (const p of plan) if (p.error) io.stderr.write(untouchedLine(p.target.host.id, p.error));
  if (o.dryRun) {
    for (const p of writable) warnExposed(io, p, WRITE.secret);
    printOutcomes(io, plan, o.output, server, state);
    io.stderr.write(`dry run: nothing changed${key ? "" : "; an API key would be minted"}\n`);
    return finish(plan);
  }
  if (writable.length === 0) return finish(plan);

  await requireVault(server);
  if (key && !(await keyWorks(server, key))) {
    io.stderr.write(
      `the recorded API key ${state!.apiKey.prefix}… is no longer accepted: minting a new one\n`,
    );
    key = undefined;
  }
  const needsWrite = !key || writable.some((p) => p.result!.action !== "unchanged");
  if (needsWrite && !o.yes) {
    if (!canPrompt()) throw new CliError("no terminal to confirm on: pass --yes", 2);
    for (const p of writable) {
      io.stderr.write(`  ${p.target.host.id}: ${p.result!.action} ${p.result!.path}\n`);
    }
    if (!(await confirm(`Write the vault entry into ${writable.length} file(s)?`))) {
      throw new CliError("cancelled");
    }
  }
  let minted: MintedKey | undefined;
  if (!key) {
    const credentials = await getCredentials({ ...o, envPrefix: INSTALLER.envPrefix, env: process.env });
    minted = await withSession(server, credentials, async (cookie) => {
      const fresh = await mintKey(server, cookie, keyName());
      // The recorded key cannot be used any more (revoked, or no config holds it): retire it.
      if (state) await revokeKey(server, cookie, state.apiKey.id);
      return fresh;
    });
    key = minted.key;
    io.stderr.write(`minted API key '${minted.name}' (${minted.prefix}…)\n`);
  }

  const outcomes = await writeEntries(
    writable.map((p) => p.target),
    vaultServer(server, key, o.shim),
    { ...WRITE, dryRun: false, securePermissions: o.securePermissions },
    io,
  );
  const all = [...plan.filter((p) => p.error), ...outcomes];
  await recordState(path, state, server, key, minted, all);
  printOutcomes(io, all, o.output, server, await readState(path));
  return finish(all);
}

/** Exit 1 naming the files left untouched (each was reported with its reason), after everything else. */
function finish(outcomes: Outcome[]): void {
  const failed = outcomes.filter((p) => p.error);
  if (failed.length === 0) return;
  throw new CliError(
    `${failed.length} host config(s) left untouched (${
      failed.map((p) => p.target.location.path).join(", ")
    }): ` +
      "fix them and run again, or leave their hosts out with --hosts",
  );
}

async function askServer(o: InstallOptions): Promise<string> {
  if (o.yes || !canPrompt()) {
    throw new CliError("no vault server given: pass --server or set VAULT_SERVER", 2);
  }
  const answer = await promptLine("Vault server URL (e.g. https://vault.example.com)");
  if (!answer) throw new CliError("no vault server given", 2);
  return parseServerUrl(answer);
}

/** `vault-init-<hostname>-<timestamp>`, as the contract names installer keys. */
function keyName(): string {
  const host = hostname().replace(/[^A-Za-z0-9.-]/g, "-").slice(0, 100) || "unknown";
  return `vault-init-${host}-${new Date().toISOString().replace(/\.\d+Z$/, "Z")}`;
}

/** The named hosts (each must be installed), else every detected one, each with its transport. */
async function selectVaultTargets(h: HostEnv, named: VaultHost[] | undefined) {
  const hosts = VAULT_HOSTS.map((v) => v.host);
  const targets = await selectTargets(hosts, h, named?.map((v) => v.host));
  return await Promise.all(
    targets.map(async (t) => ({ ...t, transport: await transportFor(findVaultHost(t.host.id)!) })),
  );
}

/** Records the key (id, prefix, hash) and each host; a run that changed nothing leaves the file alone. */
async function recordState(
  path: string,
  previous: State | undefined,
  server: string,
  key: string,
  minted: MintedKey | undefined,
  outcomes: Outcome[],
): Promise<void> {
  const now = new Date().toISOString();
  const apiKey = minted
    ? { id: minted.id, prefix: minted.prefix, name: minted.name, sha256: sha256(key) }
    : previous!.apiKey;
  const { hosts, changed } = recordHosts<HostRecord, Outcome["target"]>(
    previous?.hosts,
    outcomes,
    ({ result, preHash }, recorded) => ({
      path: result.path,
      transport: result.transport,
      // The file as it was before vault-init first touched it.
      preHash: recorded?.path === result.path ? recorded.preHash : preHash ?? null,
      entryHash: result.entryHash,
      installedAt: now,
    }),
  );
  if (previous && minted === undefined && !changed) return;
  await writeState(path, {
    version: 1,
    hostList: HOST_LIST_VERSION,
    server,
    apiKey,
    hosts,
    installedAt: previous?.installedAt ?? now,
    updatedAt: now,
  });
}

function printOutcomes(
  io: Io,
  outcomes: Outcome[],
  output: OutputFormat,
  server: string,
  state?: State,
): void {
  const hosts = outcomeRows(outcomes, { action: "invalid", withPath: true });
  const apiKey = state && { id: state.apiKey.id, prefix: state.apiKey.prefix, name: state.apiKey.name };
  printResult(io, { server, ...(apiKey && { apiKey }), hosts }, output, {
    headers: ["host", "action", "transport", "path"],
    rows: (r) => r.hosts.map((x) => [x.host, x.action, x.transport, x.path]),
  });
}

/**
 * The API key the configs already hold: the recorded SHA-256 picks it out of the entries we wrote,
 * so a second run reuses it instead of minting another, and the key is never stored in plain text.
 */
export function recoverKey(state: State | undefined): Promise<string | undefined> {
  if (!state) return Promise.resolve(undefined);
  return recoverSecret(state.hosts, {
    findHost: (id) => findVaultHost(id)?.host,
    serverName: SERVER_NAME,
    pattern: /vault_[A-Za-z0-9_-]+/g,
    sha256: state.apiKey.sha256,
  });
}
