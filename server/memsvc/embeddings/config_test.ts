import assert from "node:assert/strict";
import { test } from "node:test";
import { z } from "zod";
import { ConfigError, loadEnv } from "../../../internal/config/mod.ts";
import { BuiltinEmbedder } from "./builtin.ts";
import { createEmbedder, embedderName, embeddingsEnv, embeddingsProblems } from "./config.ts";
import { MiniLMEmbedder } from "./minilm.ts";
import { OpenAIEmbedder } from "./openai.ts";
import { StaticEmbedder } from "./static_minilm.ts";

test("no URL: the built-in static embedder; builtin-hash on request", () => {
  const embedder = createEmbedder({});
  assert.ok(embedder instanceof StaticEmbedder);
  assert.equal(embedder.id, "builtin-static-minilm-l6-v1:384");
  assert.equal(createEmbedder({ MEMSVC_EMBEDDER: "builtin-hash" }).id, "builtin-hash-v1:512");
});

test("a URL and a model: the OpenAI-compatible client, with key and dimensions", async () => {
  const calls: { url: string; init: RequestInit }[] = [];
  const fetch = (input: string | URL | Request, init?: RequestInit) => {
    calls.push({ url: String(input), init: init ?? {} });
    return Promise.resolve(Response.json({ data: [{ index: 0, embedding: [3, 4, 0] }] }));
  };
  const embedder = createEmbedder({
    MEMSVC_EMBEDDINGS_URL: "https://api.example.com/v1",
    MEMSVC_EMBEDDINGS_MODEL: "text-embedding-3-small",
    MEMSVC_EMBEDDINGS_API_KEY: "sk-config-test-key",
    MEMSVC_EMBEDDINGS_DIMENSIONS: 3,
  }, { fetch: fetch as typeof globalThis.fetch });
  assert.ok(embedder instanceof OpenAIEmbedder);
  assert.equal(embedder.id, "openai:text-embedding-3-small:3");
  const [v] = await embedder.embed(["hi"]);
  assert.deepEqual([...v!], [0.6000000238418579, 0.800000011920929, 0]);
  assert.equal(calls[0]!.url, "https://api.example.com/v1/embeddings");
  assert.equal((calls[0]!.init.headers as Record<string, string>).authorization, "Bearer sk-config-test-key");
  assert.equal(JSON.parse(String(calls[0]!.init.body)).dimensions, 3);
});

test("a URL without a model is refused, naming MEMSVC_EMBEDDINGS_MODEL", () => {
  assert.throws(
    () => createEmbedder({ MEMSVC_EMBEDDINGS_URL: "http://localhost:11434/v1" }),
    (err) => err instanceof ConfigError && /MEMSVC_EMBEDDINGS_MODEL is required/.test(err.message),
  );
});

test("model, key or dimensions without a URL are refused instead of silently ignored", () => {
  assert.deepEqual(embeddingsProblems({ MEMSVC_EMBEDDINGS_MODEL: "m", MEMSVC_EMBEDDINGS_DIMENSIONS: 8 }), [
    "MEMSVC_EMBEDDINGS_MODEL has no effect without MEMSVC_EMBEDDINGS_URL (set the URL, e.g. https://api.openai.com/v1, or unset it to use the built-in embedder)",
    "MEMSVC_EMBEDDINGS_DIMENSIONS has no effect without MEMSVC_EMBEDDINGS_URL (set the URL, e.g. https://api.openai.com/v1, or unset it to use the built-in embedder)",
  ]);
  assert.throws(
    () => createEmbedder({ MEMSVC_EMBEDDINGS_API_KEY: "sk-x" }),
    /MEMSVC_EMBEDDINGS_API_KEY has no effect/,
  );
  assert.deepEqual(embeddingsProblems({}), []);
});

const UNSET = {
  MEMSVC_EMBEDDER: undefined,
  MEMSVC_EMBEDDINGS_URL: undefined,
  MEMSVC_EMBEDDINGS_MODEL: undefined,
  MEMSVC_EMBEDDINGS_API_KEY: undefined,
  MEMSVC_EMBEDDINGS_DIMENSIONS: undefined,
};

test("embeddingsEnv parses the variables from the environment", () => {
  assert.deepEqual(loadEnv(embeddingsEnv, {}), UNSET);
  assert.deepEqual(
    loadEnv(embeddingsEnv, { MEMSVC_EMBEDDINGS_URL: "", MEMSVC_EMBEDDINGS_DIMENSIONS: "" }),
    UNSET,
  );
  assert.ok(createEmbedder(loadEnv(embeddingsEnv, {})) instanceof StaticEmbedder);
  assert.deepEqual(
    loadEnv(embeddingsEnv, {
      MEMSVC_EMBEDDINGS_URL: "http://localhost:11434/v1",
      MEMSVC_EMBEDDINGS_MODEL: "nomic-embed-text",
      MEMSVC_EMBEDDINGS_API_KEY: "secret-key-value",
      MEMSVC_EMBEDDINGS_DIMENSIONS: "768",
    }),
    {
      MEMSVC_EMBEDDER: undefined,
      MEMSVC_EMBEDDINGS_URL: "http://localhost:11434/v1",
      MEMSVC_EMBEDDINGS_MODEL: "nomic-embed-text",
      MEMSVC_EMBEDDINGS_API_KEY: "secret-key-value",
      MEMSVC_EMBEDDINGS_DIMENSIONS: 768,
    },
  );
});

