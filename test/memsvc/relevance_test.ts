/**
 * Relevance check of hybrid search with the built-in embedder, black-box through dist/memsvc:
 * 200 varied memories and 30 hand-written queries with expected ids (test/fixtures/
 * memsvc_relevance.json). Prints recall@5 (and @10) and requires recall@5 >= 0.8.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, type RunningBinary, startBinary } from "../harness/binary.ts";
import { Client } from "../harness/http_client.ts";
import { type PostgresServer, startPostgres } from "../harness/postgres.ts";

interface Fixture {
  memories: { id: string; content: string }[];
  queries: { query: string; expected: string[] }[];
}

const fixture: Fixture = JSON.parse(
  readFileSync(join(ROOT, "test", "fixtures", "memsvc_relevance.json"), "utf8"),
);

for (const backend of ["pglite", "postgres"] as const) {
  describe(`memsvc search relevance on ${backend} (built-in embedder)`, () => {
    let home: string;
    let server: RunningBinary;
    let pg: PostgresServer | undefined;
    before(async () => {
      home = await mkdtemp(join(tmpdir(), "memsvc-relevance-"));
      if (backend === "postgres") pg = await startPostgres();
      server = await startBinary("memsvc", ["serve"], {
        cwd: home,
        env: {
          HOME: home,
          MEMSVC_PORT: "0",
          MEMSVC_LOG_FORMAT: "json",
          MEMSVC_AUTH_MODE: "none",
          ...(pg ? { MEMSVC_DATABASE_URL: pg.url } : {}),
        },
      });
    });
    after(async () => {
      await server?.stop();
      await pg?.stop();
      await rm(home, { recursive: true, force: true });
    });

    it("reaches recall@5 >= 0.8 on 30 labelled queries over 200 memories", async () => {
      const client = new Client(server.url);
      const idOf = new Map<string, string>();
      for (const m of fixture.memories) {
        const r = await client.post("/v1/remember", { content: m.content, force: true });
        assert.equal(r.status, 201, JSON.stringify(r.body));
        idOf.set(r.body.id, m.id);
      }
      const recallAt = async (k: number) => {
        let sum = 0;
        const misses: string[] = [];
        for (const q of fixture.queries) {
          const res = await client.post("/v1/search", { query: q.query, limit: k });
          const got = new Set(res.body.results.map((r: { id: string }) => idOf.get(r.id)));
          const hit = q.expected.filter((e) => got.has(e)).length / q.expected.length;
          if (hit < 1) misses.push(`${q.query} -> ${[...got].join(",")} (want ${q.expected.join(",")})`);
          sum += hit;
        }
        return { recall: sum / fixture.queries.length, misses };
      };
      const at5 = await recallAt(5);
      const at10 = await recallAt(10);
      console.log(
        `memsvc relevance: recall@5 = ${at5.recall.toFixed(3)}, recall@10 = ${at10.recall.toFixed(3)} ` +
          `(${fixture.queries.length} queries, ${fixture.memories.length} memories, hybrid, built-in embedder)`,
      );
      if (at5.misses.length) console.log(`  partial misses at 5:\n  ${at5.misses.join("\n  ")}`);
      assert.ok(at5.recall >= 0.8, `recall@5 = ${at5.recall.toFixed(3)}`);
    });
  });
}
