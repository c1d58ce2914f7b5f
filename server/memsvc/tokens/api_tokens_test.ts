import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { unmarkedWriteCount } from "../../../internal/db/mod.ts";
import { ValidationError } from "../../../internal/http/mod.ts";
import { createLogger } from "../../../internal/log/mod.ts";
import { insertUser, openTestStore, type TestStore } from "../_test_store.ts";
import { generateToken, hashToken, TokenStore } from "./api_tokens.ts";

let store: TestStore;
before(async () => {
  store = await openTestStore();
  await insertUser(store.db, { id: "alice", role: "admin" });
  await insertUser(store.db, { id: "bob" });
});
after(() => store.close());

const HEX64 = /^[0-9a-f]{64}$/;

describe("generateToken and hashToken", () => {
  test("a token is nm_ plus 32 random bytes in base64url", () => {
    const tokens = new Set(Array.from({ length: 1000 }, generateToken));
    assert.equal(tokens.size, 1000);
    for (const token of tokens) {
      assert.match(token, /^nm_[A-Za-z0-9_-]{43}$/);
      assert.equal(Buffer.from(token.slice(3), "base64url").length, 32);
    }
  });

  test("the hash is SHA-256 hex", async () => {
    assert.equal(
      await hashToken("abc"),
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
  });
});

describe("TokenStore", () => {
  test("create stores only the hash, and list never shows the plaintext", async () => {
    const tokens = new TokenStore(store.db);
    const first = await tokens.create("alice", "  laptop  ");
    const second = await tokens.create("alice", "ci");
    assert.equal(first.label, "laptop");
    assert.equal(first.tokenHash, await hashToken(first.token));
    assert.match(first.tokenHash, HEX64);

    const rows = await store.db.selectFrom("user_tokens").selectAll().where("user_id", "=", "alice")
      .execute();
    const stored = JSON.stringify(rows);
    for (const { token } of [first, second]) {
      assert.ok(!stored.includes(token.slice(3)), "plaintext found in user_tokens");
    }

    const listed = await tokens.list("alice");
    assert.deepEqual(listed.map((t) => t.tokenHash), [second.tokenHash, first.tokenHash]);
    assert.deepEqual(Object.keys(listed[0]!).sort(), ["createdAt", "label", "lastUsedAt", "tokenHash"]);
    assert.equal(listed[0]!.lastUsedAt, null);
    assert.ok(!JSON.stringify(listed).includes(first.token.slice(3)));
    assert.deepEqual(await tokens.list("bob"), []);
  });

  test("labels are trimmed and must be 1 to 100 characters", async () => {
    const tokens = new TokenStore(store.db);
    for (const label of ["", "   ", "x".repeat(101)]) {
      await assert.rejects(tokens.create("bob", label), (err: ValidationError) => {
        assert.ok(err instanceof ValidationError);
        assert.deepEqual(err.issues[0]!.path, ["label"]);
        return true;
      });
    }
    assert.equal((await tokens.create("bob", "é".repeat(100))).label.length, 100);
  });

  test("a user cannot hold more than maxTokensPerUser tokens", async () => {
    await insertUser(store.db, { id: "carol" });
    const tokens = new TokenStore(store.db, { maxTokensPerUser: 2 });
    await Promise.all([tokens.create("carol", "a"), tokens.create("carol", "b")]);
    await assert.rejects(tokens.create("carol", "c"), (err: ValidationError) => {
      assert.ok(err instanceof ValidationError);
      assert.match(err.message, /at most 2 API tokens/);
      return true;
    });
    assert.equal((await tokens.list("carol")).length, 2);
  });

  test("resolve returns the owner; an unknown token gives undefined", async () => {
    const tokens = new TokenStore(store.db);
    const { token, tokenHash } = await tokens.create("alice", "resolve");
    assert.deepEqual(await tokens.resolve(token), {
      userId: "alice",
      email: "alice@example.test",
      role: "admin",
      tokenHash,
    });
    assert.equal(await tokens.resolve(generateToken()), undefined);
    await tokens.drain();
  });

  test("delete removes only the caller's own token", async () => {
    const tokens = new TokenStore(store.db);
    const { token, tokenHash } = await tokens.create("alice", "to delete");
    assert.equal(await tokens.delete("bob", tokenHash), false);
    assert.ok(await tokens.resolve(token));
    assert.equal(await tokens.delete("alice", tokenHash), true);
    assert.equal(await tokens.resolve(token), undefined);
    assert.equal(await tokens.delete("alice", tokenHash), false);
    await tokens.drain();
  });

  test("rotate replaces the token with one of the same owner and label", async () => {
    const tokens = new TokenStore(store.db);
    const old = await tokens.create("bob", "agent");
    const fresh = await tokens.rotate(old.tokenHash);
    assert.ok(fresh);
    assert.equal(fresh.label, "agent");
    assert.notEqual(fresh.token, old.token);
    assert.equal(fresh.tokenHash, await hashToken(fresh.token));
    assert.equal(await tokens.resolve(old.token), undefined);
    assert.equal((await tokens.resolve(fresh.token))?.userId, "bob");
    assert.equal(await tokens.rotate(old.tokenHash), undefined);
    await tokens.drain();
  });

  test("rotate is one transaction: a failed insert keeps the old token", async () => {
    const tokens = new TokenStore(store.db);
    const old = await tokens.create("bob", "atomic");
    // From now on only the old hash may be written, so the insert fails after the delete ran in the transaction.
    await sql`alter table user_tokens add constraint test_only_old check (token_hash = ${
      sql.lit(old.tokenHash)
    }) not valid`
      .execute(store.db);
    try {
      await assert.rejects(tokens.rotate(old.tokenHash));
    } finally {
      await store.db.schema.alterTable("user_tokens").dropConstraint("test_only_old").execute();
    }
    assert.equal((await tokens.resolve(old.token))?.userId, "bob");
    await tokens.drain();
  });

  test("revoke deletes a token by its plaintext, whoever owns it", async () => {
    const tokens = new TokenStore(store.db);
    const { token, tokenHash } = await tokens.create("bob", "leaked");
    assert.deepEqual(await tokens.revoke(token), { userId: "bob", tokenHash });
    assert.equal(await tokens.resolve(token), undefined);
    assert.equal(await tokens.revoke(token), undefined);
  });

  test("a banned owner's tokens resolve to undefined until the ban expires", async () => {
    let now = Date.parse("2030-01-01T00:00:00Z");
    const tokens = new TokenStore(store.db, { now: () => now });
    await insertUser(store.db, { id: "mallory", banned: true, banExpires: null });
    await insertUser(store.db, { id: "trent", banned: true, banExpires: new Date(now + 1000) });
    await insertUser(store.db, { id: "walter", banned: false });
    const forever = await tokens.create("mallory", "x");
    const temporary = await tokens.create("trent", "x");
    const unbanned = await tokens.create("walter", "x");

    assert.equal(await tokens.resolve(forever.token), undefined);
    assert.equal(await tokens.resolve(temporary.token), undefined);
    assert.equal((await tokens.resolve(unbanned.token))?.userId, "walter");
    now += 1000;
    assert.equal((await tokens.resolve(temporary.token))?.userId, "trent");
    assert.equal(await tokens.resolve(forever.token), undefined);
    await tokens.drain();
  });

  test("last use is written at most once per debounce window", async () => {
    const start = Date.parse("2031-05-01T12:00:00Z");
    let now = start;
    const tokens = new TokenStore(store.db, { lastUsedDebounceMs: 60_000, now: () => now });
    const { token, tokenHash } = await tokens.create("alice", "debounce");
    const lastUsed = async () => {
      await tokens.drain();
      return (await tokens.list("alice")).find((t) => t.tokenHash === tokenHash)!.lastUsedAt;
    };

    const unmarked = unmarkedWriteCount(store.db);
    await tokens.resolve(token);
    assert.equal(await lastUsed(), new Date(start).toISOString());
    assert.equal(
      unmarkedWriteCount(store.db),
      unmarked,
      "a write search's copies may ignore (write_count.ts)",
    );
    now = start + 59_999;
    await tokens.resolve(token);
    assert.equal(await lastUsed(), new Date(start).toISOString(), "second use inside the window wrote");
    now = start + 60_000;
    await tokens.resolve(token);
    assert.equal(await lastUsed(), new Date(now).toISOString());
  });

  test("a failed last-use write is logged at warn and does not fail the resolve", async () => {
    const lines: string[] = [];
    const log = createLogger({ format: "json", stream: { write: (line: string) => lines.push(line) } });
    const tokens = new TokenStore(store.db, { log });
    const { token } = await tokens.create("bob", "unwritable");
    await sql`alter table user_tokens add constraint test_no_last_used check (last_used_at is null) not valid`
      .execute(store.db);
    try {
      assert.equal((await tokens.resolve(token))?.userId, "bob");
      await tokens.drain();
    } finally {
      await store.db.schema.alterTable("user_tokens").dropConstraint("test_no_last_used").execute();
    }
    const warned = lines.map((line) => JSON.parse(line)).filter((r) => r.level === "warn");
    assert.equal(warned.length, 1);
    assert.equal(warned[0].msg, "could not record API token use");
    assert.ok(!lines.join("").includes(token.slice(3)));
  });
});
