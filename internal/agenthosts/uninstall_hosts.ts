/**
 * Uninstall, the same for every installer (`memsvc uninstall`, `vault-init uninstall`): take out the
 * entries the state file records (uninstall_entry.ts decides per file: removed, restored, drifted,
 * absent, invalid), revoke the credential once no recorded config holds it any more, and keep the
 * state file for what is left. What is decided comes first, in a dry run of every removal: a wrong
 * password (signing in comes before any file changes) or `--dry-run` then changes nothing.
 *
 * A tool passes its names, its state file, how to sign in and revoke, and the words for its credential.
 */
import { CliError, type Io, type OutputFormat, printResult } from "../cli/mod.ts";
import { type Credentials, getCredentials } from "./credentials.ts";
import type { AgentHost } from "./hosts.ts";
import type { HostRecord } from "./install_state.ts";
import type { UninstallChoices } from "./installer_flags.ts";
import { removalLine, untouchedLine } from "./installer_report.ts";
import { removeStateFile, writeStateFile } from "./state_file.ts";
import { uninstallEntry, type UninstallResult } from "./uninstall_entry.ts";

/** What happens to the credential: revoked, already gone on the server, or kept (with --dry-run: would be). */
export type SecretOutcome = "revoked" | "gone" | "kept" | "would be revoked";

/** The part of every tool's state uninstall reads. */
export interface InstallerState {
  server: string;
  hosts: Record<string, HostRecord>;
}

export interface UninstallSpec<S extends InstallerState> {
  /** The binary, for "<tool> is not installed here". */
  tool: string;
  /** The tool's environment prefix, for `<PREFIX>_PASSWORD` (installer_flags.ts InstallerNames). */
  envPrefix: string;
  /** Why a named host is skipped: "<host>: <notRecorded>, skipped" ("not wired by vault-init"). */
  notRecorded: string;
  /** The entry's name in every host's config. */
  serverName: string;
  /** Names our backups. */
  tag: string;
  keepBackups?: number;
  findHost(id: string): AgentHost | undefined;
  /** The state file, and its reader (state_file.ts with the tool's schema). */
  statePath: string;
  readState(path: string): Promise<S | undefined>;
  /** The state as it is written back when hosts are left (e.g. with a new updatedAt). */
  stamp?(state: S): S;
  /** Runs before the password is asked for: e.g. that the server is the right kind. */
  beforeSignIn?(server: string): Promise<void>;
  /** Signs in, runs `fn` with the session, and signs out. */
  withSession<T>(server: string, credentials: Credentials, fn: (session: string) => Promise<T>): Promise<T>;
  /** Revokes the recorded credential; false when the server no longer has it. */
  revoke(state: S, session: string): Promise<boolean>;
  /** The stderr line about the credential once the entries are gone. */
  secretLine(state: S, outcome: Exclude<SecretOutcome, "would be revoked">, stillUsedBy: string[]): string;
  /** The last stderr line of a dry run. */
  dryRunLine(revoke: boolean): string;
  /** Fields printed before the hosts (`-o json|yaml`), e.g. the server and the credential. */
  summary?(state: S, outcome: SecretOutcome): Record<string, unknown>;
}

export interface UninstallOptions extends UninstallChoices {
  /** Parsed `--hosts`; undefined: every recorded host. */
  hosts?: AgentHost[];
}

export interface Removal extends UninstallResult {
  host: AgentHost;
}

const gone = (r: UninstallResult) =>
  r.action === "removed" || r.action === "restored" || r.action === "absent";

