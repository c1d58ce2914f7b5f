import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { silentLogger } from "../../../internal/log/mod.ts";
import { openTestStore, type TestStore } from "../_test_store.ts";
import { sql } from "kysely";
import { ActivityRecorder } from "./activity.ts";

let store: TestStore;
before(async () => (store = await openTestStore()));
after(() => store.close());

test("totals sum every user and token per minute, flushed rows and pending buckets alike", async () => {
  const minute = Date.parse("2026-11-22T10:00:00Z");
  let now = minute + 5_000;
  const activity = new ActivityRecorder(store.db, silentLogger, () => now);
  activity.record("ada", "token-a", "search", 2);
  activity.record("ada", undefined, "remember");
  activity.record("bob", "token-b", "search");
  await activity.flush();
  activity.record("bob", "token-b", "search"); // same minute, not flushed yet
  now = minute + 65_000;
  activity.record("ada", "token-a", "forget"); // the next minute, pending
  // Older than the window asked for: left out.
  await store.db.insertInto("metrics_samples")
    .values({
      minute: new Date(minute - 3 * 3_600_000),
      user_id: "ada",
      token_hash: "",
      counts: { search: 9 },
    })
    .execute();

  assert.deepEqual(await activity.totals(2), [
    { minute: "2026-11-22T10:00:00.000Z", counts: { search: 4, remember: 1 } },
    { minute: "2026-11-22T10:01:00.000Z", counts: { forget: 1 } },
  ]);
  assert.deepEqual(await activity.history("bob", 2), [
    { minute: "2026-11-22T10:00:00.000Z", counts: { search: 2 } },
  ]);
});

test("a failed flush keeps its samples, merged with newer ones, for the next flush", async () => {
  const minute = Date.parse("2026-11-22T12:00:00Z");
  const activity = new ActivityRecorder(store.db, silentLogger, () => minute + 1_000);
  activity.record("carol", "token-c", "remember", 3);
  // The table is unreachable for one flush.
  await sql`alter table metrics_samples rename to metrics_samples_away`.execute(store.db);
  await activity.flush();
  await sql`alter table metrics_samples_away rename to metrics_samples`.execute(store.db);
  activity.record("carol", "token-c", "remember", 2);
  await activity.flush();
  const rows = await store.db.selectFrom("metrics_samples").select(["counts"]).where("user_id", "=", "carol")
    .execute();
  assert.deepEqual(rows.map((r) => r.counts), [{ remember: 5 }]);
});
