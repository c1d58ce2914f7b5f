/**
 * vault-init's record of an install, ~/.config/vault-init/state.json (mode 0600, written atomically):
 * the server, the API key's id, prefix, name and SHA-256 (never the key itself: the configs hold it,
 * and one more copy is one more place to leak it), and per host the file, the transport, the SHA-256
 * of the whole file before our write and of our canonical entry after it. Uninstall judges drift on
 * the entry hash alone, since hosts such as Claude Code rewrite their files constantly.
 */
import { join } from "node:path";
import { type HostEnv, xdgConfigHome } from "../host_paths.ts";
import { removeStateFile, sha256, stateReader, writeStateFile } from "../state_file.ts";
import type { State } from "./state_schema.ts";

export type { HostRecord, State } from "./state_schema.ts";

/** `$XDG_CONFIG_HOME/vault-init/state.json`, ~/.config by default, on macOS as well (the contract's path). */
export function statePath(h: HostEnv): string {
  return join(xdgConfigHome(h), "vault-init", "state.json");
}

/** The recorded state, or undefined; a damaged file is refused, never taken as "not installed". */
export const readState: (path: string) => Promise<State | undefined> = stateReader(
  () => import("./state_schema.ts").then((m) => m.StateSchema),
  "a vault-init state file",
);

/** Atomic write (temporary file, then rename) with mode 0600 whatever the umask. */
export const writeState: (path: string, state: State) => Promise<void> = writeStateFile;

export { removeStateFile as removeState, sha256 };
