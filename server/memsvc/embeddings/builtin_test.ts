import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import {
  BUILTIN_DIMENSIONS,
  BUILTIN_ID,
  BuiltinEmbedder,
  embedText,
  stem,
  STOP_WORDS,
  tokens,
} from "./builtin.ts";
import { cosine, toBytes } from "./embedder.ts";

const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
const sim = (a: string, b: string) => cosine(embedText(a), embedText(b));

test("identity: builtin-hash-v1:512", async () => {
  const embedder = new BuiltinEmbedder();
  assert.equal(embedder.id, "builtin-hash-v1:512");
  assert.equal(embedder.id, BUILTIN_ID);
  assert.equal(embedder.dimensions, 512);
  const [v] = await embedder.embed(["hello"]);
  assert.equal(v!.length, BUILTIN_DIMENSIONS);
});

test("embed returns one vector per text, in order, and nothing for no texts", async () => {
  const embedder = new BuiltinEmbedder();
  const texts = ["postgres migrations", "react native crash", "postgres migrations"];
  const vectors = await embedder.embed(texts);
  assert.equal(vectors.length, 3);
  assert.deepEqual(vectors[0], embedText(texts[0]!));
  assert.deepEqual(vectors[1], embedText(texts[1]!));
  assert.deepEqual(vectors[0], vectors[2]);
  assert.deepEqual(await embedder.embed([]), []);
});

test("deterministic: the same text gives the same bytes, pinned across runs and runtimes", () => {
  const text = "The user's deploys to Orbit run through Argo CD; never kubectl apply in production.";
  assert.deepEqual(embedText(text), embedText(text));
  // Pinned digests, also reproduced under Bun and Node: if these move, the vector space moved and
  // BUILTIN_ID must change, or stored vectors would be compared with incompatible ones.
  const digest = (t: string) => createHash("sha256").update(toBytes(embedText(t))).digest("hex").slice(0, 16);
  assert.equal(digest(text), "25c1cc514caeff8b");
  assert.equal(digest(""), "fd132f47c695c12a");
  assert.equal(digest("the and of"), "55a1ab38ff58733d");
  assert.equal(digest("Привет, мир! 数据库迁移 café"), "1ee377a603c664ff");
  // Repeated features take the 1 + ln(tf) path.
  assert.equal(
    digest("cache cache cache caching caches; the cache's cache keys are cached"),
    "2e8d5b38d79c304e",
  );
});

test("every vector has unit length and is never all zeros, whatever the input", () => {
  const texts = [
    "Atlas uses PostgreSQL 15 through pgx",
    "",
    "   ",
    "!!! ??? ...",
    "the and of it is",
    "a",
    "x".repeat(10_000),
    "Привет, мир! 数据库迁移 café 🚀",
    "word ".repeat(2_000),
  ];
  for (const text of texts) {
    const v = embedText(text);
    assert.ok(Math.abs(norm(v) - 1) < 1e-5, `norm of ${JSON.stringify(text.slice(0, 20))} is ${norm(v)}`);
    assert.ok(v.some((x) => x !== 0));
    assert.ok(v.every(Number.isFinite));
  }
});

test("stop-word-only texts still tell each other apart", () => {
  assert.ok(sim("what is this", "where are they") < 0.5);
  assert.ok(sim("!!!", "???") < 1);
});

test("paraphrases and word forms are closer than unrelated sentences", () => {
  const cases: [string, string, string][] = [
    [
      "Deploying the billing service to production",
      "billing service deployment in prod",
      "The user prefers tabs in Python files",
    ],
    [
      "The user prefers dark mode in the editor",
      "user preference: editor dark theme",
      "Database backups run nightly at 2 AM",
    ],
    [
      "Postgres migrations are applied with goose",
      "apply PostgreSQL migration using goose",
      "React Native crashes on Android startup",
    ],
    [
      "The cache was invalidated too often",
      "caching invalidation happens too frequently",
      "Kubernetes ingress uses cert-manager",
    ],
  ];
  for (const [a, near, far] of cases) {
    const close = sim(a, near), distant = sim(a, far);
    assert.ok(close > distant + 0.15, `${a} ~ ${near}: ${close.toFixed(3)} vs ${far}: ${distant.toFixed(3)}`);
  }
  assert.ok(sim("deploy deployed deploying deploys", "deployment") > 0.5);
});

