import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { listAudit } from "../../../internal/audit/mod.ts";
import type { Caller } from "../../../internal/auth/mod.ts";
import { TokenBuckets } from "../../../internal/http/mod.ts";
import type { TestStore } from "../_test_store.ts";
import { hashToken, type TokenStore } from "../tokens/api_tokens.ts";
import { apiTokenCaller, callAs, closeTokenStore, openTokenStore, sessionCaller } from "./_test_app.ts";
import { rotateTokenRoutes } from "./rotate_token.ts";

let store: TestStore;
let tokens: TokenStore;
before(async () => ({ store, tokens } = await openTokenStore([{ id: "alice" }, { id: "bob" }])));
after(() => closeTokenStore({ store, tokens }));

const POST = { method: "POST" };

/** What the caller-resolution middleware would make of the presented plaintext. */
async function callerFor(token: string): Promise<Caller | undefined> {
  const owner = await tokens.resolve(token);
  return owner && { ...owner, via: "api-token" };
}

test("rotating answers a new token once; the old one stops resolving", async () => {
  const routes = rotateTokenRoutes({ tokens, db: store.db });
  const old = await tokens.create("alice", "agent host");
  const res = await callAs(routes, await callerFor(old.token))("/v1/auth/rotate-token", POST);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("cache-control"), "no-store");
  const body = await res.json();
  assert.deepEqual(Object.keys(body).sort(), ["label", "token", "tokenHash"]);
  assert.equal(body.label, "agent host");
  assert.equal(body.tokenHash, await hashToken(body.token));
  assert.notEqual(body.token, old.token);
  assert.equal(await callerFor(old.token), undefined, "the old token must give 401 from now on");
  assert.equal((await tokens.resolve(body.token))?.userId, "alice");

  const [entry] = await listAudit(store.db, 1);
  assert.equal(entry!.action, "token.rotate");
  assert.equal(entry!.actorId, "alice");
  assert.equal(entry!.target, body.tokenHash);
  assert.deepEqual(entry!.metadata, {
    previousTokenHash: old.tokenHash,
    requestId: res.headers.get("x-request-id"),
  });
  assert.ok(!JSON.stringify(entry).includes(body.token.slice(3)));
});

test("a session or operator caller gets 403, no caller 401", async () => {
  const routes = rotateTokenRoutes({ tokens, db: store.db });
  const local: Caller = { userId: "alice", email: "alice@example.test", role: "admin", via: "local" };
  for (const caller of [sessionCaller("alice"), sessionCaller("alice", "admin", "session-bearer"), local]) {
    const res = await callAs(routes, caller)("/v1/auth/rotate-token", POST);
    assert.equal(res.status, 403, caller.via);
    assert.deepEqual(await res.json(), { error: "rotate-token needs the nm_ API token being rotated" });
  }
  const res = await callAs(routes, undefined)("/v1/auth/rotate-token", POST);
  assert.equal(res.status, 401);
});

test("a token deleted after authentication cannot be rotated: 401", async () => {
  const routes = rotateTokenRoutes({ tokens, db: store.db });
  const { token, tokenHash } = await tokens.create("bob", "gone");
  const caller = await callerFor(token);
  await tokens.delete("bob", tokenHash);
  const res = await callAs(routes, caller)("/v1/auth/rotate-token", POST);
  assert.equal(res.status, 401);
  assert.deepEqual(await tokens.list("bob"), []);
});

test("rotations are rate limited per user with 429 and Retry-After", async () => {
  let now = 5_000_000;
  // 2 at once, then one more every 30 minutes.
  const rotateLimiter = TokenBuckets.perPeriod(2, 60 * 60_000, { now: () => now });
  const routes = rotateTokenRoutes({ tokens, db: store.db, rotateLimiter });
  let { token } = await tokens.create("bob", "busy");
  for (let i = 0; i < 2; i++) {
    const res = await callAs(routes, await callerFor(token))("/v1/auth/rotate-token", POST);
    assert.equal(res.status, 200);
    token = (await res.json()).token;
  }
  now += 60_000;
  const refused = await callAs(routes, await callerFor(token))("/v1/auth/rotate-token", POST);
  assert.equal(refused.status, 429);
  assert.equal(refused.headers.get("retry-after"), "1740");
  assert.deepEqual(await refused.json(), { error: "too many requests", retryAfterSeconds: 1740 });
  assert.ok(await tokens.resolve(token), "a refused rotation keeps the token");

  const other = await tokens.create("alice", "other user");
  const res = await callAs(routes, apiTokenCaller("alice", other.tokenHash))("/v1/auth/rotate-token", POST);
  assert.equal(res.status, 200, "another user has their own budget");

  now += 29 * 60_000;
  assert.equal((await callAs(routes, await callerFor(token))("/v1/auth/rotate-token", POST)).status, 200);
});
