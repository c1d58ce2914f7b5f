/**
 * Free ports for test servers that bind them themselves (child processes, or servers given a port).
 * The test runner runs suites in parallel processes, and between a pick and the server's bind another
 * process can be handed the same port: its server then fails to start, or, worse, a client talks to
 * the other suite's server. Each pick is recorded under the system's temp directory for two minutes,
 * and a port another test process picked in that time is passed over.
 */
import { closeSync, mkdirSync, openSync, statSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort as pickPort } from "../../internal/http/free_port.ts";

const LEDGER = join(tmpdir(), "toolkit-test-ports");
/** How long a pick is kept from other processes: longer than any server here takes to bind. */
const KEEP_MS = 120_000;

/** Claims `port` in `ledger`: true unless another pick of it is younger than KEEP_MS. */
export function claim(port: number, ledger = LEDGER): boolean {
  mkdirSync(ledger, { recursive: true });
  const file = join(ledger, String(port));
  try {
    closeSync(openSync(file, "wx"));
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  try {
    if (Date.now() - statSync(file).mtimeMs < KEEP_MS) return false;
    const now = new Date();
    utimesSync(file, now, now);
    return true;
  } catch {
    return false;
  }
}

/** A port free on `host` now and not handed to another test process in the last two minutes. */
export async function freePort(host = "127.0.0.1"): Promise<number> {
  for (let tries = 0; tries < 50; tries++) {
    const port = await pickPort(host);
    if (claim(port)) return port;
  }
  throw new Error(`no free port on ${host} that no other test process picked in the last two minutes`);
}
