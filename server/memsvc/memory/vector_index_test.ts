import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BuiltinEmbedder } from "../embeddings/builtin.ts";
import { cosine, normalize } from "../embeddings/mod.ts";
import { type PackedArrays, type PackedLayout, PackedVectors, TopK, withinReach } from "./packed_vectors.ts";
import { queryLimit } from "./simd/int8_dots.ts";
import { readPartitions } from "./vector_index.ts";
import { readSnapshot, writeSnapshot } from "./vector_snapshot.ts";

const TEXTS = [
  "The billing service uses PostgreSQL 15 with pgbouncer in transaction mode",
  "Alice prefers tabs over spaces in Go code",
  "Decided to keep retries at three with exponential backoff for the payment webhook",
  "The deploy pipeline runs on GitHub Actions and pushes images to GHCR",
  "Bob is on call for the search cluster during the December freeze",
];

/** A seeded dense unit vector (what a remote or neural embedder returns). */
function denseVector(seed: number, dim: number): Float32Array {
  let x = seed;
  const v = Float32Array.from({ length: dim }, () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 31 - 0.5;
  });
  normalize(v);
  return v;
}

function exactTop(query: Float32Array, vectors: Float32Array[], k: number): number[] {
  return vectors.map((v, i) => ({ i, s: cosine(query, v) })).sort((a, b) => b.s - a.s).slice(0, k).map((x) =>
    x.i
  );
}

test("packed int8 vectors score within 0.01 of the exact cosine, sparse and dense alike", async () => {
  const embedder = new BuiltinEmbedder();
  const [query, ...stored] = await embedder.embed(["which database does the billing service use?", ...TEXTS]);
  const sparse = new PackedVectors(embedder.dimensions);
  stored.forEach((v, i) => sparse.put(`s${i}`, v));
  const top = new TopK(stored.length);
  sparse.scan(query!, top);
  for (const { id, score, error } of top.items) {
    const exact = cosine(query!, stored[Number(id.slice(1))]!);
    assert.ok(Math.abs(score - exact) < 0.01, `${id}: ${score} vs ${exact}`);
    assert.ok(Math.abs(score - exact) <= error! + 1e-6, `${id}: within its error bound ${error}`);
  }
  assert.equal(top.items[0]!.id, "s0", "the billing fact ranks first");

  const dim = 384;
  const denseStored = Array.from({ length: 200 }, (_, i) => denseVector(i + 1, dim));
  const packed = new PackedVectors(dim);
  denseStored.forEach((v, i) => packed.put(`d${i}`, v));
  const q = denseVector(999, dim);
  const k = new TopK(10);
  packed.scan(q, k);
  const exact = exactTop(q, denseStored, 10);
  for (const { id, score, error } of k.items) {
    const off = Math.abs(score - cosine(q, denseStored[Number(id.slice(1))]!));
    assert.ok(off < 0.01 && off <= error! + 1e-6);
  }
  // Quantisation may swap near ties at the edge, not reorder the list.
  const found = new Set(k.items.map((n) => Number(n.id.slice(1))));
  assert.ok(exact.slice(0, 5).every((i) => found.has(i)), "the exact top 5 are among the packed top 10");
  const back = packed.vectorOf("d7")!;
  assert.ok(cosine(back, denseStored[7]!) > 0.999);
});

test("rescoring only the candidates within reach ranks the same top n as rescoring them all", async () => {
  const embedder = new BuiltinEmbedder();
  const words = "billing search deploy cluster retries webhook postgres cache queue tabs spaces freeze".split(
    " ",
  );
  const texts = Array.from(
    { length: 2_000 },
    (_, i) =>
      `${words[i % 12]} ${words[(i * 7) % 12]} ${words[(i * 5 + 3) % 12]} note ${i % 37} for team ${i % 11}`,
  );
  const stored = await embedder.embed(texts);
  const packed = new PackedVectors(embedder.dimensions);
  stored.forEach((v, i) => packed.put(`t${i}`, v));
  let read = 0, all = 0;
  for (
    const [q] of await Promise.all(
      ["billing webhook retries", "deploy cluster freeze", "postgres cache"].map((t) => embedder.embed([t])),
    )
  ) {
    const n = 30;
    const top = new TopK(n * 2);
    packed.scan(q!, top);
    const exact = (list: { id: string }[]) =>
      list.map((c) => ({ id: c.id, score: cosine(q!, stored[Number(c.id.slice(1))]!) }))
        .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1)).slice(0, n);
    const pruned = withinReach(top.items, n);
    assert.deepEqual(exact(pruned), exact(top.items));
    // And the same as brute force over every stored vector.
    assert.deepEqual(
      exact(pruned).map((c) => c.id),
      exact(texts.map((_, i) => ({ id: `t${i}` }))).map((c) => c.id),
    );
    read += pruned.length;
    all += top.items.length;
  }
  assert.ok(read < all, `fewer vectors read back (${read} of ${all})`);
});

