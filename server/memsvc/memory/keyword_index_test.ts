import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { encodeFrame, FullTextIndex, parseQuery } from "../../../internal/fulltext/mod.ts";
import { insertUser, openTestStore, type TestStore } from "../_test_store.ts";
import type { JsonValue } from "../store/db.ts";
import { readChangeMarks } from "./change_marks.ts";
import { contentHash, newEntryId } from "./entry.ts";
import {
  KEYWORD_FIELDS,
  KEYWORD_OPTIONS,
  KeywordIndex,
  SNAPSHOT_MAX_AGE_MS,
  textOf,
} from "./keyword_index.ts";
import {
  type KeywordSnapshotToWrite,
  readKeywordSnapshot,
  writeKeywordSnapshot,
} from "./keyword_snapshot.ts";

/** Exact matching: these tests follow words in and out of the index (query expansion has its own). */
const EXACT = { expansion: false };

describe("KeywordIndex on the database", () => {
  let store: TestStore;
  const ADA = "u:ada|default";
  const PROJECT = "p_kw|default";

  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "memsvc-keywords-"));
    store = await openTestStore();
    await insertUser(store.db, { id: "ada" });
    await insertUser(store.db, { id: "bob" });
    await store.db.insertInto("projects").values({ id: "p_kw", name: "kw", name_key: "kw", owner_id: "ada" })
      .execute();
  });
  after(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Writes as another process would: straight into the table. */
  async function write(
    content: string,
    extra: { session_id?: string; user_id?: string; metadata?: Record<string, unknown> } = {},
  ) {
    const id = newEntryId();
    await store.db.insertInto("memory_entries").values({
      id,
      user_id: extra.user_id ?? "ada",
      project_id: null,
      namespace: "default",
      content,
      content_hash: await contentHash(content),
      session_id: extra.session_id ?? null,
      ...(extra.metadata ? { metadata: extra.metadata as JsonValue } : {}),
    }).execute();
    return id;
  }
  const find = async (index: KeywordIndex, query: string, partitions = [ADA], k = 5) => {
    await index.sync();
    return index.search(parseQuery(query), new Set(partitions), k).map((h) => h.id);
  };

  it("sync(mark) reads only when the change sequence moved past what the index has seen", async () => {
    const index = new KeywordIndex(store.db, EXACT);
    await write("The lighthouse keeper logs the fog horn tests on Fridays.");
    const before = await readChangeMarks(store.db);
    await index.sync(before.entries);
    const late = await write("The fog horn at the lighthouse was replaced with an electric one.");
    await index.sync(before.entries);
    const search = () => index.search(parseQuery("fog horn"), new Set([ADA]), 5).map((h) => h.id);
    assert.ok(!search().includes(late), "an old mark skips the read");
    const after = await readChangeMarks(store.db);
    assert.ok(after.entries > before.entries);
    await index.sync(after.entries);
    assert.ok(search().includes(late), "a newer mark reads the write");

    // A deduplicated insert takes a number and leaves no row: the index reads once, finds nothing,
    // and reaches the mark; once the values passed over age out as gaps, that mark reads no more.
    await store.db.insertInto("memory_entries").values({
      id: newEntryId(),
      user_id: "ada",
      project_id: null,
      namespace: "default",
      content: "The fog horn at the lighthouse was replaced with an electric one.",
      content_hash: await contentHash("The fog horn at the lighthouse was replaced with an electric one."),
    }).onConflict((oc) => oc.doNothing()).execute();
    const deduplicated = await readChangeMarks(store.db);
    assert.ok(deduplicated.entries > after.entries, "the sequence moved");
    await index.sync(deduplicated.entries);
    await new Promise((r) => setTimeout(r, 3_100));
    await index.sync(deduplicated.entries); // the gaps age out
    const unseen = await write("Lighthouse fog horn drills moved to Mondays.");
    await index.sync(deduplicated.entries);
    assert.ok(!search().includes(unseen), "the reached mark skips the read");
    await index.sync((await readChangeMarks(store.db)).entries);
    assert.ok(search().includes(unseen));
  });

  it("finds a turn through its session neighbours, and rebuilds the same from the database", async () => {
    const index = new KeywordIndex(store.db, EXACT);
    await write("The marina raised the mooring fees for sailboats again.");
    const ask = await write("I finally settled on a name for the sailboat.", { session_id: "s1" });
    await write("Exciting! What did you go with?", { session_id: "s1" });
    const answer = await write("Wandering Heron, after my grandmother's fishing village.", {
      session_id: "s1",
    });
    await write("Unrelated: the heron in the park is back.", { session_id: "s2" });
    const found = await find(index, "What name did I give my sailboat?");
    assert.equal(found[0], ask);
    // Without expansion the third turn holds no query word; with it, it is found.
    assert.ok(found.includes(answer), JSON.stringify(found));
    assert.deepEqual(index.neighbours(answer, 2).length, 2);
    // A new process (a restart after a crash) rebuilds the same answer from the rows alone.
    const fresh = new KeywordIndex(store.db, EXACT);
    assert.deepEqual(await find(fresh, "What name did I give my sailboat?"), found);
  });

  it("ranks a turn by who said it: metadata `speaker` is a field of the content's weight", async () => {
    const index = new KeywordIndex(store.db, EXACT);
    // Separate conversations, so neither lends to the other or is the other's context.
    const rachel = await write(
      "Ross, honestly, I would call her Emma, after my favourite aunt from Long Island.",
      {
        session_id: "rachel",
        metadata: { speaker: "Rachel Green" },
      },
    );
    const ross = await write("I would call him Jordie.", {
      session_id: "ross",
      metadata: { speaker: "Ross Geller" },
    });
    // "ross" is once in Rachel's words and is Ross's speaker: the field weighs like content, and his
    // turn is the shorter. As a tag (0.3, before the field) it ranked below Rachel's mention.
    assert.deepEqual((await find(index, "What would Ross call the baby?")).slice(0, 2), [ross, rachel]);
    assert.deepEqual((await find(index, "what did Rachel Green say")).slice(0, 1), [rachel]);

    // The query's words that are a speaker's name in scope (search's speaker prior); a name only
    // mentioned, or a speaker of another user's entries, is not one.
    await write("Joey said the pizza was cold.", { user_id: "bob", metadata: { speaker: "Joey" } });
    await index.sync();
    const named = (
      q: string,
      partitions = [ADA],
    ) => [...index.namedSpeakers(parseQuery(q), new Set(partitions))];
    assert.deepEqual(named("What would Ross call the baby?"), ["ross"]);
    assert.deepEqual(named("Did Rachel tell Ross about Emma?").sort(), ["rachel", "ross"]);
    assert.deepEqual(named("Where does Joey live?"), []);
    assert.deepEqual(named("Where does Joey live?", ["u:bob|default"]), ["joey"]);
  });

  it("follows deletes, scope moves, cold flags and other users' rows", async () => {
    const index = new KeywordIndex(store.db, EXACT);
    const a = await write("Backups of the billing database run at 02:00 UTC.");
    const b = await write("The billing database lives on db-prod-3.");
    const bobs = await write("Bob's billing database notes.", { user_id: "bob" });
    assert.deepEqual((await find(index, "billing database")).sort(), [a, b].sort());
    assert.deepEqual(await find(index, "billing database", ["u:bob|default"]), [bobs]);

    await store.db.deleteFrom("memory_entries").where("id", "=", a).execute();
    assert.deepEqual(await find(index, "billing database"), [b]);

    await store.db.updateTable("memory_entries").set({ project_id: "p_kw" }).where("id", "=", b).execute();
    assert.deepEqual(await find(index, "billing database"), []);
    assert.deepEqual(await find(index, "billing database", [ADA, PROJECT]), [b]);

    await store.db.updateTable("memory_entries").set({ cold: true }).where("id", "=", b).execute();
    assert.deepEqual(await find(index, "billing database", [ADA, PROJECT]), []);
    await store.db.updateTable("memory_entries").set({
      cold: false,
      content: "The ledger lives on db-prod-3.",
    })
      .where("id", "=", b).execute();
    assert.deepEqual(await find(index, "billing database", [ADA, PROJECT]), []);
    assert.deepEqual(await find(index, "ledger", [ADA, PROJECT]), [b]);
    // A project's deletion cascades to its entries; the deletion log tells the index.
    await store.db.deleteFrom("projects").where("id", "=", "p_kw").execute();
    assert.deepEqual(await find(index, "ledger", [ADA, PROJECT]), []);
  });

  it("sees a write committed out of order below values it has already read", async () => {
    const index = new KeywordIndex(store.db, EXACT);
    await find(index, "anything");
    // Take a sequence value, let a later write commit first, then commit the earlier one.
    const { rows } = await sql<{ n: string }>`select nextval('memory_change_seq') as n`.execute(store.db);
    const late = await write("A later write about kestrels.");
    assert.deepEqual(await find(index, "kestrels"), [late]);
    const early = newEntryId();
    await store.db.insertInto("memory_entries").values({
      id: early,
      user_id: "ada",
      project_id: null,
      namespace: "default",
      content: "An earlier write about kestrels, committed last.",
      content_hash: await contentHash("An earlier write about kestrels, committed last."),
      change_seq: rows[0]!.n,
    }).execute();
    assert.deepEqual((await find(index, "kestrels")).sort(), [early, late].sort());
  });

  describe("snapshots", () => {
    const INSTANCE = "test-instance";
    const queries = ["osprey nest", "osprey", "harbour crane", "what did I say about the lighthouse keeper?"];
    const answers = async (index: KeywordIndex) => {
      const out: string[][] = [];
      for (const q of queries) out.push(await find(index, q, [ADA, PROJECT, "u:bob|default"], 10));
      return out;
    };
    const fresh = async (file: string) => {
      const index = new KeywordIndex(store.db, EXACT);
      return { index, loaded: await index.load(file, INSTANCE) };
    };

    it("round-trips sessions, scopes and deletes, and catches up with writes made after the save", async () => {
      await store.db.insertInto("projects").values({
        id: "p_kw",
        name: "kw",
        name_key: "kw",
        owner_id: "ada",
      })
        .onConflict((oc) => oc.column("id").doNothing()).execute();
      await write("An osprey built a nest on the harbour crane.", { session_id: "birds" });
      const keeper = await write("The lighthouse keeper logs every osprey sighting.", {
        session_id: "birds",
      });
      const quiet = await write("She answered: forty-two this spring.", { session_id: "birds" });
      const bobs = await write("Bob saw an osprey nest too.", { user_id: "bob" });
      const gone = await write("A harbour crane was dismantled.");
      const project = newEntryId();
      await store.db.insertInto("memory_entries").values({
        id: project,
        user_id: "ada",
        project_id: "p_kw",
        namespace: "default",
        content: "Project note: the osprey camera streams the nest.",
        content_hash: await contentHash("Project note: the osprey camera streams the nest."),
      }).execute();
      const index = new KeywordIndex(store.db, EXACT);
      const before = await answers(index);
      assert.ok(before[3]!.includes(quiet), "a session neighbour is found through its context");
      const file = join(dir, "round-trip.bin");
      await index.save(file, INSTANCE);
      assert.equal(index.unsaved, 0);

      const { index: loaded, loaded: ok } = await fresh(file);
      assert.ok(ok);
      assert.equal(loaded.size, index.size);
      assert.deepEqual(await answers(loaded), before);
      assert.deepEqual(loaded.neighbours(keeper, 1).sort(), index.neighbours(keeper, 1).sort());

      // Written after the save, as if the process had crashed before saving again: a start that loads
      // the old snapshot sees every change through catch-up.
      await store.db.deleteFrom("memory_entries").where("id", "=", gone).execute();
      await store.db.updateTable("memory_entries").set({ content: "Bob saw a heron instead." })
        .where("id", "=", bobs).execute();
      const added = await write("The osprey chicks fledged in July.", { session_id: "birds" });
      await store.db.updateTable("memory_entries").set({ cold: true }).where("id", "=", project).execute();
      const { index: restarted, loaded: again } = await fresh(file);
      assert.ok(again);
      const after = await answers(restarted);
      // The same as the saved index that kept running; the same hits as a rebuild from the rows (whose
      // order may differ: impacts are computed against the average lengths of when a row was added).
      assert.deepEqual(after, await answers(index));
      const rebuilt = await answers(new KeywordIndex(store.db, EXACT));
      assert.deepEqual(after.map((ids) => ids.sort()), rebuilt.map((ids) => ids.sort()));
      assert.ok(!after.flat().includes(gone) && !after.flat().includes(project));
      assert.ok(!after[1]!.includes(bobs) && after[1]!.includes(added), JSON.stringify(after[1]));
      assert.deepEqual(restarted.neighbours(added, 1), [quiet]);
    });

    it("loads a snapshot of the first format (metadata as JSON in each index's header) the same", async () => {
      await write("A curlew called over the estuary at dusk.", { session_id: "shore" });
      const answer = await write("Forty of them, by my count.", { session_id: "shore" });
      await write("Curlews winter on the mudflats.", { user_id: "bob" });
      const index = new KeywordIndex(store.db, EXACT);
      const expected = await answers(index);
      const file = join(dir, "first-format.bin");
      await index.save(file, INSTANCE);
      const current = (await readKeywordSnapshot(file))!;
      assert.ok(current.partitions.every((p) => p.columns), "saves write columns");
      // The same indexes re-framed as the first format wrote them.
      const { partitions, ...rest } = current;
      const bytes = partitions.map(({ bytes, columns: c }) =>
        FullTextIndex.deserialize(
          KEYWORD_FIELDS,
          bytes,
          (
            _,
            n,
          ) => [c!.cold[n], c!.capture[n], c!.change[n], c!.hash[n], c!.sessions[c!.session[n]!] ?? null],
          KEYWORD_OPTIONS,
        ).serialize((meta) => meta)
      );
      await writeFile(
        file,
        encodeFrame("memsvc-keywords-1\n", { ...rest, partitions: partitions.map((p) => p.key) }, bytes),
      );
      const old = (await readKeywordSnapshot(file))!;
      assert.ok(old.partitions.every((p) => !p.columns), "read as the first format");
      const { index: loaded, loaded: ok } = await fresh(file);
      assert.ok(ok);
      assert.equal(loaded.unsaved, 0, "nothing read from the database");
      assert.deepEqual(await answers(loaded), expected);
      assert.deepEqual(await find(loaded, "curlew estuary"), await find(index, "curlew estuary"));
      assert.deepEqual(loaded.neighbours(answer, 1), index.neighbours(answer, 1));
      assert.equal(loaded.neighbours(answer, 1).length, 1);
    });

    it("loads a snapshot of the second format (columns, the file checksummed in JavaScript) the same", async () => {
      await write("A godwit probed the mud for worms.", { session_id: "flats" });
      const answer = await write("Seven of them at low tide.", { session_id: "flats" });
      const index = new KeywordIndex(store.db, EXACT);
      const expected = await answers(index);
      const file = join(dir, "second-format.bin");
      await index.save(file, INSTANCE);
      const current = (await readFile(file)).subarray(0, 18);
      assert.equal(new TextDecoder().decode(current), "memsvc-keywords-3\n", "saves write the third format");
      const { partitions, ...rest } = (await readKeywordSnapshot(file))!;
      await writeFile(
        file,
        encodeFrame(
          "memsvc-keywords-2\n",
          { ...rest, partitions: partitions.map((p) => ({ key: p.key, sessions: p.columns!.sessions })) },
          partitions.flatMap((
            { bytes, columns: c },
          ) => [bytes, c!.cold, c!.capture, c!.change, c!.hash, c!.session]),
        ),
      );
      const { index: loaded, loaded: ok } = await fresh(file);
      assert.ok(ok);
      assert.equal(loaded.unsaved, 0, "nothing read from the database");
      assert.deepEqual(await answers(loaded), expected);
      assert.deepEqual(await find(loaded, "godwit mud"), await find(index, "godwit mud"));
      assert.deepEqual(loaded.neighbours(answer, 1), index.neighbours(answer, 1));
      // Damaged in a section's byte: refused, like the current format.
      const bytes = await readFile(file);
      bytes[bytes.length - 5]! ^= 0xff;
      await writeFile(file, bytes);
      assert.equal((await fresh(file)).loaded, false);
    });

    it("round-trips again after deletes, session edits and new turns on a loaded index (slots reused)", async () => {
      const a = await write("A heron fished the reed bed at dawn.", { session_id: "reeds" });
      const b = await write("It caught an eel, then a perch.", { session_id: "reeds" });
      const c = await write("Later a bittern boomed from the reeds.", { session_id: "reeds" });
      const first = join(dir, "again-1.bin");
      await new KeywordIndex(store.db, EXACT).save(first, INSTANCE);
      const { index: loaded } = await fresh(first);
      await loaded.sync();
      await store.db.deleteFrom("memory_entries").where("id", "=", b).execute();
      const d = await write("The perch was a big one, they said.", { session_id: "reeds" });
      await store.db.updateTable("memory_entries").set({
        content: "A grey heron fished the reed bed at dawn.",
      })
        .where("id", "=", a).execute();
      await loaded.sync();
      assert.deepEqual(loaded.neighbours(c, 1).sort(), [a, d].sort());
      const second = join(dir, "again-2.bin");
      await loaded.save(second, INSTANCE);
      const { index: again, loaded: ok } = await fresh(second);
      assert.ok(ok);
      const rebuilt = new KeywordIndex(store.db, EXACT);
      for (const q of ["grey heron", "perch", "bittern reeds", "eel"]) {
        assert.deepEqual(await find(again, q), await find(loaded, q), q);
        assert.deepEqual((await find(again, q)).sort(), (await find(rebuilt, q)).sort(), q);
      }
      assert.ok(!(await find(again, "eel")).includes(b));
      assert.deepEqual(again.neighbours(c, 1).sort(), [a, d].sort());
      assert.equal(again.size, rebuilt.size);
    });

    it("keeps the gaps it had not seen filled, so an out-of-order commit after the save is found", async () => {
      const index = new KeywordIndex(store.db, EXACT);
      await index.sync();
      const { rows } = await sql<{ n: string }>`select nextval('memory_change_seq') as n`.execute(store.db);
      const late = await write("Late write about a cormorant.");
      assert.deepEqual(await find(index, "cormorant"), [late]);
      const file = join(dir, "gaps.bin");
      await index.save(file, INSTANCE);
      const early = newEntryId();
      await store.db.insertInto("memory_entries").values({
        id: early,
        user_id: "ada",
        project_id: null,
        namespace: "default",
        content: "Early write about a cormorant, committed after the save.",
        content_hash: await contentHash("Early write about a cormorant, committed after the save."),
        change_seq: rows[0]!.n,
      }).execute();
      const { index: loaded, loaded: ok } = await fresh(file);
      assert.ok(ok);
      assert.deepEqual((await find(loaded, "cormorant")).sort(), [early, late].sort());
    });

    it("falls back to a rebuild on a missing, damaged, truncated, foreign, old or future snapshot", async () => {
      await write("A pelican stole the fisherman's lunch.");
      const index = new KeywordIndex(store.db, EXACT);
      const expected = await find(index, "pelican lunch");
      const file = join(dir, "fallback.bin");
      await index.save(file, INSTANCE);
      const good = await readFile(file);
      const snapshot = (await readKeywordSnapshot(file))! as KeywordSnapshotToWrite;

      const refused = async (what: string, prepare: () => Promise<void>, instance = INSTANCE) => {
        await prepare();
        const other = new KeywordIndex(store.db, EXACT);
        assert.equal(await other.load(file, instance), false, what);
        assert.deepEqual(await find(other, "pelican lunch"), expected, `${what}: rebuilt`);
        await writeFile(file, good);
      };
      await refused("missing", () => rm(file));
      await refused("damaged", async () => {
        const bad = Uint8Array.from(good);
        bad[bad.length - 200]! ^= 0x40;
        await writeFile(file, bad);
      });
      await refused("truncated", () => writeFile(file, good.subarray(0, good.length >> 1)));
      await refused("another database's", async () => {}, "other-instance");
      await refused(
        "older than the deletion log",
        () => writeKeywordSnapshot(file, { ...snapshot, savedAt: Date.now() - SNAPSHOT_MAX_AGE_MS - 1 }),
      );
      await refused(
        "ahead of the database (a restore)",
        () => writeKeywordSnapshot(file, { ...snapshot, seen: snapshot.seen + 1_000_000 }),
      );
      const { loaded } = await fresh(file);
      assert.ok(loaded, "the untouched file loads");
    });
  });
});

describe("textOf", () => {
  it("takes a string metadata `speaker` as the speaker field and the other values as tags", () => {
    assert.deepEqual(
      textOf({ content: "hi there", metadata: { speaker: "Ross", date: "2024-01-02" }, source_type: "chat" }),
      {
        content: "hi there",
        tags: "chat 2024-01-02",
        speaker: "Ross",
      },
    );
    // No speaker, or one that is not a string: everything stays a tag.
    assert.deepEqual(textOf({ content: "x", metadata: { role: "user" }, source_type: null }), {
      content: "x",
      tags: " user",
      speaker: "",
    });
    assert.equal(textOf({ content: "x", metadata: { speaker: ["Ross"] }, source_type: null }).tags, " Ross");
  });
});
