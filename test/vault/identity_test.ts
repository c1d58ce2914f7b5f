/**
 * Black-box: `vault serve`'s identity skeleton (issue 19) on the embedded database and on
 * PostgreSQL 15: registration with invite codes (the 50-way race on one code, a failed sign-up
 * that leaves its code unused, the first admin), disabled users, the last-admin rule, CSRF, API
 * keys with scopes, expiry and the per-key request budget, ids that cannot exist (404), user names
 * checked alike on sign-up and update-user, errors and headers.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import postgres from "postgres";
import { type RunningBinary, startBinary } from "../harness/binary.ts";
import { type PostgresServer, startPostgres } from "../harness/postgres.ts";
import { TEST_AUTH_SECRET, VaultClient, vaultEnv } from "../harness/vault.ts";

const ROOT = { email: "root@example.test", password: "root-Pa55word-123", name: "Root" };
const secrets = new Set<string>([ROOT.password, TEST_AUTH_SECRET]);

/** Signs up `who` (with `inviteCode` when given) and returns the reply and a signed-in client. */
async function signUp(
  server: RunningBinary,
  who: { email: string; password: string; name: string },
  inviteCode?: string,
) {
  const client = new VaultClient(server.url);
  secrets.add(who.password);
  const res = await client.post("/api/auth/sign-up/email", { ...who, ...(inviteCode ? { inviteCode } : {}) });
  return { res, client };
}

async function signIn(server: RunningBinary, who: { email: string; password: string }) {
  const client = new VaultClient(server.url);
  const res = await client.post("/api/auth/sign-in/email", who);
  return { res, client };
}

function person(name: string) {
  return { email: `${name}@example.test`, password: `${name}-Pa55word-123`, name };
}

