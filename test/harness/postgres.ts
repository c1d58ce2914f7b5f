/**
 * A throwaway PostgreSQL 15 cluster for integration tests, built from Debian's binaries so tests
 * exercise the same server users run against `*_DATABASE_URL`. Start one per test file: initdb
 * plus startup costs about a second.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "./ports.ts";

const BIN = "/usr/lib/postgresql/15/bin";
const run = promisify(execFile);

export interface PostgresServer {
  /** postgres://postgres@127.0.0.1:<port>/test, trust auth, no password. */
  url: string;
  /** Creates another empty database on the server and returns its url, for tests that need a clean one. */
  newDatabase(): Promise<string>;
  /** Stops the server immediately and deletes its files. */
  stop(): Promise<void>;
}

/** True when Debian's PostgreSQL 15 server binaries are installed. */
export function postgresAvailable(): boolean {
  return existsSync(join(BIN, "initdb")) && existsSync(join(BIN, "pg_ctl"));
}

export async function startPostgres(): Promise<PostgresServer> {
  if (!postgresAvailable()) {
    throw new Error(`PostgreSQL 15 server binaries not found in ${BIN}: apt-get install postgresql-15`);
  }
  const dir = await mkdtemp(join(tmpdir(), "pg15-"));
  const data = join(dir, "data");
  // PostgreSQL refuses to run as root, so as root the cluster belongs to the postgres user.
  const asRoot = process.getuid?.() === 0;
  const pg = (tool: string, args: string[]) =>
    asRoot ? run("runuser", ["-u", "postgres", "--", join(BIN, tool), ...args]) : run(join(BIN, tool), args);
  let started = false;
  const stop = async () => {
    if (started) {
      started = false;
      await pg("pg_ctl", ["stop", "-D", data, "-m", "immediate", "-w"]).catch(() => {});
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    if (asRoot) await run("chown", ["postgres:postgres", dir]);
    const initdb = ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C"];
    await pg("initdb", initdb);
    const port = await freePort();
    const settings =
      `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories=${dir} -c fsync=off`;
    const log = join(dir, "server.log");
    await pg("pg_ctl", ["start", "-D", data, "-l", log, "-w", "-t", "30", "-o", settings]);
    started = true;
    const createDatabase = async (name: string) => {
      await run(join(BIN, "createdb"), ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", name]);
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    };
    let created = 0;
    return { url: await createDatabase("test"), newDatabase: () => createDatabase(`test${++created}`), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
