import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { stem } from "./analyzer.ts";
import { FullTextIndex, type MatchQuery } from "./index.ts";

/** The vault's fields (server/vault/search/note_search_index.ts): tiers, phrases in three fields, filter keys. */
const FIELDS = {
  title: { weight: 5, phrases: true, tier: 2 },
  tags: { weight: 2, phrases: true, tier: 1 },
  body: { weight: 1, phrases: true },
  keys: { weight: 0, verbatim: true },
};
const OPTIONS = { exactWords: true };
interface Meta {
  mtime: number;
}

/** The same documents, added and removed alike, to two indexes: one to pack, one never packed. */
function twins() {
  const a = new FullTextIndex<Meta>(FIELDS, OPTIONS), b = new FullTextIndex<Meta>(FIELDS, OPTIONS);
  return {
    a,
    b,
    add(id: string, title: string, body: string, tags: string[] = []) {
      for (const index of [a, b]) {
        index.add(id, { title, tags: tags.join(" "), body, keys: tags.map((t) => `t:${t}`) }, {
          mtime: Number(id.slice(1)),
        });
      }
    },
    remove(id: string) {
      assert.equal(a.remove(id), b.remove(id));
    },
  };
}

/** Deterministic notes: a skewed vocabulary (long and short lists), a few words sharing prefixes. */
function fill(t: ReturnType<typeof twins>, from: number, to: number) {
  let seed = 7 + from;
  const rand = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  const vocab = [
    ..."connection pool retry running runs runner worker deploy budget nightly".split(" "),
    ...Array.from({ length: 300 }, (_, i) => `w${i}x`),
  ];
  const pick = () => vocab[Math.floor(rand() ** 2 * vocab.length)]!;
  const text = (n: number) => Array.from({ length: n }, pick).join(" ");
  for (let i = from; i < to; i++) {
    t.add(
      `n${i}`,
      text(1 + Math.floor(rand() * 4)),
      text(3 + Math.floor(rand() * 40)),
      i % 4 ? [] : [`tag${i % 3}`],
    );
  }
}

const word = (w: string) => ({ anyOf: [{ words: [[stem(w)]] }] });
const MATCHES: MatchQuery[] = [
  { clauses: [word("connection"), word("pool")] },
  { clauses: [word("retry"), word("worker")], mode: "any" },
  { clauses: [{ anyOf: [{ words: [[stem("connection")], [stem("pool")]], phrase: true }] }] },
  { clauses: [{ anyOf: [{ words: [[{ prefix: "runn" }]] }] }] },
  { clauses: [{ anyOf: [{ words: [[{ prefix: "w1" }], [stem("deploy")]], phrase: true }] }] },
  { clauses: [word("budget")], exclude: [word("nightly")] },
  { clauses: [word("w3x"), { anyOf: [{ words: [["t:tag1"]] }], scored: false }] },
  { clauses: [{ anyOf: [{ words: [["t:tag0"]] }], scored: false }] },
  { clauses: [] },
];
const SEARCHES = ["connection pool", '"retry worker"', "budget -nightly", "w1x w2x w150x", "runs"];

/** Every answer, scores included (as exact numbers: the same impacts must be read). */
function answers(index: FullTextIndex<Meta>) {
  const newest = (x: Meta, y: Meta) => y.mtime - x.mtime;
  return {
    matches: MATCHES.map((q) =>
      index.match(q, { limit: 15, offset: 2, tiebreak: newest, accept: (m) => m.mtime % 5 !== 1 })
    ),
    searches: SEARCHES.map((q) => index.search(q, 15, (m) => m.mtime % 5 !== 2)),
    entries: [...index.entries()],
    size: index.size,
  };
}

describe("FullTextIndex.pack", () => {
  it("answers the same searches and matches, scores included, with documents removed before it", () => {
    const t = twins();
    fill(t, 0, 600);
    for (let i = 0; i < 600; i += 7) t.remove(`n${i}`);
    t.add("n3", "Replaced connection pool", "worker"); // replaced: a removal and an add
    assert.equal(t.b.unpacked, 601);
    t.b.pack();
    assert.equal(t.b.unpacked, 0);
    assert.deepEqual(answers(t.b), answers(t.a));
    assert.ok(answers(t.a).matches[0]!.total > 10, "the queries find something");
    assert.ok(!t.b.has("n7") && t.b.has("n8") && t.b.meta("n8")?.mtime === 8);
  });

  it("takes adds and removes after packing, packs again, and serializes to the never-packed index's bytes", () => {
    const t = twins();
    fill(t, 0, 400);
    t.remove("n10");
    t.b.pack();
    fill(t, 400, 600); // new documents get arrays of their own; packed lists grow out of their views
    for (let i = 1; i < 600; i += 5) t.remove(`n${i}`); // packed and unpacked documents alike
    t.add("n2", "Connection pool sizing", "running retry worker", ["tag1"]);
    assert.equal(t.b.unpacked, 201);
    assert.deepEqual(answers(t.b), answers(t.a));
    t.b.pack();
    assert.deepEqual(answers(t.b), answers(t.a));
    const encode = (m: Meta) => m.mtime, decode = (v: unknown) => ({ mtime: v as number });
    const bytes = t.b.serialize(encode);
    assert.deepEqual(bytes, t.a.serialize(encode));
    const loaded = FullTextIndex.deserialize(FIELDS, bytes, decode, OPTIONS);
    assert.deepEqual(answers(loaded), answers(t.a));
    // A loaded index packs too (its snapshot's documents and those added since into one pool).
    const late = { title: "Connection pool", tags: "tag1", body: "late note", keys: ["t:tag1"] };
    for (const index of [loaded, t.a]) index.add("n9999", late, { mtime: 9999 });
    loaded.pack();
    assert.deepEqual(answers(loaded), answers(t.a));
  });

  it("a term whose documents were all removed takes documents again after a pack or a load", () => {
    const index = new FullTextIndex<Meta>(FIELDS, OPTIONS);
    index.add("x", { title: "alpha", body: "beta" }, { mtime: 1 });
    index.add("y", { title: "gamma", body: "" }, { mtime: 2 });
    index.remove("x");
    const loaded = FullTextIndex.deserialize(FIELDS, index.serialize(), () => ({ mtime: 0 }), OPTIONS);
    index.pack();
    for (const i of [index, loaded]) {
      i.add("z", { title: "alpha", body: "" }, { mtime: 3 });
      assert.deepEqual(i.search("alpha", 5).map((h) => h.id), ["z"]);
    }
  });
});
