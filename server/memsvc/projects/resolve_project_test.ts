import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { HTTPException } from "hono/http-exception";
import { ValidationError } from "../../../internal/http/mod.ts";
import { insertUser, openTestStore, type TestStore } from "../_test_store.ts";
import { createProject, shareProject } from "./projects.ts";
import { accessibleProjectIds, projectAccess, resolveProject } from "./resolve_project.ts";

let store: TestStore;
before(async () => {
  store = await openTestStore();
  for (const id of ["alice", "bob", "carol", "dave"]) await insertUser(store.db, { id });
});
after(() => store.close());

const as = (userId: string) => ({ userId });

async function rejects(promise: Promise<unknown>, status: number, message: string) {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof HTTPException);
    assert.deepEqual([err.status, err.message], [status, message]);
    return true;
  });
}

test("a reference is an id or a name compared by NFKC key; the caller's role comes with it", async () => {
  const { db } = store;
  const own = await createProject(db, "alice", "Research Notes");
  await shareProject(db, as("alice"), own.id, "bob@example.test");

  for (const ref of [own.id, "Research Notes", "research notes", " ＲＥＳＥＡＲＣＨ ｎｏｔｅｓ "]) {
    const resolved = await resolveProject(db, as("alice"), ref);
    assert.deepEqual({ ...resolved, createdAt: resolved.createdAt.toISOString() }, {
      id: own.id,
      name: "Research Notes",
      ownerId: "alice",
      createdAt: own.createdAt,
      role: "owner",
    });
  }
  assert.equal((await resolveProject(db, as("bob"), "research notes")).role, "member");
  assert.equal((await resolveProject(db, as("bob"), own.id)).role, "member");
});

test("an existing id out of reach is 403; an unknown reference, or a name only others use, is 404", async () => {
  const { db } = store;
  const bobs = await createProject(db, "bob", "bob private");
  await rejects(resolveProject(db, as("carol"), bobs.id), 403, "not a member of this project");
  await rejects(resolveProject(db, as("carol"), "bob private"), 404, "no such project");
  await rejects(resolveProject(db, as("carol"), "p_aaaaaaaaaaaaaaaa"), 404, "no such project");
  await rejects(resolveProject(db, as("carol"), "not/a name"), 404, "no such project");
});

test("own names come before shared ones; one name shared by several owners is 400 listing ids", async () => {
  const { db } = store;
  const alices = await createProject(db, "alice", "Team");
  const bobs = await createProject(db, "bob", "team");
  await shareProject(db, as("alice"), alices.id, "carol@example.test");
  await shareProject(db, as("bob"), bobs.id, "carol@example.test");

  await assert.rejects(resolveProject(db, as("carol"), "TEAM"), (err: unknown) => {
    assert.ok(err instanceof ValidationError);
    const [issue] = err.issues;
    assert.equal(issue!.code, "ambiguous_project");
    assert.match(issue!.message, /ambiguous/);
    for (const id of [alices.id, bobs.id]) assert.ok(issue!.message.includes(id), issue!.message);
    return true;
  });
  assert.equal((await resolveProject(db, as("carol"), bobs.id)).ownerId, "bob");

  const carols = await createProject(db, "carol", "team");
  assert.deepEqual(await resolveProject(db, as("carol"), "Team").then((p) => [p.id, p.role]), [
    carols.id,
    "owner",
  ]);
});

test("an id match wins over a project whose name is that id", async () => {
  const { db } = store;
  const davesOwn = await createProject(db, "dave", "dave only");
  const named = await createProject(db, "alice", davesOwn.id);
  assert.equal(named.name, davesOwn.id);
  await rejects(resolveProject(db, as("alice"), davesOwn.id), 403, "not a member of this project");
  assert.equal((await resolveProject(db, as("dave"), davesOwn.id)).id, davesOwn.id);
});

test("projectAccess and accessibleProjectIds cover owned and shared projects only", async () => {
  const { db } = store;
  const owned = await createProject(db, "dave", "access owned");
  const shared = await createProject(db, "alice", "access shared");
  const other = await createProject(db, "bob", "access other");
  await shareProject(db, as("alice"), shared.id, "dave@example.test");

  assert.equal(await projectAccess(db, "dave", owned.id), "owner");
  assert.equal(await projectAccess(db, "dave", shared.id), "member");
  assert.equal(await projectAccess(db, "dave", other.id), undefined);
  assert.equal(await projectAccess(db, "dave", "p_missingmissingm"), undefined);

  const ids = await accessibleProjectIds(db, "dave");
  const davesOwn = (await db.selectFrom("projects").select("id").where("owner_id", "=", "dave").execute())
    .map((row) => row.id);
  assert.deepEqual(ids, [...davesOwn, shared.id].sort());
  assert.ok(!ids.includes(other.id));
});
