import assert from "node:assert/strict";
import { test } from "node:test";
import { authRouteAllowlist } from "./allowlist.ts";

test("only listed routes pass, by method and path, trailing slashes ignored", () => {
  const list = authRouteAllowlist({ selfService: ["POST /sign-in/email"], admin: ["GET /admin/list-users"] });
  assert.equal(list.allowed("post", "/sign-in/email/"), "POST /sign-in/email");
  assert.equal(list.allowed("GET", "/sign-in/email"), undefined);
  assert.equal(list.allowed("POST", "/sign-up/email"), undefined);
  assert.equal(list.isAdmin("GET /admin/list-users"), true);
  assert.equal(list.isAdmin("POST /sign-in/email"), false);
});

test("a listed :param segment matches one plain segment, nothing more", () => {
  const list = authRouteAllowlist({ selfService: ["GET /callback/:id"], admin: [] });
  assert.equal(list.allowed("get", "/callback/github"), "GET /callback/:id");
  assert.equal(list.allowed("post", "/callback/github"), undefined);
  assert.equal(list.allowed("get", "/callback/github/x"), undefined);
  assert.equal(list.allowed("get", "/callback/a.b"), undefined);
  assert.equal(list.allowed("get", "/callback"), undefined);
});
