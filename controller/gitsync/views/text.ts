/** Small pieces of text the CLI's views of gitsync's objects share. */
import type { Condition } from "../api/mod.ts";

/** A commit as people compare them: its first 12 hex digits. */
export const shortCommit = (sha: string | undefined) => (sha ? sha.slice(0, 12) : "");

/** The condition of `type` an object reports, if any. */
export function condition(o: { status?: { conditions?: Condition[] } }, type: string): Condition | undefined {
  return o.status?.conditions?.find((c) => c.type === type);
}