test("replacing and deleting vectors keeps one live row per id, through compaction", () => {
  const dim = 16;
  const packed = new PackedVectors(dim);
  for (let i = 0; i < 3_000; i++) packed.put(`v${i % 1_500}`, denseVector(i + 1, dim));
  assert.equal(packed.size, 1_500);
  for (let i = 0; i < 1_400; i++) packed.delete(`v${i}`);
  assert.equal(packed.size, 100);
  const top = new TopK(1_000);
  packed.scan(denseVector(1, dim), top);
  assert.equal(top.items.length, 100);
  assert.ok(top.items.every((n) => Number(n.id.slice(1)) >= 1_400));
  // v1499 was last written from seed 3000.
  assert.ok(cosine(packed.vectorOf("v1499")!, denseVector(3_000, dim)) > 0.999);
  assert.throws(() => packed.put("x", new Float32Array(4)), RangeError);
});

test("TopK keeps the k best, best first", () => {
  const top = new TopK(3);
  [0.1, 0.9, 0.5, 0.7, 0.2, 0.95].forEach((s, i) => top.offer(`n${i}`, s));
  assert.deepEqual(top.items.map((n) => n.id), ["n5", "n1", "n3"]);
});

/** A version 1 snapshot as the previous release wrote it: header, then each row-by-row array's bytes. */
function snapshotV1(arrays: PackedArrays, dim: number): Uint8Array {
  const names = ["scale", "start", "indexStart", "count", "values", "indices"] as const;
  const header = new TextEncoder().encode(JSON.stringify({
    instance: "i-1",
    model: "m",
    seenSeq: "42",
    partitions: [{
      key: "u|p|default",
      dim,
      ids: arrays.ids,
      lengths: Object.fromEntries(names.map((n) => [n, arrays[n].length])),
    }],
  }));
  const size = new Uint8Array(4);
  new DataView(size.buffer).setUint32(0, header.length, true);
  const parts = [new TextEncoder().encode("memsvc-vectors-1\n"), size, header];
  for (const n of names) {
    parts.push(new Uint8Array(arrays[n].buffer, arrays[n].byteOffset, arrays[n].byteLength));
  }
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) out.set(p, at), at += p.length;
  return out;
}

/** A version 2 snapshot as the previous release wrote it: ids as JSON strings, each array 8-aligned. */
function snapshotV2(layout: PackedLayout, ids: string[], dim: number): Uint8Array {
  const names = ["scale", "start", "count", "used", "values", "postRows", "postValues"] as const;
  const header = new TextEncoder().encode(JSON.stringify({
    instance: "i-1",
    model: "m",
    seenSeq: "42",
    partitions: [{
      key: "u|p|default",
      dim,
      ids,
      lengths: Object.fromEntries(names.map((n) => [n, layout[n].length])),
    }],
  }));
  const size = new Uint8Array(4);
  new DataView(size.buffer).setUint32(0, header.length, true);
  const parts = [new TextEncoder().encode("memsvc-vectors-2\n"), size, header];
  const pad = () => {
    const at = parts.reduce((s, p) => s + p.length, 0);
    parts.push(new Uint8Array((8 - at % 8) % 8));
  };
  pad();
  for (const n of names) {
    parts.push(new Uint8Array(layout[n].buffer, layout[n].byteOffset, layout[n].byteLength));
    pad();
  }
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) out.set(p, at), at += p.length;
  return out;
}

