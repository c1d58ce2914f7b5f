import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { analyze, stem } from "./analyzer.ts";
import { type FieldSpec, FullTextIndex, parseQuery } from "./index.ts";
import { readVarints, VarintWriter } from "./varint.ts";

const ids = (hits: { id: string }[]) => hits.map((h) => h.id);

describe("analyzer", () => {
  it("stems with Snowball English and keeps stop words in documents", () => {
    assert.deepEqual(analyze("The dogs were running, generously!"), [
      "the",
      "dog",
      "were",
      "run",
      "generous",
    ]);
    assert.equal(stem("connection"), "connect");
    assert.equal(stem("happily"), "happili");
  });

  it("drops stop and question words from queries unless nothing else is left", () => {
    assert.deepEqual([...parseQuery("what did I say about the sailboat?").terms.keys()], ["sailboat"]);
    assert.deepEqual([...parseQuery("what is it").terms.keys()], ["what", "is", "it"]);
    const q = parseQuery('postgres "connection pool" -mysql');
    assert.deepEqual(q.phrases, [["connect", "pool"]]);
    assert.deepEqual(q.excluded, ["mysql"]);
    assert.deepEqual([...q.terms.keys()], ["postgr", "connect", "pool"]);
  });
});

describe("FullTextIndex", () => {
  const corpus = () => {
    const index = new FullTextIndex<{ owner: string }>({
      content: { weight: 1, phrases: true },
      context: { weight: 0.5, excludable: false },
      tags: { weight: 0.3 },
    });
    index.add("short", { content: "postgres backup" }, { owner: "a" });
    index.add("long", {
      content: "postgres backup runs nightly with a long retention window and checks every archive",
    }, { owner: "a" });
    index.add("twice", { content: "postgres postgres backup" }, { owner: "a" });
    index.add("other", { content: "mysql backup" }, { owner: "a" });
    index.add("context", { content: "runs at midnight", context: "postgres backup" }, { owner: "a" });
    index.add("tagged", { content: "the nightly job" }, { owner: "a" });
    index.add("tagged2", { content: "ops notes", tags: "postgres" }, { owner: "b" });
    return index;
  };

  it("ranks by BM25F: term frequency saturates, long documents and weak fields score lower", () => {
    const hits = corpus().search("postgres backup", 10);
    // "other" (a two-word match of one term) beats "long" (both terms, 14 words): length counts.
    assert.deepEqual(ids(hits), ["twice", "short", "other", "long", "context", "tagged2"]);
    // Exact values pin the formula (k1 1.2, b 0.75, idf ln(1 + (N - df + .5)/(df + .5))).
    const index = new FullTextIndex({ content: { weight: 1 } });
    index.add("x", { content: "alpha beta" }, undefined);
    index.add("y", { content: "beta gamma" }, undefined);
    index.add("z", { content: "gamma delta epsilon" }, undefined);
    // Impacts use the average length when they were computed (2 here); drift past a quarter renormalises.
    const [x] = index.search("alpha", 1);
    const idf = Math.log(1 + (3 - 1 + 0.5) / (1 + 0.5));
    const tf = 1 / (1 - 0.75 + 0.75 * 2 / 2);
    assert.ok(Math.abs(x!.score - idf * tf * 2.2 / (tf + 1.2)) < 1e-6, String(x!.score));
  });

  it("takes k1 and b as options, and refuses a snapshot written with others", () => {
    const index = new FullTextIndex({ content: { weight: 1 } }, { k1: 0.5, b: 0.25 });
    index.add("x", { content: "alpha alpha beta" }, undefined);
    index.add("y", { content: "beta" }, undefined);
    // Average length 2; "x" holds alpha twice in 3 words.
    const [x] = index.search("alpha", 1);
    const idf = Math.log(1 + (2 - 1 + 0.5) / (1 + 0.5));
    const tf = 2 / (1 - 0.25 + 0.25 * 3 / 2);
    assert.ok(Math.abs(x!.score - idf * tf * 1.5 / (tf + 0.5)) < 1e-6, String(x!.score));
    const bytes = index.serialize(() => null);
    assert.equal(
      FullTextIndex.deserialize({ content: { weight: 1 } }, bytes, () => undefined, { k1: 0.5, b: 0.25 })
        .search("alpha", 1)[0]?.score,
      x!.score,
    );
    assert.throws(
      () => FullTextIndex.deserialize({ content: { weight: 1 } }, bytes, () => undefined),
      /other options/,
    );
  });

  it("keeps phrases and exclusions; exclusion ignores expansion context", () => {
    const index = corpus();
    assert.deepEqual(ids(index.search('"postgres backup"', 10)), ["twice", "short", "long"]);
    assert.deepEqual(ids(index.search("backup -postgres", 10)), ["other", "context"]);
    assert.deepEqual(ids(index.search("backup -mysql", 10)).includes("other"), false);
  });

  it("filters by scope, removes and replaces documents", () => {
    const index = corpus();
    assert.deepEqual(ids(index.search("postgres", 10, (m) => m.owner === "b")), ["tagged2"]);
    assert.ok(index.remove("twice"));
    assert.ok(!index.remove("twice"));
    index.add("short", { content: "nothing relevant here" }, { owner: "a" });
    assert.deepEqual(ids(index.search("postgres backup", 3)), ["other", "long", "context"]);
    assert.equal(index.size, 6);
  });

  it("a field's own b: 0 leaves its length out, so a field most documents lack does not sink the few", () => {
    const build = (speaker: { weight: number; b?: number }) => {
      const index = new FullTextIndex({ content: { weight: 1 }, speaker });
      // Many entries without a speaker: the field's average length is near 0.
      for (let i = 0; i < 20; i++) {
        index.add(`note${i}`, { content: `note ${i} about the garden` }, undefined);
      }
      index.add("mention", { content: "ross said the garden gate sticks again after the rain" }, undefined);
      index.add("said", { content: "the gate sticks", speaker: "Ross Geller" }, undefined);
      return index;
    };
    // With the index's b the speaker's two words count as twenty times the average: "said" ranks second.
    assert.deepEqual(ids(build({ weight: 1 }).search("ross gate", 2)), ["mention", "said"]);
    assert.deepEqual(ids(build({ weight: 1, b: 0 }).search("ross gate", 2)), ["said", "mention"]);
    // b is part of the spec a snapshot is checked against; a spec without it serialises as before.
    const index = build({ weight: 1, b: 0 });
    const bytes = index.serialize();
    assert.deepEqual(
      ids(
        FullTextIndex.deserialize(
          { content: { weight: 1 }, speaker: { weight: 1, b: 0 } },
          bytes,
          () => undefined,
        )
          .search("ross gate", 2),
      ),
      ["said", "mention"],
    );
    assert.throws(
      () =>
        FullTextIndex.deserialize({ content: { weight: 1 }, speaker: { weight: 1 } }, bytes, () => undefined),
      /other fields/,
    );
  });

  it("inField tells whether a live document holds a stem in one field, after removals and a snapshot", () => {
    const fields = { content: { weight: 1 }, speaker: { weight: 1, b: 0 } };
    const index = new FullTextIndex(fields);
    index.add("a", { content: "Kate, your hobbies sound fun" }, undefined);
    assert.equal(index.inField("kate", "content"), true);
    assert.equal(index.inField("kate", "speaker"), false, "named in a text, not a speaker");
    index.add("b", { content: "I ski", speaker: "Kate Lee" }, undefined);
    assert.equal(index.inField("kate", "speaker"), true);
    assert.equal(index.inField(stem("skiing"), "speaker"), false);
    assert.equal(index.inField("kate", "nosuchfield"), false);
    const loaded = FullTextIndex.deserialize(fields, index.serialize(), () => undefined);
    assert.equal(loaded.inField("lee", "speaker"), true);
    index.remove("b");
    assert.equal(index.inField("kate", "speaker"), false, "its only speaker is gone");
    assert.equal(index.inField("kate", "content"), true);
  });

  it("MaxScore pruning returns exactly what scoring every match would", () => {
    let seed = 7;
    const rand = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const vocab = Array.from({ length: 300 }, (_, i) => `w${i}x`);
    const index = new FullTextIndex<number>({ content: { weight: 1 }, context: { weight: 0.5 } });
    const docs: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const words = Array.from(
        { length: 3 + Math.floor(rand() * 20) },
        () => vocab[Math.floor(rand() ** 2 * 300)],
      );
      docs.push(words.join(" "));
      index.add(`d${i}`, { content: docs[i], context: i % 3 ? docs[i - 1] : undefined }, i);
      if (i % 10 === 0 && i > 0) index.remove(`d${i - 5}`);
    }
    for (let q = 0; q < 40; q++) {
      const query = [vocab[q], vocab[(q * 7) % 300], vocab[(q * 31) % 300]].join(" ");
      const k = 1 + (q % 15);
      const pruned = index.search(query, k, (m) => m % 4 !== 0);
      const all = index.search(query, 100_000, (m) => m % 4 !== 0).slice(0, k);
      assert.deepEqual(pruned.map((h) => h.score.toFixed(9)), all.map((h) => h.score.toFixed(9)), query);
    }
  });
});

