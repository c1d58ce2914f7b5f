import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { type PostgresServer, startPostgres } from "../../test/harness/postgres.ts";
import { tryAdvisoryLock, withAdvisoryLock } from "./advisory_lock.ts";
import { type Database, openDatabase } from "./open_database.ts";

/** Two holders that each record enter/leave around a pause; serialised means no interleaving. */
async function overlapOf(a: Database<unknown>, b: Database<unknown>): Promise<string[]> {
  const events: string[] = [];
  const hold = (db: Database<unknown>, who: string) =>
    withAdvisoryLock(db, "test-lock", async () => {
      events.push(`${who}+`);
      await new Promise((r) => setTimeout(r, 100));
      events.push(`${who}-`);
    });
  await Promise.all([hold(a, "a"), hold(b, "b")]);
  return events;
}

describe("withAdvisoryLock on PostgreSQL", () => {
  let pg: PostgresServer;
  let one: Database<unknown>;
  let two: Database<unknown>;
  before(async () => {
    pg = await startPostgres();
    one = await openDatabase({ url: pg.url });
    two = await openDatabase({ url: pg.url });
  });
  after(async () => {
    await one?.close();
    await two?.close();
    await pg?.stop();
  });

  it("serialises holders in two processes' pools", async () => {
    const events = await overlapOf(one, two);
    assert.ok(["a+,a-,b+,b-", "b+,b-,a+,a-"].includes(events.join(",")), events.join(","));
  });

  it("tryAdvisoryLock skips at once while another process holds the lock", async () => {
    let release!: () => void;
    const held = withAdvisoryLock(one, "try-lock", () => new Promise<void>((r) => (release = r)));
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(await tryAdvisoryLock(two, "try-lock", () => Promise.resolve(1)), { ran: false });
    release();
    await held;
    assert.deepEqual(await tryAdvisoryLock(two, "try-lock", () => Promise.resolve(2)), {
      ran: true,
      value: 2,
    });
  });

  it("serialises holders sharing one pool and releases after a failure", async () => {
    await assert.rejects(withAdvisoryLock(one, "test-lock", () => Promise.reject(new Error("boom"))), /boom/);
    const events = await overlapOf(one, one);
    assert.equal(events.join(","), "a+,a-,b+,b-");
  });
});
