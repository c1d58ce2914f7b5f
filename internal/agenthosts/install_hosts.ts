/**
 * The steps of an install over a machine's agent hosts, shared by every installer (`memsvc install`,
 * `vault-init install`): which hosts to write, the planned or real write of each (a file that cannot
 * be written is reported and left untouched, never half-written), the records of what was written,
 * and the secret the configs already hold. Each tool's command strings them together with its own
 * policy (what a broken file stops, when to ask) and its own server calls.
 *
 * @example
 * const targets = await selectTargets(HOSTS, h, named);
 * const plan = await writeEntries(targets, server, { tag: "memsvc", dryRun: true, secret: "API token" });
 * const outcomes = await writeEntries(targets, server, { tag: "memsvc", dryRun: false, secret: "API token" }, io);
 * const { hosts, changed } = recordHosts(state?.hosts, outcomes, (o, now) => ({ ...baseRecord(o, now) }));
 */
import { CliError, type Io } from "../cli/mod.ts";
import { ConfigFileError, readConfigText } from "./config_file.ts";
import type { HostEnv } from "./host_paths.ts";
import type { AgentHost, McpServer, Transport } from "./hosts.ts";
import { installEntry, type InstallResult } from "./install_entry.ts";
import type { HostRecord } from "./install_state.ts";
import { exposedWarning, untouchedLine } from "./installer_report.ts";
import { locateConfig, type LocatedConfig } from "./locate_config.ts";
import { readEntry } from "./read_entry.ts";
import { sha256 } from "./state_file.ts";

/** A host to write to, where its config is, and (when the tool decides it) the transport it gets. */
export interface Target {
  host: AgentHost;
  location: LocatedConfig;
  transport?: Transport;
}

/**
 * The named hosts (each must be installed, else a CliError naming where it was looked for), else
 * every detected one of `hosts`; `wiredBefore` keeps hosts an earlier install wrote to in the run.
 */
export async function selectTargets(
  hosts: readonly AgentHost[],
  h: HostEnv,
  named: readonly AgentHost[] | undefined,
  wiredBefore: (host: AgentHost) => boolean = () => false,
): Promise<Target[]> {
  const targets: Target[] = [];
  for (const host of hosts) {
    const wanted = named ? named.includes(host) : true;
    if (!wanted && !wiredBefore(host)) continue;
    const location = await locateConfig(host, h);
    if (location) targets.push({ host, location });
    else if (named?.includes(host)) {
      const where = host.locations(h)[0]!;
      throw new CliError(`${host.name} is not installed: neither ${where.path} nor ${where.appDir} exists`);
    }
  }
  return targets;
}

/** What happened to one target's file. */
export interface HostOutcome<T extends Target = Target> {
  target: T;
  result?: InstallResult;
  /** The file was left untouched: it does not parse, or could not be written. */
  error?: ConfigFileError;
  /** With `recordPreHash`: `sha256:<hex>` of the file before this write; null when there was none. */
  preHash?: string | null;
}

export interface WriteEntriesOptions {
  /** Names our backups (`<file>.<tag>-backup-<time>`). */
  tag: string;
  keepBackups?: number;
  dryRun: boolean;
  securePermissions: boolean;
  /** What the entry's secret is called in the warning about a file others can read ("API key"). */
  secret: string;
  /** Hash each file before writing (HostOutcome.preHash). */
  recordPreHash?: boolean;
}

/**
 * Adds `server`'s entry to each target's config (or, in a dry run, works out what would change).
 * Every file is tried: one that fails is an outcome with its error, not an exception. With `io`,
 * each file's result is reported on stderr as it is written.
 */