describe("FullTextIndex.match", () => {
  interface Note {
    path: string;
    mtime: number;
  }
  const notes = () => {
    const index = new FullTextIndex<Note>({
      title: { weight: 5, phrases: true, tier: 2 },
      tags: { weight: 2, phrases: true, tier: 1 },
      body: { weight: 1, phrases: true },
      keys: { weight: 0, verbatim: true },
    }, { exactWords: true });
    const add = (path: string, mtime: number, title: string, body: string, tags: string[] = []) =>
      index.add(path, { title, tags: tags.join(" "), body, keys: tags.map((t) => `t:${t}`) }, {
        path,
        mtime,
      });
    add("title.md", 1, "Retry policy", "How the worker backs off.");
    add("tagged.md", 2, "Worker", "The worker and deploys.", ["retry"]);
    add("dense.md", 3, "Loop", "Retry, retry, retry: the retry loop retries three times.");
    add("long.md", 4, "Planning", `${"budgets and hiring ".repeat(40)} once a retry.`);
    add("running.md", 5, "Migrations", "Running the migrations is safe; runs twice.", ["ops"]);
    add("runs.md", 6, "Jobs", "It runs nightly.", ["ops"]);
    add("pool.md", 7, "Connection pool sizing", "We tuned it after the outage.");
    return index;
  };
  const word = (w: string) => ({ anyOf: [{ words: [[stem(w)]] }] });
  const paths = (page: { hits: { id: string }[] }) => page.hits.map((h) => h.id);

  it("ranks by tier (title over tags over body), then BM25F; scores fall in [tier, tier + 1)", () => {
    const page = notes().match({ clauses: [word("retry")] }, { limit: 10 });
    assert.deepEqual(paths(page), ["title.md", "tagged.md", "dense.md", "long.md"]);
    assert.equal(page.total, 4);
    const [title, tagged, dense] = page.hits.map((h) => h.score);
    assert.ok(title! >= 2 && title! < 3 && tagged! >= 1 && tagged! < 2 && dense! > 0 && dense! < 1);
  });

  it("all clauses or any clause", () => {
    const index = notes();
    const q = [word("worker"), word("deploys")];
    assert.deepEqual(paths(index.match({ clauses: q }, { limit: 10 })), ["tagged.md"]);
    assert.deepEqual(
      paths(index.match({ clauses: q, mode: "any" }, { limit: 10 })).sort(),
      ["tagged.md", "title.md"],
    );
    assert.equal(index.match({ clauses: [word("worker"), word("absent")] }, { limit: 10 }).total, 0);
  });

  it("prefixes match exact unstemmed words: runn* finds running, not runs", () => {
    const index = notes();
    const prefix = (p: string) => ({ anyOf: [{ words: [[{ prefix: p }]] }] });
    assert.deepEqual(paths(index.match({ clauses: [prefix("runn")] }, { limit: 10 })), ["running.md"]);
    assert.deepEqual(
      paths(index.match({ clauses: [prefix("run")] }, { limit: 10 })).sort(),
      ["running.md", "runs.md"],
    );
    // A word added after the vocabulary was sorted is found too.
    index.add("late.md", { title: "Runner", body: "" }, { path: "late.md", mtime: 8 });
    assert.deepEqual(paths(index.match({ clauses: [prefix("runne")] }, { limit: 10 })), ["late.md"]);
  });

  it("phrases are checked in every phrase field, title included", () => {
    const index = notes();
    const phrase = (...ws: string[]) => ({ anyOf: [{ words: ws.map((w) => [stem(w)]), phrase: true }] });
    assert.deepEqual(paths(index.match({ clauses: [phrase("connection", "pool")] }, { limit: 10 })), [
      "pool.md",
    ]);
    assert.deepEqual(paths(index.match({ clauses: [phrase("pool", "connection")] }, { limit: 10 })), []);
    assert.deepEqual(paths(index.match({ clauses: [phrase("retry", "loop")] }, { limit: 10 })), ["dense.md"]);
  });

  it("phrases are found alike in a loaded snapshot, term ids of one, two and three varint bytes", () => {
    const fields = { title: { weight: 5, phrases: true }, body: { weight: 1, phrases: true } };
    const index = new FullTextIndex<null>(fields);
    // 20,000 distinct words first, so the phrases' term ids take up to three bytes each.
    const filler = Array.from({ length: 20_000 }, (_, i) => `filler${i.toString(36)}x`);
    for (let i = 0; i < filler.length; i += 1_000) {
      index.add(`f${i}.md`, { title: "", body: filler.slice(i, i + 1_000).join(" ") }, null);
    }
    index.add("a.md", { title: "Pool sizing", body: "alpha beta gamma. Connection pool sizing" }, null);
    index.add("b.md", { title: "Notes", body: "gamma beta alpha; pool connection" }, null);
    index.add("c.md", { title: "Connection pool", body: "filler0x filler1x beta" }, null);
    const loaded = FullTextIndex.deserialize(fields, index.serialize(), () => null);
    const phrase = (...ws: string[]) => ({ anyOf: [{ words: ws.map((w) => [stem(w)]), phrase: true }] });
    const ask = (i: FullTextIndex<null>, ...ws: string[]) =>
      paths(i.match({ clauses: [phrase(...ws)] }, { limit: 10 })).sort();
    const cases: [string[], string[]][] = [
      [["connection", "pool"], ["a.md", "c.md"]],
      [["pool", "connection"], ["b.md"]],
      [["alpha", "beta", "gamma"], ["a.md"]],
      [["gamma", "beta", "alpha"], ["b.md"]],
      [["filler0x", "filler1x"], ["c.md", "f0.md"]],
      [["filler1x", "filler0x"], []],
      [["pool", "sizing"], ["a.md"]],
    ];
    for (const [ws, want] of cases) {
      assert.deepEqual(ask(index, ...ws), want, ws.join(" "));
      assert.deepEqual(ask(loaded, ...ws), want, `loaded: ${ws.join(" ")}`);
    }
  });

  it("exclusions, filters that do not rank, and a filter-only listing ordered by a tiebreak", () => {
    const index = notes();
    const newest = (a: Note, b: Note) => b.mtime - a.mtime;
    const ops = { anyOf: [{ words: [["t:ops"]] }], scored: false };
    const listed = index.match({ clauses: [ops] }, { limit: 10, tiebreak: newest });
    assert.deepEqual(paths(listed), ["runs.md", "running.md"]);
    assert.ok(listed.hits.every((h) => h.score === 0));
    const ranked = index.match({ clauses: [word("migrations"), ops] }, { limit: 10 });
    assert.deepEqual(paths(ranked), ["running.md"]);
    assert.ok(ranked.hits[0]!.score >= 2, "the filter key does not rank, the title word does");
    assert.deepEqual(
      paths(index.match({ clauses: [word("retry")], exclude: [word("worker")] }, { limit: 10 })),
      ["dense.md", "long.md"],
    );
    const everything = index.match({ clauses: [] }, {
      limit: 3,
      tiebreak: newest,
      accept: (m) => m.mtime > 1,
    });
    assert.deepEqual(paths(everything), ["pool.md", "runs.md", "running.md"]);
    assert.equal(everything.total, 6);
  });

  it("pages with offset and limit, and caps the total", () => {
    const index = new FullTextIndex<number>({ body: { weight: 1 } });
    for (let i = 0; i < 50; i++) index.add(`n${i}`, { body: "common word" }, i);
    const newest = (a: number, b: number) => b - a;
    const first = index.match({ clauses: [word("common")] }, { limit: 5, countCap: 20, tiebreak: newest });
    assert.deepEqual(paths(first), ["n49", "n48", "n47", "n46", "n45"]);
    assert.equal(first.total, 20);
    assert.equal(first.totalCapped, true);
    const second = index.match({ clauses: [word("common")] }, { offset: 5, limit: 5, tiebreak: newest });
    assert.deepEqual(paths(second), ["n44", "n43", "n42", "n41", "n40"]);
    assert.equal(second.total, 50);
    assert.equal(second.totalCapped, false);
    assert.deepEqual(paths(index.match({ clauses: [word("common")] }, { offset: 60, limit: 5 })), []);
  });

  it("past the count cap, phrases are still checked for every document that enters the page", () => {
    const index = new FullTextIndex<number>({ body: { weight: 1, phrases: true } });
    // Every document has both words; only every third has them as the phrase "word common".
    for (let i = 0; i < 60; i++) index.add(`n${i}`, { body: i % 3 ? "common word" : "word common" }, i);
    const phrase = { anyOf: [{ words: [[stem("word")], [stem("common")]], phrase: true }] };
    const newest = (a: number, b: number) => b - a;
    const page = index.match({ clauses: [phrase] }, { limit: 5, countCap: 3, tiebreak: newest });
    assert.deepEqual(paths(page), ["n57", "n54", "n51", "n48", "n45"]);
    assert.equal(page.total, 3);
    assert.equal(page.totalCapped, true);
    const all = index.match({ clauses: [phrase] }, { limit: 100 });
    assert.equal(all.total, 20);
  });
});

