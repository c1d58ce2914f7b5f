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
