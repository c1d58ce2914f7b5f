/**
 * The vault's notes API under load, part of `deno task bench:vault`: `dist/vault serve` on the
 * embedded database (build it first: `deno task build vault`), one user.
 *
 * - start catch-up: the server is stopped, `n` notes are written to the user's folder on disk, and
 *   the time until the restarted server answers is the index catching up (indexedVersions vs disk);
 * - note writes/s: `writes` new notes through `POST /api/notes`, one at a time and 4 at once (each
 *   is an atomic file write plus its search index update, which the next search waits for);
 * - tree listing: `GET /api/notes/tree` of the whole vault (`n` + `writes` notes), p50 and p95.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type RunningBinary, startBinary } from "../../test/harness/binary.ts";
import { VaultClient, vaultEnv } from "../../test/harness/vault.ts";
import { type LatencySummary, summarize } from "./stats.ts";

export interface ApiResult {
  notes: number;
  /** From start until the server answers (the index still catching up). */
  startReadyMs: number;
  /** From start until a search, which waits for the catch-up, answers. */
  startCatchUpMs: number;
  writesPerSecond: number;
  writesPerSecond4: number;
  write: LatencySummary;
  tree: LatencySummary;
  treeEntries: number;
  treeBytes: number;
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t = performance.now();
  const out = await fn();
  return [out, performance.now() - t];
}

export async function runApiBench(
  notes: readonly { path: string; text: string }[],
  writes: number,
  log: (msg: string) => void,
): Promise<ApiResult> {
  const home = await mkdtemp(join(tmpdir(), "vault-api-bench-"));
  const env = vaultEnv(home);
  let server: RunningBinary | undefined;
  const who = { email: "bench@example.test", password: "bench-Pa55word-123", name: "Bench" };
  try {
    server = await startBinary("vault", ["serve"], { cwd: home, env, timeoutMs: 60_000 });
    const first = new VaultClient(server.url);
    await first.post("/api/auth/sign-up/email", who);
    const userId = (await first.get("/api/me")).body.id as string;
    await server.stop();
    server = undefined;

    log(`api: writing ${notes.length} notes to disk`);
    const root = join(home, "notes", "users", userId);
    for (const n of notes) {
      await mkdir(dirname(join(root, n.path)), { recursive: true });
      await writeFile(join(root, n.path), n.text);
    }
    log("api: restarting (the index catches up while the server serves)");
    const restarted = performance.now();
    let readyMs: number;
    [server, readyMs] = await timed(() =>
      startBinary("vault", ["serve"], { cwd: home, env, timeoutMs: 600_000 })
    );
    const client = new VaultClient(server.url);
    await client.post("/api/auth/sign-in/email", who);
    // A search waits for its user's catch-up: its answer marks the index complete.
    const caughtUp = await client.get("/api/search?q=note");
    if (caughtUp.status !== 200) {
      throw new Error(`search answered ${caughtUp.status}: ${JSON.stringify(caughtUp.body)}`);
    }
    const startCatchUpMs = performance.now() - restarted;

    log(`api: ${writes} writes, one at a time`);
    const samples: number[] = [];
    const half = Math.floor(writes / 2);
    const [, seqMs] = await timed(async () => {
      for (let i = 0; i < half; i++) {
        const [res, ms] = await timed(() =>
          client.write("POST", "/api/notes", {
            path: `Inbox/w${i}.md`,
            content: `# W${i}\n${notes[i % notes.length]!.text}`,
          })
        );
        if (res.status !== 201) throw new Error(`write answered ${res.status}: ${JSON.stringify(res.body)}`);
        samples.push(ms);
      }
    });
    log(`api: ${writes - half} writes, 4 at once`);
    let next = half;
    const [, parMs] = await timed(() =>
      Promise.all(Array.from({ length: 4 }, async () => {
        while (next < writes) {
          const i = next++;
          const res = await client.write("POST", "/api/notes", {
            path: `Inbox/w${i}.md`,
            content: `# W${i}\n${notes[i % notes.length]!.text}`,
          });
          if (res.status !== 201) throw new Error(`write answered ${res.status}`);
        }
      }))
    );
    // The last writes are in the index before the tree is timed.
    await client.get("/api/search?q=bench");

    log("api: tree listings");
    const treeSamples: number[] = [];
    let treeEntries = 0;
    let treeBytes = 0;
    for (let i = 0; i < 15; i++) {
      const t = performance.now();
      const res = await fetch(`${server.url}/api/notes/tree`, { headers: { cookie: client.cookie! } });
      const text = await res.text();
      const ms = performance.now() - t;
      if (i >= 2) treeSamples.push(ms); // two warm-up listings
      treeBytes = text.length;
      treeEntries = (JSON.parse(text).entries as unknown[]).length;
    }
    return {
      notes: notes.length + writes,
      startReadyMs: Math.round(readyMs),
      startCatchUpMs: Math.round(startCatchUpMs),
      writesPerSecond: Math.round((half / seqMs) * 1000),
      writesPerSecond4: Math.round(((writes - half) / parMs) * 1000),
      write: summarize(samples),
      tree: summarize(treeSamples),
      treeEntries,
      treeBytes,
    };
  } finally {
    await server?.stop();
    await rm(home, { recursive: true, force: true });
  }
}
