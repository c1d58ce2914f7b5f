import { backupConfig, ConfigFileError, pruneBackups, writeConfigText } from "./config_file.ts";
import { removeEntryText } from "./config_format.ts";
import type { AgentHost } from "./hosts.ts";
import type { WriteOptions } from "./install_entry.ts";
import { readEntry } from "./read_entry.ts";

/** removed (or would be, in a dry run); absent: nothing to remove. */
export type RemoveAction = "removed" | "absent";

export interface RemoveResult {
  path: string;
  action: RemoveAction;
  backup?: string;
}

/**
 * Removes exactly our entry, whatever it holds, and leaves the rest of the file as it was. Installers
 * uninstall through uninstallEntry, which first checks the entry is still the one they wrote.
 */
export async function removeEntry(
  host: AgentHost,
  path: string,
  name: string,
  options: WriteOptions,
): Promise<RemoveResult> {
  const { text, entry } = await readEntry(host, path, name);
  if (text === undefined || entry === undefined) return { path, action: "absent" };
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
