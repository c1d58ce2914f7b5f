import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { listAudit, writeAudit } from "../../../internal/audit/mod.ts";
import { insertUser, openTestStore, type TestStore } from "../_test_store.ts";
import { callAs, NOT_ADMIN_SESSIONS, sessionCaller } from "./_test_app.ts";
import { adminAuditLogRoutes } from "./admin_audit_log.ts";

let store: TestStore;
before(async () => {
  store = await openTestStore();
  await insertUser(store.db, { id: "root", role: "admin" });
  for (let i = 1; i <= 60; i++) {
    await writeAudit(store.db, {
      actorId: "root",
      action: "token.create",
      target: `t${i}`,
      requestId: `r${i}`,
    });
  }
});
after(() => store.close());

const as = (caller: Parameters<typeof callAs>[1]) => callAs(adminAuditLogRoutes({ db: store.db }), caller);
const admin = () => as(sessionCaller("root", "admin"));

test("entries come newest first, 50 by default, and the read itself is audited", async () => {
  const res = await admin()("/v1/admin/audit-log");
  assert.equal(res.status, 200);
  const { entries } = await res.json();
  assert.equal(entries.length, 50);
  assert.deepEqual(entries.slice(0, 2).map((e: { target: string }) => e.target), ["t60", "t59"]);
  assert.deepEqual(Object.keys(entries[0]).sort(), ["action", "actorId", "at", "id", "metadata", "target"]);
  assert.deepEqual(entries[0].metadata, { requestId: "r60" });

  const [read] = await listAudit(store.db, 1);
  assert.equal(read!.action, "admin.audit-log");
  assert.equal(read!.actorId, "root");
  assert.deepEqual(read!.metadata, { limit: 50, requestId: res.headers.get("x-request-id") });
});

test("limit picks how many; the previous read shows first", async () => {
  const { entries } = await (await admin()("/v1/admin/audit-log?limit=3")).json();
  assert.deepEqual(entries.map((e: { action: string }) => e.action), [
    "admin.audit-log",
    "token.create",
    "token.create",
  ]);
  assert.equal((await (await admin()("/v1/admin/audit-log?limit=500")).json()).entries.length, 62);
});

test("a limit outside 1..500 is 400 naming the range", async () => {
  for (const limit of ["0", "501", "-1", "2.5", "abc", ""]) {
    const res = await admin()(`/v1/admin/audit-log?limit=${limit}`);
    assert.equal(res.status, 400, limit);
    const { issues } = await res.json();
    assert.deepEqual(issues[0].path, ["limit"]);
    assert.equal(issues[0].message, "limit must be an integer from 1 to 500");
  }
});

test("only an admin session may read it", async () => {
  for (const [caller, status] of NOT_ADMIN_SESSIONS) {
    assert.equal((await as(caller)("/v1/admin/audit-log")).status, status);
  }
});
