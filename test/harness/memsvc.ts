/** What black-box memsvc tests start `memsvc serve` with. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningBinary, startBinary } from "./binary.ts";

/** A cookie secret long enough for user and bearer modes; tests also scan logs for it. */
export const TEST_COOKIE_SECRET = "memsvc-test-cookie-secret-0123456789abcdef0123";

export interface Credentials {
  email: string;
  password: string;
}

/**
 * The environment of a test server: a private HOME (the embedded database lives under it), a port the
 * OS picks (read back from the "listening" log line), JSON logs to parse, the test cookie secret, the
 * first admin when `admin` is given, and `extra` last so a test can override or drop any of them.
 */
export function memsvcEnv(
  home: string,
  options: { admin?: Credentials; extra?: Record<string, string> } = {},
): Record<string, string> {
  return {
    HOME: home,
    MEMSVC_PORT: "0",
    MEMSVC_LOG_FORMAT: "json",
    MEMSVC_COOKIE_SECRET: TEST_COOKIE_SECRET,
    ...(options.admin
      ? {
        MEMSVC_BOOTSTRAP_ADMIN_EMAIL: options.admin.email,
        MEMSVC_BOOTSTRAP_ADMIN_PASSWORD: options.admin.password,
      }
      : {}),
    ...options.extra,
  };
}

/**
 * A data directory under a temporary HOME that a test stops and starts `memsvc serve` on (auth off,
 * JSON logs, the decay cycle out of the way): `start(extra)` starts a server with `extra` added to the
 * environment. `cleanup` collects what stops the servers and removes the directory.
 */
export async function restartableMemsvc(prefix: string, cleanup: (() => Promise<void>)[]) {
  const home = await mkdtemp(join(tmpdir(), prefix));
  cleanup.push(() => rm(home, { recursive: true, force: true }));
  const dataDir = join(home, "data");
  const env = {
    HOME: home,
    MEMSVC_PORT: "0",
    MEMSVC_LOG_FORMAT: "json",
    MEMSVC_AUTH_MODE: "none",
    MEMSVC_DATA_DIR: dataDir,
    MEMSVC_DECAY_INTERVAL_MS: "3600000",
  };
  const start = async (extra: Record<string, string> = {}): Promise<RunningBinary> => {
    const server = await startBinary("memsvc", ["serve"], {
      cwd: home,
      env: { ...env, ...extra },
      timeoutMs: 90_000,
    });
    cleanup.push(() => server.stop("SIGKILL").then(() => {}));
    return server;
  };
  return { dataDir, start };
}