export async function writeEntries<T extends Target>(
  targets: readonly T[],
  server: McpServer,
  options: WriteEntriesOptions,
  io?: Io,
): Promise<HostOutcome<T>[]> {
  const outcomes: HostOutcome<T>[] = [];
  for (const target of targets) {
    const { host, location } = target;
    try {
      const before = options.recordPreHash ? await readConfigText(location.path) : undefined;
      const result = await installEntry(host, location, server, {
        tag: options.tag,
        transport: target.transport,
        keepBackups: options.keepBackups,
        dryRun: options.dryRun,
        securePermissions: options.securePermissions,
      });
      const outcome: HostOutcome<T> = {
        target,
        result,
        ...(options.recordPreHash && { preHash: before === undefined ? null : `sha256:${sha256(before)}` }),
      };
      outcomes.push(outcome);
      if (io) {
        const backup = result.backup ? ` (backup ${result.backup})` : "";
        io.stderr.write(`${host.id}: ${result.action} ${result.path}${backup}\n`);
        warnExposed(io, outcome, options.secret);
      }
    } catch (err) {
      const error = err instanceof ConfigFileError
        ? err
        : new ConfigFileError(location.path, (err as Error).message);
      outcomes.push({ target, error });
      io?.stderr.write(untouchedLine(host.id, error));
    }
  }
  return outcomes;
}

/** Warns when a file others can read holds (or in a dry run would hold) the secret. */
export function warnExposed(io: Io, outcome: HostOutcome, secret: string): void {
  const warning = outcome.result && exposedWarning(outcome.target.host.id, outcome.result, secret);
  if (warning) io.stderr.write(warning);
}

/**
 * The host records after a run: a host whose entry was written anew (another hash, or another file)
 * gets the record `make` builds; the others keep theirs. `changed` says whether any record did.
 */
export function recordHosts<R extends HostRecord, T extends Target>(
  previous: Record<string, R> | undefined,
  outcomes: readonly HostOutcome<T>[],
  make: (outcome: HostOutcome<T> & { result: InstallResult }, recorded: R | undefined) => R,
): { hosts: Record<string, R>; changed: boolean } {
  const hosts = { ...previous };
  let changed = false;
  for (const outcome of outcomes) {
    const { result } = outcome;
    if (!result) continue;
    const id = outcome.target.host.id;
    const recorded = hosts[id];
    if (recorded?.entryHash === result.entryHash && recorded.path === result.path) continue;
    changed = true;
    hosts[id] = make({ ...outcome, result }, recorded);
  }
  return { hosts, changed };
}

/**
 * The secret the configs already hold: the recorded SHA-256 picks it out of the entries we wrote,
 * so a second install reuses it instead of minting another (the plaintext is never stored).
 */
export async function recoverSecret(
  recorded: Record<string, { path: string }>,
  options: {
    findHost(id: string): AgentHost | undefined;
    /** The entry's name in every config. */
    serverName: string;
    /** What the secret looks like, e.g. /nm_[A-Za-z0-9_-]+/g. */
    pattern: RegExp;
    sha256: string;
  },
): Promise<string | undefined> {
  for (const [id, record] of Object.entries(recorded)) {
    const host = options.findHost(id);
    if (!host) continue;
    const entry = await readEntry(host, record.path, options.serverName).then(
      (r) => r.entry,
      () => undefined,
    );
    const candidates = JSON.stringify(entry ?? null).match(options.pattern) ?? [];
    const secret = candidates.find((s) => sha256(s) === options.sha256);
    if (secret) return secret;
  }
  return undefined;
}

/**
 * One row per host of an install's result, for `-o json|yaml` and the table. `untouched` says how a
 * host whose file was left untouched shows: its action ("failed", "invalid"), and whether its path does.
 */
export function outcomeRows(
  outcomes: readonly HostOutcome[],
  untouched: { action: string; withPath: boolean },
) {
  return outcomes.map(({ target, result, error }) => ({
    host: target.host.id,
    name: target.host.name,
    action: result?.action ?? untouched.action,
    transport: result?.transport ?? target.transport,
    path: result?.path ?? (untouched.withPath ? target.location.path : undefined),
    ...(result?.backup && { backup: result.backup }),
    ...(error && { error: error.message }),
  }));
}
