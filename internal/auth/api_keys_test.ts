/**
 * The shared API key store on a table with its own id column, a shown prefix, an expiry and a column
 * of the tool's own (the vault's shape; memsvc's, where the hash is the id, is tested through its
 * TokenStore in server/memsvc/tokens/api_tokens_test.ts).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { freshDataDir, removeDataDirs } from "../db/_test_data_dir.ts";
import { type Database, openDatabase } from "../db/mod.ts";
import { ApiKeyStore, type ApiKeyStoreOptions, hashApiKey } from "./api_keys.ts";

let database: Database<unknown>;
before(async () => {
  database = await openDatabase({ dataDir: await freshDataDir() });
  await sql`create table "user" (id text primary key, email text not null, role text, banned boolean,
    "banExpires" timestamptz)`.execute(database.db);
  await sql`create table keys (id text primary key, owner text not null references "user"(id),
    title text not null, shown text not null, digest text not null unique, scope text not null,
    made timestamptz not null default now(), ends timestamptz, used timestamptz)`.execute(database.db);
  await sql`insert into "user" (id, email, role, banned) values ('ada', 'ada@example.com', 'admin', false),
    ('eve', 'eve@example.com', 'user', true)`.execute(database.db);
});
after(async () => {
  await database.close();
  await removeDataDirs();
});

let ids = 0;
const store = (more: Partial<ApiKeyStoreOptions> = {}) =>
  new ApiKeyStore(database.db, {
    keyPrefix: "k_",
    table: {
      name: "keys",
      id: "id",
      hash: "digest",
      userId: "owner",
      label: "title",
      createdAt: "made",
      lastUsedAt: "used",
      prefix: "shown",
      expiresAt: "ends",
    },
    newId: () => `key-${++ids}`,
    shownPrefixLength: 8,
    extra: ["scope"],
    ...more,
  });

describe("ApiKeyStore on a table of the tool's own names", () => {
  test("create keeps the hash, the shown prefix and the tool's column; list never shows the secret", async () => {
    const keys = store();
    const { key, stored } = await keys.create("ada", "laptop", { values: { scope: "read" } });
    assert.match(key, /^k_[A-Za-z0-9_-]{43}$/);
    assert.equal(stored.hash, hashApiKey(key));
    assert.equal(stored.prefix, key.slice(0, 8));
    assert.deepEqual(stored.extra, { scope: "read" });
    const { rows } = await sql`select * from keys`.execute(database.db);
    assert.ok(!JSON.stringify(rows).includes(key.slice(8)), "the secret is not stored");
    const listed = await keys.list("ada");
    assert.deepEqual(listed.map((k) => k.id), [stored.id]);
    assert.equal(listed[0]!.lastUsedAt, null);
    assert.deepEqual(await keys.list("eve"), []);
  });

  test("resolve gives the owner and the tool's columns; refuses expired keys and banned owners", async () => {
    let now = Date.parse("2030-01-01T00:00:00Z");
    const keys = store({ now: () => now });
    const open = await keys.create("ada", "open", { values: { scope: "read-write" } });
    const ending = await keys.create("ada", "ending", {
      values: { scope: "read" },
      expiresAt: new Date(now + 1000),
    });
    const banned = await keys.create("eve", "banned", { values: { scope: "read" } });
    assert.deepEqual(await keys.resolve(open.key), {
      userId: "ada",
      email: "ada@example.com",
      role: "admin",
      hash: open.stored.hash,
      extra: { scope: "read-write" },
    });
    assert.equal((await keys.resolve(ending.key))?.userId, "ada");
    now += 1000;
    assert.equal(await keys.resolve(ending.key), undefined, "expired");
    assert.equal(await keys.resolve(banned.key), undefined, "banned owner");
    assert.equal(await keys.resolve("k_unknown"), undefined);
    await keys.drain();
    const used = (await keys.list("ada")).find((k) => k.id === open.stored.id)!;
    assert.equal(used.lastUsedAt?.getTime(), Date.parse("2030-01-01T00:00:00Z"));
  });

  test("revoke takes the owner's key by id only; rotate keeps label, scope and expiry under a new id", async () => {
    const removed: string[] = [];
    const keys = store({ onRemoved: (hash) => removed.push(hash) });
    const ends = new Date("2040-01-01T00:00:00Z");
    const made = await keys.create("ada", "agent", { values: { scope: "read" }, expiresAt: ends });
    assert.equal(await keys.revoke("eve", made.stored.id), false, "another user's key is as unknown as none");
    const rotated = (await keys.rotate(made.stored.id))!;
    assert.notEqual(rotated.stored.id, made.stored.id);
    assert.equal(rotated.stored.label, "agent");
    assert.deepEqual(rotated.stored.extra, { scope: "read" });
    assert.equal(rotated.stored.expiresAt?.getTime(), ends.getTime());
    assert.equal(await keys.resolve(made.key), undefined);
    assert.equal(await keys.revoke("ada", rotated.stored.id), true);
    assert.equal(await keys.resolve(rotated.key), undefined);
    assert.deepEqual(removed, [made.stored.hash, rotated.stored.hash]);
  });
});
