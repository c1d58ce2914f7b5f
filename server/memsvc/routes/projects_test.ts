import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { listAudit } from "../../../internal/audit/mod.ts";
import type { Caller } from "../../../internal/auth/mod.ts";
import { insertUser, openTestStore, type TestStore } from "../_test_store.ts";
import { apiTokenCaller, callAs, jsonBody, sessionCaller } from "./_test_app.ts";
import { projectRoutes } from "./projects.ts";

let store: TestStore;
before(async () => {
  store = await openTestStore();
  for (const id of ["alice", "bob", "carol", "dave"]) await insertUser(store.db, { id });
  await insertUser(store.db, { id: "erin", email: "Erin@Example.test" });
});
after(() => store.close());

const as = (caller: Caller | string | undefined) =>
  callAs(projectRoutes({ db: store.db }), typeof caller === "string" ? sessionCaller(caller) : caller);

async function create(owner: string, name: string) {
  const res = await as(owner)("/v1/projects", jsonBody("POST", { name }));
  assert.equal(res.status, 201, await res.clone().text());
  return await res.json();
}

async function share(owner: string, ref: string, email: string) {
  const res = await as(owner)(`/v1/projects/${encodeURIComponent(ref)}/members`, jsonBody("POST", { email }));
  assert.equal(res.status, 201, await res.clone().text());
}

async function expectError(res: Response, status: number, error: string) {
  assert.equal(res.status, status);
  assert.deepEqual(await res.json(), { error });
}

async function lastAudit() {
  const [entry] = await listAudit(store.db, 1);
  return entry!;
}

test("POST /v1/projects creates a project, answers its view and audits it", async () => {
  const res = await as("alice")("/v1/projects", jsonBody("POST", { name: "  Ｍｙ Project " }));
  assert.equal(res.status, 201);
  const project = await res.json();
  assert.match(project.id, /^p_[a-z2-7]{16}$/);
  assert.deepEqual(project, {
    id: project.id,
    name: "My Project",
    owner: { id: "alice", email: "alice@example.test" },
    role: "owner",
    memberCount: 1,
    createdAt: project.createdAt,
    active: false,
  });
  assert.ok(!Number.isNaN(Date.parse(project.createdAt)));

  const entry = await lastAudit();
  assert.deepEqual(
    { action: entry.action, actorId: entry.actorId, target: entry.target, metadata: entry.metadata },
    {
      action: "project.create",
      actorId: "alice",
      target: project.id,
      metadata: { name: "My Project", requestId: res.headers.get("x-request-id") },
    },
  );
});

test("names collide after NFKC and case folding, per owner only", async () => {
  await create("bob", "memory");
  for (const name of ["ｍｅｍｏｒｙ", "MEMORY", " memory "]) {
    await expectError(
      await as("bob")("/v1/projects", jsonBody("POST", { name })),
      409,
      "a project with this name already exists",
    );
  }
  await create("bob", "Ｍｙ Project");
  await expectError(
    await as("bob")("/v1/projects", jsonBody("POST", { name: "my project" })),
    409,
    "a project with this name already exists",
  );
  // Names are per owner: another user may use the same one.
  assert.equal((await create("carol", "ｍｅｍｏｒｙ")).name, "memory");
});

test("a bad name or body is 400 with issues and creates nothing", async () => {
  const countBefore = (await store.db.selectFrom("projects").select("id").execute()).length;
  for (
    const body of [{ name: "" }, { name: "-x" }, { name: "a/b" }, { name: "x".repeat(65) }, {}, { name: 3 }]
  ) {
    const res = await as("dave")("/v1/projects", jsonBody("POST", body));
    assert.equal(res.status, 400, JSON.stringify(body));
    const json = await res.json();
    assert.equal(json.error, "invalid request");
    assert.deepEqual(json.issues[0].path, ["name"]);
  }
  const res = await as("dave")("/v1/projects", jsonBody("POST", { name: "a/b" }));
  assert.match((await res.json()).issues[0].message, /"\/" is not allowed/);
  assert.equal((await store.db.selectFrom("projects").select("id").execute()).length, countBefore);
});

test("API tokens may manage projects; no caller is 401", async () => {
  const token = as(apiTokenCaller("dave", "a".repeat(64)));
  assert.equal((await token("/v1/projects", jsonBody("POST", { name: "agent made" }))).status, 201);
  assert.equal((await token("/v1/projects")).status, 200);
  for (const [path, init] of [["/v1/projects", {}], ["/v1/projects/x", {}], ["/v1/projects/x/members", {}]]) {
    await expectError(await as(undefined)(path as string, init as RequestInit), 401, "unauthorized");
  }
});