test("embeddingsEnv names the bad variable and what is wrong", () => {
  const problems = (env: Record<string, string>) => {
    try {
      loadEnv(embeddingsEnv, env);
    } catch (err) {
      assert.ok(err instanceof ConfigError);
      return err.problems;
    }
    assert.fail("expected a ConfigError");
  };
  assert.match(
    problems({ MEMSVC_EMBEDDINGS_URL: "ftp://example.com/v1" })[0]!,
    /^MEMSVC_EMBEDDINGS_URL: must be an http/,
  );
  assert.match(
    problems({ MEMSVC_EMBEDDINGS_URL: "api.openai.com" })[0]!,
    /^MEMSVC_EMBEDDINGS_URL: must be an http/,
  );
  for (const bad of ["0", "-3", "1.5", "many"]) {
    assert.match(
      problems({ MEMSVC_EMBEDDINGS_DIMENSIONS: bad })[0]!,
      /^MEMSVC_EMBEDDINGS_DIMENSIONS: must be/,
      bad,
    );
  }
  assert.match(
    problems({ MEMSVC_EMBEDDINGS_MODEL: "  " })[0]!,
    /^MEMSVC_EMBEDDINGS_MODEL: must not be empty/,
  );
});

test("embeddingsEnv merges into a larger schema", () => {
  const merged = z.object({ MEMSVC_PORT: z.coerce.number().default(7778) }).extend(embeddingsEnv.shape);
  assert.deepEqual(loadEnv(merged, { MEMSVC_EMBEDDINGS_MODEL: "m" }), {
    ...UNSET,
    MEMSVC_PORT: 7778,
    MEMSVC_EMBEDDINGS_MODEL: "m",
  });
});

test("MEMSVC_EMBEDDER picks the embedder; unset, the URL decides", () => {
  assert.equal(embedderName({}), "builtin-static");
  assert.equal(embedderName({ MEMSVC_EMBEDDINGS_URL: "http://localhost:11434/v1" }), "openai");
  assert.ok(createEmbedder({ MEMSVC_EMBEDDER: "builtin-hash" }) instanceof BuiltinEmbedder);
  const minilm = createEmbedder(loadEnv(embeddingsEnv, { MEMSVC_EMBEDDER: "builtin-minilm" }));
  assert.ok(minilm instanceof MiniLMEmbedder);
  assert.equal(minilm.id, "builtin-minilm-l6-int8-v1:384");
  assert.equal(minilm.dimensions, 384);
  const staticEmbedder = createEmbedder(loadEnv(embeddingsEnv, { MEMSVC_EMBEDDER: "builtin-static" }));
  assert.ok(staticEmbedder instanceof StaticEmbedder);
  assert.equal(staticEmbedder.id, "builtin-static-minilm-l6-v1:384");
  const openai = createEmbedder({
    MEMSVC_EMBEDDER: "openai",
    MEMSVC_EMBEDDINGS_URL: "http://localhost:11434/v1",
    MEMSVC_EMBEDDINGS_MODEL: "nomic-embed-text",
  });
  assert.ok(openai instanceof OpenAIEmbedder);
});

test("a bad or contradictory MEMSVC_EMBEDDER is a config error naming the variable", () => {
  assert.throws(
    () => loadEnv(embeddingsEnv, { MEMSVC_EMBEDDER: "minilm" }),
    (err: unknown) =>
      err instanceof ConfigError &&
      err.problems[0]!.startsWith(
        "MEMSVC_EMBEDDER: must be one of builtin-hash, builtin-static, builtin-minilm, builtin-bge-small, openai",
      ),
  );
  assert.deepEqual(embeddingsProblems({ MEMSVC_EMBEDDER: "openai" }), [
    "MEMSVC_EMBEDDER=openai needs MEMSVC_EMBEDDINGS_URL (for example https://api.openai.com/v1)",
  ]);
  assert.throws(
    () => createEmbedder({ MEMSVC_EMBEDDER: "builtin-minilm", MEMSVC_EMBEDDINGS_URL: "http://x.test/v1" }),
    /MEMSVC_EMBEDDINGS_URL has no effect with MEMSVC_EMBEDDER=builtin-minilm/,
  );
});
