import { lstat, stat } from "node:fs/promises";
import type { HostEnv } from "./host_paths.ts";
import type { AgentHost, ConfigLocation } from "./hosts.ts";

export interface LocatedConfig extends ConfigLocation {
  /** What gave the host away: its config file, or only its app directory (no MCP file yet). */
  found: "file" | "directory";
}

/**
 * Where the host's config is: the first candidate whose file exists, else the first whose app
 * directory exists; undefined when the host is not installed.
 */
export async function locateConfig(host: AgentHost, h: HostEnv): Promise<LocatedConfig | undefined> {
  const candidates = host.locations(h);
  for (const c of candidates) {
    // lstat: a symlink counts even when its target is missing; the write will create the target.
    if (await lstat(c.path).then(() => true, () => false)) return { ...c, found: "file" };
  }
  for (const c of candidates) {
    if (await stat(c.appDir).then((s) => s.isDirectory(), () => false)) return { ...c, found: "directory" };
  }
  return undefined;
}