/** Runs uninstall as `spec` describes it; a CliError names the files left as they were. */
export async function uninstallHosts<S extends InstallerState>(
  spec: UninstallSpec<S>,
  flags: UninstallOptions,
  io: Io,
): Promise<void> {
  const state = await spec.readState(spec.statePath);
  if (!state) {
    io.stderr.write(`${spec.tool} is not installed here (no ${spec.statePath}); nothing to do\n`);
    return;
  }
  const recorded = Object.entries(state.hosts).flatMap(([id, record]) => {
    const host = spec.findHost(id);
    return host ? [{ host, record }] : [];
  });
  for (const host of flags.hosts ?? []) {
    if (!state.hosts[host.id]) io.stderr.write(`${host.id}: ${spec.notRecorded}, skipped\n`);
  }
  const selected = flags.hosts ? recorded.filter(({ host }) => flags.hosts!.includes(host)) : recorded;
  const remove = async (dryRun: boolean) => {
    const removals: Removal[] = [];
    for (const { host, record } of selected) {
      removals.push({ host, ...(await removeOne(spec, host, record, flags.force, dryRun)) });
    }
    return removals;
  };

  // Decided before anything changes: the credential is revoked only once no recorded config holds it.
  const plan = await remove(true);
  for (const r of plan) if (r.error) io.stderr.write(untouchedLine(r.host.id, r.error));
  const left = new Set(Object.keys(state.hosts));
  for (const r of plan) if (gone(r)) left.delete(r.host.id);
  const revoke = left.size === 0 && !flags.keepKey;
  if (flags.dryRun) {
    printRemovals(io, spec, plan, flags.output, state, revoke ? "would be revoked" : "kept");
    io.stderr.write(spec.dryRunLine(revoke));
    return;
  }

  const run = async (session?: string) => {
    const results = await remove(false);
    for (const r of results) {
      if (r.action !== "invalid") io.stderr.write(removalLine(r.host.id, r, spec.serverName));
      if (gone(r)) delete state.hosts[r.host.id];
    }
    let outcome: Exclude<SecretOutcome, "would be revoked"> = "kept";
    if (session) outcome = (await spec.revoke(state, session)) ? "revoked" : "gone";
    io.stderr.write(spec.secretLine(state, outcome, [...left]));
    if (Object.keys(state.hosts).length === 0) await removeStateFile(spec.statePath);
    else await writeStateFile(spec.statePath, spec.stamp ? spec.stamp(state) : state);
    return { results, outcome };
  };
  let done;
  if (revoke) {
    // Signed in before touching any file: a wrong password then changes nothing.
    await spec.beforeSignIn?.(state.server);
    const credentials = await getCredentials({
      email: flags.email,
      yes: flags.yes,
      passwordStdin: flags.passwordStdin,
      envPrefix: spec.envPrefix,
      env: process.env,
    });
    done = await spec.withSession(state.server, credentials, run);
  } else done = await run();
  printRemovals(io, spec, done.results, flags.output, state, done.outcome);
  const kept = done.results.filter((r) => !gone(r));
  if (kept.length) {
    throw new CliError(
      `${kept.length} host config(s) left as they were: ${kept.map((r) => r.path).join(", ")}`,
    );
  }
}

function removeOne<S extends InstallerState>(
  spec: UninstallSpec<S>,
  host: AgentHost,
  record: HostRecord,
  force: boolean,
  dryRun: boolean,
): Promise<UninstallResult> {
  return uninstallEntry(host, record, spec.serverName, {
    tag: spec.tag,
    keepBackups: spec.keepBackups,
    force,
    dryRun,
  });
}

function printRemovals<S extends InstallerState>(
  io: Io,
  spec: UninstallSpec<S>,
  removals: Removal[],
  output: OutputFormat,
  state: S,
  outcome: SecretOutcome,
): void {
  const hosts = removals.map((r) => ({
    host: r.host.id,
    name: r.host.name,
    action: r.action,
    path: r.path,
    ...(r.backup && { backup: r.backup }),
    ...(r.error && { error: r.error.message }),
  }));
  printResult(io, { ...spec.summary?.(state, outcome), hosts }, output, {
    headers: ["host", "action", "path"],
    rows: (r) => r.hosts.map((x) => [x.host, x.action, x.path]),
    empty: `No ${spec.serverName} entries to remove.`,
  });
}