describe("FullTextIndex snapshots", () => {
  const FIELDS = {
    content: { weight: 1, phrases: true },
    context: { weight: 0.5, excludable: false },
    tags: { weight: 0.3 },
  };
  const build = () => {
    const index = new FullTextIndex<{ owner: string }>(FIELDS);
    let seed = 11;
    const rand = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const vocab = Array.from({ length: 200 }, (_, i) => `w${i}x`);
    for (let i = 0; i < 1500; i++) {
      const text = Array.from(
        { length: 2 + Math.floor(rand() * 15) },
        () => vocab[Math.floor(rand() ** 2 * 200)],
      )
        .join(" ");
      index.add(
        `d${i}`,
        { content: text, context: i % 2 ? "postgres backup" : undefined, tags: `t${i % 7}` },
        {
          owner: i % 3 ? "a" : "b",
        },
      );
      if (i % 9 === 0 && i > 0) index.remove(`d${i - 4}`);
    }
    return index;
  };
  const encode = (m: { owner: string }) => m.owner;
  const decode = (v: unknown) => ({ owner: v as string });
  const queries = ["w1x w5x", "w3x -w2x", '"w0x w1x"', "postgres w7x", "t3 w10x", "w150x w199x w2x"];
  const answers = (index: FullTextIndex<{ owner: string }>) =>
    queries.map((q) =>
      index.search(q, 20, (m) => m.owner === "a").map((h) => `${h.id}:${h.score.toFixed(6)}`)
    );

  it("without encodeMeta, writes no metadata and hands decodeMeta each entry's position instead", () => {
    const index = build();
    const owners = [...index.entries()].map(([, m]) => m.owner);
    const loaded = FullTextIndex.deserialize(FIELDS, index.serialize(), (v, n) => {
      assert.equal(v, undefined);
      return { owner: owners[n]! };
    });
    assert.deepEqual([...loaded.entries()], [...index.entries()]);
    assert.deepEqual(answers(loaded), answers(index));
  });

  it("round-trips: same answers, scores and metadata; adds and removes work after loading", () => {
    const index = build();
    const bytes = index.serialize(encode);
    const loaded = FullTextIndex.deserialize(FIELDS, bytes, decode);
    assert.equal(loaded.size, index.size);
    assert.deepEqual(answers(loaded), answers(index));
    assert.deepEqual(loaded.meta("d3"), { owner: "b" });
    assert.ok(!loaded.has("d5") && !index.has("d5")); // removed before the snapshot
    // Both change the same way afterwards (posting lists grow out of the loaded views).
    for (const i of [index, loaded]) {
      i.add("new", { content: "w1x w5x w5x fresh" }, { owner: "a" });
      i.remove("d2");
      i.add("d4", { content: "replaced w3x" }, { owner: "a" });
    }
    assert.deepEqual(answers(loaded), answers(index));
    assert.equal(loaded.search("fresh", 5)[0]?.id, "new");
    // A loaded index serialises again to the same answers.
    assert.deepEqual(
      answers(FullTextIndex.deserialize(FIELDS, loaded.serialize(encode), decode)),
      answers(index),
    );
  });

  it("loads the second format (term lists and sequences as Int32) and answers like the documents built anew", () => {
    const fixture = JSON.parse(
      readFileSync(new URL("../../test/fixtures/fulltext_index_v2.json", import.meta.url), "utf8"),
    ) as {
      fields: Record<string, FieldSpec>;
      docs: [string, Record<string, string>, { owner: string }][];
      removed: string[];
      base64: string;
    };
    const bytes = new Uint8Array(Buffer.from(fixture.base64, "base64"));
    assert.equal(new TextDecoder().decode(bytes.subarray(0, 17)), "fulltext-index-2\n");
    const built = new FullTextIndex<{ owner: string }>(fixture.fields);
    for (const [id, fields, meta] of fixture.docs) built.add(id, fields, meta);
    for (const id of fixture.removed) built.remove(id);
    const old = FullTextIndex.deserialize(fixture.fields, bytes, (m) => m as { owner: string });
    const qs = [
      "osprey nest",
      "harbour crane",
      '"osprey nest"',
      "postgres tuning -buffers",
      "crane",
      "work mem",
    ];
    const answer = (index: FullTextIndex<{ owner: string }>) =>
      qs.map((q) =>
        index.search(q, 10, (m) => m.owner === "u1" || q !== "crane").map((h) => [h.id, h.score])
      );
    assert.deepEqual(answer(old), answer(built));
    assert.ok(answer(old).every((hits) => hits.length > 0), "every query finds something");
    // Removing a loaded document uses its stored term list; both indexes then agree again, and a
    // save in the current format loads the same.
    for (const index of [old, built]) index.remove("a");
    assert.deepEqual(answer(old), answer(built));
    const again = FullTextIndex.deserialize(
      fixture.fields,
      old.serialize((m) => m),
      (m) => m as { owner: string },
    );
    assert.deepEqual(answer(again), answer(built));
    for (const index of [again, built]) index.remove("c");
    assert.deepEqual(answer(again), answer(built));
  });

  it("varints round-trip the whole range of term ids, as differences too", () => {
    const values = [0, 1, 127, 128, 16_383, 16_384, 2 ** 21, 2 ** 28 + 5, 2 ** 31 - 1];
    const w = new VarintWriter();
    for (const v of values) w.write(v);
    assert.deepEqual([...readVarints(w.bytes(), 0, w.length)], values);
    const d = new VarintWriter();
    values.forEach((v, i) => d.write(v - (values[i - 1] ?? 0)));
    assert.deepEqual([...readVarints(d.bytes(), 0, d.length, true)], values);
  });

  it("refuses damaged, truncated or differently configured snapshots", () => {
    const bytes = build().serialize(encode);
    const flipped = bytes.slice();
    flipped[flipped.length - 100]! ^= 1;
    assert.throws(() => FullTextIndex.deserialize(FIELDS, flipped, decode), /checksum/);
    assert.throws(() => FullTextIndex.deserialize(FIELDS, bytes.subarray(0, bytes.length - 64), decode));
    assert.throws(() => FullTextIndex.deserialize(FIELDS, bytes.subarray(0, 10), decode), /not a/);
    assert.throws(
      () => FullTextIndex.deserialize({ ...FIELDS, tags: { weight: 0.4 } }, bytes, decode),
      /other fields/,
    );
    // An unaligned copy of the bytes still loads (sections copied, not viewed).
    const shifted = new Uint8Array(bytes.length + 1);
    shifted.set(bytes, 1);
    assert.equal(FullTextIndex.deserialize(FIELDS, shifted.subarray(1), decode).size, build().size);
  });

  it("round-trips match(): exact-word prefixes and phrases in several fields answer the same after loading", () => {
    const fields = {
      title: { weight: 5, phrases: true, tier: 2 },
      body: { weight: 1, phrases: true },
      keys: { weight: 0, verbatim: true },
    };
    const built = new FullTextIndex<{ n: number }>(fields, { exactWords: true });
    built.add("a", { title: "Connection pool sizing", body: "Running the migrations", keys: ["t:ops"] }, {
      n: 1,
    });
    built.add("b", { title: "Jobs", body: "It runs nightly; pool connection", keys: [] }, { n: 2 });
    built.add("gone", { title: "Connection pool", body: "" }, { n: 3 });
    built.remove("gone");
    const bytes = built.serialize((m) => m);
    const loaded = FullTextIndex.deserialize(fields, bytes, (v) => v as { n: number }, { exactWords: true });
    const queries = [
      { clauses: [{ anyOf: [{ words: [[stem("connection")], [stem("pool")]], phrase: true }] }] },
      { clauses: [{ anyOf: [{ words: [[stem("pool")], [stem("connection")]], phrase: true }] }] },
      { clauses: [{ anyOf: [{ words: [[{ prefix: "runn" }]] }] }] },
      { clauses: [{ anyOf: [{ words: [["t:ops"]] }], scored: false }] },
    ];
    for (const q of queries) assert.deepEqual(loaded.match(q, { limit: 10 }), built.match(q, { limit: 10 }));
    assert.deepEqual(loaded.match(queries[0]!, { limit: 10 }).hits.map((h) => h.id), ["a"]);
    assert.deepEqual(loaded.match(queries[2]!, { limit: 10 }).hits.map((h) => h.id), ["a"]);
    // Words added after loading join the prefix vocabulary.
    loaded.add("c", { title: "Runner", body: "" }, { n: 4 });
    assert.deepEqual(
      loaded.match({ clauses: [{ anyOf: [{ words: [[{ prefix: "runne" }]] }] }] }, { limit: 10 })
        .hits.map((h) => h.id),
      ["c"],
    );
    assert.throws(() => FullTextIndex.deserialize(fields, bytes, (v) => v), /other options/);
  });
});