test("GET /v1/projects/:ref finds by id or URL-encoded name; others' names are 404, others' ids 403", async () => {
  const project = await create("dave", "Lab Notebook");
  const dave = as("dave");
  for (const ref of [project.id, "Lab Notebook", "lab notebook", "ＬＡＢ ｎｏｔｅｂｏｏｋ"]) {
    const res = await dave(`/v1/projects/${encodeURIComponent(ref)}`);
    assert.equal(res.status, 200, ref);
    assert.equal((await res.json()).id, project.id);
  }
  await expectError(await as("carol")(`/v1/projects/${project.id}`), 403, "not a member of this project");
  await expectError(await as("carol")("/v1/projects/Lab%20Notebook"), 404, "no such project");
  await expectError(await dave("/v1/projects/p_zzzzzzzzzzzzzzzz"), 404, "no such project");
  await expectError(
    await as("carol")(`/v1/projects/${project.id}/members`),
    403,
    "not a member of this project",
  );
});

test("GET /v1/projects lists own projects then shared ones, by name, with role and member count", async () => {
  await insertUser(store.db, { id: "frank" });
  const zed = await create("frank", "zed");
  const abc = await create("frank", "abc");
  const shared = await create("carol", "aardvark");
  await share("carol", shared.id, "frank@example.test");
  await share("frank", zed.id, "bob@example.test");

  const res = await as("frank")("/v1/projects");
  assert.equal(res.status, 200);
  const { projects } = await res.json();
  assert.deepEqual(
    projects.map((p: { id: string; role: string; memberCount: number }) => [p.id, p.role, p.memberCount]),
    [[abc.id, "owner", 1], [zed.id, "owner", 2], [shared.id, "member", 2]],
  );
  assert.deepEqual(projects[2].owner, { id: "carol", email: "carol@example.test" });
});

test("sharing matches the exact email, is owner only, and refuses owners and existing members", async () => {
  const project = await create("alice", "shared lab");
  const alice = as("alice");
  const members = `/v1/projects/${project.id}/members`;

  // Exact email: the stored one is Erin@Example.test.
  await expectError(
    await alice(members, jsonBody("POST", { email: "erin@example.test" })),
    404,
    "no such user",
  );
  await expectError(
    await alice(members, jsonBody("POST", { email: "nobody@example.test" })),
    404,
    "no such user",
  );
  const res = await alice(members, jsonBody("POST", { email: "Erin@Example.test" }));
  assert.equal(res.status, 201);
  const member = await res.json();
  assert.deepEqual(member, {
    userId: "erin",
    email: "Erin@Example.test",
    role: "member",
    addedAt: member.addedAt,
  });
  const entry = await lastAudit();
  assert.deepEqual([entry.action, entry.actorId, entry.target, entry.metadata], [
    "project.share",
    "alice",
    project.id,
    { email: "Erin@Example.test", userId: "erin", requestId: res.headers.get("x-request-id") },
  ]);

  const again = await alice(members, jsonBody("POST", { email: "Erin@Example.test" }));
  await expectError(again, 409, "already a member of this project");
  const self = await alice(members, jsonBody("POST", { email: "alice@example.test" }));
  assert.equal(self.status, 409);

  // The member sees the project and its members, but may not share, unshare or delete it.
  const erin = as("erin");
  assert.equal((await erin("/v1/projects/shared%20lab")).status, 200);
  const listed = await (await erin(members)).json();
  assert.deepEqual(listed.members.map((m: { userId: string; role: string }) => [m.userId, m.role]), [
    ["alice", "owner"],
    ["erin", "member"],
  ]);
  assert.equal(listed.members[0].addedAt, project.createdAt);
  await expectError(
    await erin(members, jsonBody("POST", { email: "bob@example.test" })),
    403,
    "only the project's owner can share it",
  );
  await expectError(
    await erin(`${members}/Erin%40Example.test`, { method: "DELETE" }),
    403,
    "only the project's owner can remove members",
  );
  await expectError(
    await erin(`/v1/projects/${project.id}`, { method: "DELETE" }),
    403,
    "only the project's owner can delete it",
  );
  assert.equal((await alice(members, jsonBody("POST", {}))).status, 400);
});

