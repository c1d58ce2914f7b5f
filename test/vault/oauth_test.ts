/**
 * Black-box: sign-in with GitHub and Google through `dist/vault`, against a local provider that
 * speaks the real protocol (test/harness/oauth_provider.ts): authorize redirect, code exchange
 * with PKCE and the client secret, userinfo. OAuth sign-up obeys invite-only; the invite is claimed
 * and names the new user; a second sign-in finds the same account; a forged state signs nobody in.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type RunningBinary, startBinary } from "../harness/binary.ts";
import { type OAuthProvider, startOAuthProvider } from "../harness/oauth_provider.ts";
import { VaultClient, vaultEnv } from "../harness/vault.ts";

describe("vault OAuth sign-in (GitHub, Google)", () => {
  let home: string;
  let provider: OAuthProvider;
  let server: RunningBinary;
  let root: VaultClient;

  /** What a browser does: start, follow the provider's redirect, land on the callback. */
  async function oauthSignIn(
    which: "github" | "google",
    extra: { inviteCode?: string; forgeState?: boolean } = {},
  ) {
    const start = await fetch(`${server.url}/api/auth/sign-in/social`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url },
      body: JSON.stringify({
        provider: which,
        callbackURL: "/welcome",
        errorCallbackURL: "/oauth-error",
        ...(extra.inviteCode ? { additionalData: { inviteCode: extra.inviteCode } } : {}),
      }),
    });
    assert.equal(start.status, 200, await start.clone().text());
    const { url } = await start.json() as { url: string };
    assert.ok(url.startsWith(provider.url), url);
    const jar = start.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
    const authorize = await fetch(url, { redirect: "manual" });
    assert.equal(authorize.status, 302);
    let callback = authorize.headers.get("location")!;
    assert.ok(callback.startsWith(`${server.url}/api/auth/callback/${which}`), callback);
    if (extra.forgeState) callback = callback.replace(/state=[^&]+/, "state=forged");
    const landed = await fetch(callback, { redirect: "manual", headers: { cookie: jar } });
    const session = landed.headers.getSetCookie().map((c) => c.split(";")[0]!)
      .filter((c) => c.includes("session_token=") && !c.endsWith("="));
    return {
      status: landed.status,
      location: landed.headers.get("location") ?? "",
      client: session.length ? new VaultClient(server.url, { cookie: session.join("; ") }) : undefined,
    };
  }

  before(async () => {
    home = await mkdtemp(join(tmpdir(), "vault-oauth-"));
    provider = await startOAuthProvider();
    server = await startBinary("vault", ["serve"], {
      cwd: home,
      env: vaultEnv(home, { extra: provider.env() }),
      timeoutMs: 60_000,
    });
    // An empty vault is founded by the email sign-up only (the founder check needs its lock).
    const founder = await oauthSignIn("github");
    assert.equal(founder.client, undefined);
    assert.match(founder.location, /error=FOUNDER_REQUIRED/);
    root = new VaultClient(server.url);
    const res = await root.post("/api/auth/sign-up/email", {
      email: "root@example.test",
      password: "root-Pa55word-123",
      name: "Root",
    });
    assert.equal(res.status, 201);
  });

  after(async () => {
    const output = server?.output() ?? "";
    await server?.stop();
    await provider?.stop();
    await rm(home, { recursive: true, force: true });
    assert.ok(!output.includes(provider.clientSecret), "the client secret reached the log");
  });

  it("GitHub sign-up without an invite is refused while invite-only, and creates nobody", async () => {
    provider.user = {
      id: "583231",
      login: "octocat",
      name: "The Octocat",
      email: "octocat@example.test",
      privateEmail: true,
    };
    const res = await oauthSignIn("github");
    assert.equal(res.status, 302);
    assert.match(res.location, /^\/oauth-error\?error=INVITE_REQUIRED/);
    assert.equal(res.client, undefined);
    const users = (await root.get("/api/admin/users")).body.users as { email: string }[];
    assert.ok(!users.some((u) => u.email === "octocat@example.test"));
    assert.ok(
      provider.requests.some((r) => r.path === "/github/login/oauth/access_token"),
      "the code was exchanged",
    );
  });

  it("GitHub sign-up with an invite creates the account (email from /user/emails) and claims the code", async () => {
    const invite = await root.write("POST", "/api/admin/invites", {});
    const res = await oauthSignIn("github", { inviteCode: invite.body.code });
    assert.equal(res.status, 302, res.location);
    assert.match(res.location, /\/welcome$/);
    assert.ok(res.client, "signed in");
    const me = await res.client!.get("/api/me");
    assert.equal(me.body.email, "octocat@example.test");
    assert.equal(me.body.role, "user");
    const listed = (await root.get("/api/admin/invites")).body.invites.find((i: { id: string }) =>
      i.id === invite.body.id
    );
    assert.equal(listed.status, "used");
    assert.equal(listed.usedBy, me.body.id);

    const again = await oauthSignIn("github");
    assert.ok(again.client, "a known account signs in without a code");
    assert.equal((await again.client!.get("/api/me")).body.id, me.body.id);
    // The session works for the notes API too.
    const note = await again.client!.write("POST", "/api/notes", { path: "Hello.md", content: "# hi" });
    assert.equal(note.status, 201);

    // A disabled account is refused through OAuth as everywhere else.
    const disabled = await root.write("PATCH", `/api/admin/users/${me.body.id}`, { disabled: true });
    assert.equal(disabled.status, 200, JSON.stringify(disabled.body));
    const refused = await oauthSignIn("github");
    assert.equal(refused.client, undefined, `signed in while disabled: ${refused.location}`);
    assert.match(refused.location, /error=/);
    await root.write("PATCH", `/api/admin/users/${me.body.id}`, { disabled: false });
  });

  it("Google sign-up in open mode; a forged state signs nobody in", async () => {
    assert.equal((await root.write("PUT", "/api/admin/settings/registration", { mode: "open" })).status, 200);
    provider.user = { id: "1098765432109876", login: "ada", name: "Ada Lovelace", email: "ada@example.test" };
    const forged = await oauthSignIn("google", { forgeState: true });
    assert.equal(forged.client, undefined);
    assert.match(forged.location, /error=/);

    const res = await oauthSignIn("google");
    assert.ok(res.client, res.location);
    const me = await res.client!.get("/api/me");
    assert.equal(me.body.email, "ada@example.test");
    const users = (await root.get("/api/admin/users")).body.users as { email: string; name: string }[];
    assert.equal(users.find((u) => u.email === "ada@example.test")?.name, "Ada Lovelace");
    assert.ok(provider.requests.some((r) => r.path === "/google/v1/userinfo"));
  });
});
