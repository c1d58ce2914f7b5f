import { chmod, mkdir, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { backupConfig, ConfigFileError, listBackups, pruneBackups, writeConfigText } from "./config_file.ts";
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

/** Permission bits that let anyone but the owner read a file. */
const OTHERS = 0o077;

export type InstallAction = "created" | "added" | "updated" | "unchanged";

export interface InstallResult {
  path: string;
  action: InstallAction;
  transport: Transport;
  /** Hash of the entry as written: record it to tell later whether the entry drifted. */
  entryHash: string;
  /** The copy made before writing, when an existing file changed. */
  backup?: string;
  /**
   * The file's permission bits as they are (or, in a dry run, would be) once it holds our entry.
   * Every entry carries a secret, so group or world bits here deserve a warning (`exposedMode`).
   */
  mode: number;
  /** The mode was narrowed to owner-only because `securePermissions` asked for it. */
  secured?: boolean;
}

/** Whether a config file with `mode` lets others read the secret in our entry. */
export function exposedMode(mode: number): boolean {
  return (mode & OTHERS) !== 0;
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
  options: WriteOptions & {
    transport?: Transport;
    /** Narrow a file others can read to owner-only (0644 becomes 0600), with our backups of it. */
    securePermissions?: boolean;
  },
): Promise<InstallResult> {
  const transport = options.transport ?? transportsOf(host)[0]!;
  const entry = buildEntry(host, server, transport);
  const hash = entryHash(entry);
  const { path } = location;
  const { text, entry: current } = await readEntry(host, path, server.name);
  // A file we create is 0600; an existing one keeps its mode (through a symlink: the target's).
  const mode = text === undefined ? 0o600 : (await stat(path)).mode & 0o7777;
  const secure = options.securePermissions === true && exposedMode(mode);
  const result: InstallResult = {
    path,
    transport,
    entryHash: hash,
    mode: secure ? mode & ~OTHERS : mode,
    ...(secure && { secured: true }),
    action: current !== undefined && entryHash(current) === hash
      ? "unchanged"
      : text === undefined
      ? "created"
      : current === undefined
      ? "added"
      : "updated",
  };
  if (result.action === "unchanged") {
    if (secure && !options.dryRun) await narrowMode(path, options.tag, result.mode);
    return result;
  }
  let next: string;
  try {
    next = setEntryText(host, text ?? "", server.name, entry);
  } catch (err) {
    throw new ConfigFileError(path, (err as Error).message);
  }
  if (options.dryRun) return result;
  // Narrowed before the backup, which copies the file's mode: no copy of the secret stays readable.
  if (secure) await narrowMode(path, options.tag, result.mode);
  if (text === undefined) await makeParentDir(host, location);
  else result.backup = await backupConfig(path, options.tag, options.now ?? new Date());
  await writeConfigText(path, next);
  if (options.keepBackups !== undefined) await pruneBackups(path, options.tag, options.keepBackups);
  return result;
}

/** Sets the file (the symlink's target) to `mode` and takes the same bits off our earlier backups of it. */
async function narrowMode(path: string, tag: string, mode: number): Promise<void> {
  await chmod(path, mode);
  for (const backup of await listBackups(path, tag)) {
    await chmod(backup, (await stat(backup)).mode & mode);
  }
}

async function makeParentDir(host: AgentHost, { path, appDir }: ConfigLocation): Promise<void> {
  const isDir = (dir: string) => stat(dir).then((s) => s.isDirectory(), () => false);
  if (await isDir(dirname(path))) return;
  if (!(await isDir(appDir))) {
    throw new ConfigFileError(path, `${host.name} does not look installed (${appDir} does not exist)`);
  }
  await mkdir(dirname(path), { recursive: true });
}