test("version 3 snapshots keep compact ids as bytes and others as strings; version 2 files still load", async () => {
  const dir = await mkdtemp(join(tmpdir(), "memsvc-snapshot-"));
  try {
    const embedder = new BuiltinEmbedder();
    const vectors = await embedder.embed(TEXTS);
    const ids = vectors.map((
      _,
      i,
    ) => (i === 1 ? "imported-1" : `m_${(i * 977).toString(16).padStart(24, "0")}`));
    const packed = new PackedVectors(embedder.dimensions);
    vectors.forEach((v, i) => packed.put(ids[i]!, v));
    packed.delete(ids[2]!);
    const layout = packed.layout();
    const file = join(dir, "vectors.bin");
    await writeSnapshot(file, {
      instance: "i-1",
      model: embedder.id,
      seenSeq: "42",
      partitions: [{ key: "u|p|default", dim: embedder.dimensions, layout }],
    });
    const bytes = await readFile(file);
    assert.equal(bytes.subarray(0, 17).toString(), "memsvc-vectors-3\n");
    assert.ok(!bytes.includes(ids[0]!), "compact ids are not in the file as text");
    assert.ok(bytes.includes("imported-1"), "an id of another shape is");
    const [query] = await embedder.embed(["billing database"]);
    const scores = (p: PackedVectors) => {
      const top = new TopK(10);
      p.scan(query!, top);
      return top.items;
    };
    const check = (read: Awaited<ReturnType<typeof readSnapshot>>, what: string) => {
      assert.ok(read, what);
      const loaded = PackedVectors.fromLayout(read.partitions[0]!.dim, read.partitions[0]!.layout!);
      assert.deepEqual([...loaded.ids()], [...packed.ids()], what);
      for (const id of packed.ids()) assert.deepEqual(loaded.vectorOf(id), packed.vectorOf(id), what);
      assert.deepEqual(scores(loaded), scores(packed), what);
      assert.ok(loaded.has("imported-1") && !loaded.has(ids[2]!), what);
    };
    check(await readSnapshot(file), "version 3");
    // The same partition as the previous release saved it.
    await writeFile(file, snapshotV2(layout, [...packed.ids()], embedder.dimensions));
    check(await readSnapshot(file), "version 2");
    // A version 3 file whose id bytes are cut short reads as none.
    await writeFile(file, bytes.subarray(0, bytes.length - 5));
    assert.equal(await readSnapshot(file), undefined);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("a snapshot round-trips packed partitions; a damaged or missing file reads as none", async () => {
  const dir = await mkdtemp(join(tmpdir(), "memsvc-snapshot-"));
  try {
    const embedder = new BuiltinEmbedder();
    const vectors = await embedder.embed(TEXTS);
    const packed = new PackedVectors(embedder.dimensions);
    vectors.forEach((v, i) => packed.put(`e${i}`, v));
    packed.delete("e2");
    const file = join(dir, "vectors.bin");
    await writeSnapshot(file, {
      instance: "i-1",
      model: embedder.id,
      seenSeq: "42",
      partitions: [{ key: "u|p|default", dim: embedder.dimensions, layout: packed.layout() }],
    });
    const read = await readSnapshot(file);
    assert.ok(read);
    assert.deepEqual([read.instance, read.model, read.seenSeq], ["i-1", embedder.id, "42"]);
    const loaded = PackedVectors.fromLayout(read.partitions[0]!.dim, read.partitions[0]!.layout!);
    assert.deepEqual([...loaded.ids()].sort(), ["e0", "e1", "e3", "e4"]);
    for (const id of loaded.ids()) assert.deepEqual(loaded.vectorOf(id), packed.vectorOf(id));
    // A loaded partition scores as the saved one, and takes new vectors and deletes.
    const [query] = await embedder.embed(["billing database"]);
    const scores = (p: PackedVectors) => {
      const top = new TopK(10);
      p.scan(query!, top);
      return top.items;
    };
    assert.deepEqual(scores(loaded), scores(packed));
    loaded.put("e9", vectors[2]!);
    loaded.delete("e0");
    packed.put("e9", vectors[2]!);
    packed.delete("e0");
    assert.deepEqual(scores(loaded), scores(packed));

    // A version 1 file (row by row) still loads.
    await writeFile(file, snapshotV1(packed.arrays(), embedder.dimensions));
    const old = await readSnapshot(file);
    assert.ok(old?.partitions[0]?.arrays);
    const fromOld = PackedVectors.from(old.partitions[0].dim, old.partitions[0].arrays);
    assert.deepEqual(scores(fromOld), scores(packed));

    await writeFile(file, "memsvc-vectors-1\n\u0001");
    assert.equal(await readSnapshot(file), undefined);
    await writeFile(file, "memsvc-vectors-2\n\u0001");
    assert.equal(await readSnapshot(file), undefined);
    assert.equal(await readSnapshot(join(dir, "absent.bin")), undefined);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

/**
 * A row's int8 score and error bound as a row-major scan computes them: components in dimension
 * order, quantised with the scale in double precision, scored with it as stored (float32).
 */
function int8Score(query: Float32Array, v: Float32Array): { score: number; error: number } {
  let max = 0, nonZero = 0;
  for (const x of v) max = Math.max(max, Math.abs(x)), nonZero += x === 0 ? 0 : 1;
  const scale = max > 0 ? max / 127 : 1;
  const dense = nonZero * 2 > v.length;
  if (dense) {
    // Dense rows are scanned against the query quantised to int16 (simd/int8_dots.ts).
    let qMax = 0;
    for (const q of query) qMax = Math.max(qMax, Math.abs(q));
    const qScale = qMax > 0 ? qMax / queryLimit(Math.ceil(v.length / 16) * 16) : 1;
    let sum = 0, reach = 0, rowSum = 0;
    for (let d = 0; d < v.length; d++) {
      const value = Math.round(v[d]! / scale);
      sum += Math.round(query[d]! / qScale) * value;
      reach += Math.abs(query[d]!);
      rowSum += Math.abs(value);
    }
    const f = Math.fround(scale);
    return { score: sum * qScale * f, error: (reach + qScale * rowSum) * f / 2 };
  }
  let sum = 0, reach = 0;
  for (let d = 0; d < v.length; d++) {
    if (v[d] === 0 && !dense) continue;
    sum += query[d]! * Math.round(v[d]! / scale);
    reach += Math.abs(query[d]!);
  }
  return { score: sum * Math.fround(scale), error: reach * Math.fround(scale) / 2 };
}

test("the dimension-major scan scores exactly as a row-by-row int8 dot product, across row blocks", () => {
  const dim = 64;
  let x = 7;
  const random = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32;
  // Sparse rows with edge values (the row's max, tiny values that round to 0, negatives, empty rows),
  // past one block of 65,536 rows, some dense rows, and deleted and replaced rows.
  const stored = new Map<string, Float32Array>();
  const packed = new PackedVectors(dim);
  for (let i = 0; i < 70_000; i++) {
    const v = new Float32Array(dim);
    const dense = i % 9_973 === 0;
    for (let d = 0; d < dim; d++) {
      if (!dense && random() > 0.2) continue;
      const r = random();
      v[d] = r < 0.05 ? 1e-6 : r < 0.1 ? -1 : (r - 0.5) * 2;
    }
    if (i % 1_000 === 1) v.fill(0);
    const id = `r${i % 69_000}`;
    stored.set(id, v);
    packed.put(id, v);
  }
  for (let i = 0; i < 500; i++) {
    stored.delete(`r${i * 7}`);
    packed.delete(`r${i * 7}`);
  }
  const check = (p: PackedVectors, label: string) => {
    for (let t = 0; t < 3; t++) {
      const query = new Float32Array(dim);
      for (let d = 0; d < dim; d++) if (random() < 0.3) query[d] = random() - 0.5;
      normalize(query);
      const top = new TopK(50);
      p.scan(query, top, "r12");
      const want = [...stored].filter(([id]) => id !== "r12").map(([id, v]) => ({
        id,
        ...int8Score(query, v),
      }))
        .sort((a, b) => b.score - a.score).slice(0, 50);
      assert.deepEqual(top.items.map((n) => n.score), want.map((w) => w.score), `${label}: scores`);
      for (const n of top.items) {
        assert.deepEqual(n, { id: n.id, ...int8Score(query, stored.get(n.id)!) }, `${label}: ${n.id}`);
      }
    }
  };
  check(packed, "built");
  const copy = PackedVectors.from(dim, packed.arrays());
  assert.equal(copy.size, stored.size);
  check(copy, "restored");
  const held = PackedVectors.fromLayout(dim, packed.layout());
  assert.equal(held.size, stored.size);
  check(held, "from its layout");
  for (const id of ["r3", "r66000", "r2001", "r9973"]) {
    assert.deepEqual(copy.vectorOf(id), packed.vectorOf(id));
    const v = stored.get(id)!;
    assert.ok(packed.vectorOf(id)!.every((c, d) => Math.abs(c - v[d]!) <= 1 / 127 + 1e-6), id);
  }
});

test("dense rows (in a WebAssembly memory, scanned by the SIMD kernel) score as the int8 reference, within their error bound", () => {
  const dim = 384;
  const stored = new Map<string, Float32Array>();
  const packed = new PackedVectors(dim);
  for (let i = 0; i < 3_000; i++) {
    const v = denseVector(i + 1, dim);
    // Edge rows: one component at the row's max, the rest tiny (rounds to 0).
    if (i % 500 === 7) v.fill(1e-6), v[i % dim] = 1;
    const id = `d${i % 2_900}`; // the last 100 replace earlier rows
    stored.set(id, v);
    packed.put(id, v);
  }
  for (let i = 0; i < 50; i++) stored.delete(`d${i * 13}`), packed.delete(`d${i * 13}`);
  const check = (p: PackedVectors, label: string) => {
    for (let t = 0; t < 3; t++) {
      const query = denseVector(10_000 + t, dim);
      const top = new TopK(20);
      p.scan(query, top, "d1");
      const want = [...stored].filter(([id]) => id !== "d1")
        .map(([id, v]) => ({ id, ...int8Score(query, v) }))
        .sort((a, b) => b.score - a.score).slice(0, 20);
      assert.deepEqual(top.items.map((n) => n.score), want.map((w) => w.score), `${label}: scores`);
      for (const n of top.items) {
        assert.deepEqual(n, { id: n.id, ...int8Score(query, stored.get(n.id)!) }, `${label}: ${n.id}`);
        assert.ok(Math.abs(cosine(query, stored.get(n.id)!) - n.score) <= n.error!, `${label}: bound`);
      }
    }
  };
  check(packed, "built");
  // Dense rows only, never compacted (so no posting lists at all): its layout loads too.
  const fresh = new PackedVectors(dim);
  for (let i = 0; i < 30; i++) fresh.put(`f${i}`, denseVector(i + 1, dim));
  const loaded = PackedVectors.fromLayout(dim, fresh.layout());
  assert.equal(loaded.size, 30);
  assert.deepEqual(loaded.vectorOf("f7"), fresh.vectorOf("f7"));
  check(PackedVectors.from(dim, packed.arrays()), "restored");
  const held = PackedVectors.fromLayout(dim, packed.layout());
  assert.equal(held.size, stored.size);
  check(held, "from its layout");
  for (const id of ["d3", "d2850", "d7", "d50"]) {
    assert.deepEqual(held.vectorOf(id), packed.vectorOf(id));
    const v = stored.get(id)!;
    assert.ok(packed.vectorOf(id)!.every((c, d) => Math.abs(c - v[d]!) <= 1 / 127 + 1e-6), id);
  }
});

test("scanMany finds the same neighbours, scores and error bounds as a scan per query", async () => {
  const dim = 384;
  const dense = new PackedVectors(dim);
  // Past two chunks of the kernel, with replaced and deleted rows.
  for (let i = 0; i < 2_300; i++) dense.put(`d${i % 2_250}`, denseVector(i + 1, dim));
  for (let i = 0; i < 40; i++) dense.delete(`d${i * 31}`);
  // Forty-five queries: more than a group, not a multiple of four; some near stored rows, some excluded.
  const queries = Array.from(
    { length: 45 },
    (_, j) => j % 3 === 0 ? denseVector(j * 7 + 2, dim) : denseVector(50_000 + j, dim),
  );
  const excludes = queries.map((_, j) => (j % 3 === 0 ? `d${j * 7 + 1}` : j % 5 === 0 ? "d3" : undefined));
  const sparse = new PackedVectors(512);
  const builtin = await new BuiltinEmbedder().embed([...TEXTS, ...TEXTS.map((t) => `${t} again`)]);
  builtin.forEach((v, i) => sparse.put(`s${i}`, v));
  for (const [label, packed, qs] of [["dense", dense, queries], ["sparse", sparse, builtin]] as const) {
    for (const k of [1, 3, 20]) {
      const one = qs.map((q, j) => {
        const top = new TopK(k);
        packed.scan(q, top, excludes[j]);
        return top.items;
      });
      const tops = qs.map(() => new TopK(k));
      packed.scanMany([...qs], tops, excludes.slice(0, qs.length));
      assert.deepEqual(tops.map((t) => t.items), one, `${label}, k ${k}`);
    }
  }
  // (The dense queries meant to find a row do: excluded d{7j+1}'s neighbour set is not empty.)
  const tops = queries.map(() => new TopK(3));
  dense.scanMany(queries, tops, excludes);
  assert.ok(tops.every((t) => t.items.length === 3));
});

test("a snapshot's dense rows load straight into the scan's memory, any width, beside sparse rows", async () => {
  const dir = await mkdtemp(join(tmpdir(), "memsvc-snapshot-"));
  try {
    const file = join(dir, "vectors.bin");
    for (const dim of [384, 20]) {
      // 3,000 dense rows (past one page: a WebAssembly memory), sparse rows among them, a small partition.
      const big = new PackedVectors(dim), small = new PackedVectors(dim);
      for (let i = 0; i < 3_000; i++) {
        const v = denseVector(i + 1, dim);
        if (i % 7 === 3) v.fill(0, 2), v[i % dim] = 0.5, normalize(v); // mostly zeros: a sparse row
        big.put(`b${i}`, v);
      }
      for (let i = 0; i < 40; i++) big.delete(`b${i * 31}`);
      for (let i = 0; i < 5; i++) small.put(`s${i}`, denseVector(100 + i, dim));
      await writeSnapshot(file, {
        instance: "i-1",
        model: "m",
        seenSeq: "7",
        partitions: [
          { key: "big", dim, layout: big.layout() },
          { key: "small", dim, layout: small.layout() },
        ],
      });
      // The dense section is read into the target denseFor gives (no buffer in between).
      const targets: Int8Array[] = [];
      const read = await readSnapshot(file, (_, d, start, length) => {
        const place = PackedVectors.denseFor(d, start, length);
        if (place) targets.push(place.target);
        return place?.target;
      });
      assert.ok(read);
      assert.equal(targets.length, 2);
      read.partitions.forEach((p, i) => {
        assert.equal(p.layout!.values.buffer, targets[i]!.buffer, `dim ${dim}: read in place`);
        assert.equal(p.layout!.values.byteOffset, targets[i]!.byteOffset);
      });

      const loaded = await readPartitions(file);
      assert.ok(loaded);
      assert.deepEqual([loaded.instance, loaded.model, loaded.seenSeq], ["i-1", "m", "7"]);
      const [bigLoaded, smallLoaded] = loaded.build().map((p) => p.packed);
      const scores = (p: PackedVectors, q: Float32Array) => {
        const top = new TopK(25);
        p.scan(q, top, "b5");
        return top.items;
      };
      for (const [saved, back] of [[big, bigLoaded!], [small, smallLoaded!]] as const) {
        assert.equal(back.size, saved.size);
        for (const id of [...saved.ids()].slice(0, 300)) {
          assert.deepEqual(back.vectorOf(id), saved.vectorOf(id));
        }
        assert.deepEqual(scores(back, denseVector(9_001, dim)), scores(saved, denseVector(9_001, dim)));
      }
      // Loaded rows take new rows (the memory grows past its exact size), replacements and deletes.
      for (const p of [big, bigLoaded!]) {
        for (let i = 0; i < 500; i++) p.put(`n${i}`, denseVector(5_000 + i, dim));
        p.put("b1", denseVector(77, dim));
        p.delete("b2");
      }
      assert.deepEqual(scores(bigLoaded!, denseVector(9_002, dim)), scores(big, denseVector(9_002, dim)));
      assert.deepEqual(bigLoaded!.vectorOf("n499"), big.vectorOf("n499"));
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
