/** vault-mcp's configuration: VAULT_URL, VAULT_TOKEN and VAULT_DEBUG, read once through one schema. */
import { z } from "zod";
import { CliError } from "../../internal/cli/mod.ts";
import { ConfigError, flag, loadEnv } from "../../internal/config/mod.ts";

const SCHEMA = z.object({
  // Required: the reference shim's public default URL sent users' keys to a server they never chose.
  VAULT_URL: z.url({ protocol: /^https?$/, message: "must be an http:// or https:// URL" }),
  VAULT_TOKEN: z.string({ message: "is required but not set" }).min(1, "is required but not set")
    .startsWith("vault_", "must be a vault API key (it starts with vault_)"),
  VAULT_DEBUG: flag(false),
});

export interface ShimConfig {
  /** `<VAULT_URL>/api/mcp`. */
  endpoint: URL;
  token: string;
  debug: boolean;
}

/** The endpoint and key from the environment, or a usage error (exit 2) naming every bad variable. */
export function loadShimConfig(env: Record<string, string | undefined>): ShimConfig {
  let config: z.output<typeof SCHEMA>;
  try {
    config = loadEnv(SCHEMA, env);
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message, 2);
    throw err;
  }
  const endpoint = new URL(config.VAULT_URL);
  endpoint.pathname = `${endpoint.pathname.replace(/\/+$/, "")}/api/mcp`;
  endpoint.search = endpoint.hash = "";
  return { endpoint, token: config.VAULT_TOKEN, debug: config.VAULT_DEBUG };
}
