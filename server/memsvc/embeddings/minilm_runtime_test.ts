import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import * as ort from "onnxruntime-web/wasm";
import { cosine } from "./embedder.ts";
import { MiniLMEmbedder } from "./minilm.ts";
import { hostPlatform, MINILM_FILES, miniLMAsset, NATIVE_PLATFORMS } from "./minilm_assets.ts";
import { int8Gathers } from "./minilm_graph.ts";
import { loadWasm, placeNative } from "./minilm_runtime.ts";

const native = NATIVE_PLATFORMS[hostPlatform()];
const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
const TEXTS = [
  "where did I go on holiday?",
  "In July we spent two weeks in Lisbon by the sea, and the kids learnt to surf.",
  "ok",
];

test("gathering int8 embedding rows leaves the model's output as it was", { timeout: 120_000 }, async () => {
  const model = await miniLMAsset(MINILM_FILES.model);
  const rewritten = int8Gathers(model);
  assert.equal(rewritten.gathers, 2, "the word and position tables");
  const [before, after] = [await loadWasm(model, ort), await loadWasm(rewritten.model, ort)];
  const n = 12;
  const ids = BigInt64Array.from(
    { length: n },
    (_, i) => BigInt(i === 0 ? 101 : i === n - 1 ? 102 : 2000 + i * 37),
  );
  const mask = new BigInt64Array(n).fill(1n);
  const a = await before.run(ids, mask, new BigInt64Array(n), 1, n);
  const b = await after.run(ids, mask, new BigInt64Array(n), 1, n);
  assert.equal(a.length, n * 384);
  const maxDiff = Math.max(...a.map((x, i) => Math.abs(x - b[i]!)));
  assert.ok(maxDiff < 1e-5, `max difference ${maxDiff}`);
});

test("the native runtime gives the wasm runtime's vectors", {
  timeout: 120_000,
  skip: native ? false : `no native runtime for ${hostPlatform()}`,
}, async () => {
  const nativeEmbedder = new MiniLMEmbedder({ runtime: "native" });
  const wasmEmbedder = new MiniLMEmbedder({ runtime: "wasm" });
  assert.equal(await nativeEmbedder.load(), "native");
  assert.equal(await wasmEmbedder.load(), "wasm");
  const [a, b] = [await nativeEmbedder.embed(TEXTS), await wasmEmbedder.embed(TEXTS)];
  TEXTS.forEach((t, i) => assert.ok(cosine(a[i]!, b[i]!) > 0.9999, `${t}: cosine ${cosine(a[i]!, b[i]!)}`));
});

test("the native files are written once, and rewritten when one differs from its pin", {
  timeout: 60_000,
  skip: native ? false : `no native runtime for ${hostPlatform()}`,
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), "minilm-native-"));
  try {
    const binding = await placeNative(dir);
    assert.equal(binding, join(dir, "onnxruntime_binding.node"));
    const library = join(dir, native!.library);
    assert.equal(sha256(readFileSync(library)), native!.librarySha256);
    assert.equal(sha256(readFileSync(binding!)), native!.bindingSha256);
    writeFileSync(library, "not a library");
    await placeNative(dir);
    assert.equal(sha256(readFileSync(library)), native!.librarySha256);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
