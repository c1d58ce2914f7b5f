/**
 * Skips that the test command reports. A test skipped through `skipBecause` has its reason written
 * to $TEST_SKIP_LOG (scripts/run_tests.ts sets it), so the final summary lists why each skip
 * happened: nothing is ever skipped silently.
 *
 *   describe("in Chromium", { skip: skipBecause(browserSkipReason()) }, () => { ... });
 */
import { appendFileSync } from "node:fs";

export function skipBecause(reason: string | false | undefined): string | false {
  if (!reason) return false;
  const log = process.env.TEST_SKIP_LOG;
  if (log) appendFileSync(log, `${reason}\n`);
  return reason;
}
