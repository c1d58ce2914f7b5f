import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { listAudit } from "../../../internal/audit/mod.ts";
import type { TestStore } from "../_test_store.ts";
import { generateToken, type TokenStore } from "../tokens/api_tokens.ts";
import {
  callAs,
  closeTokenStore,
  jsonBody,
  NOT_ADMIN_SESSIONS,
  openTokenStore,
  sessionCaller,
} from "./_test_app.ts";
import { adminTokenRoutes } from "./admin_tokens.ts";

let store: TestStore;
let tokens: TokenStore;
before(
  async () => ({ store, tokens } = await openTokenStore([{ id: "root", role: "admin" }, { id: "bob" }])),
);
after(() => closeTokenStore({ store, tokens }));

const as = (caller: Parameters<typeof callAs>[1]) =>
  callAs(adminTokenRoutes({ tokens, db: store.db }), caller);
const revoke = (token: unknown) => jsonBody("POST", { token });

test("an admin session revokes any user's token by plaintext, audited with the owner", async () => {
  const { token, tokenHash } = await tokens.create("bob", "leaked");
  const res = await as(sessionCaller("root", "admin"))("/v1/admin/tokens/revoke", revoke(token));
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { revoked: true, tokenHash });
  assert.equal(await tokens.resolve(token), undefined);

  const [entry] = await listAudit(store.db, 1);
  assert.equal(entry!.action, "token.revoke");
  assert.equal(entry!.actorId, "root");
  assert.equal(entry!.target, tokenHash);
  assert.deepEqual(entry!.metadata, { ownerId: "bob", requestId: res.headers.get("x-request-id") });
  assert.ok(!JSON.stringify(entry).includes(token.slice(3)));

  const again = await as(sessionCaller("root", "admin"))("/v1/admin/tokens/revoke", revoke(token));
  assert.equal(again.status, 404);
  assert.deepEqual(await again.json(), { error: "no such token" });
});

test("an unknown token is 404; a non-nm_ or missing token is 400", async () => {
  const admin = as(sessionCaller("root", "admin", "session-bearer"));
  assert.equal((await admin("/v1/admin/tokens/revoke", revoke(generateToken()))).status, 404);
  for (const body of [revoke("ns_abc"), revoke(""), jsonBody("POST", {}), revoke(42)]) {
    const res = await admin("/v1/admin/tokens/revoke", body);
    assert.equal(res.status, 400);
    assert.deepEqual((await res.json()).issues[0].path, ["token"]);
  }
});

test("non-admins, an admin's API token and no caller are refused, and nothing is revoked", async () => {
  const { token } = await tokens.create("bob", "kept");
  for (const [caller, status] of NOT_ADMIN_SESSIONS) {
    assert.equal((await as(caller)("/v1/admin/tokens/revoke", revoke(token))).status, status);
  }
  assert.ok(await tokens.resolve(token));
});
