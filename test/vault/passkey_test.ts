/**
 * Black-box: passkeys in Chromium with a virtual authenticator (CDP WebAuthn domain) against
 * `dist/vault`: a signed-in user registers a passkey through the identity library's passkey plugin,
 * signs out, signs in again with the passkey alone (not twice with one assertion), and is refused once
 * an admin disabled the account.
 * WebAuthn needs a domain as relying party, so the vault's public URL is http://localhost:<port>.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { freePort } from "../harness/ports.ts";
import { ROOT, type RunningBinary, startBinary } from "../harness/binary.ts";
import { browserSkipReason, launchBrowser } from "../harness/browser.ts";
import { VaultClient, vaultEnv } from "../harness/vault.ts";

const WEBAUTHN_BROWSER = join(
  ROOT,
  "node_modules",
  "@simplewebauthn",
  "browser",
  "dist",
  "bundle",
  "index.umd.min.js",
);
const WHO = { email: "pia@example.test", password: "pia-Pa55word-123", name: "Pia" };
const FOUNDER = { email: "root@example.test", password: "root-Pa55word-123", name: "Root" };

describe("vault passkeys in Chromium", { skip: browserSkipReason() }, () => {
  let home: string;
  let server: RunningBinary;
  let origin: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let root: VaultClient;
  let piaId: string;

  /** fetch from the page, as the web app would (cookies, Origin, X-Requested-With on writes). */
  const call = (method: string, path: string, body?: unknown) =>
    page.evaluate(async ([method, path, body]) => {
      const res = await fetch(path as string, {
        method: method as string,
        headers: body === undefined
          ? { "X-Requested-With": "XMLHttpRequest" }
          : { "content-type": "application/json", "X-Requested-With": "XMLHttpRequest" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch { /* not JSON */ }
      return { status: res.status, body: parsed as Record<string, unknown> };
    }, [method, path, body] as const);

  before(async () => {
    home = await mkdtemp(join(tmpdir(), "vault-passkey-"));
    const port = await freePort();
    origin = `http://localhost:${port}`;
    server = await startBinary("vault", ["serve"], {
      cwd: home,
      env: vaultEnv(home, { extra: { VAULT_PORT: String(port), VAULT_BASE_URL: origin } }),
      timeoutMs: 60_000,
    });
    root = new VaultClient(server.url);
    root.origin = origin; // the public origin, which the CSRF check compares with
    assert.equal((await root.post("/api/auth/sign-up/email", FOUNDER)).status, 201);
    const invite = await root.write("POST", "/api/admin/invites", {});
    const signUp = await new VaultClient(server.url).post("/api/auth/sign-up/email", {
      ...WHO,
      inviteCode: invite.body.code,
    });
    assert.equal(signUp.status, 201);
    piaId = signUp.body.user.id;
    browser = await launchBrowser();
    // bypassCSP lets the test load the WebAuthn helper into a page of the vault's origin.
    context = await browser.newContext({ bypassCSP: true });
    page = await context.newPage();
    await page.goto(`${origin}/health`);
    await page.addScriptTag({ path: WEBAUTHN_BROWSER });
    const cdp = await context.newCDPSession(page);
    await cdp.send("WebAuthn.enable");
    await cdp.send("WebAuthn.addVirtualAuthenticator", {
      options: {
        protocol: "ctap2",
        transport: "internal",
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
    await rm(home, { recursive: true, force: true });
  });

  it("registers a passkey while signed in, signs in with it alone; a disabled user cannot", async () => {
    assert.equal((await call("POST", "/api/auth/sign-in/email", WHO)).status, 200);
    const options = await call("GET", "/api/auth/passkey/generate-register-options");
    assert.equal(options.status, 200, JSON.stringify(options.body));
    assert.equal((options.body.rp as { id: string }).id, "localhost");
    const attestation = await page.evaluate(
      // deno-lint-ignore no-explicit-any
      (o) => (globalThis as any).SimpleWebAuthnBrowser.startRegistration({ optionsJSON: o }),
      options.body,
    );
    const registered = await call("POST", "/api/auth/passkey/verify-registration", {
      response: attestation,
      name: "virtual authenticator",
    });
    assert.equal(registered.status, 200, JSON.stringify(registered.body));
    const listed = await call("GET", "/api/auth/passkey/list-user-passkeys");
    assert.equal((listed.body as unknown as unknown[]).length, 1);

    assert.equal((await call("POST", "/api/auth/sign-out", {})).status, 200);
    assert.equal((await call("GET", "/api/me")).status, 401);

    const challenge = await call("GET", "/api/auth/passkey/generate-authenticate-options");
    assert.equal(challenge.status, 200, JSON.stringify(challenge.body));
    const assertion = await page.evaluate(
      // deno-lint-ignore no-explicit-any
      (o) => (globalThis as any).SimpleWebAuthnBrowser.startAuthentication({ optionsJSON: o }),
      challenge.body,
    );
    const signedIn = await call("POST", "/api/auth/passkey/verify-authentication", { response: assertion });
    assert.equal(signedIn.status, 200, JSON.stringify(signedIn.body));
    const me = await call("GET", "/api/me");
    assert.equal(me.status, 200);
    assert.equal(me.body.email, WHO.email);

    // The same assertion cannot be replayed: its challenge was used up.
    const replay = await call("POST", "/api/auth/passkey/verify-authentication", { response: assertion });
    assert.notEqual(replay.status, 200);

    // A disabled user's passkey signs nobody in.
    assert.equal((await call("POST", "/api/auth/sign-out", {})).status, 200);
    assert.equal((await root.write("PATCH", `/api/admin/users/${piaId}`, { disabled: true })).status, 200);
    const again = await call("GET", "/api/auth/passkey/generate-authenticate-options");
    const second = await page.evaluate(
      // deno-lint-ignore no-explicit-any
      (o) => (globalThis as any).SimpleWebAuthnBrowser.startAuthentication({ optionsJSON: o }),
      again.body,
    );
    const refused = await call("POST", "/api/auth/passkey/verify-authentication", { response: second });
    assert.notEqual(refused.status, 200, JSON.stringify(refused.body));
    assert.equal((await call("GET", "/api/me")).status, 401);
  });
});
