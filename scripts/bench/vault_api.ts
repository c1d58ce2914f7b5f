/**
 * The vault's notes API under load, part of `deno task bench:vault`: `dist/vault serve` on the
 * embedded database (build it first: `deno task build vault`), one user.
 *
 * - start catch-up: the server is stopped, `n` notes are written to the user's folder on disk, and
 *   the time until the restarted server answers is the index catching up (indexedVersions vs disk);
 * - note writes/s: `writes` new notes through `POST /api/notes`, one at a time and 4 at once (each
 *   is an atomic file write plus its search index update, which the next search waits for);
 * - sustained creation with 8 concurrent clients (issue 38's row): `concurrentWrites` new notes from 8
 *   clients of the same user, each on its own kept-alive connection (keep_alive_client.ts, as wrk
 *   does: fetch's own CPU would take a share of the two cores from the server), each sending its next
 *   note as soon as the last is acknowledged; notes/s over the whole run, and each write's latency;
 * - tree listing: `GET /api/notes/tree` of the whole vault (`n` + `writes` notes), p50 and p95.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type RunningBinary, startBinary } from "../../test/harness/binary.ts";
import { KeepAliveClient } from "./keep_alive_client.ts";
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
  /** Notes created by 8 concurrent clients, per second over the whole run, and each one's latency. */
  concurrent: {
    clients: number;
    notes: number;
    /** Acknowledged (201) per second. */
    perSecond: number;
    /** Per second until the last is found by a search (the index caught up with every write). */
    searchablePerSecond: number;
    latency: LatencySummary;
  };
  tree: LatencySummary;
  treeEntries: number;
  treeBytes: number;
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t = performance.now();
  const out = await fn();
  return [out, performance.now() - t];
}

/** Clients of the sustained-creation row. */
const CLIENTS = 8;

export async function runApiBench(
  notes: readonly { path: string; text: string }[],
  writes: number,
  log: (msg: string) => void,
  options: { binary?: string; concurrentWrites?: number } = {},
): Promise<ApiResult> {
  const binary = options.binary ?? "vault";
  const concurrentWrites = options.concurrentWrites ?? 2_000;
  const home = await mkdtemp(join(tmpdir(), "vault-api-bench-"));
  const env = vaultEnv(home);
  let server: RunningBinary | undefined;
  const who = { email: "bench@example.test", password: "bench-Pa55word-123", name: "Bench" };
  try {
    server = await startBinary(binary, ["serve"], { cwd: home, env, timeoutMs: 60_000 });
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
      startBinary(binary, ["serve"], { cwd: home, env, timeoutMs: 600_000 })
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
    for (let i = 0; i < 32; i++) {
      const t = performance.now();
      const res = await fetch(`${server.url}/api/notes/tree`, { headers: { cookie: client.cookie! } });
      const text = await res.text();
      const ms = performance.now() - t;
      if (i >= 2) treeSamples.push(ms); // two warm-up listings
      treeBytes = text.length;
      treeEntries = (JSON.parse(text).entries as unknown[]).length;
    }
    // After the tree, so that it lists the same 10,000 + `writes` notes as before this row existed.
    log(`api: ${concurrentWrites} notes created by ${CLIENTS} clients at once`);
    const concurrent = await concurrentCreates(
      server.url,
      client.cookie!,
      notes,
      concurrentWrites,
      async () => {
        // A search waits for the user's index queue: answered, every note written is searchable.
        const res = await client.get("/api/search?q=note");
        if (res.status !== 200) throw new Error(`search answered ${res.status}`);
      },
    );
    return {
      notes: notes.length + writes,
      startReadyMs: Math.round(readyMs),
      startCatchUpMs: Math.round(startCatchUpMs),
      writesPerSecond: Math.round((half / seqMs) * 1000),
      writesPerSecond4: Math.round(((writes - half) / parMs) * 1000),
      write: summarize(samples),
      concurrent,
      tree: summarize(treeSamples),
      treeEntries,
      treeBytes,
    };
  } finally {
    await server?.stop();
    await rm(home, { recursive: true, force: true });
  }
}

/**
 * `total` new notes from CLIENTS clients of one user, each on its own kept-alive connection and
 * sending its next note as soon as the last is acknowledged (201).
 */
async function concurrentCreates(
  url: string,
  cookie: string,
  notes: readonly { text: string }[],
  total: number,
  searchable: () => Promise<void>,
): Promise<ApiResult["concurrent"]> {
  const headers = { cookie, origin: url, "x-requested-with": "XMLHttpRequest" };
  const clients = Array.from({ length: CLIENTS }, () => new KeepAliveClient(url, headers));
  const latencies: number[] = [];
  let next = 0;
  try {
    const began = performance.now();
    await Promise.all(clients.map(async (c, k) => {
      while (next < total) {
        const i = next++;
        const t = performance.now();
        const res = await c.postJson("/api/notes", {
          path: `Agents/c${k}/n${i}.md`,
          content: `# N${i}\n${notes[(i * 7) % notes.length]!.text}`,
        });
        latencies.push(performance.now() - t);
        if (res.status !== 201) throw new Error(`concurrent write answered ${res.status}: ${res.body}`);
      }
    }));
    const ms = performance.now() - began;
    await searchable();
    const indexedMs = performance.now() - began;
    return {
      clients: CLIENTS,
      notes: total,
      perSecond: Math.round((total / ms) * 1000),
      searchablePerSecond: Math.round((total / indexedMs) * 1000),
      latency: summarize(latencies),
    };
  } finally {
    for (const c of clients) c.close();
  }
}
