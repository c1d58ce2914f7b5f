import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type OidcProvider, startOidcProvider } from "../../test/harness/oidc_provider.ts";
import { OidcClient } from "./client.ts";

const REDIRECT = "http://127.0.0.1:1/callback";

describe("OidcClient against a provider speaking the protocol", () => {
  let idp: OidcProvider;
  let client: OidcClient;
  before(async () => {
    idp = await startOidcProvider({ clientId: "console", clientSecret: "s3cret", redirectUris: [REDIRECT] });
    client = await OidcClient.discover({
      issuer: idp.issuer,
      clientId: "console",
      clientSecret: "s3cret",
      redirectUrl: REDIRECT,
    });
  });
  after(() => idp.stop());

  /** What a browser does: follow the authorization URL to the redirect, return the callback URL. */
  async function authorize(url: string): Promise<URL> {
    const res = await fetch(url, { redirect: "manual" });
    assert.equal(res.status, 302);
    return new URL(res.headers.get("location")!);
  }

  it("signs in with code, PKCE S256, state and nonce", async () => {
    idp.misbehave = undefined;
    idp.nextUser = { sub: "alice", email: "alice@example.test", groups: ["dev"] };
    const start = client.startSignIn();
    const u = new URL(start.url);
    assert.equal(u.searchParams.get("code_challenge_method"), "S256");
    assert.notEqual(u.searchParams.get("code_challenge"), start.codeVerifier);
    const signed = await client.finishSignIn(await authorize(start.url), start);
    assert.equal(signed.claims.sub, "alice");
    assert.deepEqual(signed.claims.groups, ["dev"]);
    assert.ok(signed.expiresAt > Date.now());
    assert.equal(idp.tokenRequests.at(-1)?.pkce, true);
  });

  it("refuses a wrong state, a wrong verifier and a reused code", async () => {
    idp.misbehave = undefined;
    const start = client.startSignIn();
    const cb = await authorize(start.url);
    await assert.rejects(client.finishSignIn(cb, { ...start, state: "other" }), /state does not match/);
    await assert.rejects(
      client.finishSignIn(cb, { ...start, codeVerifier: "x".repeat(43) }),
      /invalid_grant/,
    );
    assert.equal(idp.tokenRequests.at(-1)?.pkce, false);
    await assert.rejects(client.finishSignIn(cb, start), /invalid_grant/, "the code was used up");
  });

  for (
    const [bad, reason] of [
      ["wrong-nonce", /nonce/],
      ["wrong-audience", /aud/],
      ["wrong-key", /signature/],
      ["expired", /exp/],
      ["wrong-issuer", /iss/],
    ] as const
  ) {
    it(`refuses an ID token with ${bad}`, async () => {
      idp.misbehave = bad;
      const start = client.startSignIn();
      await assert.rejects(client.finishSignIn(await authorize(start.url), start), reason);
      idp.misbehave = undefined;
    });
  }

  it("refuses discovery naming another issuer", async () => {
    await assert.rejects(
      OidcClient.discover({ issuer: `${idp.issuer}/`, clientId: "c", redirectUrl: REDIRECT }),
      /names issuer/,
    );
  });
});
