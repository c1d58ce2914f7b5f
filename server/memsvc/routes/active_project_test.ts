import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { listAudit } from "../../../internal/audit/mod.ts";
import type { Caller } from "../../../internal/auth/mod.ts";
import { createProject, shareProject } from "../projects/mod.ts";
import { insertUser, openTestStore, type TestStore } from "../_test_store.ts";
import { activeProjectRoutes } from "./active_project.ts";
import { apiTokenCaller, callAs, jsonBody, sessionCaller } from "./_test_app.ts";
import { projectRoutes } from "./projects.ts";

let store: TestStore;
before(async () => {
  store = await openTestStore();
  for (const id of ["alice", "bob", "carol"]) await insertUser(store.db, { id });
});
after(() => store.close());

const PATH = "/v1/me/active-project";
const as = (caller: Caller | string | undefined) =>
  callAs(activeProjectRoutes({ db: store.db }), typeof caller === "string" ? sessionCaller(caller) : caller);
const put = (project: unknown) => jsonBody("PUT", { project });

async function audits(n: number) {
  return (await listAudit(store.db, n)).map((e) => [e.action, e.actorId, e.target, e.metadata]);
}

test("set by name or id, read back, and clear; activate and deactivate are audited", async () => {
  const research = await createProject(store.db, "alice", "Research");
  const alice = as("alice");
  assert.deepEqual(await (await alice(PATH)).json(), { project: null });

  const set = await alice(PATH, put("ｒｅｓｅａｒｃｈ"));
  assert.equal(set.status, 200);
  const { project } = await set.json();
  assert.deepEqual(project, { ...research, active: true });
  assert.deepEqual(await (await alice(PATH)).json(), { project });
  assert.deepEqual(await audits(1), [[
    "project.activate",
    "alice",
    research.id,
    { requestId: set.headers.get("x-request-id") },
  ]]);

  const other = await createProject(store.db, "alice", "Other");
  assert.equal((await (await alice(PATH, put(other.id))).json()).project.id, other.id);
  assert.equal((await (await alice(PATH)).json()).project.id, other.id);

  const cleared = await alice(PATH, { method: "DELETE" });
  assert.equal(cleared.status, 200);
  assert.deepEqual(await cleared.json(), { project: null });
  assert.deepEqual(await (await alice(PATH)).json(), { project: null });
  assert.deepEqual(await audits(1), [[
    "project.deactivate",
    "alice",
    other.id,
    { requestId: cleared.headers.get("x-request-id") },
  ]]);

  // Clearing when nothing is active answers the same and records nothing.
  const [lastBefore] = await listAudit(store.db, 1);
  assert.deepEqual(await (await alice(PATH, { method: "DELETE" })).json(), { project: null });
  assert.equal((await listAudit(store.db, 1))[0]!.id, lastBefore!.id);
});

test("the project list marks the active project", async () => {
  const project = await createProject(store.db, "carol", "Marked");
  await createProject(store.db, "carol", "Unmarked");
  await as("carol")(PATH, put(project.id));
  const { projects } =
    await (await callAs(projectRoutes({ db: store.db }), sessionCaller("carol"))("/v1/projects"))
      .json();
  assert.deepEqual(projects.map((p: { name: string; active: boolean }) => [p.name, p.active]), [
    ["Marked", true],
    ["Unmarked", false],
  ]);
});

test("a shared project can be active; one out of reach is 403 by id and 404 by name", async () => {
  const bobs = await createProject(store.db, "bob", "Bobs Lab");
  await shareProject(store.db, { userId: "bob" }, bobs.id, "carol@example.test");
  const carol = as("carol");
  const res = await carol(PATH, put("bobs lab"));
  assert.equal(res.status, 200);
  assert.equal((await res.json()).project.role, "member");

  const alice = as("alice");
  const forbidden = await alice(PATH, put(bobs.id));
  assert.equal(forbidden.status, 403);
  assert.deepEqual(await forbidden.json(), { error: "not a member of this project" });
  const missing = await alice(PATH, put("Bobs Lab"));
  assert.equal(missing.status, 404);
  assert.deepEqual(await missing.json(), { error: "no such project" });
  assert.deepEqual(await (await alice(PATH)).json(), { project: null });
});

test("unsharing and deleting take the project away as the active one", async () => {
  const project = await createProject(store.db, "bob", "Transient");
  await shareProject(store.db, { userId: "bob" }, project.id, "alice@example.test");
  await as("alice")(PATH, put(project.id));
  await as("bob")(PATH, put(project.id));

  const projects = callAs(projectRoutes({ db: store.db }), sessionCaller("bob"));
  await projects(`/v1/projects/${project.id}/members/alice%40example.test`, { method: "DELETE" });
  assert.deepEqual(await (await as("alice")(PATH)).json(), { project: null });
  assert.equal((await (await as("bob")(PATH)).json()).project.id, project.id);

  await projects(`/v1/projects/${project.id}`, { method: "DELETE" });
  assert.deepEqual(await (await as("bob")(PATH)).json(), { project: null });
});

test("a pointer left to a project out of reach (a set racing an unshare) reads as none", async () => {
  const project = await createProject(store.db, "bob", "Raced");
  await store.db.insertInto("user_active_project").values({ user_id: "carol", project_id: project.id })
    .onConflict((oc) => oc.column("user_id").doUpdateSet({ project_id: project.id })).execute();
  assert.deepEqual(await (await as("carol")(PATH)).json(), { project: null });
});

test("bad bodies are 400; API tokens may use the routes; no caller is 401", async () => {
  for (const body of [{}, { project: "" }, { project: 5 }]) {
    const res = await as("alice")(PATH, jsonBody("PUT", body));
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.deepEqual((await res.json()).issues[0].path, ["project"]);
  }
  const project = await createProject(store.db, "alice", "Agent Default");
  const token = as(apiTokenCaller("alice", "b".repeat(64)));
  assert.equal((await (await token(PATH, put("agent default"))).json()).project.id, project.id);
  assert.equal((await (await token(PATH)).json()).project.id, project.id);

  for (const init of [{}, put("x"), { method: "DELETE" }]) {
    const res = await as(undefined)(PATH, init);
    assert.equal(res.status, 401);
    assert.deepEqual(await res.json(), { error: "unauthorized" });
  }
});
