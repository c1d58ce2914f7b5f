import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { readFileSync } from "node:fs";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { MINILM_FILES, miniLMAsset } from "./minilm_assets.ts";
import { STATIC_TABLE_FILE, staticTableBytes } from "./static_minilm.ts";

/** byte-wise equality (deepEqual walks 11.8 MB element by element: seconds) */
const same = (a: Uint8Array, b: Uint8Array) =>
  assert.ok(Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b));

// The mapping itself is Bun's (test/memsvc/vector_snapshot_test.ts runs it in the binary); here a read
// stands in for it, and the test counts which files were "mapped".
function reader() {
  const mapped: string[] = [];
  return { mapped, map: (path: string) => (mapped.push(path), new Uint8Array(readFileSync(path))) };
}

test("builtin-static's table is kept decompressed in the directory, reused, and replaced when it does not match", async () => {
  const dir = await mkdtemp(join(tmpdir(), "memsvc-static-table-"));
  try {
    const table = await miniLMAsset(MINILM_FILES.staticTable);
    const file = join(dir, STATIC_TABLE_FILE);

    const first = reader();
    same(await staticTableBytes({ dir, map: first.map }), table);
    assert.deepEqual(first.mapped, [file], "written, then mapped");
    same(new Uint8Array(await readFile(file)), table);
    assert.equal((await stat(file)).mode & 0o777, 0o600);

    const written = (await stat(file)).mtimeMs;
    const second = reader();
    same(await staticTableBytes({ dir, map: second.map }), table);
    assert.equal((await stat(file)).mtimeMs, written, "a matching file is mapped as it is");

    // One flipped byte, or a file of another length (another build's table): written again.
    for (
      const bad of [
        table.slice(0, table.length - 1),
        Uint8Array.from(table, (b, i) => i === 99 ? b ^ 1 : b),
      ]
    ) {
      await writeFile(file, bad);
      same(await staticTableBytes({ dir, map: reader().map }), table);
      same(new Uint8Array(await readFile(file)), table);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("where nothing can be mapped, or the directory cannot be written, the table is decompressed in memory", async () => {
  const dir = await mkdtemp(join(tmpdir(), "memsvc-static-table-"));
  try {
    const table = await miniLMAsset(MINILM_FILES.staticTable);
    // Deno (the tests' runtime) cannot map files: nothing is written.
    same(await staticTableBytes({ dir }), table);
    await assert.rejects(stat(join(dir, STATIC_TABLE_FILE)), { code: "ENOENT" });
    const missing = join(dir, "no", "such", "dir");
    const r = reader();
    same(await staticTableBytes({ dir: missing, map: r.map }), table);
    assert.deepEqual(r.mapped, []);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
