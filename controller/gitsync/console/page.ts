/**
 * The console's browser app (web/gitsync, bundled by scripts/lib/web_bundle.ts into
 * .cache/web/gitsync and embedded in dist/gitsync-manager), its page, and the strict CSP of seed 5.5.
 */
import { type AppBundle, appPage, loadAppBundle } from "../../../internal/web/mod.ts";

/** Exactly the policy of seed 5.5: nothing inline, nothing from elsewhere, never framed. */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "frame-ancestors 'none'",
  "form-action 'self'",
  "base-uri 'none'",
].join("; ");

export const CONSOLE_BASE = "/ui";
export type ConsoleBundle = AppBundle;

/** The embedded bundle, else the one in .cache/web/gitsync, else undefined (not built). */
export const loadConsoleBundle = (dir?: string) => loadAppBundle("gitsync", dir);

/** The tab's icon, so browsers do not ask for /favicon.ico. */
export const CONSOLE_ICON =
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#2b6cb0"/>` +
  `<circle cx="10" cy="10" r="3.5" fill="#fff"/><circle cx="10" cy="22" r="3.5" fill="#fff"/>` +
  `<circle cx="22" cy="16" r="3.5" fill="#fff"/><path d="M10 10v12M10 13q0 3 12 3" fill="none" stroke="#fff" stroke-width="2"/></svg>`;

export function consolePage(bundle: ConsoleBundle): string {
  return appPage({ app: "gitsync", base: CONSOLE_BASE, title: "gitsync console", bundle });
}
