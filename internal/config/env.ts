/**
 * Typed environment parsing. Every tool reads its environment once, through one zod schema
 * whose keys are the variable names, and stops at start with a message that names each bad or
 * missing variable. Values of secret-looking variables are never echoed back.
 */
import { z } from "zod";
import { isSensitiveKey, redactString } from "../log/redact.ts";

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration: ${problems.join("; ")}`);
    this.name = "ConfigError";
  }
}

/**
 * @example
 * const schema = z.object({ MEMSVC_PORT: port(7778) });
 * const { MEMSVC_PORT } = loadEnv(schema); // throws ConfigError naming MEMSVC_PORT if bad
 */
export function loadEnv<S extends z.ZodObject>(
  schema: S,
  env: Record<string, string | undefined> = process.env,
): z.output<S> {
  // Empty strings mean "unset", as in most shells' `VAR= cmd` idiom.
  const input = Object.fromEntries(
    Object.keys(schema.shape).map((k) => [k, env[k] === "" ? undefined : env[k]]),
  );
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new ConfigError(result.error.issues.map((issue) => describe(issue, input)));
}

function describe(issue: z.core.$ZodIssue, input: Record<string, string | undefined>): string {
  const name = String(issue.path[0] ?? "environment");
  const raw = input[name];
  if (raw === undefined) return `${name} is required but not set`;
  const shown = isSensitiveKey(name) ? "" : ` (got ${JSON.stringify(redactString(raw))})`;
  return `${name}: ${issue.message}${shown}`;
}

/** A TCP port, 0 meaning "any free port". */
export const port = (fallback: number) =>
  z.coerce.number({ message: "must be a port number" }).int("must be a whole number")
    .min(0, "must be 0..65535").max(65535, "must be 0..65535").default(fallback);

/** A positive integer with a default. */
export const positiveInt = (fallback: number) =>
  z.coerce.number({ message: "must be a number" }).int("must be a whole number").positive("must be > 0")
    .default(fallback);

/** true/false, 1/0, yes/no, on/off. */
export const flag = (fallback: boolean) =>
  z.enum(["true", "false", "1", "0", "yes", "no", "on", "off"], {
    message: "must be one of true, false, 1, 0, yes, no, on, off",
  }).transform((v) => ["true", "1", "yes", "on"].includes(v)).default(fallback);

/** A comma-separated list; blanks are dropped. */
export const csv = () =>
  z.string().transform((v) => v.split(",").map((s) => s.trim()).filter(Boolean)).default([]);

/**
 * The environment with command-line flags laid over the variables of the same meaning; a flag that
 * was not given leaves its variable as it is.
 *
 * @example
 * loadEnv(schema, withFlags(process.env, { MEMSVC_PORT: flags.port }));
 */
export function withFlags(
  env: Record<string, string | undefined>,
  flags: Record<string, string | undefined>,
): Record<string, string | undefined> {
  return { ...env, ...Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined)) };
}
