import { test } from "node:test";
import assert from "node:assert/strict";
import postgres from "postgres";
import { postgresAvailable, startPostgres } from "../../test/harness/postgres.ts";
import { postgresCpuMs } from "./postgres_cpu.ts";

test("postgresCpuMs counts the cluster's backends and not another port's", {
  skip: !postgresAvailable() && "PostgreSQL 15 is not installed",
}, async () => {
  const pg = await startPostgres();
  const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
  try {
    const port = new URL(pg.url).port;
    const before = postgresCpuMs(port);
    assert.ok(before !== undefined && before >= 0);
    // About a second of one backend's CPU.
    await sql`select count(*) from generate_series(1, 8000000)`;
    const after = postgresCpuMs(port)!;
    assert.ok(after - before >= 200, `backend CPU counted: ${before} → ${after} ms`);
    assert.equal(postgresCpuMs(Number(port) + 1), undefined);
  } finally {
    await sql.end();
    await pg.stop();
  }
});
