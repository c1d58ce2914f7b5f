/**
 * vault-init's record of an install, ~/.config/vault-init/state.json (mode 0600, written atomically):
 * the server, the API key's id, prefix, name and SHA-256 (never the key itself: the configs hold it,
 * and one more copy is one more place to leak it), and per host the file, the transport, the SHA-256
 * of the whole file before our write and of our canonical entry after it. Uninstall judges drift on
 * the entry hash alone, since hosts such as Claude Code rewrite their files constantly.
 */
import { join } from "node:path";
import { z } from "zod";
import { type HostEnv, xdgConfigHome } from "../host_paths.ts";
import { readStateFile, removeStateFile, sha256, writeStateFile } from "../state_file.ts";

const HostRecord = z.object({
  path: z.string(),
  transport: z.enum(["http", "stdio"]),
  /** `sha256:<hex>` of the file before our first write; null when we created the file. */
  preHash: z.string().nullable(),
  /** SHA-256 of our entry's canonical JSON as written. */
  entryHash: z.string(),
  /** The backup made before our first write, restored by uninstall when the entry was hand-edited. */
  backup: z.string().optional(),
  installedAt: z.string(),
});

const StateSchema = z.object({
  version: z.literal(1),
  hostList: z.string(),
  server: z.string(),
  apiKey: z.object({ id: z.string(), prefix: z.string(), name: z.string(), sha256: z.string() }),
  hosts: z.record(z.string(), HostRecord),
  installedAt: z.string(),
  updatedAt: z.string(),
});

export type State = z.infer<typeof StateSchema>;
export type HostRecord = z.infer<typeof HostRecord>;

/** `$XDG_CONFIG_HOME/vault-init/state.json`, ~/.config by default, on macOS as well (the contract's path). */
export function statePath(h: HostEnv): string {
  return join(xdgConfigHome(h), "vault-init", "state.json");
}

/** The recorded state, or undefined; a damaged file is refused, never taken as "not installed". */
export function readState(path: string): Promise<State | undefined> {
  return readStateFile(path, (json) => StateSchema.safeParse(json), "a vault-init state file");
}

/** Atomic write (temporary file, then rename) with mode 0600 whatever the umask. */
export const writeState: (path: string, state: State) => Promise<void> = writeStateFile;

export { removeStateFile as removeState, sha256 };
