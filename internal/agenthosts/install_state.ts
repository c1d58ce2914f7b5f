/**
 * The installer's record of what it did: the server, the hash of the token it minted (never the
 * token: the configs already hold it, and one more copy is one more place to leak it), and for each
 * host the file and the hash of the entry it wrote. Uninstall removes only entries that still match.
 */
import { join } from "node:path";
import { type HostEnv, macAppSupport, xdgConfigHome } from "./host_paths.ts";
import type { InstallState } from "./install_state_schema.ts";
import { removeStateFile, stateReader, writeStateFile } from "./state_file.ts";

export type { HostRecord, InstallState } from "./install_state_schema.ts";

/** `$XDG_CONFIG_HOME/<tool>/install.json` (default ~/.config); macOS `~/Library/Application Support/<tool>/install.json`. */
export function installStatePath(tool: string, h: HostEnv): string {
  const dir = h.platform === "darwin" ? macAppSupport(h) : xdgConfigHome(h);
  return join(dir, tool, "install.json");
}

/** The recorded state, or undefined when there is none; a damaged file is refused, not ignored. */
export const readInstallState: (path: string) => Promise<InstallState | undefined> = stateReader(
  () => import("./install_state_schema.ts").then((m) => m.InstallStateSchema),
  "an install state file",
);

/** Writes the state with mode 0600 (it names the token), creating its directory. */
export const writeInstallState: (path: string, state: InstallState) => Promise<void> = writeStateFile;

export const removeInstallState = removeStateFile;
