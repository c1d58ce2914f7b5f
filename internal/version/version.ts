/**
 * The toolkit's version, read from package.json so there is one source of truth.
 * Every binary prints it as `v<major>.<minor>.<patch>`.
 */
import pkg from "../../package.json" with { type: "json" };

export const VERSION = `v${pkg.version}`;
