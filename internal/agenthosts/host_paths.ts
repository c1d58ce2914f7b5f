import { isAbsolute, join } from "node:path";

/** Where hosts look for their files: injected so tests can point everything at a temporary HOME. */
export interface HostEnv {
  home: string;
  /** `process.platform`: "darwin" or "linux" (Windows is not supported). */
  platform: string;
  env: Record<string, string | undefined>;
}

/** The current user's HostEnv. */
export function currentHostEnv(): HostEnv {
  return { home: process.env.HOME ?? "", platform: process.platform, env: process.env };
}

/** Agent hosts keep their configs in places we know only for macOS and Linux. */
export function isSupportedPlatform(platform: string): boolean {
  return platform === "darwin" || platform === "linux";
}

/** $XDG_CONFIG_HOME when set to an absolute path (the spec says to ignore relative ones), else ~/.config. */
export function xdgConfigHome(h: HostEnv): string {
  const xdg = h.env.XDG_CONFIG_HOME;
  return xdg && isAbsolute(xdg) ? xdg : join(h.home, ".config");
}

/** macOS apps keep their settings under ~/Library/Application Support. */
export function macAppSupport(h: HostEnv): string {
  return join(h.home, "Library", "Application Support");
}

/** VS Code's user directory; extensions keep their settings in its `globalStorage/<extension id>`. */
export function vscodeUserDir(h: HostEnv): string {
  return h.platform === "darwin"
    ? join(macAppSupport(h), "Code", "User")
    : join(xdgConfigHome(h), "Code", "User");
}
