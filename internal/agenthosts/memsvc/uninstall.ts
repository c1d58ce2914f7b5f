/**
 * What `memsvc uninstall` does once its flags are parsed: remove the memsvc entries install wrote (an
 * entry edited since is not guessed at), and revoke the API token once no config holds it, signing in
 * first so that a wrong password changes nothing.
 */
import {
  type AgentHost,
  currentHostEnv,
  findHost,
  getCredentials,
  installStatePath,
  readInstallState,
  removalLine,
  removeInstallState,
  type UninstallChoices,
  uninstallEntry,
  type UninstallResult,
  untouchedLine,
  writeInstallState,
} from "../mod.ts";
import { CliError, type Io, type OutputFormat, printResult } from "../../cli/mod.ts";
import { deleteToken, withSession } from "./api.ts";
import { INSTALLER, SERVER_NAME } from "./install.ts";

export interface UninstallOptions extends UninstallChoices {
  /** Only these hosts; undefined: every host install wired. */
  hosts?: AgentHost[];
}

export async function runUninstall(o: UninstallOptions, io: Io): Promise<void> {
  const named = o.hosts;
  const h = currentHostEnv();
  const statePath = installStatePath("memsvc", h);
  const state = await readInstallState(statePath);
  if (!state) {
    io.stderr.write(`memsvc is not installed here (no ${statePath}); nothing to do\n`);
    return;
  }
  const recorded = Object.entries(state.hosts).flatMap(([id, record]) => {
    const host = findHost(id);
    return host ? [{ host, record }] : [];
  });
  const selected = named ? recorded.filter(({ host }) => named.includes(host)) : recorded;
  for (const host of named ?? []) {
    if (!state.hosts[host.id]) io.stderr.write(`${host.id}: not installed by memsvc install, skipped\n`);
  }

  const remove = (dryRun: boolean) =>
    Promise.all(selected.map(async ({ host, record }) => ({
      host,
      result: await uninstallEntry(host, record, SERVER_NAME, {
        tag: SERVER_NAME,
        force: o.force,
        dryRun,
      }),
    })));
  // Decided before anything changes: the token is revoked only once no recorded config holds it.
  const plan = await remove(true);
  for (const { host, result } of plan) {
    if (result.error) io.stderr.write(untouchedLine(host.id, result.error));
  }
  const left = new Set(recorded.map(({ host }) => host.id));
  for (const { host, result } of plan) if (gone(result)) left.delete(host.id);
  const revoke = left.size === 0 && !o.keepKey;

  if (o.dryRun) {
    printRemovals(io, plan, o.output);
    io.stderr.write(`dry run: nothing changed; the API token would be ${revoke ? "revoked" : "kept"}\n`);
    return;
  }
  const credentials = revoke
    ? await getCredentials({ ...o, envPrefix: INSTALLER.envPrefix, env: process.env })
    : undefined;
  const run = async (session?: string) => {
    const results = await remove(false);
    for (const { host, result } of results) {
      if (result.action !== "invalid") io.stderr.write(removalLine(host.id, result, SERVER_NAME));
      if (gone(result)) delete state.hosts[host.id];
    }
    if (session) {
      const deleted = await deleteToken(state.server, session, state.tokenHash);
      io.stderr.write(
        `API token ${state.tokenLabel ?? state.tokenHash} ${deleted ? "revoked" : "was already gone"}\n`,
      );
    } else {
      io.stderr.write(
        `API token ${state.tokenLabel ?? state.tokenHash} kept${
          left.size ? ` (still used by ${[...left].join(", ")})` : ""
        }\n`,
      );
    }
    if (Object.keys(state.hosts).length === 0) await removeInstallState(statePath);
    else await writeInstallState(statePath, state);
    return results;
  };
  // Sign in first: a wrong password then changes nothing.
  const results = credentials ? await withSession(state.server, credentials, run) : await run();
  printRemovals(io, results, o.output);
  const kept = results.filter(({ result }) => !gone(result));
  if (kept.length) {
    throw new CliError(
      `${kept.length} host config(s) left as they were: ${kept.map(({ result }) => result.path).join(", ")}`,
    );
  }
}

const gone = (r: UninstallResult) =>
  r.action === "removed" || r.action === "restored" || r.action === "absent";

function printRemovals(
  io: Io,
  results: { host: AgentHost; result: UninstallResult }[],
  output: OutputFormat,
): void {
  const hosts = results.map(({ host, result }) => ({
    host: host.id,
    name: host.name,
    action: result.action,
    path: result.path,
    ...(result.backup && { backup: result.backup }),
    ...(result.error && { error: result.error.message }),
  }));
  printResult(io, { hosts }, output, {
    headers: ["host", "action", "path"],
    rows: (r) => r.hosts.map((x) => [x.host, x.action, x.path]),
    empty: "No memsvc entries to remove.",
  });
}
