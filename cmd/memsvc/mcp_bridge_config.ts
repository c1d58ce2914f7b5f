/** `memsvc mcp`'s configuration: MEMSVC_BASE_URL, MEMSVC_MCP_DEBUG and the token's variable. */
import { z } from "zod";
import { CliError } from "../../internal/cli/mod.ts";
import { ConfigError, flag, loadEnv } from "../../internal/config/mod.ts";

const SCHEMA = z.object({
  MEMSVC_BASE_URL: z.url({ protocol: /^https?$/, message: "must be an http:// or https:// URL" }),
  MEMSVC_MCP_DEBUG: flag(false),
});

/** The endpoint and token, or a usage error (exit 2) naming every missing or bad variable. */
export function loadBridgeConfig(tokenEnv: string, env: Record<string, string | undefined>) {
  const problems: string[] = [];
  let config: z.output<typeof SCHEMA> | undefined;
  try {
    config = loadEnv(SCHEMA, env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    problems.push(...err.problems);
  }
  const token = env[tokenEnv];
  if (!token) problems.push(`${tokenEnv} is required but not set`);
  if (!config || !token) throw new CliError(new ConfigError(problems).message, 2);
  const url = new URL(config.MEMSVC_BASE_URL);
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/mcp`;
  return { url, token, debug: config.MEMSVC_MCP_DEBUG };
}
