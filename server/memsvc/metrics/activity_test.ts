import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { silentLogger } from "../../../internal/log/mod.ts";
import { openTestStore, type TestStore } from "../_test_store.ts";
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
