import type { Command } from "@commander-js/extra-typings";
import {
  backupConfig,
  ConfigFileError,
  currentHostEnv,
  entryHash,
  listBackups,
  readConfigText,
  readEntry,
  removeEntry,
  writeConfigText,
} from "../../internal/agenthosts/mod.ts";
import { addExamples, CliError, type Io, outputOption, printResult } from "../../internal/cli/mod.ts";
import { getCredentials } from "./credentials.ts";
import { requireSupportedPlatform } from "./install.ts";
import { type HostRecord, readState, removeState, type State, statePath, writeState } from "./state.ts";
import {
  findVaultHost,
  KEEP_BACKUPS,
  parseHostIds,
  SERVER_NAME,
  TAG,
  type VaultHost,
} from "./vault_hosts.ts";
import { requireVault, revokeKey, withSession } from "./vault_api.ts";

/**
 * - removed: our entry, unchanged since install, was taken out and nothing else changed;
 * - restored: our entry was hand-edited since install, so the newest backup without a vault entry was
 *   put back (the edited file is backed up first);
 * - drifted: hand-edited, and no such backup: left alone (--force removes the entry anyway);
 * - absent: the entry is gone already;
 * - invalid: the file does not parse: left untouched.
 */
type Action = "removed" | "restored" | "drifted" | "absent" | "invalid";

interface Removal {
  v: VaultHost;
  path: string;
  action: Action;
  /** For restored: the backup put back; for removed: the copy made before the edit. */
  backup?: string;
  error?: string;
}

