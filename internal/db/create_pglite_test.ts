import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { after, test } from "node:test";
import { createPGlite } from "./create_pglite.ts";
import { removeDataDirs, tempDir } from "./_test_data_dir.ts";

after(removeDataDirs);

/** A Blob that remembers being read, to show which files PGlite actually loaded. */
class TrackedBlob extends Blob {
  read = false;
  override arrayBuffer(): Promise<ArrayBuffer> {
    this.read = true;
    return super.arrayBuffer();
  }
}

/** Stands in for the files a compiled binary embeds, read from PGlite's package. */
async function embeddedFromPackage(): Promise<Map<string, TrackedBlob>> {
  const dist = fileURLToPath(new URL(".", import.meta.resolve("@electric-sql/pglite")));
  const read = async (file: string) => new TrackedBlob([await readFile(`${dist}/${file}`)]);
  return new Map([
    ["pglite.wasm", await read("pglite.wasm")],
    ["initdb.wasm", await read("initdb.wasm")],
    ["pglite.data", await read("pglite.data")],
  ]);
}

test("createPGlite initialises and runs a data directory from embedded files", async () => {
  const files = await embeddedFromPackage();
  const pglite = await createPGlite(await tempDir(), (name) => files.get(name));
  try {
    const { rows } = await pglite.query<{ version: string }>("select version()");
    assert.match(rows[0]!.version, /^PostgreSQL \d+/);
    for (const [name, blob] of files) assert.ok(blob.read, `${name} was not loaded`);
  } finally {
    await pglite.close();
  }
});

test("createPGlite refuses a binary that embeds only some of PGlite's files", async () => {
  const files = await embeddedFromPackage();
  files.delete("initdb.wasm");
  await assert.rejects(createPGlite(await tempDir(), (name) => files.get(name)), {
    message: "incomplete PGlite files in this binary: missing initdb.wasm",
  });
});

test("bytea goes in and out unchanged, every byte value and the empty value", async () => {
  const pglite = await createPGlite(await tempDir());
  try {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    const { rows } = await pglite.query<{ a: Uint8Array; b: Uint8Array; n: number }>(
      "select $1::bytea as a, $2::bytea as b, length($1::bytea) as n",
      [all, new Uint8Array()],
    );
    assert.deepEqual([...rows[0]!.a], [...all]);
    assert.equal(rows[0]!.n, 256, "the server received the bytes, not their text");
    assert.equal(rows[0]!.b.length, 0);
    assert.ok(rows[0]!.a instanceof Uint8Array);
    await assert.rejects(pglite.query("select $1::bytea", ["not bytes"]), /bytea/);
  } finally {
    await pglite.close();
  }
});
