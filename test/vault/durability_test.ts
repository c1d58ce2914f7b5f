/**
 * Black-box: notes written by many clients at once are acknowledged only once they are on disk. The
 * store writes concurrent creates of one user together (one fsync round for a batch) and the search
 * index takes them in batches; `dist/vault serve` is killed (SIGKILL) while 8 clients create notes as
 * fast as they are answered, and after a restart every create that was answered 201 reads back as
 * written, is found by search and is listed in the tree. About 15 s.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type RunningBinary, startBinary } from "../harness/binary.ts";
import { VaultClient, vaultEnv } from "../harness/vault.ts";

describe("vault: acknowledged creates survive kill -9", () => {
  let home: string;
  let server: RunningBinary | undefined;
  const who = { email: "dura@example.test", password: "dura-Pa55word-123", name: "Dura" };

  before(async () => {
    home = await mkdtemp(join(tmpdir(), "vault-durability-"));
    server = await startBinary("vault", ["serve"], { cwd: home, env: vaultEnv(home), timeoutMs: 60_000 });
    const res = await new VaultClient(server.url).post("/api/auth/sign-up/email", who);
    assert.equal(res.status, 201);
  });
  after(async () => {
    await server?.stop("SIGKILL");
    await rm(home, { recursive: true, force: true });
  });

  it("every note answered 201 before the kill reads back, is searchable and listed after a restart", async () => {
    const client = new VaultClient(server!.url);
    await client.post("/api/auth/sign-in/email", { email: who.email, password: who.password });
    const acknowledged = new Map<string, string>();
    let stop = false;
    let refused = 0;
    const writers = Array.from({ length: 8 }, async (_, k) => {
      for (let i = 0; !stop; i++) {
        const path = `Agents/c${k}/n${i}.md`;
        const content = `# Note ${k} ${i}\n\nwritten by client${k} as number${i} [[Agents/c${
          (k + 1) % 8
        }/n${i}]]\n`;
        try {
          const res = await client.write("POST", "/api/notes", { path, content });
          if (res.status === 201) acknowledged.set(path, content);
          else refused++;
        } catch {
          return; // the server is gone
        }
      }
    });
    // Kill while writes are in flight, once a fair number were answered.
    const deadline = Date.now() + 20_000;
    while (acknowledged.size < 120 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(await server!.stop("SIGKILL"), null);
    stop = true;
    await Promise.all(writers);
    assert.equal(refused, 0, "no create was refused before the kill");
    assert.ok(acknowledged.size >= 120, `only ${acknowledged.size} creates answered in 20 s`);

    server = await startBinary("vault", ["serve"], { cwd: home, env: vaultEnv(home), timeoutMs: 60_000 });
    const again = new VaultClient(server.url);
    await again.post("/api/auth/sign-in/email", { email: who.email, password: who.password });
    for (const [path, content] of acknowledged) {
      const read = await again.get(`/api/notes?path=${encodeURIComponent(path)}`);
      assert.equal(read.status, 200, `${path} was acknowledged and is gone`);
      assert.equal(read.body.content, content, `${path} reads back otherwise`);
    }
    // The index catches up at start (a search waits for it): every acknowledged note is found.
    const found = await again.get(`/api/search?q=${encodeURIComponent('"written by"')}&limit=1`);
    assert.equal(found.status, 200);
    assert.ok(
      found.body.total >= acknowledged.size,
      `search finds ${found.body.total} of ${acknowledged.size}`,
    );
    const tree = await again.get("/api/notes/tree");
    const listed = new Set((tree.body.entries as { path: string }[]).map((e) => e.path));
    for (const path of acknowledged.keys()) assert.ok(listed.has(path), `${path} is not in the tree`);
  });
});
