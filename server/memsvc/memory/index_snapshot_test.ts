/**
 * When IndexSnapshot saves: a loaded snapshot's age counts from its own save, so one loaded old is
 * refreshed before a later start would refuse it, and one loaded fresh is not rewritten unchanged.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { silentLogger } from "../../../internal/log/mod.ts";
import { IndexSnapshot, type Persisted } from "./index_snapshot.ts";
import { PAUSE_IDLE_MS, RequestPauses } from "./request_pauses.ts";

const REFRESH_MS = 60_000;

/** An index whose snapshot was saved `age` ms ago, counting its saves. */
function loadedIndex(age: number): Persisted & { saves: number } {
  const savedAt = Date.now() - age;
  return {
    size: 10,
    unsaved: 0,
    changedAt: savedAt,
    loadedSavedAt: savedAt,
    saves: 0,
    load: () => Promise.resolve(true),
    save(): Promise<void> {
      this.saves++;
      return Promise.resolve();
    },
  };
}

describe("IndexSnapshot", () => {
  const options = { name: "keyword index", unit: "entries", settleMs: 1_000, refreshMs: REFRESH_MS };

  it("refreshes a loaded snapshot older than refreshMs, counted from its save, not from the start", async () => {
    const index = loadedIndex(REFRESH_MS + 1_000);
    const snapshot = new IndexSnapshot(index, "/nonexistent/keyword-index.bin", "i", silentLogger, options);
    assert.equal(await snapshot.load(), true);
    await snapshot.stop();
    assert.equal(index.saves, 1);
  });

  it("does not rewrite a fresh, unchanged loaded snapshot", async () => {
    const index = loadedIndex(1_000);
    const snapshot = new IndexSnapshot(index, "/nonexistent/keyword-index.bin", "i", silentLogger, options);
    assert.equal(await snapshot.load(), true);
    await snapshot.stop();
    assert.equal(index.saves, 0);
  });

  it("with pauses, a save that falls due waits for a pause between requests", async () => {
    const index = { ...loadedIndex(1_000), unsaved: 5_000 };
    const pauses = new RequestPauses();
    const dir = await Deno.makeTempDir();
    const snapshot = new IndexSnapshot(index, `${dir}/vector-index.bin`, "i", silentLogger, {
      name: "vector index",
      unit: "vectors",
      pauses,
    });
    const end = pauses.begin();
    snapshot.start(); // many unsaved changes: a save is due at once
    await new Promise((r) => setTimeout(r, PAUSE_IDLE_MS + 300));
    assert.equal(index.saves, 0, "a request is in flight");
    end();
    await new Promise((r) => setTimeout(r, PAUSE_IDLE_MS + 300));
    assert.equal(index.saves, 1, "saved in the pause");
    await snapshot.stop();
    await Deno.remove(dir, { recursive: true });
  });
});
