/**
 * Black-box: signing in with GitHub and Google from the vault web app in Chromium, against the local
 * provider that speaks the real protocol (test/harness/oauth_provider.ts: authorize redirect, code
 * exchange with PKCE and the client secret, userinfo). The buttons are clicked in the page, the
 * browser follows the provider's authorize step back to the vault's callback, and lands signed in
 * on /. Invite-only sign-up through a button carries the invite code typed in the page.
 */
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import type { RunningBinary } from "../harness/binary.ts";
import { browserSkipReason, launchBrowser, watchedPage } from "../harness/browser.ts";
import { type OAuthProvider, startOAuthProvider } from "../harness/oauth_provider.ts";
import { VaultClient } from "../harness/vault.ts";
import { sessionCookie, shootAll, startVaultWeb } from "../harness/vault_web.ts";

describe("vault web app: OAuth sign-in in the browser", { skip: browserSkipReason() }, () => {
  let provider: OAuthProvider;
  let server: RunningBinary;
  let url: string;
  let home: string;
  let browser: Browser;
  let root: VaultClient;

  before(async () => {
    provider = await startOAuthProvider();
    ({ server, url, home } = await startVaultWeb("vault-web-oauth-", provider.env()));
    root = new VaultClient(url);
    const founded = await root.post("/api/auth/sign-up/email", {
      email: "root@example.test",
      password: "root-Pa55word-123",
      name: "Root",
    });
    assert.equal(founded.status, 201);
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    const output = server?.output() ?? "";
    const code = await server?.stop();
    if (code !== 0 && code !== null) console.error(output);
    await provider?.stop();
    if (home) await rm(home, { recursive: true, force: true });
    assert.ok(!output.includes(provider.clientSecret), "the client secret reached the log");
  });

  it("GitHub: sign up with an invite code by clicking the button, land signed in on /, sign in again", async () => {
    provider.user = {
      id: "583231",
      login: "octocat",
      name: "The Octocat",
      email: "octocat@example.test",
      privateEmail: true,
    };
    const w = await watchedPage(browser, url);
    const { page } = w;
    await page.goto("/");
    await page.getByRole("button", { name: "Sign in with GitHub" }).waitFor();
    await page.getByRole("button", { name: "Sign in with Google" }).waitFor();
    await shootAll(w, "sign-in-oauth");
    const invite = (await root.write("POST", "/api/admin/invites", {})).body;
    await page.getByRole("tab", { name: "Create account" }).click();
    await page.getByLabel("Invite code").fill(invite.code);
    await page.getByRole("button", { name: "Sign up with GitHub" }).click();
    await page.getByRole("button", { name: "Sign out" }).waitFor({ timeout: 15_000 });
    assert.equal(new URL(page.url()).pathname, "/");
    await page.locator(".who", { hasText: "The Octocat" }).waitFor();
    const me = await new VaultClient(url, { cookie: await sessionCookie(page) }).get("/api/me");
    assert.equal(me.body.email, "octocat@example.test");
    assert.ok(provider.requests.some((r) => r.path === "/github/login/oauth/access_token"), "code exchanged");
    assert.ok(provider.requests.some((r) => r.path === "/github/api/user/emails"), "email from /user/emails");
    const listed = (await root.get("/api/admin/invites")).body.invites.find((i: { id: string }) =>
      i.id === invite.id
    );
    assert.equal(listed.usedBy, me.body.id, "the invite is claimed by the new account");

    // Signed out, the button signs the same account in again (no code needed).
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("button", { name: "Sign in with GitHub" }).click();
    await page.getByRole("button", { name: "Sign out" }).waitFor({ timeout: 15_000 });
    const again = await new VaultClient(url, { cookie: await sessionCookie(page) }).get("/api/me");
    assert.equal(again.body.id, me.body.id);
    w.assertClean();
    await w.context.close();
  });

  it("Google: without an invite while invite-only, the page says so; in open mode the button signs up", async () => {
    provider.user = { id: "1098765432109876", login: "ada", name: "Ada Lovelace", email: "ada@example.test" };
    const w = await watchedPage(browser, url);
    const { page } = w;
    await page.goto("/");
    await page.getByRole("button", { name: "Sign in with Google" }).click();
    // Refused: back on the sign-in page, nobody signed in.
    await page.waitForURL((u) => u.origin === url && u.searchParams.has("error"), { timeout: 15_000 });
    await page.getByRole("button", { name: "Sign in", exact: true }).waitFor();
    assert.match(page.url(), /error=INVITE_REQUIRED/);
    await page.getByRole("alert").filter({
      hasText: "Sign-in failed: An invite code is needed to create an account.",
    }).waitFor();
    const users = (await root.get("/api/admin/users")).body.users as { email: string }[];
    assert.ok(!users.some((u) => u.email === "ada@example.test"));

    assert.equal((await root.write("PUT", "/api/admin/settings/registration", { mode: "open" })).status, 200);
    await page.goto("/");
    await page.getByRole("button", { name: "Sign in with Google" }).click();
    await page.getByRole("button", { name: "Sign out" }).waitFor({ timeout: 15_000 });
    await page.locator(".who", { hasText: "Ada Lovelace" }).waitFor();
    assert.ok(provider.requests.some((r) => r.path === "/google/v1/userinfo"));
    w.assertClean();
    await w.context.close();
  });
});