function suite(backend: "pglite" | "postgres") {
  describe(`vault identity on ${backend}`, () => {
    let home: string;
    let pg: PostgresServer | undefined;
    let server: RunningBinary;
    let root: VaultClient;
    let rootEmail: string;
    /** Invite code -> its id, which names it in URLs. */
    const codeIds = new Map<string, string>();

    const invite = async (body: object = {}) => {
      const res = await root.write("POST", "/api/admin/invites", body);
      assert.equal(res.status, 201, JSON.stringify(res.body));
      secrets.add(res.body.code);
      codeIds.set(res.body.code, res.body.id);
      return res.body.code as string;
    };

    before(async () => {
      home = await mkdtemp(join(tmpdir(), `vault-identity-${backend}-`));
      if (backend === "postgres") pg = await startPostgres();
      server = await startBinary("vault", ["serve"], {
        cwd: home,
        env: vaultEnv(home, { databaseUrl: pg?.url }),
        timeoutMs: 60_000,
      });
    });

    after(async () => {
      const output = server?.output() ?? "";
      await server?.stop();
      await pg?.stop();
      await rm(home, { recursive: true, force: true });
      for (const secret of secrets) {
        assert.ok(!output.includes(secret), `the server log contains a secret: ${secret.slice(0, 6)}…`);
      }
    });

    it("the first sign-up founds the vault as its admin, one of ten at once; then it is invite-only", async () => {
      const before = await new VaultClient(server.url).get("/api/auth/registration");
      assert.deepEqual(before.body, { mode: "invite-only", firstUser: true });
      const founders = Array.from({ length: 10 }, (_, i) => ({ ...ROOT, email: `root${i}@example.test` }));
      const results = await Promise.all(founders.map((who) => signUp(server, who)));
      const won = results.filter((r) => r.res.status === 201);
      assert.equal(won.length, 1, JSON.stringify(results.map((r) => r.res.body)));
      assert.deepEqual(
        results.filter((r) => r.res.status !== 201).map((r) => [r.res.status, r.res.body.code]),
        Array(9).fill([403, "INVITE_REQUIRED"]),
        "the others found a founder already, inside their own transaction",
      );
      const first = won[0]!;
      assert.equal(first.res.body.user.role, "admin");
      rootEmail = first.res.body.user.email;
      const cookie = first.res.headers.getSetCookie().join("\n");
      assert.match(cookie, /vault\.session_token=/);
      assert.match(cookie, /HttpOnly/i);
      root = first.client;
      const me = await root.get("/api/me");
      assert.equal(me.body.email, rootEmail);
      assert.equal(me.body.role, "admin");
      assert.equal((await root.get("/api/admin/users")).body.users.length, 1);

      const second = await signUp(server, person("nocode"));
      assert.equal(second.res.status, 403);
      assert.equal(second.res.body.code, "INVITE_REQUIRED");
      const wrong = await signUp(server, person("wrongcode"), "no-such-code");
      assert.equal(wrong.res.status, 403);
      assert.equal(wrong.res.body.code, "INVALID_INVITE");
      assert.deepEqual((await new VaultClient(server.url).get("/api/auth/registration")).body, {
        mode: "invite-only",
        firstUser: false,
      });
    });

    it("50 concurrent sign-ups with one code create exactly one user", async () => {
      const code = await invite();
      const racers = Array.from({ length: 50 }, (_, i) => person(`racer${i}`));
      const results = await Promise.all(racers.map((who) => signUp(server, who, code)));
      const statuses = results.map((r) => r.res.status);
      assert.equal(statuses.filter((s) => s === 201).length, 1, JSON.stringify(statuses));
      assert.equal(statuses.filter((s) => s === 403).length, 49, JSON.stringify(statuses));
      const users = (await root.get("/api/admin/users")).body.users as { email: string }[];
      assert.equal(users.filter((u) => u.email.startsWith("racer")).length, 1);
      const listed = (await root.get("/api/admin/invites")).body.invites.find((i: { code: string }) =>
        i.code === code
      );
      assert.equal(listed.status, "used");
      const winner = users.find((u) => u.email.startsWith("racer")) as { id?: string } | undefined;
      assert.equal(listed.usedBy, winner?.id);
    });

    it("a sign-up that fails after the claim (email taken) leaves the code unused", async () => {
      const code = await invite();
      const taken = await signUp(server, { ...person("dup"), email: rootEmail.toUpperCase() }, code);
      assert.equal(taken.res.status, 409, JSON.stringify(taken.res.body));
      assert.equal(taken.res.body.code, "EMAIL_TAKEN");
      const listed = (await root.get("/api/admin/invites")).body.invites.find((i: { code: string }) =>
        i.code === code
      );
      assert.equal(listed.status, "unused");
      assert.equal((await signUp(server, person("dupfixed"), code)).res.status, 201);
      assert.equal((await signUp(server, person("dupagain"), code)).res.status, 403, "now it is used");
    });

    it("expired and revoked codes are refused; revoking a used code is 409, an unknown one 404", async () => {
      const expired = await invite({ expiresAt: new Date(Date.now() - 1000).toISOString() });
      assert.equal((await signUp(server, person("late"), expired)).res.status, 403);
      const revoked = await invite({ expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
      assert.equal((await root.write("DELETE", `/api/admin/invites/${codeIds.get(revoked)}`)).status, 204);
      assert.equal((await signUp(server, person("revoked"), revoked)).res.status, 403);
      const used = await invite();
      assert.equal((await signUp(server, person("user1"), used)).res.status, 201);
      assert.equal((await root.write("DELETE", `/api/admin/invites/${codeIds.get(used)}`)).status, 409);
      assert.equal((await root.write("DELETE", "/api/admin/invites/nope")).status, 404);
      const statuses = (await root.get("/api/admin/invites")).body.invites
        .filter((i: { code: string }) => [expired, revoked].includes(i.code))
        .map((i: { status: string }) => i.status).sort();
      assert.deepEqual(statuses, ["expired", "revoked"]);
    });

    it("an admin opens registration and closes it again", async () => {
      assert.deepEqual((await root.get("/api/admin/settings/registration")).body, { mode: "invite-only" });
      assert.equal(
        (await root.write("PUT", "/api/admin/settings/registration", { mode: "open" })).status,
        200,
      );
      assert.equal((await signUp(server, person("walkin"))).res.status, 201);
      const bad = await root.write("PUT", "/api/admin/settings/registration", { mode: "closed" });
      assert.equal(bad.status, 400);
      assert.ok(Array.isArray(bad.body.issues));
      await root.write("PUT", "/api/admin/settings/registration", { mode: "invite-only" });
      assert.equal((await signUp(server, person("walkin2"))).res.status, 403);
    });

    it("admin routes need an admin session; a user gets 403 and no credential 401", async () => {
      const code = await invite();
      const { client: user } = await signUp(server, person("plain"), code);
      assert.equal((await user.get("/api/admin/users")).status, 403);
      assert.equal((await user.write("POST", "/api/admin/invites", {})).status, 403);
      assert.equal((await new VaultClient(server.url).get("/api/admin/users")).status, 401);
      assert.equal((await new VaultClient(server.url).get("/api/me")).status, 401);
    });

    it("a disabled user is refused everywhere, open sessions and API keys included", async () => {
      const who = person("dora");
      const { client: dora, res } = await signUp(server, who, await invite());
      const id = res.body.user.id;
      const key = await dora.write("POST", "/api/api-keys", { name: "dora-laptop", scope: "read-write" });
      secrets.add(key.body.key);
      const bearer = new VaultClient(server.url, { bearer: key.body.key });
      assert.equal((await bearer.get("/api/me")).status, 200);

      const off = await root.write("PATCH", `/api/admin/users/${id}`, { disabled: true });
      assert.equal(off.status, 200, JSON.stringify(off.body));
      assert.equal(off.body.disabled, true);
      assert.equal((await dora.get("/api/me")).status, 401, "the open session");
      assert.equal((await bearer.get("/api/me")).status, 401, "the API key");
      assert.notEqual((await signIn(server, who)).res.status, 200, "a new sign-in");

      assert.equal((await root.write("PATCH", `/api/admin/users/${id}`, { disabled: false })).status, 200);
      const back = await signIn(server, who);
      assert.equal(back.res.status, 200);
      assert.equal((await back.client.get("/api/me")).status, 200);
      assert.equal((await bearer.get("/api/me")).status, 200, "the key works again");
    });

    it("sessions are stored as the SHA-256 of their token; a listed session can be revoked", async () => {
      const who = person("sam");
      const { client: first } = await signUp(server, who, await invite());
      const { client: second } = await signIn(server, who);
      const tokenOf = (c: VaultClient) => decodeURIComponent(c.cookie!.split("=")[1]!).split(".")[0]!;
      const sha256 = (v: string) => createHash("sha256").update(v).digest("hex");
      const [t1, t2] = [tokenOf(first), tokenOf(second)];
      secrets.add(t1).add(t2);
      const listed = await first.get("/api/auth/list-sessions");
      assert.equal(listed.status, 200, JSON.stringify(listed.body));
      assert.ok(!JSON.stringify(listed.body).includes(t2), "another session's token is never listed");
      const other = listed.body.find((s: { token: string }) => s.token === `sha256:${sha256(t2)}`);
      assert.ok(other, JSON.stringify(listed.body));
      if (pg) {
        const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
        try {
          const stored = (await sql`select token from session`).map((r) => r.token as string);
          assert.ok(stored.includes(sha256(t1)) && stored.includes(sha256(t2)));
          assert.ok(!stored.includes(t1) && !stored.includes(t2), "no plain token in the database");
        } finally {
          await sql.end();
        }
      }
      const revoked = await first.write("POST", "/api/auth/revoke-session", { token: other.token });
      assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
      assert.equal((await second.get("/api/me")).status, 401, "the revoked session");
      assert.equal((await first.get("/api/me")).status, 200);
    });

    it("the last admin can be neither demoted, disabled nor removed; with a second admin it can", async () => {
      const rootId = (await root.get("/api/me")).body.id;
      for (const change of [{ role: "user" }, { disabled: true }]) {
        const res = await root.write("PATCH", `/api/admin/users/${rootId}`, change);
        assert.equal(res.status, 400, JSON.stringify(change));
        assert.equal(res.body.code, "LAST_ADMIN_PROTECTED");
      }
      assert.equal(
        (await root.write("DELETE", `/api/admin/users/${rootId}`)).body.code,
        "LAST_ADMIN_PROTECTED",
      );

      const { res } = await signUp(server, person("grace"), await invite());
      const graceId = res.body.user.id;
      assert.equal(
        (await root.write("PATCH", `/api/admin/users/${graceId}`, { role: "admin" })).body.role,
        "admin",
      );
      const grace = (await signIn(server, person("grace"))).client;
      assert.equal((await grace.get("/api/admin/users")).status, 200);
      assert.equal((await root.write("DELETE", `/api/admin/users/${graceId}`)).status, 204);
      assert.equal((await grace.get("/api/me")).status, 401, "a removed user's session is gone");
      assert.equal((await root.write("DELETE", `/api/admin/users/${graceId}`)).status, 404);
      assert.equal((await root.write("PATCH", "/api/admin/users/nobody", { role: "user" })).status, 404);
    });

    it("cookie writes need X-Requested-With and the vault's own origin; bearer writes need neither", async () => {
      const noHeader = await root.post("/api/admin/invites", {});
      assert.equal(noHeader.status, 403);
      assert.match(noHeader.body.error, /X-Requested-With/);
      const foreign = await root.call("POST", "/api/admin/invites", {}, {
        "X-Requested-With": "XMLHttpRequest",
        origin: "https://evil.example",
      });
      assert.equal(foreign.status, 403);
      const key = await root.write("POST", "/api/api-keys", { name: "script", scope: "read-write" });
      secrets.add(key.body.key);
      const script = new VaultClient(server.url, { bearer: key.body.key });
      script.origin = undefined;
      assert.equal((await script.post("/api/auth/sign-out")).status !== 403, true);
    });

    it("API keys: minted once with a prefix, listed without secrets, scoped, expiring, revocable", async () => {
      const minted = await root.write("POST", "/api/api-keys", {
        name: "vault-init-host-2026",
        scope: "read",
      });
      assert.equal(minted.status, 201, JSON.stringify(minted.body));
      const { id, prefix, key } = minted.body;
      secrets.add(key);
      assert.match(key, /^vault_[A-Za-z0-9_-]{43}$/, "256 bits, base64url");
      assert.equal(prefix, key.slice(0, 16));
      const listed = await root.get("/api/api-keys");
      assert.ok(listed.body.keys.some((k: { id: string }) => k.id === id));
      assert.ok(!JSON.stringify(listed.body).includes(key), "no secret in the list");

      const reader = new VaultClient(server.url, { bearer: key });
      const me = await reader.get("/api/me");
      assert.deepEqual([me.status, me.body.via, me.body.scope], [200, "api-key", "read"]);
      assert.equal((await reader.post("/api/auth/sign-out")).status, 403, "a read key cannot write");
      assert.equal((await reader.get("/api/api-keys")).status, 403, "a key cannot manage keys");
      assert.equal((await reader.get("/api/admin/users")).status, 403, "an admin's key does not administer");

      const expiring = await root.write("POST", "/api/api-keys", {
        name: "short",
        scope: "read-write",
        expiresAt: new Date(Date.now() + 1500).toISOString(),
      });
      secrets.add(expiring.body.key);
      const shortLived = new VaultClient(server.url, { bearer: expiring.body.key });
      assert.equal((await shortLived.get("/api/me")).status, 200);
      await new Promise((r) => setTimeout(r, 1600));
      assert.equal((await shortLived.get("/api/me")).status, 401, "expired");

      assert.equal((await root.write("DELETE", `/api/api-keys/${id}`)).status, 204);
      assert.equal((await reader.get("/api/me")).status, 401, "revoked");
      assert.equal((await root.write("DELETE", `/api/api-keys/${id}`)).status, 404);
      assert.equal((await new VaultClient(server.url, { bearer: "vault_nope" }).get("/api/me")).status, 401);
      assert.equal(
        (await new VaultClient(server.url, { bearer: "something-else" }).get("/api/me")).status,
        401,
      );
    });

    it("a key may make 300 requests at once, then 600 a minute: past that 429 with a Retry-After of 1 s", async () => {
      const minted = await root.write("POST", "/api/api-keys", { name: "busy", scope: "read" });
      secrets.add(minted.body.key);
      const busy = new VaultClient(server.url, { bearer: minted.body.key });
      const replies = [];
      for (let i = 0; i < 400; i += 50) {
        replies.push(...await Promise.all(Array.from({ length: 50 }, () => busy.get("/api/me"))));
      }
      const passed = replies.filter((r) => r.status === 200).length;
      const limited = replies.filter((r) => r.status === 429);
      assert.equal(passed + limited.length, 400);
      // The burst, plus what the bucket refilled (10 a second) while the requests ran.
      assert.ok(passed >= 300 && passed < 400, `${passed} passed`);
      for (const r of limited) {
        assert.equal(r.headers.get("retry-after"), "1");
        assert.deepEqual(r.body, { error: "too many requests", retryAfterSeconds: 1 });
      }
      // Another key of the same user is counted apart.
      const other = await root.write("POST", "/api/api-keys", { name: "calm", scope: "read" });
      secrets.add(other.body.key);
      assert.equal(
        (await new VaultClient(server.url, { bearer: other.body.key }).get("/api/me")).status,
        200,
      );
    });

    it("an id that cannot exist (a NUL, a slash-free oddity) is 404 on every route, as an unknown one", async () => {
      const routes: [string, string, object?][] = [
        ["DELETE", "/api/shares/{id}"],
        ["DELETE", "/api/api-keys/{id}"],
        ["PATCH", "/api/admin/users/{id}", { disabled: true }],
        ["DELETE", "/api/admin/users/{id}"],
        ["DELETE", "/api/admin/invites/{id}"],
        ["POST", "/api/access-requests/{id}/approve", { permission: "read" }],
        ["POST", "/api/access-requests/{id}/deny"],
        ["POST", "/api/trash/{id}/restore"],
        ["DELETE", "/api/trash/{id}"],
        ["POST", "/api/admin/plugins/{id}/enable"],
      ];
      for (const [method, route, body] of routes) {
        for (const id of ["a%00b", "%00", "a%20b", "x".repeat(200), "no-such-id"]) {
          const res = await root.write(method, route.replace("{id}", id), body);
          assert.equal(res.status, 404, `${method} ${route} with ${id}: ${JSON.stringify(res.body)}`);
          assert.equal(typeof res.body.error, "string");
        }
      }
    });

    it("update-user takes a name only as sign-up does; passkey ids are checked; bad bodies are clear 400s", async () => {
      const who = person(`named-${backend}`);
      const { res, client } = await signUp(server, who, await invite());
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const refusedBoth = [null, 5, "", "   ", "x".repeat(101), ["x", {}], { first: "x" }];
      for (const name of refusedBoth) {
        const update = await client.write("POST", "/api/auth/update-user", { name });
        assert.equal(update.status, 400, `update-user ${JSON.stringify(name).slice(0, 40)}`);
        assert.equal(update.body.issues[0].path[0], "name");
        const other = person(`refused-${backend}-${refusedBoth.indexOf(name)}`);
        const signUpRes = await new VaultClient(server.url).post("/api/auth/sign-up/email", {
          ...other,
          name,
          inviteCode: await invite(),
        });
        assert.equal(signUpRes.status, 400, `sign-up ${JSON.stringify(name).slice(0, 40)}`);
      }
      const big = await client.call("POST", "/api/auth/update-user", { name: "x".repeat(1_500_000) }, {
        "X-Requested-With": "x",
      });
      assert.ok([400, 413].includes(big.status), `1.5 MB name: ${big.status}`);
      assert.equal((await client.write("POST", "/api/auth/update-user", { role: "admin" })).status, 400);
      const renamed = await client.write("POST", "/api/auth/update-user", { name: "  New Name  " });
      assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
      assert.equal(
        (await client.get("/api/auth/get-session")).body.user.name,
        "New Name",
        "trimmed, as sign-up",
      );
      for (const id of ["a\u0000b", 5, null]) {
        const res = await fetch(`${server.url}/api/auth/passkey/delete-passkey`, {
          method: "POST",
          headers: {
            cookie: client.cookie!,
            origin: server.url,
            "X-Requested-With": "x",
            "content-type": "application/json",
          },
          body: JSON.stringify({ id }),
        });
        assert.equal(res.status, 400, `delete-passkey ${JSON.stringify(id)}`);
        assert.equal((await res.json()).issues[0].path[0], "id");
      }
    });

    it("errors: structured 400s, JSON 404s, no paths or stacks; the vault's CSP and hardening headers", async () => {
      const res = await fetch(`${server.url}/api/auth/sign-up/email`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{not json",
      });
      assert.equal(res.status, 400);
      const body = await res.json();
      assert.equal(body.issues[0].code, "invalid_json");
      const shape = await new VaultClient(server.url).post("/api/auth/sign-up/email", { email: "x" });
      assert.equal(shape.status, 400);
      assert.ok(shape.body.issues.some((i: { path: string[] }) => i.path[0] === "password"));
      const missing = await root.get("/api/no-such-route");
      assert.equal(missing.status, 404);
      assert.deepEqual(missing.body, { error: "not found" });
      const unlisted = await new VaultClient(server.url).post("/api/auth/admin/create-user", {});
      assert.equal(unlisted.status, 404, "library routes not on the allowlist are not served");
      for (const r of [res, missing, shape]) {
        const text = JSON.stringify(r instanceof Response ? body : r.body);
        assert.doesNotMatch(text, /\/(work|tmp|home|root)\/|at .*\.ts:\d+/);
      }
      const health = await fetch(`${server.url}/health`);
      assert.deepEqual(await health.json(), { ok: true });
      const csp = health.headers.get("content-security-policy")!;
      for (
        const directive of [
          "default-src 'self'",
          "script-src 'self'",
          "style-src 'self' 'unsafe-inline'",
          "img-src 'self' data: blob:",
          "connect-src 'self' ws: wss:",
          "frame-ancestors 'self'",
          "object-src 'none'",
          "base-uri 'self'",
          "form-action 'self'",
        ]
      ) assert.ok(csp.split("; ").includes(directive), directive);
      assert.doesNotMatch(csp, /unsafe-inline[^;]*;?\s*$|script-src[^;]*unsafe/);
      assert.equal(health.headers.get("x-content-type-options"), "nosniff");
      assert.equal(health.headers.get("referrer-policy"), "no-referrer");
    });

    it("serves its OpenAPI document at /api/docs.json and Swagger UI at /api/docs", async () => {
      const doc = await (await fetch(`${server.url}/api/docs.json`)).json();
      assert.match(doc.openapi, /^3\.1\./);
      for (
        const [method, path] of [
          ["post", "/api/api-keys"],
          ["delete", "/api/api-keys/{id}"],
          ["post", "/api/auth/sign-up/email"],
          ["post", "/api/auth/sign-in/email"],
          ["patch", "/api/admin/users/{id}"],
          ["put", "/api/admin/settings/registration"],
          ["get", "/health"],
        ]
      ) assert.ok(doc.paths[path!]?.[method!], `${method} ${path}`);
      const page = await fetch(`${server.url}/api/docs`);
      assert.equal(page.status, 200);
      const html = await page.text();
      assert.match(html, /src="docs\/swagger-ui-bundle\.js\?v=/);
      const init = await (await fetch(`${server.url}/api/docs/init.js`)).text();
      assert.match(init, /url: "docs\.json"/);
      const bundle = await fetch(`${server.url}/api/docs/swagger-ui-bundle.js`);
      assert.equal(bundle.status, 200, "Swagger UI is embedded in the binary");
      await bundle.body?.cancel();
    });
  });
}

suite("pglite");
suite("postgres");