test("unsharing removes the membership and the member's active pointer to that project only", async () => {
  const { db } = store;
  const project = await create("bob", "unshare me");
  const other = await create("bob", "keep me");
  await share("bob", project.id, "carol@example.test");
  await share("bob", project.id, "dave@example.test");
  await share("bob", other.id, "Erin@Example.test");
  await db.insertInto("user_active_project").values([
    { user_id: "carol", project_id: project.id },
    { user_id: "dave", project_id: project.id },
    { user_id: "erin", project_id: other.id },
  ]).execute();

  const bob = as("bob");
  const res = await bob(`/v1/projects/${encodeURIComponent("Unshare Me")}/members/carol%40example.test`, {
    method: "DELETE",
  });
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { removed: true });
  const entry = await lastAudit();
  assert.deepEqual([entry.action, entry.target, entry.metadata], [
    "project.unshare",
    project.id,
    { email: "carol@example.test", userId: "carol", requestId: res.headers.get("x-request-id") },
  ]);

  const pointers = await db.selectFrom("user_active_project").select(["user_id", "project_id"])
    .where("user_id", "in", ["carol", "dave", "erin"]).orderBy("user_id").execute();
  assert.deepEqual(pointers, [
    { user_id: "dave", project_id: project.id },
    { user_id: "erin", project_id: other.id },
  ]);
  await expectError(await as("carol")(`/v1/projects/${project.id}`), 403, "not a member of this project");
  await expectError(await as("carol")("/v1/projects/unshare%20me"), 404, "no such project");

  const members = `/v1/projects/${project.id}/members`;
  await expectError(
    await bob(`${members}/carol%40example.test`, { method: "DELETE" }),
    404,
    "no such member",
  );
  await expectError(await bob(`${members}/Dave%40example.test`, { method: "DELETE" }), 404, "no such member");
  const owner = await bob(`${members}/bob%40example.test`, { method: "DELETE" });
  await expectError(owner, 409, "the owner cannot be removed; delete the project instead");
});

test("a name shared with the caller by several owners is 400 listing the ids", async () => {
  const a = await create("alice", "Common");
  const b = await create("bob", "common");
  await share("alice", a.id, "dave@example.test");
  await share("bob", b.id, "dave@example.test");
  const res = await as("dave")("/v1/projects/COMMON");
  assert.equal(res.status, 400);
  const { issues } = await res.json();
  assert.equal(issues[0].code, "ambiguous_project");
  assert.ok(issues[0].message.includes(a.id) && issues[0].message.includes(b.id), issues[0].message);
});

test("DELETE removes the project with its entries, edges, vectors, members and active pointers", async () => {
  const { db } = store;
  await insertUser(store.db, { id: "gina" });
  const project = await create("gina", "doomed");
  const survivor = await create("gina", "survivor");
  await share("gina", project.id, "bob@example.test");
  const entry = (id: string, userId: string, projectId: string | null) => ({
    id,
    user_id: userId,
    project_id: projectId,
    content: `content of ${id}`,
    content_hash: id,
  });
  await db.insertInto("memory_entries").values([
    entry("e_doomed_gina", "gina", project.id),
    entry("e_doomed_bob", "bob", project.id),
    entry("e_survivor", "gina", survivor.id),
    entry("e_global", "gina", null),
  ]).execute();
  await db.insertInto("memory_edges").values([
    { from_id: "e_doomed_gina", to_id: "e_doomed_bob", relation: "co_occurs" },
    { from_id: "e_global", to_id: "e_doomed_gina", relation: "co_occurs" },
    { from_id: "e_global", to_id: "e_survivor", relation: "co_occurs" },
  ]).execute();
  await db.insertInto("memory_vectors").values(
    ["e_doomed_gina", "e_doomed_bob", "e_survivor"].map((id) => ({
      entry_id: id,
      model: "test",
      vector: new Uint8Array(8),
    })),
  ).execute();
  await db.insertInto("user_active_project").values([
    { user_id: "gina", project_id: project.id },
    { user_id: "bob", project_id: project.id },
  ]).execute();

  const res = await as("gina")("/v1/projects/Doomed", { method: "DELETE" });
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { deleted: true });
  const audited = await lastAudit();
  assert.deepEqual([audited.action, audited.actorId, audited.target, audited.metadata], [
    "project.delete",
    "gina",
    project.id,
    { name: "doomed", requestId: res.headers.get("x-request-id") },
  ]);

  const ids = async (table: "memory_entries" | "memory_vectors") =>
    (await db.selectFrom(table).select(table === "memory_entries" ? "id" : "entry_id as id").execute())
      .map((row) => row.id).sort();
  assert.deepEqual(await ids("memory_entries"), ["e_global", "e_survivor"]);
  assert.deepEqual(await ids("memory_vectors"), ["e_survivor"]);
  const edges = await db.selectFrom("memory_edges").select(["from_id", "to_id"]).execute();
  assert.deepEqual(edges, [{ from_id: "e_global", to_id: "e_survivor" }]);
  assert.equal(
    (await db.selectFrom("project_members").where("project_id", "=", project.id).execute()).length,
    0,
  );
  const pointers = await db.selectFrom("user_active_project").where("project_id", "=", project.id).execute();
  assert.equal(pointers.length, 0);

  await expectError(await as("gina")(`/v1/projects/${project.id}`), 404, "no such project");
  await expectError(
    await as("gina")(`/v1/projects/${project.id}`, { method: "DELETE" }),
    404,
    "no such project",
  );
});
