/**
 * Search over the real index, on the embedded database and on PostgreSQL 15: both must answer the
 * same. Each backend gets one database, seeded once; tests that change notes use their own users.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { removeDataDirs } from "../../../internal/db/_test_data_dir.ts";
import type { Database } from "../../../internal/db/mod.ts";
import { type PostgresServer, startPostgres } from "../../../test/harness/postgres.ts";
import { openSearchDb } from "./_test_search_db.ts";
import { backlinks } from "./link_graph.ts";
import {
  indexedVersions,
  type NoteDocument,
  removeFolder,
  removeNote,
  removeUserIndex,
  renameFolder,
  renameNote,
  upsertNote,
  upsertNotes,
} from "./note_index.ts";
import { SearchQueryError } from "./parse_search_query.ts";
import type { SearchTables } from "./schema.ts";
import { SEARCH_LIMITS, searchNotes, type SearchScope } from "./search_notes.ts";

let postgres: PostgresServer | undefined;
before(async () => {
  postgres = await startPostgres();
});
after(async () => {
  await postgres?.stop();
  await removeDataDirs();
});

let clock = Date.UTC(2026, 0, 1);
function note(path: string, body: string, extra: Partial<NoteDocument> = {}): NoteDocument {
  clock += 60_000;
  return {
    path,
    title: path.replace(/^.*\//, "").replace(/\.md$/, ""),
    tags: [],
    body,
    contentHash: `sha256:${body.length}:${body.slice(0, 20)}:${clock}`,
    mtime: new Date(clock),
    size: body.length,
    links: [],
    ...extra,
  };
}

const ALICE = "alice";
const BOB = "bob";
const ALICE_NOTES: NoteDocument[] = [
  note("Ops/Retry policy.md", "How the billing worker backs off. Keep it short."),
  note("Ops/Tagged.md", "A note about the billing worker and deploys.", { tags: ["retry"] }),
  note(
    "Ops/Long.md",
    `${"Quarterly planning notes with many unrelated words about budgets and hiring. ".repeat(40)}` +
      "Once we mentioned a retry here.",
  ),
  note("Ops/Dense.md", "Retry, retry, retry: the retry loop retries three times before it gives up."),
  note("Eng/Pools.md", "We tuned the connection pool size to 20 after the outage."),
  note("Eng/Split.md", "The pool of workers opens a connection per job."),
  note("Eng/Hooks.md", "The React hook useEffect runs after render; to be or not to be is not a hook."),
  note("Eng/Running.md", "Running the migrations twice is safe; pagination of results is stable."),
  note("Work/Plan.md", "Budget plan for work.", { tags: ["Project/Atlas", "todo"] }),
  note("Worklog/Monday.md", "Budget meeting notes.", { tags: ["project/beacon"] }),
  note("Work/Sub/Deep.md", "Budget details deep inside.", { tags: ["project"] }),
  note("Danger.md", `Escape <script>alert("budget")</script> & "quotes"`),
];

const backends: Record<string, () => Promise<Database<SearchTables>>> = {
  pglite: () => openSearchDb(),
  postgres: () => openSearchDb(postgres!.url),
};

for (const [backend, open] of Object.entries(backends)) {
  describe(`search on ${backend}`, () => {
    let database: Database<SearchTables>;
    const alice: SearchScope = { userId: ALICE };
    const search = (q: string, scope = alice, options = {}) => searchNotes(database.db, scope, q, options);
    const paths = async (q: string, scope = alice) => (await search(q, scope)).hits.map((h) => h.path);

    before(async () => {
      database = await open();
      for (const n of ALICE_NOTES) await upsertNote(database.db, ALICE, n);
      await upsertNote(database.db, BOB, note("Ops/Bob retry.md", "Bob's own retry notes."));
      await upsertNote(database.db, BOB, note("Shared/Retry runbook.md", "Shared retry runbook."));
      await upsertNote(
        database.db,
        BOB,
        note("Shared2/Retry.md", "Not shared: the folder only starts alike."),
      );
    });
    after(async () => {
      await database?.close();
    });

    test("ranks a title match over a tag match over a body match, and a dense note over a long one", async () => {
      const page = await search("retry");
      assert.deepEqual(page.hits.map((h) => h.path), [
        "Ops/Retry policy.md",
        "Ops/Tagged.md",
        "Ops/Dense.md",
        "Ops/Long.md",
      ]);
      assert.equal(page.total, 4);
      const scores = page.hits.map((h) => h.score);
      assert.deepEqual([...scores].sort((a, b) => b - a), scores);
      assert.ok(scores.every((s) => s > 0));
    });

    test("words are stemmed: retries finds retry", async () => {
      assert.ok((await paths("retries")).includes("Ops/Retry policy.md"));
    });

    test("a phrase needs its words together and in order; the words alone do not", async () => {
      assert.deepEqual(await paths('"connection pool"'), ["Eng/Pools.md"]);
      assert.deepEqual((await paths("connection pool")).sort(), ["Eng/Pools.md", "Eng/Split.md"]);
      assert.deepEqual(await paths('"pool connection"'), []);
    });

    test("prefixes match unstemmed words", async () => {
      assert.deepEqual(await paths("runn*"), ["Eng/Running.md"]);
      assert.deepEqual(await paths("pagin*"), ["Eng/Running.md"]);
      assert.deepEqual(await paths("useEff*"), ["Eng/Hooks.md"]);
    });

    test("stop words and code identifiers still match through the exact half", async () => {
      assert.deepEqual(await paths("useEffect"), ["Eng/Hooks.md"]);
      assert.deepEqual(await paths('"to be or not to be"'), ["Eng/Hooks.md"]);
    });

    test("OR and exclusions", async () => {
      assert.deepEqual((await paths("useEffect OR pagination")).sort(), ["Eng/Hooks.md", "Eng/Running.md"]);
      assert.deepEqual(await paths("connection -outage"), ["Eng/Split.md"]);
      assert.deepEqual((await paths('retry -"billing worker"')).sort(), ["Ops/Dense.md", "Ops/Long.md"]);
    });

    test("tag filters match nested tags, case-insensitively, and combine with text", async () => {
      assert.deepEqual((await paths("tag:project")).sort(), [
        "Work/Plan.md",
        "Work/Sub/Deep.md",
        "Worklog/Monday.md",
      ]);
      assert.deepEqual(await paths("#project/atlas"), ["Work/Plan.md"]);
      assert.deepEqual(await paths("budget tag:TODO"), ["Work/Plan.md"]);
      assert.deepEqual((await paths("budget -tag:project/beacon tag:project")).sort(), [
        "Work/Plan.md",
        "Work/Sub/Deep.md",
      ]);
    });

    test("folder filters match the folder and below it, never a folder that only starts alike", async () => {
      assert.deepEqual((await paths("budget folder:work")).sort(), ["Work/Plan.md", "Work/Sub/Deep.md"]);
      assert.deepEqual(await paths("folder:Work/Sub"), ["Work/Sub/Deep.md"]);
      assert.deepEqual((await paths("budget folder:Worklog folder:Work/Sub")).sort(), [
        "Work/Sub/Deep.md",
        "Worklog/Monday.md",
      ]);
      assert.deepEqual((await paths("budget -folder:work -folder:worklog")).sort(), [
        "Danger.md",
        "Ops/Long.md",
      ]);
      assert.deepEqual(await paths("path:monday"), ["Worklog/Monday.md"]);
    });

    test("a filters-only query lists notes newest first, with the start of the note as snippet", async () => {
      const page = await search("folder:Ops");
      assert.deepEqual(page.hits.map((h) => h.path), [
        "Ops/Dense.md",
        "Ops/Long.md",
        "Ops/Tagged.md",
        "Ops/Retry policy.md",
      ]);
      assert.ok(page.hits.every((h) => h.score === 0));
      assert.equal(
        page.hits[0]!.snippet,
        "Retry, retry, retry: the retry loop retries three times before it gives up.",
      );
    });

    test("snippets mark the matches and escape the note's HTML", async () => {
      const [hit] = (await search('"retry loop"')).hits;
      assert.match(hit!.snippet, /the <mark>retry<\/mark> <mark>loop<\/mark> <mark>retries<\/mark>/);
      const [danger] = (await search("alert")).hits;
      assert.equal(
        danger!.snippet,
        "Escape &lt;script&gt;<mark>alert</mark>(&quot;budget&quot;)&lt;/script&gt; &amp; &quot;quotes&quot;",
      );
    });

    test("hits carry what a result list shows", async () => {
      const [hit] = (await search("atlas")).hits;
      assert.equal(hit!.ownerId, ALICE);
      assert.equal(hit!.path, "Work/Plan.md");
      assert.equal(hit!.folder, "Work");
      assert.equal(hit!.title, "Plan");
      assert.deepEqual(hit!.tags, ["Project/Atlas", "todo"]);
      assert.ok(hit!.mtime instanceof Date);
      assert.equal(hit!.size, "Budget plan for work.".length);
    });

    test("pages: limit, offset and the total of all matches", async () => {
      const all = (await search("budget", alice, { limit: 100 })).hits.map((h) => h.path);
      assert.equal(all.length, 5);
      const first = await search("budget", alice, { limit: 4 });
      const second = await search("budget", alice, { limit: 4, offset: 4 });
      assert.equal(first.total, 5);
      assert.equal(first.totalCapped, false);
      assert.equal(second.total, 5);
      assert.deepEqual([...first.hits, ...second.hits].map((h) => h.path), all);
      const past = await search("budget", alice, { limit: 4, offset: 40 });
      assert.deepEqual(past.hits, []);
      assert.equal(past.total, 5);
      await assert.rejects(search("budget", alice, { limit: 0 }), RangeError);
      await assert.rejects(search("budget", alice, { limit: 101 }), RangeError);
      await assert.rejects(search("budget", alice, { offset: -1 }), RangeError);
    });

    test("each user sees only their own notes, plus exactly what was shared with them", async () => {
      assert.ok(!(await paths("bob")).length);
      const bob = (await search("retry", { userId: BOB })).hits.map((h) => h.path).sort();
      assert.deepEqual(bob, ["Ops/Bob retry.md", "Shared/Retry runbook.md", "Shared2/Retry.md"]);
      const shared = await search("retry", {
        userId: ALICE,
        shared: [{ ownerId: BOB, path: "Shared/" }, { ownerId: BOB, path: "Ops/Nope.md" }],
      });
      const found = shared.hits.map((h) => `${h.ownerId}:${h.path}`);
      assert.ok(found.includes("bob:Shared/Retry runbook.md"));
      assert.ok(
        !found.includes("bob:Shared2/Retry.md"),
        "a folder share matches by prefix with a trailing /",
      );
      assert.ok(!found.includes("bob:Ops/Bob retry.md"));
      assert.equal(found.filter((f) => f.startsWith("alice:")).length, 4);
      const one = await search("retry", {
        userId: ALICE,
        shared: [{ ownerId: BOB, path: "Ops/Bob retry.md" }],
      });
      assert.ok(one.hits.some((h) => h.ownerId === BOB && h.path === "Ops/Bob retry.md"));
    });

    test("a malformed query is a SearchQueryError; user text never reaches SQL as code", async () => {
      await assert.rejects(search('"unclosed'), SearchQueryError);
      await assert.rejects(search("-only"), SearchQueryError);
      for (
        const evil of ["'); drop table note_index; --", "x' OR '1'='1", "a\\' :* | !b", "retry\0", "ab'&!cd*"]
      ) {
        const page = await search(evil);
        assert.ok(Array.isArray(page.hits), evil);
      }
      await assert.rejects(search("\\' :* | !"), SearchQueryError);
      await assert.rejects(search("'ab':*"), SearchQueryError);
      assert.ok((await paths("retry")).length > 0, "the index is still there");
    });

    test("re-indexing replaces the text; an unchanged hash only refreshes mtime", async () => {
      const user = `${backend}-reindex`;
      const first = note("a.md", "alpha words here");
      assert.equal(await upsertNote(database.db, user, first), true);
      const touched = { ...first, mtime: new Date(clock + 1000) };
      assert.equal(await upsertNote(database.db, user, touched), false);
      assert.equal((await indexedVersions(database.db, user)).get("a.md")!.mtime.getTime(), clock + 1000);
      assert.equal(
        await upsertNote(database.db, user, { ...first, body: "beta words now", contentHash: "h2" }),
        true,
      );
      const scope = { userId: user };
      assert.deepEqual(await paths("alpha", scope), []);
      assert.deepEqual(await paths("beta", scope), ["a.md"]);
    });

    test("a hit's title and snippet follow a rewrite of the note, by this handle or another", async () => {
      const user = `${backend}-rewrite`;
      const scope = { userId: user };
      await upsertNote(database.db, user, note("r.md", "gamma first words", { title: "First" }));
      const hit = async () => (await search("gamma", scope)).hits[0]!;
      assert.equal((await hit()).title, "First");
      assert.match((await hit()).snippet, /first words/); // twice: the second from the page's kept rows
      await upsertNote(database.db, user, {
        ...note("r.md", "gamma second words", { title: "Second" }),
        contentHash: "h2",
      });
      assert.equal((await hit()).title, "Second");
      assert.match((await hit()).snippet, /second words/);
      // Another handle on the same database (another replica on PostgreSQL; on PGlite the same one).
      const other = backend === "postgres" ? await openSearchDb(postgres!.url) : database;
      try {
        await upsertNote(other.db, user, {
          ...note("r.md", "gamma third words", { title: "Third" }),
          contentHash: "h3",
        });
        assert.equal((await hit()).title, "Third");
        assert.match((await hit()).snippet, /third words/);
      } finally {
        if (other !== database) await other.close();
      }
    });

    test("upsertNotes indexes many notes in batches, replacing what is there", async () => {
      const user = `${backend}-bulk`;
      const many = Array.from(
        { length: 120 },
        (_, i) =>
          note(`bulk/n${i}.md`, `bulk note number${i} <b>bold</b>`, {
            tags: [i % 2 ? "odd" : "even"],
            links: i > 0 ? [{ target: `bulk/n${i - 1}.md`, kind: "wiki" }] : [],
          }),
      );
      await upsertNotes(database.db, user, many);
      await upsertNotes(database.db, user, [{ ...many[7]!, body: "replaced text", contentHash: "new" }]);
      const scope = { userId: user };
      assert.equal((await indexedVersions(database.db, user)).size, 120);
      assert.equal((await search("bulk tag:odd", scope)).total, 59);
      assert.deepEqual(await paths("number119", scope), ["bulk/n119.md"]);
      assert.deepEqual(await paths("bold number3", scope), ["bulk/n3.md"]);
      assert.deepEqual(await paths("replaced", scope), ["bulk/n7.md"]);
      assert.deepEqual((await backlinks(database.db, user, "bulk/n118.md")).map((b) => b.path), [
        "bulk/n119.md",
      ]);
      await assert.rejects(upsertNotes(database.db, user, [note("/abs.md", "x")]), RangeError);
    });

    test("rename and delete move or drop the note and its links; links to it follow their text", async () => {
      const user = `${backend}-moves`;
      const scope = { userId: user };
      await upsertNote(database.db, user, note("A/target.md", "the target note about zebras"));
      await upsertNote(
        database.db,
        user,
        note("B/source.md", "links to the giraffe note", {
          links: [{ target: "A/target.md", kind: "wiki" }],
        }),
      );
      await renameNote(database.db, user, "A/target.md", "C/moved.md");
      assert.deepEqual(await paths("zebras", scope), ["C/moved.md"]);
      assert.deepEqual((await search("zebras", scope)).hits[0]!.folder, "C");
      assert.deepEqual(
        await paths("zebras folder:c", scope),
        ["C/moved.md"],
        "folder filter follows the move",
      );
      assert.deepEqual(await paths("zebras folder:a", scope), []);
      // The link still says A/target.md: unresolved until the source's text follows the move.
      assert.deepEqual(await backlinks(database.db, user, "C/moved.md"), []);
      assert.deepEqual(await backlinks(database.db, user, "A/target.md"), []);
      await upsertNote(
        database.db,
        user,
        note("B/source.md", "links to the giraffe note", { links: [{ target: "C/moved", kind: "wiki" }] }),
      );
      assert.deepEqual((await backlinks(database.db, user, "C/moved.md")).map((b) => b.path), [
        "B/source.md",
      ]);

      await renameFolder(database.db, user, "B", "D/E");
      assert.deepEqual(await paths("giraffe", scope), ["D/E/source.md"]);
      assert.deepEqual((await search("folder:d", scope)).hits.map((h) => h.folder), ["D/E"]);
      assert.deepEqual((await backlinks(database.db, user, "C/moved.md")).map((b) => b.path), [
        "D/E/source.md",
      ]);
      await assert.rejects(renameFolder(database.db, user, "D", "D/E/F"), RangeError);

      await removeNote(database.db, user, "C/moved.md");
      assert.deepEqual(await paths("zebras", scope), []);
      await removeFolder(database.db, user, "D");
      assert.equal((await indexedVersions(database.db, user)).size, 0);
      assert.deepEqual(await backlinks(database.db, user, "C/moved.md"), []);

      await upsertNote(database.db, user, note("gone.md", "zebras again"));
      await removeUserIndex(database.db, user);
      assert.equal((await indexedVersions(database.db, user)).size, 0);
      assert.deepEqual(await paths("zebras", scope), []);
    });

    test("a 1 MB note of unique words is indexed (the indexed part is capped) and found", async () => {
      const user = `${backend}-big`;
      let body = "needle ";
      for (let i = 0; body.length < 1_000_000; i++) body += `w${(i * 2654435761 >>> 0).toString(36)}x${i} `;
      await upsertNote(database.db, user, note("big.md", body));
      assert.deepEqual(await paths("needle", { userId: user }), ["big.md"]);
    });
  });
}

describe("search totals past the count cap", () => {
  test("count up to the cap, then say there are more", async () => {
    const database = await openSearchDb();
    try {
      const n = SEARCH_LIMITS.countCap + 5;
      await upsertNotes(
        database.db,
        "many",
        Array.from({ length: n }, (_, i) => ({
          path: `n${i}.md`,
          title: `n${i}`,
          tags: [],
          body: "common word",
          contentHash: `h${i}`,
          mtime: new Date(i * 1000),
          size: 1,
          links: [],
        })),
      );
      const page = await searchNotes(database.db, { userId: "many" }, "common", { limit: 3 });
      assert.equal(page.total, SEARCH_LIMITS.countCap);
      assert.equal(page.totalCapped, true);
      assert.deepEqual(page.hits.map((h) => h.path), [`n${n - 1}.md`, `n${n - 2}.md`, `n${n - 3}.md`]);
      const few = await searchNotes(database.db, { userId: "many" }, "common path:n100", { limit: 3 });
      assert.equal(few.total, 6); // n100.md and n1000.md to n1004.md
      assert.equal(few.totalCapped, false);
    } finally {
      await database.close();
    }
  });
});
