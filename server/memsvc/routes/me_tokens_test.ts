import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { listAudit } from "../../../internal/audit/mod.ts";
import { insertUser, type TestStore } from "../_test_store.ts";
import { hashToken, TokenStore } from "../tokens/api_tokens.ts";
import {
  apiTokenCaller,
  callAs,
  closeTokenStore,
  jsonBody,
  openTokenStore,
  sessionCaller,
} from "./_test_app.ts";
import { meTokenRoutes } from "./me_tokens.ts";

let store: TestStore;
let tokens: TokenStore;
before(async () => ({ store, tokens } = await openTokenStore([{ id: "alice" }, { id: "bob" }])));
after(() => closeTokenStore({ store, tokens }));

const as = (caller: Parameters<typeof callAs>[1]) => callAs(meTokenRoutes({ tokens, db: store.db }), caller);

test("POST /v1/me/tokens mints a token once, stores only its hash, and audits it", async () => {
  const res = await as(sessionCaller("alice"))("/v1/me/tokens", jsonBody("POST", { label: " laptop " }));
  assert.equal(res.status, 201);
  assert.equal(res.headers.get("cache-control"), "no-store");
  const body = await res.json();
  assert.deepEqual(Object.keys(body).sort(), ["label", "token", "tokenHash"]);
  assert.equal(body.label, "laptop");
  assert.match(body.token, /^nm_[A-Za-z0-9_-]{43}$/);
  assert.equal(body.tokenHash, await hashToken(body.token));
  assert.equal((await tokens.resolve(body.token))?.userId, "alice");

  const [entry] = await listAudit(store.db, 1);
  assert.equal(entry!.action, "token.create");
  assert.equal(entry!.actorId, "alice");
  assert.equal(entry!.target, body.tokenHash);
  assert.deepEqual(entry!.metadata, { label: "laptop", requestId: res.headers.get("x-request-id") });
  assert.ok(!JSON.stringify(entry).includes(body.token.slice(3)));
});

test("an ns_ session bearer may mint; an API token gets 403; no caller gets 401", async () => {
  const post = jsonBody("POST", { label: "x" });
  assert.equal((await as(sessionCaller("bob", "user", "session-bearer"))("/v1/me/tokens", post)).status, 201);

  const apiToken = await as(apiTokenCaller("bob", "f".repeat(64)))(
    "/v1/me/tokens",
    jsonBody("POST", { label: "x" }),
  );
  assert.equal(apiToken.status, 403);
  assert.match((await apiToken.json()).error, /session/);
  for (const [path, init] of [["/v1/me/tokens", post], ["/v1/me/tokens", {}]] as const) {
    const res = await as(undefined)(path, init);
    assert.equal(res.status, 401);
    assert.deepEqual(await res.json(), { error: "unauthorized" });
  }
  assert.equal((await as(undefined)(`/v1/me/tokens/${"a".repeat(64)}`, { method: "DELETE" })).status, 401);
});

test("POST /v1/me/tokens refuses a bad label or body with 400 and issues", async () => {
  const call = as(sessionCaller("bob"));
  for (const body of [{ label: "   " }, { label: "x".repeat(101) }, {}, { label: 7 }]) {
    const res = await call("/v1/me/tokens", jsonBody("POST", body));
    assert.equal(res.status, 400, JSON.stringify(body));
    const json = await res.json();
    assert.equal(json.error, "invalid request");
    assert.deepEqual(json.issues[0].path, ["label"]);
  }
  assert.equal((await call("/v1/me/tokens", { method: "POST", body: "{nope" })).status, 400);
});

test("GET /v1/me/tokens lists the caller's tokens newest first, without plaintexts", async () => {
  await insertUser(store.db, { id: "carol" });
  const first = await tokens.create("carol", "one");
  const second = await tokens.create("carol", "two");
  await tokens.create("alice", "not carol's");
  const res = await as(sessionCaller("carol"))("/v1/me/tokens");
  assert.equal(res.status, 200);
  const text = await res.text();
  assert.ok(!text.includes(first.token.slice(3)) && !text.includes(second.token.slice(3)));
  const { tokens: listed } = JSON.parse(text);
  assert.deepEqual(listed.map((t: { label: string }) => t.label), ["two", "one"]);
  assert.deepEqual(listed[0], {
    tokenHash: second.tokenHash,
    label: "two",
    createdAt: listed[0].createdAt,
    lastUsedAt: null,
  });
  assert.ok(!Number.isNaN(Date.parse(listed[0].createdAt)));
});

test("DELETE /v1/me/tokens/:tokenHash deletes only the caller's own token", async () => {
  const { token, tokenHash } = await tokens.create("alice", "to delete");
  const bob = await as(sessionCaller("bob"))(`/v1/me/tokens/${tokenHash}`, { method: "DELETE" });
  assert.equal(bob.status, 404);
  assert.deepEqual(await bob.json(), { error: "no such token" });
  assert.ok(await tokens.resolve(token));

  const alice = as(sessionCaller("alice"));
  const res = await alice(`/v1/me/tokens/${tokenHash}`, { method: "DELETE" });
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { deleted: true });
  assert.equal(await tokens.resolve(token), undefined);
  const [entry] = await listAudit(store.db, 1);
  assert.deepEqual(
    { action: entry!.action, actorId: entry!.actorId, target: entry!.target, metadata: entry!.metadata },
    {
      action: "token.delete",
      actorId: "alice",
      target: tokenHash,
      metadata: { requestId: res.headers.get("x-request-id") },
    },
  );

  assert.equal((await alice(`/v1/me/tokens/${tokenHash}`, { method: "DELETE" })).status, 404);
});

test("DELETE with a malformed hash is 400", async () => {
  const call = as(sessionCaller("alice"));
  for (const hash of ["abc", "A".repeat(64), "g".repeat(64), "a".repeat(65)]) {
    const res = await call(`/v1/me/tokens/${hash}`, { method: "DELETE" });
    assert.equal(res.status, 400, hash);
    assert.deepEqual((await res.json()).issues[0].path, ["tokenHash"]);
  }
});

test("POST /v1/me/tokens past the per-user limit is 400 naming the limit", async () => {
  await insertUser(store.db, { id: "dave" });
  const limited = new TokenStore(store.db, { maxTokensPerUser: 1 });
  const call = callAs(meTokenRoutes({ tokens: limited, db: store.db }), sessionCaller("dave"));
  assert.equal((await call("/v1/me/tokens", jsonBody("POST", { label: "a" }))).status, 201);
  const res = await call("/v1/me/tokens", jsonBody("POST", { label: "b" }));
  assert.equal(res.status, 400);
  assert.match((await res.json()).issues[0].message, /at most 1 API tokens/);
});
