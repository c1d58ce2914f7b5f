/**
 * The installer's record of what it did: the server, the hash of the token it minted (never the
 * token: the configs already hold it, and one more copy is one more place to leak it), and for each
 * host the file and the hash of the entry it wrote. Uninstall removes only entries that still match.
 */
import { chmod, mkdir, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { ConfigFileError, readConfigText, writeConfigText } from "./config_file.ts";
import { type HostEnv, macAppSupport, xdgConfigHome } from "./host_paths.ts";
import type { InstallState } from "./install_state_schema.ts";

export type { HostRecord, InstallState } from "./install_state_schema.ts";

/** `$XDG_CONFIG_HOME/<tool>/install.json` (default ~/.config); macOS `~/Library/Application Support/<tool>/install.json`. */
export function installStatePath(tool: string, h: HostEnv): string {
  const dir = h.platform === "darwin" ? macAppSupport(h) : xdgConfigHome(h);
  return join(dir, tool, "install.json");
}

/** The recorded state, or undefined when there is none; a damaged file is refused, not ignored. */
export async function readInstallState(path: string): Promise<InstallState | undefined> {
  const text = await readConfigText(path);
  if (text === undefined) return undefined;
  let json;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ConfigFileError(path, `does not parse as JSON (${(err as Error).message})`);
  }
  // The schema (zod) loads here: the installer's commands are registered at every start of the binary.
  const { InstallStateSchema } = await import("./install_state_schema.ts");
  const parsed = InstallStateSchema.safeParse(json);
  if (!parsed.success) {
    throw new ConfigFileError(path, `is not an install state file (${parsed.error.message})`);
  }
  return parsed.data;
}

/** Writes the state with mode 0600 (it names the token), creating its directory. */
export async function writeInstallState(path: string, state: InstallState): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeConfigText(path, `${JSON.stringify(state, null, 2)}\n`);
  await chmod(path, 0o600);
}

export async function removeInstallState(path: string): Promise<void> {
  await rm(path, { force: true });
}
