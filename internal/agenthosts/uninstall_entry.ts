import { backupConfig, ConfigFileError, listBackups, writeConfigText } from "./config_file.ts";
import { parseConfig } from "./config_format.ts";
import { canonicalJson, entryHash } from "./entry_hash.ts";
import { withoutEntry } from "./entry_place.ts";
import type { AgentHost } from "./hosts.ts";
import type { RecordedEntry } from "./inspect_host.ts";
import type { WriteOptions } from "./install_entry.ts";
import { readEntry } from "./read_entry.ts";
import { removeEntry } from "./remove_entry.ts";

/**
 * - removed: our entry was taken out and nothing else in the file changed;
 * - restored: our entry was edited since install but the rest of the file was not, so the backup made
 *   before install was put back (the edited file is backed up first);
 * - drifted: our entry was edited and so was the rest of the file: left alone (`force` removes the entry);
 * - absent: the entry is gone already;
 * - invalid: the file does not parse: left untouched.
 */
export type UninstallAction = "removed" | "restored" | "drifted" | "absent" | "invalid";

export interface UninstallResult {
  path: string;
  action: UninstallAction;
  /** restored: the backup put back; removed: the copy made before the edit. */
  backup?: string;
  /** invalid: why. */
  error?: ConfigFileError;
}

/**
 * Takes out the entry an installer wrote and keeps everything else in the file as it is now: servers
 * the user added since, the host's own rewrites, comments. An entry still as written (its hash matches
 * the recorded one) is removed as text. One edited since is not guessed at: the pre-install backup is
 * restored only when the rest of the file is unchanged since install (so restoring loses nothing);
 * otherwise the file is left alone unless `force`, which removes the entry and nothing else.
 */
export async function uninstallEntry(
  host: AgentHost,
  recorded: RecordedEntry,
  name: string,
  options: WriteOptions & { force?: boolean },
): Promise<UninstallResult> {
  const { path } = recorded;
  let current;
  try {
    current = await readEntry(host, path, name);
  } catch (err) {
    if (!(err instanceof ConfigFileError)) throw err;
    return { path, action: "invalid", error: err };
  }
  if (current.text === undefined || current.entry === undefined) return { path, action: "absent" };
  if (entryHash(current.entry) !== recorded.entryHash) {
    const backup = await preInstallBackup(host, path, name, options.tag);
    if (backup && sameApartFromEntry(host, name, current.text, backup.text)) {
      if (!options.dryRun) {
        // Keep the edited file too: restoring must not lose the user's edit of our entry.
        await backupConfig(path, options.tag, options.now ?? new Date());
        await writeConfigText(path, backup.text);
      }
      return { path, action: "restored", backup: backup.path };
    }
    if (!options.force) return { path, action: "drifted" };
  }
  const result = await removeEntry(host, path, name, options);
  return { path, action: result.action === "removed" ? "removed" : "absent", backup: result.backup };
}

/** The newest of our backups of `path` that parses and holds no entry called `name`: the file before install. */
async function preInstallBackup(
  host: AgentHost,
  path: string,
  name: string,
  tag: string,
): Promise<{ path: string; text: string } | undefined> {
  for (const backup of await listBackups(path, tag)) {
    const parsed = await readEntry(host, backup, name).catch(() => undefined);
    if (parsed?.text !== undefined && parsed.entry === undefined) return { path: backup, text: parsed.text };
  }
  return undefined;
}

/** Whether two versions of a config hold the same things once our entry is left out of both. */
function sameApartFromEntry(host: AgentHost, name: string, a: string, b: string): boolean {
  const rest = (text: string) => {
    const doc = withoutEntry(parseConfig(host, text), host.place, name);
    // Install may have created the servers' container; empty, it is as good as absent.
    const servers = doc[host.place.root];
    const empty = Array.isArray(servers) ? servers.length === 0 : canonicalJson(servers) === "{}";
    if (empty) delete doc[host.place.root];
    return canonicalJson(doc);
  };
  return rest(a) === rest(b);
}
