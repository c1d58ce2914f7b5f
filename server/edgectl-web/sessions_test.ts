import assert from "node:assert/strict";
import { test } from "node:test";
import { Sessions, userOfClaims } from "./sessions.ts";

test("the Kubernetes identity of an ID token: email, else sub; string groups only", () => {
  assert.deepEqual(userOfClaims({ sub: "u1", email: "a@example.com", groups: ["dev", 3, "ops"] }), {
    name: "a@example.com",
    groups: ["dev", "ops"],
    via: "oidc",
  });
  assert.deepEqual(userOfClaims({ sub: "u1" }), { name: "u1", groups: [], via: "oidc" });
});

test("sessions end at their expiry; a pending sign-in is taken once", () => {
  const s = new Sessions<{ state: string }>();
  const user = { name: "a", groups: [], via: "oidc" as const };
  const live = s.signIn(user, Date.now() + 60_000);
  const gone = s.signIn(user, Date.now() - 1);
  assert.deepEqual(s.users.get(live), user);
  assert.equal(s.users.get(gone), undefined);
  assert.equal(s.users.get("not-an-id"), undefined);
  assert.equal(s.users.get(undefined), undefined);
  const p = s.startSignIn({ state: "x" });
  assert.deepEqual(s.pending.take(p), { state: "x" });
  assert.equal(s.pending.take(p), undefined);
  assert.notEqual(live, gone);
  assert.match(live, /^[A-Za-z0-9_-]{43}$/);
});
