import { ConfigFileError } from "./config_file.ts";
import { entryHash } from "./entry_hash.ts";
import type { HostEnv } from "./host_paths.ts";
import { type AgentHost, HOSTS } from "./hosts.ts";
import { locateConfig } from "./locate_config.ts";
import { readEntry } from "./read_entry.ts";

/**
 * - not-installed: neither the config file nor the host's app directory exists;
 * - detected: the host is there, without our entry;
 * - configured: our entry is there (and matches what we recorded, when we recorded something);
 * - drifted: our entry is there but differs from what we wrote;
 * - missing: we recorded an entry that is no longer there;
 * - invalid: the config file does not parse.
 */
export type HostState = "not-installed" | "detected" | "configured" | "drifted" | "missing" | "invalid";

/** What we wrote to a host, as recorded by the installer. */
export interface RecordedEntry {
  path: string;
  entryHash: string;
}

export interface HostReport {
  host: AgentHost;
  state: HostState;
  /** The config file: the recorded one, else the located one, else where it would be. */
  path: string;
  /** What gave the host away, when it is installed. */
  found?: "file" | "directory";
  /** Hash of our entry as it is in the file. */
  entryHash?: string;
  /** Why the file is invalid. */
  error?: string;
}

export async function inspectHost(
  host: AgentHost,
  h: HostEnv,
  name: string,
  recorded?: RecordedEntry,
): Promise<HostReport> {
  const located = await locateConfig(host, h);
  const path = recorded?.path ?? located?.path ?? host.locations(h)[0]!.path;
  const base = { host, path, ...(located && { found: located.found }) };
  if (!located && !recorded) return { ...base, state: "not-installed" };
  let entry;
  try {
    entry = (await readEntry(host, path, name)).entry;
  } catch (err) {
    if (!(err instanceof ConfigFileError)) throw err;
    return { ...base, state: "invalid", error: err.message };
  }
  if (entry === undefined) return { ...base, state: recorded ? "missing" : "detected" };
  const hash = entryHash(entry);
  return {
    ...base,
    state: recorded && recorded.entryHash !== hash ? "drifted" : "configured",
    entryHash: hash,
  };
}

/** Every known host's report, in table order. */
export function inspectHosts(
  h: HostEnv,
  name: string,
  recorded: Record<string, RecordedEntry> = {},
): Promise<HostReport[]> {
  return Promise.all(HOSTS.map((host) => inspectHost(host, h, name, recorded[host.id])));
}
