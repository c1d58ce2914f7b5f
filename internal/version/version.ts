/**
 * The toolkit's version, read from package.json so there is one source of truth, unless the release
 * build stamped its own (scripts/lib/compile.ts defines TOOLKIT_RELEASE_VERSION and
 * TOOLKIT_RELEASE_COMMIT). Every binary prints it as `v<major>.<minor>.<patch>`; a released one also
 * names the commit it was built from.
 */
import pkg from "../../package.json" with { type: "json" };

declare const TOOLKIT_RELEASE_VERSION: string | undefined;
declare const TOOLKIT_RELEASE_COMMIT: string | undefined;

export const VERSION = `v${
  typeof TOOLKIT_RELEASE_VERSION === "string" ? TOOLKIT_RELEASE_VERSION : pkg.version
}`;

/** The commit a released binary was built from; empty in a development build. */
export const COMMIT = typeof TOOLKIT_RELEASE_COMMIT === "string" ? TOOLKIT_RELEASE_COMMIT : "";

/** What `--version` prints: `v1.2.3`, or `v1.2.3 (commit 0123abcd…)` for a released binary. */
export const VERSION_LINE = COMMIT ? `${VERSION} (commit ${COMMIT})` : VERSION;
