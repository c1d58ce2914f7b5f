import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { analyze, stem } from "./analyzer.ts";
import { FullTextIndex, parseQuery } from "./index.ts";

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
});
