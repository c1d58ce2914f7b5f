import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkReview, checkToken, jwtClaims, MAX_TOKEN_BYTES } from "./token_signin.ts";

const jwt = (claims: Record<string, unknown>) =>
  `${Buffer.from('{"alg":"RS256"}').toString("base64url")}.${
    Buffer.from(JSON.stringify(claims)).toString("base64url")
  }.sig`;
const saClaims = {
  sub: "system:serviceaccount:team:viewer",
  "kubernetes.io": { namespace: "team", serviceaccount: { name: "viewer" } },
};

describe("checkToken", () => {
  it("refuses tokens over 16 KiB, empty or unprintable ones, and expired JWTs", () => {
    assert.throws(() => checkToken("a".repeat(MAX_TOKEN_BYTES + 1)), /larger than 16 KiB/);
    assert.doesNotThrow(() => checkToken("a".repeat(MAX_TOKEN_BYTES)));
    assert.throws(() => checkToken(""), /empty/);
    assert.throws(() => checkToken("abc def"), /not printable/);
    assert.throws(() => checkToken(jwt({ exp: Math.floor(Date.now() / 1000) - 1 })), /expired/);
    assert.throws(() => checkToken(jwt({ exp: "never" })), /expired/);
    assert.equal(checkToken(jwt({ exp: Math.floor(Date.now() / 1000) + 60 }))?.exp !== undefined, true);
    assert.equal(jwtClaims("opaque-static-token"), undefined);
  });
});

describe("checkReview", () => {
  const refused: [string, Parameters<typeof checkReview>[0], Parameters<typeof checkReview>[1], RegExp][] = [
    [
      "system:anonymous",
      { username: "system:anonymous", groups: ["system:unauthenticated"] },
      undefined,
      /anonymous/,
    ],
    [
      "group system:unauthenticated",
      { username: "someone", groups: ["system:unauthenticated"] },
      undefined,
      /unauthenticated/,
    ],
    [
      "system: user",
      { username: "system:kube-controller-manager", groups: ["system:authenticated"] },
      undefined,
      /system users/,
    ],
    ["system:admin", { username: "system:admin", groups: ["system:masters"] }, undefined, /system users/],
    ["no user", { groups: [] }, undefined, /did not name/],
    [
      "review names another account",
      { username: "system:serviceaccount:team:admin", groups: [] },
      saClaims,
      /belongs to system:serviceaccount:team:viewer/,
    ],
    ["review names another user", { username: "alice", groups: [] }, saClaims, /belongs to/],
    [
      "review adds a group to an SA token",
      { username: "system:serviceaccount:team:viewer", groups: ["system:serviceaccounts", "system:masters"] },
      saClaims,
      /system:masters/,
    ],
    ["review adds a group to an OIDC token", { username: "oidc:alice", groups: ["oidc:dev", "admins"] }, {
      sub: "alice",
      groups: ["dev"],
    }, /admins/],
  ];
  for (const [name, user, claims, reason] of refused) {
    it(`refuses ${name}`, () => assert.throws(() => checkReview(user, claims), reason));
  }
  it("accepts a service account reviewed as itself, and a person", () => {
    checkReview({
      username: "system:serviceaccount:team:viewer",
      groups: ["system:serviceaccounts", "system:serviceaccounts:team", "system:authenticated"],
    }, saClaims);
    checkReview({ username: "alice", groups: ["dev", "system:authenticated"] }, undefined);
    checkReview({ username: "oidc:alice", groups: ["oidc:dev", "system:authenticated"] }, {
      sub: "alice",
      groups: ["dev"],
    });
  });
});
