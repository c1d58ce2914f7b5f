import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Kysely } from "kysely";
import { freshDataDir, removeDataDirs } from "../db/_test_data_dir.ts";
import { type Database, openDatabase } from "../db/mod.ts";
import { HashedSessionTokens, sha256Hex } from "./hashed_session_tokens.ts";
import { createIdentityTables, type IdentityTables } from "./identity_tables.ts";

let database: Database<IdentityTables>;
let hashed: Kysely<IdentityTables>;
before(async () => {
  database = await openDatabase<IdentityTables>({ dataDir: await freshDataDir() });
  await createIdentityTables(database.db);
  await database.db.insertInto("user").values({
    id: "u1",
    name: "u1",
    email: "u1@example.test",
    emailVerified: false,
    image: null,
    role: "user",
    banned: null,
    banReason: null,
    banExpires: null,
  }).execute();
  hashed = database.db.withPlugin(new HashedSessionTokens());
});
after(async () => {
  await database.close();
  await removeDataDirs();
});

const session = (id: string, token: string) => ({
  id,
  token,
  userId: "u1",
  expiresAt: new Date(Date.now() + 60_000),
  updatedAt: new Date(),
});

test("the database holds the token's SHA-256; the library gets its own token back", async () => {
  const inserted = await hashed.insertInto("session").values(session("s1", "plain-token-1")).returningAll()
    .executeTakeFirstOrThrow();
  assert.equal(inserted.token, "plain-token-1");
  const raw = await database.db.selectFrom("session").select("token").where("id", "=", "s1")
    .executeTakeFirstOrThrow();
  assert.equal(raw.token, sha256Hex("plain-token-1"));

  const found = await hashed.selectFrom((eb) =>
    eb.selectFrom("session").selectAll().where("token", "=", "plain-token-1").as("primary")
  )
    .selectAll("primary").executeTakeFirst();
  assert.equal(found?.id, "s1");
  assert.equal(found?.token, "plain-token-1");
  const inList = await hashed.selectFrom("session").selectAll().where("token", "in", ["x", "plain-token-1"])
    .execute();
  assert.deepEqual(inList.map((r) => r.id), ["s1"]);
  assert.equal(
    await hashed.selectFrom("session").select("id").where("token", "=", raw.token).executeTakeFirst(),
    undefined,
    "the stored hash does not open the session",
  );
});

test("listed rows carry sha256:<hash>, which opens nothing", async () => {
  await hashed.insertInto("session").values(session("s2", "plain-token-2")).execute();
  const listed = await hashed.selectFrom("session").selectAll().where("id", "=", "s2")
    .executeTakeFirstOrThrow();
  assert.equal(listed.token, `sha256:${sha256Hex("plain-token-2")}`);
  assert.equal(
    await hashed.selectFrom("session").select("id").where("token", "=", listed.token).executeTakeFirst(),
    undefined,
  );
  const deleted = await hashed.deleteFrom("session").where("token", "=", "plain-token-2").returning("id")
    .executeTakeFirst();
  assert.equal(deleted?.id, "s2", "a delete by the token itself finds the row");
});
