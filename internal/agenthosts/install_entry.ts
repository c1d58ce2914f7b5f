import { mkdir, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { backupConfig, ConfigFileError, pruneBackups, writeConfigText } from "./config_file.ts";
import { setEntryText } from "./config_format.ts";
import { entryHash } from "./entry_hash.ts";
import {
  type AgentHost,
  buildEntry,
  type ConfigLocation,
  type McpServer,
  type Transport,
  transportsOf,
} from "./hosts.ts";
import { readEntry } from "./read_entry.ts";

export interface WriteOptions {
  /** Names our backups: `<file>.<tag>-backup-<time>`, e.g. the installer's name. */
  tag: string;
  /** Keep only this many of our backups per file (the newest); default: keep them all. */
  keepBackups?: number;
  /** Report what would happen and change nothing. */
  dryRun?: boolean;
  now?: Date;
}

export type InstallAction = "created" | "added" | "updated" | "unchanged";

export interface InstallResult {
  path: string;
  action: InstallAction;
  transport: Transport;
  /** Hash of the entry as written: record it to tell later whether the entry drifted. */
  entryHash: string;
  /** The copy made before writing, when an existing file changed. */
  backup?: string;
}

/**
 * Adds or replaces our entry in the host's config and touches nothing else. A file that does not
 * parse is refused (ConfigFileError naming it) and left as it is; an entry that is already exactly
 * right means no write and no backup. A missing file is created (0600) only when the host's app
 * directory exists, along with the directories between the two.
 */
export async function installEntry(
  host: AgentHost,
  location: ConfigLocation,
  server: McpServer,
  options: WriteOptions & { transport?: Transport },
): Promise<InstallResult> {
  const transport = options.transport ?? transportsOf(host)[0]!;
  const entry = buildEntry(host, server, transport);
  const hash = entryHash(entry);
  const { path } = location;
  const { text, entry: current } = await readEntry(host, path, server.name);
  const result: InstallResult = {
    path,
    transport,
    entryHash: hash,
    action: current !== undefined && entryHash(current) === hash
      ? "unchanged"
      : text === undefined
      ? "created"
      : current === undefined
      ? "added"
      : "updated",
  };
  if (result.action === "unchanged") return result;
  let next: string;
  try {
    next = setEntryText(host, text ?? "", server.name, entry);
  } catch (err) {
    throw new ConfigFileError(path, (err as Error).message);
  }
  if (options.dryRun) return result;
  if (text === undefined) await makeParentDir(host, location);
  else result.backup = await backupConfig(path, options.tag, options.now ?? new Date());
  await writeConfigText(path, next);
  if (options.keepBackups !== undefined) await pruneBackups(path, options.tag, options.keepBackups);
  return result;
}

async function makeParentDir(host: AgentHost, { path, appDir }: ConfigLocation): Promise<void> {
  const isDir = (dir: string) => stat(dir).then((s) => s.isDirectory(), () => false);
  if (await isDir(dirname(path))) return;
  if (!(await isDir(appDir))) {
    throw new ConfigFileError(path, `${host.name} does not look installed (${appDir} does not exist)`);
  }
  await mkdir(dirname(path), { recursive: true });
}
