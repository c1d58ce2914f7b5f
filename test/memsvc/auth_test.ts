/**
 * Black-box: identity, sessions, API tokens and admin guards of dist/memsvc, on the embedded
 * database and on PostgreSQL 15 (issue: memsvc identity).
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runBinary, type RunningBinary, startBinary } from "../harness/binary.ts";
import { Client } from "../harness/http_client.ts";
import { type PostgresServer, startPostgres } from "../harness/postgres.ts";
import { memsvcEnv, TEST_COOKIE_SECRET } from "../harness/memsvc.ts";

const ADMIN = { email: "root@example.test", password: "bootstrap-Pa55word!" };
const USER = { email: "ada@example.test", password: "ada-Pa55word-123" };
const SECOND_ADMIN = { email: "grace@example.test", password: "grace-Pa55word-123" };
const COOKIE_SECRET = TEST_COOKIE_SECRET;

/** Every secret the suite uses; none may appear in the server's log. */
const secrets = new Set<string>([ADMIN.password, USER.password, SECOND_ADMIN.password, COOKIE_SECRET]);

function baseEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return memsvcEnv(home, { admin: ADMIN, extra });
}

async function signIn(server: RunningBinary, who: { email: string; password: string }): Promise<Client> {
  const client = new Client(server.url, { origin: server.url });
  const res = await client.post("/api/auth/sign-in/email", who);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.ok(client.cookie, "sign-in sets the session cookie");
  const setCookie = res.headers.getSetCookie().join("\n");
  assert.match(setCookie, /HttpOnly/i);
  assert.match(setCookie, /SameSite=Lax/i);
  assert.doesNotMatch(setCookie, /;\s*Secure/i, "no Secure flag on an http:// base URL");
  secrets.add(res.body.token);
  return client;
}

async function mintToken(session: Client, label: string): Promise<{ token: string; tokenHash: string }> {
  const res = await session.post("/v1/me/tokens", { label });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  assert.match(res.body.token, /^nm_[A-Za-z0-9_-]{43,}$/);
  assert.match(res.body.tokenHash, /^[0-9a-f]{64}$/);
  assert.equal(res.body.label, label);
  secrets.add(res.body.token);
  return res.body;
}

