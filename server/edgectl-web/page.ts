/**
 * The dashboard's files (web/edgectl, bundled by scripts/lib/web_bundle.ts into
 * .cache/web/edgectl and embedded in dist/edgectl) and the HTML page that names them by content hash.
 */
import { type AppBundle, appPage, loadAppBundle } from "../../internal/web/mod.ts";

export type WebBundle = AppBundle;

/** The embedded bundle, else the one in .cache/web/edgectl, else undefined (not built). */
export const loadWebBundle = (dir?: string) => loadAppBundle("edgectl", dir);

/** A gateway fanning out to two backends. */
export const ICON =
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#2f5bd3"/>` +
  `<circle cx="9" cy="16" r="4" fill="#fff"/><circle cx="23" cy="9" r="3.5" fill="#fff"/>` +
  `<circle cx="23" cy="23" r="3.5" fill="#fff"/><path d="M9 16 23 9M9 16 23 23" stroke="#fff" stroke-width="2"/></svg>`;

export function webPage(bundle: WebBundle): string {
  return appPage({ app: "edgectl", base: "/ui", title: "edgectl", bundle });
}
