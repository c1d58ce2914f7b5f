/**
 * What `vault-init uninstall` does once its flags are parsed: remove exactly the 'vault' entries
 * install wrote (an entry edited since is not guessed at), and revoke the API key once no config holds
 * it, signing in first so that a wrong password changes nothing.
 */
import {
  currentHostEnv,
  getCredentials,
  removalLine,
  type UninstallAction,
  type UninstallChoices,
  uninstallEntry,
  type UninstallResult,
  untouchedLine,
} from "../mod.ts";
import { CliError, type Io, type OutputFormat, printResult } from "../../cli/mod.ts";
import { INSTALLER, requireSupportedPlatform } from "./install.ts";
import { readState, removeState, type State, statePath, writeState } from "./state.ts";
import { findVaultHost, KEEP_BACKUPS, SERVER_NAME, TAG, type VaultHost } from "./hosts.ts";
import { requireVault, revokeKey, withSession } from "./api.ts";

interface Removal extends UninstallResult {
  v: VaultHost;
}

export interface UninstallOptions extends UninstallChoices {
  /** Only these hosts; undefined: every host install wired. */
  hosts?: VaultHost[];
}

export async function runUninstall(o: UninstallOptions, io: Io): Promise<void> {
  const named = o.hosts;
  const h = currentHostEnv();
  requireSupportedPlatform(h, "uninstall");
  const path = statePath(h);
  const state = await readState(path);
  if (!state) {
    io.stderr.write(`vault-init is not installed here (no ${path}); nothing to do\n`);
    return;
  }
  const recorded = Object.entries(state.hosts).flatMap(([id, record]) => {
    const v = findVaultHost(id);
    return v ? [{ v, record }] : [];
  });
  for (const v of named ?? []) {
    if (!state.hosts[v.host.id]) io.stderr.write(`${v.host.id}: not wired by vault-init, skipped\n`);
  }
  const selected = named ? recorded.filter(({ v }) => named.includes(v)) : recorded;
  const force = o.force;

  // Decided before anything changes: the key is revoked only once no recorded config holds it.
  const plan = await Promise.all(selected.map(({ v, record }) => removeOne(v, record, force, true)));
  for (const r of plan) if (r.error) io.stderr.write(untouchedLine(r.v.host.id, r.error));
  const left = new Set(Object.keys(state.hosts));
  for (const r of plan) if (gone(r.action)) left.delete(r.v.host.id);
  const revoke = left.size === 0 && !o.keepKey;
  if (o.dryRun) {
    printRemovals(io, plan, o.output, state, revoke ? "would be revoked" : "kept");
    io.stderr.write("dry run: nothing changed\n");
    return;
  }

  const run = async (cookie?: string) => {
    const results = [];
    for (const { v, record } of selected) {
      const r = await removeOne(v, record, force, false);
      results.push(r);
      if (r.action !== "invalid") io.stderr.write(removalLine(v.host.id, r, SERVER_NAME));
      if (gone(r.action)) delete state.hosts[v.host.id];
    }
    let key = "kept";
    if (cookie) {
      key = (await revokeKey(state.server, cookie, state.apiKey.id)) ? "revoked" : "already gone";
    }
    io.stderr.write(
      `API key ${state.apiKey.name} (${state.apiKey.prefix}…) ${key}${
        left.size ? ` (still used by ${[...left].join(", ")})` : ""
      }\n`,
    );
    if (Object.keys(state.hosts).length === 0) await removeState(path);
    else await writeState(path, { ...state, updatedAt: new Date().toISOString() });
    return { results, key };
  };
  let outcome;
  if (revoke) {
    // Sign in before touching any file: a wrong password then changes nothing.
    await requireVault(state.server);
    const credentials = await getCredentials({ ...o, envPrefix: INSTALLER.envPrefix, env: process.env });
    outcome = await withSession(state.server, credentials, run);
  } else outcome = await run();
  printRemovals(io, outcome.results, o.output, state, outcome.key);
  const invalid = outcome.results.filter((r) => r.action === "invalid" || r.action === "drifted");
  if (invalid.length) {
    throw new CliError(
      `${invalid.length} host config(s) left as they were: ${invalid.map((r) => r.path).join(", ")}`,
    );
  }
}

const gone = (action: UninstallAction) =>
  action === "removed" || action === "restored" || action === "absent";

function removeOne(
  v: VaultHost,
  record: { path: string; entryHash: string },
  force: boolean,
  dryRun: boolean,
): Promise<Removal> {
  return uninstallEntry(v.host, record, SERVER_NAME, { tag: TAG, keepBackups: KEEP_BACKUPS, force, dryRun })
    .then((r) => ({ v, ...r }));
}

function printRemovals(
  io: Io,
  results: Removal[],
  output: OutputFormat,
  state: State,
  key: string,
): void {
  const hosts = results.map((r) => ({
    host: r.v.host.id,
    name: r.v.host.name,
    action: r.action,
    path: r.path,
    ...(r.backup && { backup: r.backup }),
    ...(r.error && { error: r.error.message }),
  }));
  const apiKey = { id: state.apiKey.id, prefix: state.apiKey.prefix, name: state.apiKey.name, status: key };
  printResult(io, { server: state.server, apiKey, hosts }, output, {
    headers: ["host", "action", "path"],
    rows: (r) => r.hosts.map((x) => [x.host, x.action, x.path]),
    empty: "No vault entries to remove.",
  });
}
