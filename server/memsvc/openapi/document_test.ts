import assert from "node:assert/strict";
import { test } from "node:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { appForMode, documentOf } from "./_test_app.ts";

/** Validates against the OpenAPI 3.1 schema; a $ref that points at nothing makes it invalid too. */
async function validate(document: Record<string, unknown>) {
  const validator = new Validator();
  const result = await validator.validate(structuredClone(document));
  const dangling = danglingRefs(document);
  return {
    valid: result.valid && dangling.length === 0,
    errors: [...[result.errors ?? []].flat(), ...dangling.map((ref) => `dangling $ref ${ref}`)],
    version: validator.version,
  };
}

/** Every local $ref whose JSON pointer finds nothing in the document. */
function danglingRefs(document: Record<string, unknown>): string[] {
  const refs: string[] = [];
  const walk = (value: unknown) => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === "object") {
      for (const [k, v] of Object.entries(value)) {
        k === "$ref" && typeof v === "string" ? refs.push(v) : walk(v);
      }
    }
  };
  walk(document);
  const resolves = (ref: string) =>
    ref.startsWith("#/") &&
    ref.slice(2).split("/").map((p) => p.replaceAll("~1", "/").replaceAll("~0", "~"))
        .reduce<unknown>((at, key) => (at as Record<string, unknown> | undefined)?.[key], document) !==
      undefined;
  return [...new Set(refs)].filter((ref) => !resolves(ref));
}

for (const mode of ["user", "bearer", "none"] as const) {
  test(`/openapi.json validates as OpenAPI 3.1 (MEMSVC_AUTH_MODE=${mode})`, async () => {
    const document = await documentOf(appForMode(mode));
    const result = await validate(document);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
    assert.equal(result.version, "3.1");
    assert.match(document.openapi, /^3\.1\.\d+$/);
  });
}

test("the validator really checks 3.1 documents: broken ones fail", async () => {
  const document = await documentOf(appForMode("user"));
  const noTitle = structuredClone(document);
  delete noTitle.info.title;
  assert.equal((await validate(noTitle)).valid, false, "info without a title");

  const badPath = structuredClone(document);
  badPath.paths["health"] = badPath.paths["/health"];
  assert.equal((await validate(badPath)).valid, false, "a path not starting with /");

  const badParameter = structuredClone(document);
  badParameter.paths["/v1/recent"].get.parameters[0].in = "body";
  assert.equal((await validate(badParameter)).valid, false, "a parameter `in: body` (2.0 only)");

  const badScheme = structuredClone(document);
  badScheme.components.securitySchemes.apiToken.type = "token";
  assert.equal((await validate(badScheme)).valid, false, "an unknown security scheme type");

  const dangling = structuredClone(document);
  dangling.paths["/v1/search"].post.responses["200"].content["application/json"].schema = {
    $ref: "#/components/schemas/NoSuchSchema",
  };
  assert.equal((await validate(dangling)).valid, false, "a $ref to nothing");
});

test("operations list the credentials they accept", async () => {
  const { paths, components } = await documentOf(appForMode("user"));
  const schemes = (op: { security?: Record<string, string[]>[] }) =>
    (op.security ?? []).flatMap((s) => Object.keys(s)).sort();
  assert.deepEqual(Object.keys(components.securitySchemes).sort(), [
    "apiToken",
    "sessionBearer",
    "sessionCookie",
  ]);
  assert.equal(components.securitySchemes.sessionCookie.name, "memsvc.session_token");
  assert.deepEqual(schemes(paths["/v1/search"].post), ["apiToken", "sessionBearer", "sessionCookie"]);
  assert.deepEqual(schemes(paths["/v1/admin/metrics"].get), ["sessionBearer", "sessionCookie"]);
  assert.deepEqual(schemes(paths["/v1/me/tokens"].post), ["sessionBearer", "sessionCookie"]);
  assert.deepEqual(schemes(paths["/v1/auth/rotate-token"].post), ["apiToken"]);
  assert.deepEqual(schemes(paths["/mcp"].post), ["apiToken", "sessionBearer"]);
  assert.deepEqual(schemes(paths["/health"].get), []);
  // MCP: the JSON-RPC body the transport reads itself, and its own error answers.
  assert.ok(paths["/mcp"].post.requestBody.content["application/json"].schema);
  assert.equal(
    paths["/mcp"].post.responses["404"].content["application/json"].schema.$ref,
    "#/components/schemas/JsonRpcError",
  );
  assert.deepEqual(schemes(paths["/api/auth/sign-in/email"].post), []);
});