function suite(backend: "pglite" | "postgres") {
  describe(`memsvc identity on ${backend}`, () => {
    let home: string;
    let pg: PostgresServer | undefined;
    let server: RunningBinary;
    let admin: Client;
    let user: Client;
    let userId: string;

    before(async () => {
      home = await mkdtemp(join(tmpdir(), `memsvc-auth-${backend}-`));
      const extra: Record<string, string> = {};
      if (backend === "postgres") {
        pg = await startPostgres();
        extra.MEMSVC_DATABASE_URL = pg.url;
      }
      server = await startBinary("memsvc", ["serve"], { cwd: home, env: baseEnv(home, extra) });
      admin = await signIn(server, ADMIN);
      const created = await admin.post("/api/auth/admin/create-user", { ...USER, name: "Ada", role: "user" });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      userId = created.body.user.id;
      user = await signIn(server, USER);
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

    it("the bootstrap admin has an admin session; the user's session works by cookie and by Bearer ns_", async () => {
      const session = await admin.get("/api/auth/get-session");
      assert.equal(session.body.user.email, ADMIN.email);
      assert.equal(session.body.user.role, "admin");
      const login = await new Client(server.url).post("/api/auth/sign-in/email", USER);
      secrets.add(login.body.token);
      const bearer = new Client(server.url, { bearer: `ns_${login.body.token}` });
      assert.equal((await bearer.get("/v1/me/tokens")).status, 200);
      assert.equal((await bearer.get("/api/auth/get-session")).body.user.email, USER.email);
      assert.equal((await user.get("/v1/me/tokens")).status, 200);
      assert.equal(
        (await new Client(server.url, { bearer: "ns_not-a-session" }).get("/v1/me/tokens")).status,
        401,
      );
    });

    it("mints, lists, uses, rotates and deletes API tokens; a revoked token gets 401", async () => {
      const first = await mintToken(user, "laptop");
      const listed = await user.get("/v1/me/tokens");
      assert.equal(listed.status, 200);
      const mine = listed.body.tokens.find((t: { tokenHash: string }) => t.tokenHash === first.tokenHash);
      assert.equal(mine.label, "laptop");
      assert.ok(!JSON.stringify(listed.body).includes(first.token), "plaintext never listed");

      // Use: rotate with the nm_ bearer; the old one is dead at once.
      const rotated = await new Client(server.url, { bearer: first.token }).post("/v1/auth/rotate-token");
      assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
      secrets.add(rotated.body.token);
      assert.notEqual(rotated.body.token, first.token);
      assert.equal(rotated.body.label, "laptop");
      assert.equal(
        (await new Client(server.url, { bearer: first.token }).post("/v1/auth/rotate-token")).status,
        401,
      );

      // Delete by hash; next use 401; deleting again is 404.
      const deleted = await user.delete(`/v1/me/tokens/${rotated.body.tokenHash}`);
      assert.deepEqual(deleted.body, { deleted: true });
      assert.equal(
        (await new Client(server.url, { bearer: rotated.body.token }).post("/v1/auth/rotate-token")).status,
        401,
      );
      assert.equal((await user.delete(`/v1/me/tokens/${rotated.body.tokenHash}`)).status, 404);

      // Admin revoke by plaintext.
      const third = await mintToken(user, "ci");
      const revoked = await admin.post("/v1/admin/tokens/revoke", { token: third.token });
      assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
      assert.equal(
        (await new Client(server.url, { bearer: third.token }).post("/v1/auth/rotate-token")).status,
        401,
      );
    });

    it("admin routes answer each kind of caller as documented", async () => {
      const userToken = await mintToken(user, "matrix");
      const adminToken = await mintToken(admin, "admin-matrix");
      const callers: Record<string, Client> = {
        "no auth": new Client(server.url),
        "user session": user,
        "user nm_ token": new Client(server.url, { bearer: userToken.token }),
        "admin nm_ token": new Client(server.url, { bearer: adminToken.token }),
        "admin session": admin,
      };
      const libraryRoutes: [string, string, unknown][] = [
        ["GET", "/api/auth/admin/list-users", undefined],
        ["POST", "/api/auth/admin/create-user", { email: "bad" }],
        ["POST", "/api/auth/admin/update-user", { userId: "nobody", data: { name: "x" } }],
        ["POST", "/api/auth/admin/set-role", { userId: "nobody", role: "user" }],
        ["POST", "/api/auth/admin/set-user-password", { userId: "nobody", newPassword: "x" }],
        ["POST", "/api/auth/admin/remove-user", { userId: "nobody" }],
        ["POST", "/api/auth/admin/ban-user", { userId: "nobody" }],
        ["POST", "/api/auth/admin/unban-user", { userId: "nobody" }],
        ["POST", "/api/auth/admin/list-user-sessions", { userId: "nobody" }],
        ["POST", "/api/auth/admin/revoke-user-session", { sessionToken: "nothing" }],
        ["POST", "/api/auth/admin/revoke-user-sessions", { userId: "nobody" }],
        ["POST", "/api/auth/admin/impersonate-user", { userId: "nobody" }],
        ["POST", "/api/auth/admin/stop-impersonating", {}],
      ];
      const serviceRoutes: [string, string, unknown][] = [
        ["POST", "/v1/admin/tokens/revoke", { token: "nm_unknowntokenunknowntokenunknowntokenunknown" }],
        ["GET", "/v1/admin/audit-log", undefined],
      ];
      for (const [name, client] of Object.entries(callers)) {
        for (const [method, path, body] of [...libraryRoutes, ...serviceRoutes]) {
          const res = await client.call(method, path, body);
          const where = `${name} ${method} ${path} -> ${res.status} ${JSON.stringify(res.body)}`;
          const allowlist404 = res.status === 404 && res.body?.error === "not found";
          assert.ok(!allowlist404, `allowlisted route refused: ${where}`);
          if (name === "admin session") {
            assert.ok(![401, 403].includes(res.status), where);
          } else if (name === "no auth") {
            assert.equal(res.status, 401, where);
          } else {
            assert.equal(res.status, 403, where);
          }
        }
      }
      const audit = await admin.get("/v1/admin/audit-log?limit=500");
      assert.equal(audit.status, 200);
      assert.ok(audit.body.entries.length > 0);
      assert.ok(audit.body.entries.every((e: { metadata: { requestId?: string } }) => e.metadata.requestId));
      assert.equal((await admin.get("/v1/admin/audit-log?limit=501")).status, 400);
      assert.equal((await admin.get("/v1/admin/audit-log?limit=0")).status, 400);
    });

    it("unlisted /api/auth paths and public sign-up answer 404 and are logged", async () => {
      const anon = new Client(server.url);
      const signUp = await anon.post("/api/auth/sign-up/email", {
        email: "x@example.test",
        password: "whatever-123",
        name: "x",
      });
      assert.equal(signUp.status, 404);
      assert.equal((await admin.get("/api/auth/admin/get-user?id=x")).status, 404);
      assert.equal((await admin.post("/api/auth/admin/has-permission", {})).status, 404);
      assert.ok(
        server.records().some((r) =>
          r.msg === "auth path not allowlisted" && r.path === "/api/auth/sign-up/email"
        ),
      );
    });

    it("refuses user ids starting with p_", async () => {
      const res = await admin.post("/api/auth/admin/create-user", {
        email: "p@example.test",
        password: "whatever-Pa55-123",
        name: "p",
        data: { id: "p_collide" },
      });
      assert.equal(res.status, 400, JSON.stringify(res.body));
    });

    it("refuses a cross-site POST with a foreign Origin on a cookie-authenticated route", async () => {
      const foreign = await user.post("/v1/me/tokens", { label: "csrf" }, { origin: "https://evil.example" });
      assert.equal(foreign.status, 403);
      const own = await user.post("/v1/me/tokens", { label: "same-origin" }, { origin: server.url });
      assert.equal(own.status, 201);
      secrets.add(own.body.token);
    });

    it("protects the last admin from demotion, removal and ban, also when two admins demote each other", async () => {
      const adminId = (await admin.get("/api/auth/get-session")).body.user.id;
      for (
        const [path, body] of [
          ["/api/auth/admin/set-role", { userId: adminId, role: "user" }],
          ["/api/auth/admin/remove-user", { userId: adminId }],
          ["/api/auth/admin/ban-user", { userId: adminId }],
        ] as const
      ) {
        const res = await admin.post(path, body);
        assert.equal(res.status, 400, `${path}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.code, "LAST_ADMIN_PROTECTED");
      }

      const created = await admin.post("/api/auth/admin/create-user", {
        ...SECOND_ADMIN,
        name: "Grace",
        role: "admin",
      });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const grace = await signIn(server, SECOND_ADMIN);
      const [a, b] = await Promise.all([
        admin.post("/api/auth/admin/set-role", { userId: created.body.user.id, role: "user" }),
        grace.post("/api/auth/admin/set-role", { userId: adminId, role: "user" }),
      ]);
      const statuses = [a.status, b.status].sort();
      assert.deepEqual(statuses, [200, 400], `${JSON.stringify(a.body)} ${JSON.stringify(b.body)}`);
      assert.equal([a, b].find((r) => r.status === 400)!.body.code, "LAST_ADMIN_PROTECTED");
      const survivor = a.status === 200 ? admin : grace;
      const users = await survivor.get("/api/auth/admin/list-users?limit=100");
      const admins = users.body.users.filter((u: { role: string }) => u.role === "admin");
      assert.equal(admins.length, 1);
    });

    it("a banned user gets 401 everywhere, existing tokens included", async () => {
      const survivor = (await admin.get("/api/auth/get-session")).body?.user?.role === "admin"
        ? admin
        : await signIn(server, SECOND_ADMIN);
      const token = await mintToken(user, "before-ban");
      const banned = await survivor.post("/api/auth/admin/ban-user", { userId });
      assert.equal(banned.status, 200, JSON.stringify(banned.body));
      assert.equal((await user.get("/v1/me/tokens")).status, 401);
      assert.equal(
        (await new Client(server.url, { bearer: token.token }).post("/v1/auth/rotate-token")).status,
        401,
      );
      assert.notEqual((await new Client(server.url).post("/api/auth/sign-in/email", USER)).status, 200);
      assert.equal((await survivor.post("/api/auth/admin/unban-user", { userId })).status, 200);
    });

    it("limits password changes per user with 429 and Retry-After", async () => {
      const session = await signIn(server, USER);
      const wrong = { currentPassword: "not-the-password-1", newPassword: "irrelevant-Pa55-123" };
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        statuses.push((await session.post("/api/auth/change-password", wrong)).status);
      }
      assert.ok(statuses.slice(0, 5).every((s) => s === 400 || s === 401), statuses.join(","));
      const last = await session.post("/api/auth/change-password", wrong);
      assert.equal(last.status, 429);
      assert.ok(Number(last.headers.get("retry-after")) > 0);
    });

    it("limits sign-in attempts per account with 429 and Retry-After", async () => {
      const anon = new Client(server.url);
      const wrong = { email: "ratelimit@example.test", password: "wrong-password-1" };
      let last;
      for (let i = 0; i < 11; i++) last = await anon.post("/api/auth/sign-in/email", wrong);
      assert.equal(last!.status, 429);
      assert.ok(Number(last!.headers.get("retry-after")) > 0);
      // Another account is not affected.
      assert.equal(
        (await anon.post("/api/auth/sign-in/email", { ...wrong, email: "other@example.test" })).status,
        401,
      );
    });
  });
}

suite("pglite");
suite("postgres");

describe("memsvc auth modes", () => {
  let home: string;
  before(async () => {
    home = await mkdtemp(join(tmpdir(), "memsvc-modes-"));
  });
  after(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it("refuses to start without a cookie secret in user and bearer modes", async () => {
    for (const mode of ["user", "bearer"]) {
      const env = baseEnv(home, { MEMSVC_AUTH_MODE: mode, MEMSVC_AUTH_TOKEN: "t".repeat(40) });
      delete env.MEMSVC_COOKIE_SECRET;
      const r = await runBinary("memsvc", ["serve"], { cwd: home, env });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /MEMSVC_COOKIE_SECRET is required/);
    }
  });

  it("refuses a non-loopback host in none mode", async () => {
    const r = await runBinary("memsvc", ["serve"], {
      cwd: home,
      env: baseEnv(home, { MEMSVC_AUTH_MODE: "none", MEMSVC_HOST: "0.0.0.0" }),
    });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /MEMSVC_HOST=0\.0\.0\.0 is not a loopback address/);
  });

  it("bearer mode: the shared token acts as the operator; anything else is 401", async () => {
    const shared = "shared-bearer-token-0123456789abcdef0123";
    secrets.add(shared);
    const server = await startBinary("memsvc", ["serve"], {
      cwd: home,
      env: baseEnv(home, {
        MEMSVC_AUTH_MODE: "bearer",
        MEMSVC_AUTH_TOKEN: shared,
        MEMSVC_DATA_DIR: join(home, "b"),
      }),
    });
    try {
      assert.equal((await new Client(server.url, { bearer: shared }).get("/v1/admin/audit-log")).status, 200);
      assert.equal((await new Client(server.url, { bearer: "nope" }).get("/v1/admin/audit-log")).status, 401);
      assert.equal((await new Client(server.url).get("/v1/admin/audit-log")).status, 401);
      assert.equal((await new Client(server.url).post("/api/auth/sign-in/email", ADMIN)).status, 404);
      assert.ok(!server.output().includes(shared));
    } finally {
      await server.stop();
    }
  });

  it("none mode: every request acts as the local operator", async () => {
    const server = await startBinary("memsvc", ["serve"], {
      cwd: home,
      env: baseEnv(home, { MEMSVC_AUTH_MODE: "none", MEMSVC_DATA_DIR: join(home, "n") }),
    });
    try {
      assert.equal((await new Client(server.url).get("/v1/admin/audit-log")).status, 200);
    } finally {
      await server.stop();
    }
  });
});
