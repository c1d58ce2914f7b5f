import assert from "node:assert/strict";
import { test } from "node:test";
import { Hono, type MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { z } from "zod";
import { type AppEnv, createApp } from "../http/mod.ts";
import { silentLogger } from "../log/mod.ts";
import { apiDocsRoutes } from "./docs_routes.ts";
import { errorResponses } from "./components.ts";
import { openApiDocument } from "./document.ts";
import { defineRoute, routeMounter } from "./route_spec.ts";

type Access = "public" | "member";
const members: () => MiddlewareHandler<AppEnv> = () => async (c, next) => {
  if (c.req.header("x-member") !== "yes") throw new HTTPException(401, { message: "unauthorized" });
  await next();
};
const { mountRoute } = routeMounter<AppEnv, Access>({ public: undefined, member: members });

const rename = defineRoute({
  method: "patch",
  path: "/things/:id",
  operationId: "renameThing",
  tag: "things",
  summary: "Rename a thing",
  access: "member",
  params: z.object({ id: z.string().regex(/^t\d+$/) }),
  query: z.object({ dry: z.enum(["yes", "no"]).default("no") }),
  body: z.strictObject({ name: z.string().min(1) }),
  responses: { 200: { description: "renamed", schema: z.object({ id: z.string(), name: z.string() }) } },
  errors: [404],
});
const health = defineRoute({
  method: "get",
  path: "/health",
  operationId: "health",
  tag: "health",
  summary: "Liveness",
  access: "public",
  responses: { 200: { description: "up" } },
});

const api = new Hono<AppEnv>();
mountRoute(
  api,
  rename,
  (c, { params, query, body }) => c.json({ id: params.id, name: body.name, dry: query.dry }),
);
mountRoute(api, health, (c) => c.json({ ok: true }));
const app = createApp({ log: silentLogger }).route("/", api);
const call = (path: string, init: RequestInit = {}) => app.request(path, init, { remoteAddr: "127.0.0.1" });
const patch = (path: string, body: string, member = true) =>
  call(path, {
    method: "PATCH",
    headers: { "content-type": "application/json", ...(member ? { "x-member": "yes" } : {}) },
    body,
  });

test("mountRoute runs the access's guard, then validates params, query and body, then the handler", async () => {
  const ok = await patch("/things/t1?dry=yes", JSON.stringify({ name: "new" }));
  assert.deepEqual(await ok.json(), { id: "t1", name: "new", dry: "yes" });
  assert.equal((await patch("/things/t1", JSON.stringify({ name: "new" }), false)).status, 401);
  for (
    const [path, body] of [["/things/x", '{"name":"a"}'], ["/things/t1", '{"name":""}'], ["/things/t1", "{"]]
  ) {
    const res = await patch(path!, body!);
    assert.equal(res.status, 400, `${path} ${body}`);
    assert.ok(Array.isArray((await res.json()).issues));
  }
  assert.equal((await call("/health")).status, 200);
});

test("the document describes each route from its declaration, with the tool's security and errors", () => {
  const doc = openApiDocument([rename, health], {
    title: "things",
    description: "a test tool",
    version: "v1",
    baseUrl: "http://127.0.0.1:1",
    securitySchemes: { member: { type: "apiKey", in: "header", name: "x-member" } },
    securityOf: (access) => (access === "public" ? undefined : [{ member: [] }]),
    impliedErrors: (
      access,
      hasInput,
    ) => [...(hasInput ? [400] : []), ...(access === "member" ? [401] : []), 500],
    errorResponses: errorResponses({ 404: "no such thing" }),
    // deno-lint-ignore no-explicit-any
  }) as any;
  const op = doc.paths["/things/{id}"].patch;
  assert.equal(op.operationId, "renameThing");
  assert.deepEqual(op.security, [{ member: [] }]);
  assert.deepEqual(Object.keys(op.responses).sort(), ["200", "400", "401", "404", "500"]);
  assert.equal(op.responses["404"].$ref, "#/components/responses/NotFound");
  assert.equal(doc.components.responses.NotFound.description, "no such thing");
  assert.deepEqual(op.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`), [
    "path:id",
    "query:dry",
  ]);
  assert.equal(op.requestBody.content["application/json"].schema.additionalProperties, false);
  assert.equal(doc.paths["/health"].get.security, undefined);
  assert.equal(doc.info.title, "things");
});

test("Swagger UI under any path: the page's files and the document's URL are relative to it", async () => {
  const docs = apiDocsRoutes({
    docsPath: "/api/docs",
    documentPath: "/api/docs.json",
    title: "things <API>",
    document: () => ({ openapi: "3.1.1" }),
  });
  assert.deepEqual(await (await docs.request("/api/docs.json")).json(), { openapi: "3.1.1" });
  const page = await docs.request("/api/docs");
  assert.equal(page.status, 200);
  assert.match(page.headers.get("content-security-policy")!, /script-src 'self'/);
  const html = await page.text();
  assert.match(html, /<title>things &#60;API&#62;<\/title>/);
  assert.match(html, /src="docs\/swagger-ui-bundle\.js\?v=[0-9a-f]+"/);
  assert.match(await (await docs.request("/api/docs/init.js")).text(), /url: "docs\.json"/);
  assert.equal((await docs.request("/api/docs/nothing.js")).status, 404);
});