test("the session cookie's name follows the scheme of MEMSVC_BASE_URL", async () => {
  const { components } = await documentOf(appForMode("user", "https://memory.example.com"));
  assert.equal(components.securitySchemes.sessionCookie.name, "__Secure-memsvc.session_token");
});

test("request schemas are the ones that validate: limits and strictness show", async () => {
  const { paths, components } = await documentOf(appForMode("user"));
  const search = paths["/v1/search"].post.requestBody.content["application/json"].schema;
  assert.equal(search.additionalProperties, false);
  assert.deepEqual(search.required, ["query"]);
  assert.equal(search.properties.includeProjects.maxItems, 16);
  const remember = paths["/v1/remember"].post.requestBody.content["application/json"].schema;
  assert.equal(remember.properties.confidence.maximum, 1);
  assert.equal(remember.properties.metadata.additionalProperties.$ref, "#/components/schemas/JsonValue");
  assert.ok(components.schemas.JsonValue);
  const depth = paths["/v1/memories/{id}/neighbors"].get.parameters.find((p: { name: string }) =>
    p.name === "depth"
  );
  assert.equal(depth.in, "query");
  assert.equal(depth.schema.default, 1);
  // The identity library's own schema for sign-in.
  const signIn = paths["/api/auth/sign-in/email"].post.requestBody.content["application/json"].schema;
  assert.deepEqual([...signIn.required].sort(), ["email", "password"]);
  // Decay's body is all optional: it may be left out.
  assert.equal(paths["/v1/decay"].post.requestBody.required, false);
  assert.equal(paths["/v1/remember"].post.requestBody.required, true);
});

test("the error bodies of the contract are shared components", async () => {
  const { paths, components } = await documentOf(appForMode("user"));
  assert.deepEqual(
    Object.keys(components.responses).sort(),
    [
      "BadRequest",
      "Conflict",
      "Forbidden",
      "InternalError",
      "NotFound",
      "PayloadTooLarge",
      "TooManyRequests",
      "Unauthorized",
    ],
  );
  assert.deepEqual(components.schemas.InternalError.properties.error, {
    type: "string",
    const: "internal server error",
  });
  const remember = paths["/v1/remember"].post.responses;
  assert.equal(remember["400"].$ref, "#/components/responses/BadRequest");
  assert.equal(remember["401"].$ref, "#/components/responses/Unauthorized");
  assert.equal(remember["404"].$ref, "#/components/responses/NotFound");
  assert.equal(remember["500"].$ref, "#/components/responses/InternalError");
  assert.equal(paths["/mcp/sse"].get.responses["429"].$ref, "#/components/responses/TooManyRequests");
  const setRole = JSON.stringify(paths["/api/auth/admin/set-role"].post.responses["400"]);
  assert.match(setRole, /LastAdminProtected/);
});

test("bearer and none modes describe only what they serve, with their own credentials", async () => {
  const bearer = await documentOf(appForMode("bearer"));
  assert.deepEqual(Object.keys(bearer.components.securitySchemes), ["sharedBearer"]);
  assert.deepEqual(bearer.paths["/v1/search"].post.security, [{ sharedBearer: [] }]);
  for (const path of Object.keys(bearer.paths)) {
    assert.ok(!path.startsWith("/api/auth") && !path.startsWith("/v1/me/tokens"), path);
  }
  const none = await documentOf(appForMode("none"));
  assert.deepEqual(none.components.securitySchemes, {});
  assert.equal(none.paths["/v1/search"].post.security, undefined);
});
