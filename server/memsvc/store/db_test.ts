import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { startPostgres } from "../../../test/harness/postgres.ts";
import { sql } from "kysely";
import { EMBEDDED_SHARED_BUFFERS } from "../../../internal/db/mod.ts";
import { openMemsvcStore, type OpenMemsvcStoreOptions } from "./db.ts";
import { migrations } from "./migrations/mod.ts";

let postgres: Awaited<ReturnType<typeof startPostgres>> | undefined;
let dir = "";

before(async () => {
  [postgres, dir] = await Promise.all([startPostgres(), mkdtemp(join(tmpdir(), "memsvc-store-"))]);
});

after(async () => {
  await postgres?.stop();
  await rm(dir, { recursive: true, force: true });
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const backends: Record<string, () => OpenMemsvcStoreOptions> = {
  pglite: () => ({ dataDir: join(dir, "data") }),
  postgres: () => ({ url: postgres!.url, dataDir: join(dir, "unused") }),
};

for (const [backend, options] of Object.entries(backends)) {
  describe(`openMemsvcStore on ${backend}`, () => {
    test("migrates on first start and keeps the instance id on the next", async () => {
      const first = await openMemsvcStore(options());
      let instanceId: string;
      try {
        assert.equal(first.database.backend, backend);
        assert.deepEqual(first.applied, Object.keys(migrations));
        assert.match(first.instanceId, UUID);
        instanceId = first.instanceId;
      } finally {
        await first.database.close();
      }
      const second = await openMemsvcStore(options());
      try {
        assert.deepEqual(second.applied, []);
        assert.equal(second.instanceId, instanceId);
      } finally {
        await second.database.close();
      }
    });

    if (backend === "pglite") {
      test("runs the embedded database with memsvc's small shared_buffers", async () => {
        // PGlite makes all of shared_buffers resident at start: the setting is memory every server pays.
        const { database } = await openMemsvcStore(options());
        try {
          const { rows } = await sql<{ shared_buffers: string }>`show shared_buffers`.execute(database.db);
          assert.equal(rows[0]?.shared_buffers, EMBEDDED_SHARED_BUFFERS);
        } finally {
          await database.close();
        }
      });
    }

    test("engine_state stores JSON values with a last-update time", async () => {
      const { database } = await openMemsvcStore(options());
      const { db } = database;
      try {
        const before = Date.now();
        const cursor = { after: "2024-01-01T00:00:00Z", ids: [1, 2] };
        await db.insertInto("engine_state").values({ key: "test_cursor", value: cursor }).execute();
        const row = await db.selectFrom("engine_state").selectAll().where("key", "=", "test_cursor")
          .executeTakeFirstOrThrow();
        assert.deepEqual(row.value, cursor);
        assert.ok(row.updated_at instanceof Date && row.updated_at.getTime() >= before - 5000);
        await assert.rejects(
          db.insertInto("engine_state").values({ key: "test_cursor", value: 1 }).execute(),
          /duplicate key/,
        );
        await assert.rejects(
          // deno-lint-ignore no-explicit-any
          db.insertInto("engine_state").values({ key: "no_value", value: null as any }).execute(),
          /null value/,
        );
      } finally {
        await db.deleteFrom("engine_state").where("key", "=", "test_cursor").execute();
        await database.close();
      }
    });
  });
}
