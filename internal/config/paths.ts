import { homedir } from "node:os";
import { join } from "node:path";

/**
 * Where a tool keeps its data when no directory is configured, following each platform's
 * convention: $XDG_DATA_HOME (or ~/.local/share) on Linux, ~/Library/Application Support on macOS.
 */
export function defaultDataDir(
  tool: string,
  env: Record<string, string | undefined> = process.env,
  platform: string = process.platform,
): string {
  if (platform === "darwin") return join(env.HOME ?? homedir(), "Library", "Application Support", tool);
  if (platform === "win32") return join(env.LOCALAPPDATA ?? join(homedir(), "AppData", "Local"), tool);
  return join(env.XDG_DATA_HOME || join(env.HOME ?? homedir(), ".local", "share"), tool);
}
