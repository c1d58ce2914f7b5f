import { test } from "node:test";
import assert from "node:assert/strict";
import { assembleKernel } from "../../../../scripts/gen_simd.ts";
import { CHUNK, DenseRows, quantise, queryLimit, SIMD_AVAILABLE } from "./int8_dots.ts";
import { INT8_DOTS_WASM } from "./int8_dots_wasm.ts";

test("the committed kernel is the .wat source assembled (run `deno task gen:simd` after editing it)", async () => {
  assert.deepEqual(INT8_DOTS_WASM, await assembleKernel());
});

test("this runtime runs the SIMD kernel (Deno and Bun both do)", () => {
  assert.equal(SIMD_AVAILABLE, true);
});

/** Seeded int8 values, a tenth of them at the edges (-127, 127, 0). */
function values(seed: number, n: number): Int8Array {
  let x = seed;
  return Int8Array.from({ length: n }, () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    const edge = x % 10 === 0 ? [-127, 127, 0][x % 3]! : undefined;
    return edge ?? (x >>> 8) % 255 - 127;
  });
}

/** Seeded int16 query components within `limit`, a tenth of them at ±limit or 0. */
function query16(seed: number, n: number, limit: number): Int16Array {
  let x = seed;
  return Int16Array.from({ length: n }, () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    const edge = x % 10 === 0 ? [-limit, limit, 0][x % 3]! : undefined;
    return edge ?? (x >>> 4) % (2 * limit + 1) - limit;
  });
}

/** The plain definition, over `dim` components only (no padding). */
function reference(query: Int8Array | Int16Array, row: Int8Array): number {
  let sum = 0;
  for (let k = 0; k < query.length; k++) sum += query[k]! * row[k]!;
  return sum;
}

for (const dim of [384, 1536, 100, 17, 1]) {
  test(`the kernel and the JavaScript loop give the exact int32 sums (dim ${dim})`, () => {
    // Enough rows for the kernel's partition to move into its memory and take several calls.
    const n = Math.max(2 * CHUNK + 5, Math.ceil(200_000 / dim));
    const simd = new DenseRows(dim, true), js = new DenseRows(dim, false);
    const rows: Int8Array[] = [];
    for (let r = 0; r < n; r++) {
      const row = values(r + 1, dim);
      // The first rows at the extremes: the largest possible sums, both signs.
      if (r === 0) row.fill(127);
      if (r === 1) row.fill(-127);
      rows.push(row);
      for (const dense of [simd, js]) {
        const at = dense.offset(dense.push(r));
        dense.values().set(row, at);
      }
    }
    assert.equal(simd.inMemory, true);
    assert.equal(js.inMemory, false);
    assert.equal(simd.stride % 16, 0);
    // The query at its limit, both signs, against rows at theirs: the largest sums there can be.
    const limit = queryLimit(simd.stride);
    for (
      const query of [
        query16(999, dim, limit),
        new Int16Array(dim).fill(limit),
        new Int16Array(dim).fill(-limit),
        Int16Array.from(values(5, dim)),
      ]
    ) {
      for (let from = 0; from < n; from += CHUNK) {
        const count = Math.min(CHUNK, n - from);
        const fromKernel = [...simd.dots(query, from, count)];
        const fromLoop = [...js.dots(query, from, count)];
        const expected = rows.slice(from, from + count).map((row) => reference(query, row));
        assert.deepEqual(fromKernel, expected);
        assert.deepEqual(fromLoop, expected);
      }
    }
    assert.equal(simd.rowAt(n - 1), n - 1);
  });
}

test("a small partition stays in a plain array; rows keep their values across the move to a memory", () => {
  const dense = new DenseRows(384, true);
  const first = values(7, 384);
  dense.values().set(first, dense.offset(dense.push(0)));
  assert.equal(dense.inMemory, false);
  for (let r = 1; r < 400; r++) dense.push(r);
  assert.equal(dense.inMemory, true);
  assert.deepEqual(dense.values().subarray(dense.offset(0), dense.offset(0) + 384), first);
  assert.deepEqual([...dense.dots(Int16Array.from(first), 0, 2)], [reference(first, first), 0]);
});

test("quantise: each component within half a step, padding zeroed, sums bounded below 2^31", () => {
  const query = Float32Array.from({ length: 20 }, (_, i) => Math.sin(i + 1) / 3);
  const out = new Int16Array(32).fill(5);
  const scale = quantise(query, out);
  for (let k = 0; k < 20; k++) assert.ok(Math.abs(query[k]! - out[k]! * scale) <= scale / 2 + 1e-9);
  assert.ok(out.subarray(20).every((v) => v === 0));
  assert.equal(Math.max(...out.map(Math.abs)), 32_767);
  for (const stride of [16, 384, 512, 1536, 3072, 4096]) {
    assert.ok(queryLimit(stride) * 128 * stride < 2 ** 31, `stride ${stride}`);
  }
  assert.equal(queryLimit(384), 32_767);
  assert.equal(queryLimit(1536), 10_922);
});

for (const dim of [384, 17]) {
  test(`dotsMany gives each query's sums as dots does, in the kernel and the JavaScript loop (dim ${dim})`, () => {
    const n = 2 * CHUNK + 77;
    const simd = new DenseRows(dim, true), js = new DenseRows(dim, false);
    for (let r = 0; r < n; r++) {
      const row = values(r + 3, dim);
      for (const dense of [simd, js]) {
        const at = dense.offset(dense.push(r));
        dense.values().set(row, at);
      }
    }
    const stride = simd.stride, limit = queryLimit(stride);
    // Eight queries (two blocks of four), the last three all zeros as a caller pads a group.
    const queries = new Int16Array(8 * stride);
    for (let j = 0; j < 5; j++) queries.set(query16(100 + j, dim, limit), j * stride);
    for (const dense of [simd, js]) {
      for (let from = 0; from < n; from += CHUNK) {
        const count = Math.min(CHUNK, n - from);
        const many = [...dense.dotsMany(queries, 8, from, count)];
        for (let j = 0; j < 8; j++) {
          const one = [...dense.dots(queries.subarray(j * stride, (j + 1) * stride), from, count)];
          assert.deepEqual(many.slice(j * count, (j + 1) * count), one, `query ${j} from ${from}`);
        }
      }
    }
    // The queries and sums went past the rows: rows pushed afterwards still read as written.
    const last = values(9_999, dim);
    const at = simd.offset(simd.push(n));
    simd.values().set(last, at);
    assert.deepEqual([...simd.dots(Int16Array.from(last), n, 1)], [reference(last, last)]);
    assert.throws(() => simd.dotsMany(queries, 6, 0, 1), RangeError);
  });
}