test("character n-grams bridge spelling variants and typos", () => {
  assert.ok(sim("kuberentes", "kubernetes") > 0.2, "a transposition keeps the word's outer n-grams");
  assert.ok(sim("kuberentes", "kubernetes") > sim("kuberentes", "grafana") + 0.2);
  assert.ok(
    sim("elasticsearch index", "elastic search index") > sim("elasticsearch index", "grafana dashboard"),
  );
});

test("stem strips common English endings consistently", () => {
  const cases: Record<string, string> = {
    // plurals
    queries: "query",
    dependencies: "dependency",
    caches: "cach",
    boxes: "box",
    classes: "class",
    releases: "releas",
    status: "status",
    redis: "redis",
    // -ing, -ed, -ied, with undoubling
    deploying: "deploy",
    deployed: "deploy",
    running: "run",
    logging: "log",
    committed: "commit",
    called: "call",
    passed: "pass",
    added: "add",
    retried: "retry",
    caching: "cach",
    string: "string",
    need: "need",
    speed: "speed",
    // -ly, -ment, -tion/-sion, final e
    nightly: "night",
    weekly: "week",
    daily: "daily",
    deployment: "deploy",
    deployments: "deploy",
    comment: "comment",
    migration: "migrat",
    migrate: "migrat",
    connection: "connect",
    cache: "cach",
    configure: "configur",
    configured: "configur",
    using: "us",
    going: "go",
    thing: "thing",
    shed: "shed",
    // untouched
    go: "go",
    v18: "v18",
    k8s: "k8s",
  };
  for (const [word, expected] of Object.entries(cases)) assert.equal(stem(word), expected, word);
  // Every form of a word family meets at one stem.
  for (const family of [["use", "used", "uses", "using"], ["test", "tests", "tested", "testing"]]) {
    assert.equal(new Set(family.map(stem)).size, 1, family.join(","));
  }
});

test("tokens: lower-cased, stemmed, stop words and one-letter words dropped, abbreviations spelled out", () => {
  assert.deepEqual(tokens("How do I deploy the APIs to Kubernetes?"), ["deploy", "apis", "kubernet"]);
  assert.deepEqual(tokens("The user's DB config"), ["user", "databas", "configurat"]);
  assert.deepEqual(tokens("don't use k8s in a PR"), ["us", "kubernet", "pull", "request"]);
  assert.deepEqual(tokens("node.js v20_1 x"), ["nod", "js", "v20"]);
  assert.deepEqual(tokens("Größe café CAFE ﬁle"), ["groß", "caf", "caf", "fil"]);
  assert.deepEqual(tokens("データベース 移行 мой"), ["データベース", "移行", "мой"]);
  assert.deepEqual(tokens("what is this"), []);
  assert.deepEqual(tokens(""), []);
});

test("STOP_WORDS is a compact English list of function words", () => {
  for (const w of ["the", "and", "is", "what", "how", "dont"]) assert.ok(STOP_WORDS.has(w), w);
  for (const w of ["deploy", "database", "user", "error", "never"]) assert.ok(!STOP_WORDS.has(w), w);
  assert.ok(STOP_WORDS.size < 250);
});

test("throughput: 10,000 sentences of 20 words (printed, not asserted)", async () => {
  // Words drawn from the relevance fixture, so lengths and vocabulary are realistic.
  const fixture = JSON.parse(
    readFileSync(new URL("../../../test/fixtures/memsvc_relevance.json", import.meta.url), "utf8"),
  ) as { memories: { content: string }[] };
  const vocabulary = fixture.memories.flatMap((m) => m.content.split(/\s+/));
  let seed = 42;
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const sentences = Array.from(
    { length: 10_000 },
    () => Array.from({ length: 20 }, () => vocabulary[Math.floor(random() * vocabulary.length)]).join(" "),
  );
  const embedder = new BuiltinEmbedder();
  await embedder.embed(sentences.slice(0, 500)); // warm up the JIT
  const start = performance.now();
  const vectors = await embedder.embed(sentences);
  const ms = performance.now() - start;
  console.log(
    `builtin embedder: ${sentences.length} sentences of 20 words in ${ms.toFixed(0)} ms ` +
      `(${Math.round(sentences.length / (ms / 1000))} texts/s)`,
  );
  assert.equal(vectors.length, sentences.length);
});
