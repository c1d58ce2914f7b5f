/**
 * Black-box: dist/memsvc with MEMSVC_EMBEDDER=builtin-minilm. The model, vocabulary and runtimes come
 * from inside the binary (run from an empty directory, no network needed): the model loads in the
 * background at start (natively where the build has onnxruntime's library for the platform, its files
 * written under $HOME/.cache/memsvc), then remember and a vector-only search that finds a paraphrase
 * sharing no word with the query, with the MiniLM vectors reported by health. Where the native files
 * cannot be written, it runs on wasm and logs why.
 * The same store restarted with MEMSVC_EMBEDDER=builtin-bge-small is re-embedded by the binary's other
 * model and searched with its query instruction.
 * A bad MEMSVC_EMBEDDER value stops the start with a config error naming the variable.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runBinary, type RunningBinary, startBinary } from "../harness/binary.ts";
import { Client } from "../harness/http_client.ts";
import { memsvcEnv } from "../harness/memsvc.ts";
import { hostPlatform, NATIVE_PLATFORMS } from "../../server/memsvc/embeddings/minilm_assets.ts";
import { nativeDir } from "../../server/memsvc/embeddings/minilm_runtime.ts";

const TOKEN = "minilm-test-token-0123456789abcdef0123";

describe("memsvc with the built-in MiniLM embedder", () => {
  let home: string;
  let server: RunningBinary;
  let api: Client;
  const env = (embedder: string) =>
    memsvcEnv(home, {
      extra: { MEMSVC_AUTH_MODE: "bearer", MEMSVC_AUTH_TOKEN: TOKEN, MEMSVC_EMBEDDER: embedder },
    });

  before(async () => {
    home = await mkdtemp(join(tmpdir(), "memsvc-minilm-"));
  });
  after(async () => {
    await server?.stop();
    await rm(home, { recursive: true, force: true });
  });

  it("refuses an unknown MEMSVC_EMBEDDER, naming it", async () => {
    const r = await runBinary("memsvc", ["serve"], { cwd: home, env: env("minilm") });
    assert.notEqual(r.code, 0);
    assert.match(
      r.stderr + r.stdout,
      /MEMSVC_EMBEDDER: must be one of builtin-hash, builtin-static, builtin-minilm, builtin-bge-small, openai/,
    );
  });

  it(
    "remembers and finds a paraphrase by meaning, from the embedded model",
    { timeout: 300_000 },
    async () => {
      // The first start runs initdb, slow on a loaded machine.
      server = await startBinary("memsvc", ["serve"], {
        cwd: home,
        env: env("builtin-minilm"),
        timeoutMs: 120_000,
      });
      api = new Client(server.url, { bearer: TOKEN });
      // Loaded at start, not awaited by it: the record comes after "listening" or soon after.
      const deadline = Date.now() + 120_000;
      let loaded;
      while (
        !(loaded = server.records().find((r) => r.msg === "builtin-minilm loaded")) && Date.now() < deadline
      ) {
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(loaded, server.output());
      const native = NATIVE_PLATFORMS[hostPlatform()];
      assert.equal(loaded.runtime, native ? "native" : "wasm", JSON.stringify(loaded));
      if (native) {
        const dir = nativeDir(join(home, ".cache"));
        assert.ok(existsSync(join(dir, native.library)), `${dir}/${native.library}`);
      }
      const texts = [
        "In July we spent two weeks in Lisbon by the sea.",
        "The quarterly budget review moved to Thursday afternoon.",
        "My sister adopted a grey kitten called Pebble.",
      ];
      const ids: string[] = [];
      for (const content of texts) {
        const r = await api.post("/v1/remember", { content, force: true });
        assert.equal(r.status, 201, JSON.stringify(r.body));
        ids.push(r.body.id);
      }
      const r = await api.post("/v1/search", {
        query: "where did I go on holiday?",
        mode: "vector",
        limit: 3,
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.results[0]?.id, ids[0], JSON.stringify(r.body.results));
      const pet = await api.post("/v1/search", { query: "a new pet cat", mode: "vector", limit: 1 });
      assert.equal(pet.body.results[0]?.id, ids[2], JSON.stringify(pet.body.results));

      const health = await api.get("/v1/admin/health/deep");
      assert.equal(health.status, 200, JSON.stringify(health.body));
      assert.equal(health.body.embedder?.id, "builtin-minilm-l6-int8-v1:384", JSON.stringify(health.body));
      assert.equal(health.body.embedder?.ok, true);
    },
  );

  it("switches the store to builtin-bge-small, the binary's other model", { timeout: 300_000 }, async () => {
    await server.stop();
    server = await startBinary("memsvc", ["serve"], {
      cwd: home,
      env: env("builtin-bge-small"),
      timeoutMs: 120_000,
    });
    api = new Client(server.url, { bearer: TOKEN });
    // The start re-embeds the three entries in the background; a search waits for their vectors.
    const pet = await api.post("/v1/search", { query: "a new pet cat", mode: "vector", limit: 1 });
    assert.equal(pet.status, 200, JSON.stringify(pet.body));
    assert.match(pet.body.results[0]?.content ?? "", /kitten/, JSON.stringify(pet.body.results));
    const holiday = await api.post("/v1/search", {
      query: "where did I go on holiday?",
      mode: "vector",
      limit: 1,
    });
    assert.match(holiday.body.results[0]?.content ?? "", /Lisbon/, JSON.stringify(holiday.body.results));
    const health = await api.get("/v1/admin/health/deep");
    assert.equal(
      health.body.embedder?.id,
      "builtin-bge-small-en-v1.5-int8-v1:384",
      JSON.stringify(health.body),
    );
    assert.equal(health.body.embedder?.ok, true);
  });

  it(
    "falls back to wasm, saying why, when the native runtime cannot be written",
    { timeout: 300_000, skip: NATIVE_PLATFORMS[hostPlatform()] ? false : "no native runtime here" },
    async () => {
      const other = await mkdtemp(join(tmpdir(), "memsvc-minilm-wasm-"));
      // A cache "directory" under a regular file: creating it fails with ENOTDIR, as a read-only one would.
      const fallback = await startBinary("memsvc", ["serve"], {
        cwd: other,
        env: memsvcEnv(other, {
          extra: {
            MEMSVC_AUTH_MODE: "bearer",
            MEMSVC_AUTH_TOKEN: TOKEN,
            MEMSVC_EMBEDDER: "builtin-minilm",
            XDG_CACHE_HOME: "/dev/null/cache",
          },
        }),
        timeoutMs: 120_000,
      });
      try {
        const deadline = Date.now() + 120_000;
        let loaded;
        while (
          !(loaded = fallback.records().find((r) => r.msg === "builtin-minilm loaded")) &&
          Date.now() < deadline
        ) {
          await new Promise((r) => setTimeout(r, 100));
        }
        assert.ok(loaded, fallback.output());
        assert.equal(loaded.runtime, "wasm", JSON.stringify(loaded));
        assert.match(String(loaded.native_error), /ENOTDIR|not a directory/i, JSON.stringify(loaded));
        const client = new Client(fallback.url, { bearer: TOKEN });
        const r = await client.post("/v1/remember", {
          content: "My sister adopted a grey kitten.",
          force: true,
        });
        assert.equal(r.status, 201, JSON.stringify(r.body));
        const found = await client.post("/v1/search", { query: "a new pet cat", mode: "vector", limit: 1 });
        assert.equal(found.body.results[0]?.id, r.body.id, JSON.stringify(found.body));
      } finally {
        await fallback.stop();
        await rm(other, { recursive: true, force: true });
      }
    },
  );
});