/** `vault-init uninstall`. */
export function registerUninstall(program: Command, io: Io): void {
  const uninstall = program
    .command("uninstall")
    .summary("Remove the vault entries vault-init wrote and revoke its API key")
    .description(
      "Remove exactly the 'vault' entries that vault-init install wrote. An entry still as written (its " +
        "canonical SHA-256 matches the recorded one) is removed and the rest of the file is left as it is, " +
        "whatever the host did to it since. An entry that was edited by hand is not guessed at: the newest " +
        "vault-init backup of that file without a vault entry is restored (the edited file is backed up " +
        "first); with no such backup it is left alone unless --force. A file that does not parse is left " +
        "untouched. Once no config holds the key, it is revoked on the server (its next use is refused with " +
        "401): that needs a sign-in (VAULT_EMAIL and VAULT_PASSWORD, --password-stdin, or asked); " +
        "--keep-key skips it. The state file goes when nothing is left.",
    )
    .option("--hosts <ids>", "comma-separated hosts; default: every host vault-init wrote to")
    .option("--dry-run", "print what would change and change nothing")
    .option("-y, --yes", "ask nothing: the email and password come from VAULT_EMAIL and VAULT_PASSWORD")
    .option("--password-stdin", "read the password from stdin")
    .option("--keep-key", "do not revoke the API key")
    .option("--force", "remove hand-edited entries that have no backup to restore")
    .addOption(outputOption())
    .action(async (flags) => {
      const named = flags.hosts === undefined ? undefined : parseHostIds(flags.hosts);
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
      const force = flags.force === true;

      // Decided before anything changes: the key is revoked only once no recorded config holds it.
      const plan = await Promise.all(selected.map(({ v, record }) => removeOne(v, record, force, true)));
      const left = new Set(Object.keys(state.hosts));
      for (const r of plan) if (gone(r.action)) left.delete(r.v.host.id);
      const revoke = left.size === 0 && flags.keepKey !== true;
      if (flags.dryRun) {
        printRemovals(io, plan, flags.output, state, revoke ? "would be revoked" : "kept");
        io.stderr.write("dry run: nothing changed\n");
        return;
      }

      const run = async (cookie?: string) => {
        const results = [];
        for (const { v, record } of selected) {
          const r = await removeOne(v, record, force, false);
          results.push(r);
          io.stderr.write(`${v.host.id}: ${describe(r)}\n`);
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
        const credentials = await getCredentials({
          yes: flags.yes === true,
          passwordStdin: flags.passwordStdin === true,
          env: process.env,
        });
        outcome = await withSession(state.server, credentials, run);
      } else outcome = await run();
      printRemovals(io, outcome.results, flags.output, state, outcome.key);
      const invalid = outcome.results.filter((r) => r.action === "invalid" || r.action === "drifted");
      if (invalid.length) {
        throw new CliError(
          `${invalid.length} host config(s) left as they were: ${invalid.map((r) => r.path).join(", ")}`,
        );
      }
    });
  addExamples(uninstall, [
    "# Remove every vault entry and revoke the key (asks for the password)\nvault-init uninstall",
    "# Only Cursor; the key stays, since other hosts still use it\nvault-init uninstall --hosts cursor",
    "# Unattended\nVAULT_EMAIL=ada@example.com VAULT_PASSWORD=... vault-init uninstall --yes",
    "# What would happen, as YAML\nvault-init uninstall --dry-run -o yaml",
  ]);
}

const gone = (action: Action) => action === "removed" || action === "restored" || action === "absent";

async function removeOne(
  v: VaultHost,
  record: HostRecord,
  force: boolean,
  dryRun: boolean,
): Promise<Removal> {
  const base = { v, path: record.path };
  let entry;
  try {
    entry = (await readEntry(v.host, record.path, SERVER_NAME)).entry;
  } catch (err) {
    if (!(err instanceof ConfigFileError)) throw err;
    return { ...base, action: "invalid", error: err.message };
  }
  if (entry === undefined) return { ...base, action: "absent" };
  if (entryHash(entry) !== record.entryHash) {
    const backup = await pristineBackup(v, record.path);
    if (backup) {
      if (!dryRun) {
        const text = (await readConfigText(backup))!;
        // Keep the hand-edited file too: restoring must not lose anything.
        await backupConfig(record.path, TAG, new Date());
        await writeConfigText(record.path, text);
      }
      return { ...base, action: "restored", backup };
    }
    if (!force) return { ...base, action: "drifted" };
  }
  const result = await removeEntry(v.host, record.path, SERVER_NAME, {
    tag: TAG,
    dryRun,
    keepBackups: KEEP_BACKUPS,
  });
  return { ...base, action: result.action === "removed" ? "removed" : "absent", backup: result.backup };
}

/** The newest of our backups of `path` that parses and holds no vault entry: the file before install. */
async function pristineBackup(v: VaultHost, path: string): Promise<string | undefined> {
  for (const backup of await listBackups(path, TAG)) {
    const parsed = await readEntry(v.host, backup, SERVER_NAME).catch(() => undefined);
    if (parsed && parsed.text !== undefined && parsed.entry === undefined) return backup;
  }
  return undefined;
}

function describe(r: Removal): string {
  switch (r.action) {
    case "removed":
      return `removed from ${r.path}${r.backup ? ` (backup ${r.backup})` : ""}`;
    case "restored":
      return `the vault entry was edited by hand since install: restored ${r.backup} to ${r.path}`;
    case "drifted":
      return `the vault entry in ${r.path} was edited by hand since install and no backup holds the file ` +
        "before install: left alone (--force removes the entry)";
    case "absent":
      return `no vault entry in ${r.path}`;
    case "invalid":
      return `left untouched: ${r.error}`;
  }
}

function printRemovals(
  io: Io,
  results: Removal[],
  output: "table" | "json" | "yaml",
  state: State,
  key: string,
): void {
  const hosts = results.map((r) => ({
    host: r.v.host.id,
    name: r.v.host.name,
    action: r.action,
    path: r.path,
    ...(r.backup && { backup: r.backup }),
    ...(r.error && { error: r.error }),
  }));
  const apiKey = { id: state.apiKey.id, prefix: state.apiKey.prefix, name: state.apiKey.name, status: key };
  printResult(io, { server: state.server, apiKey, hosts }, output, {
    headers: ["host", "action", "path"],
    rows: (r) => r.hosts.map((x) => [x.host, x.action, x.path]),
    empty: "No vault entries to remove.",
  });
}
