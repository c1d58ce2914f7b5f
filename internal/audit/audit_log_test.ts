import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { freshDataDir, removeDataDirs } from "../db/_test_data_dir.ts";
import { type Database, openDatabase } from "../db/mod.ts";
import { type AuditTables, createAuditLogTable, listAudit, writeAudit } from "./audit_log.ts";

let store: Database<AuditTables>;
before(async () => {
  store = await openDatabase<AuditTables>({ dataDir: await freshDataDir() });
  await createAuditLogTable(store.db);
});
after(async () => {
  await store.close();
  await removeDataDirs();
});

test("entries come back newest first, limited, with requestId in metadata", async () => {
  const { db } = store;
  await writeAudit(db, { actorId: "u_audit", action: "token.create", target: "h1", requestId: "r1" });
  await writeAudit(db, {
    actorId: null,
    action: "token.revoke",
    requestId: "r2",
    metadata: { ownerId: "u_audit", nested: { list: [1, "two"] } },
  });
  await writeAudit(db, { actorId: "u_audit", action: "admin.audit-log", requestId: "r3" });

  const entries = await listAudit(db, 2);
  assert.deepEqual(entries.map((e) => e.action), ["admin.audit-log", "token.revoke"]);
  assert.deepEqual(entries[1]!.metadata, {
    ownerId: "u_audit",
    nested: { list: [1, "two"] },
    requestId: "r2",
  });
  assert.equal(entries[1]!.actorId, null);
  assert.equal(entries[1]!.target, null);

  const all = await listAudit(db, 10);
  assert.equal(all.length, 3);
  const oldest = all[2]!;
  assert.equal(oldest.target, "h1");
  assert.deepEqual(oldest.metadata, { requestId: "r1" });
  assert.equal(typeof oldest.id, "string");
  assert.ok(BigInt(all[0]!.id) > BigInt(oldest.id));
  assert.equal(new Date(oldest.at).toISOString(), oldest.at);
  assert.ok(Math.abs(Date.parse(oldest.at) - Date.now()) < 60_000);
});

test("a caller's metadata cannot replace the request id", async () => {
  await writeAudit(store.db, {
    actorId: "u_audit",
    action: "token.delete",
    requestId: "real",
    metadata: { requestId: "forged" },
  });
  assert.equal((await listAudit(store.db, 1))[0]!.metadata.requestId, "real");
});
