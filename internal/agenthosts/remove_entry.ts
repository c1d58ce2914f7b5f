import { backupConfig, ConfigFileError, pruneBackups, writeConfigText } from "./config_file.ts";
import { removeEntryText } from "./config_format.ts";
import { entryHash } from "./entry_hash.ts";
import type { AgentHost } from "./hosts.ts";
import type { WriteOptions } from "./install_entry.ts";
import { readEntry } from "./read_entry.ts";

/** removed (or would be, in a dry run); absent: nothing to remove; drifted: left alone. */
export type RemoveAction = "removed" | "absent" | "drifted";

export interface RemoveResult {
  path: string;
  action: RemoveAction;
  backup?: string;
}

/**
 * Removes exactly our entry and leaves the rest of the file as it was. With `expectedHash`, an entry
 * that no longer hashes to it (the user edited it) is left alone unless `force`.
 */
export async function removeEntry(
  host: AgentHost,
  path: string,
  name: string,
  options: WriteOptions & { expectedHash?: string; force?: boolean },
): Promise<RemoveResult> {
  const { text, entry } = await readEntry(host, path, name);
  if (text === undefined || entry === undefined) return { path, action: "absent" };
  if (options.expectedHash && entryHash(entry) !== options.expectedHash && !options.force) {
    return { path, action: "drifted" };
  }
  let next: string;
  try {
    next = removeEntryText(host, text, name);
  } catch (err) {
    throw new ConfigFileError(path, (err as Error).message);
  }
  if (options.dryRun) return { path, action: "removed" };
  const backup = await backupConfig(path, options.tag, options.now ?? new Date());
  await writeConfigText(path, next);
  if (options.keepBackups !== undefined) await pruneBackups(path, options.tag, options.keepBackups);
  return { path, action: "removed", backup };
}
