/**
 * The server's memory serving a vault of `notes` notes for two users, part of `deno task bench:vault`
 * (alone: `--only=memory`): `dist/vault serve` on the embedded database (build it first), a fresh data
 * directory, two users (the first signs up and invites the second), each with half of the notes
 * written to their folder while the server is stopped (seeded prose as the search part's, folders,
 * tags, wiki links). Then, with the server's resident memory sampled every 100 ms:
 *
 * - the start, and both users' index catch-up (a search of each waits for it);
 * - what two people working do, both at once: searches (the search part's query mix), tree listings,
 *   tags, backlinks, the graph, note reads and updates, 10 /ws/vault sockets each and two Yjs editors
 *   each on one note, typing.
 *
 * Reported: RSS when ready, after the catch-up, after the work (2 s idle), the highest sample, and
 * VmHWM (the kernel's high-water mark, which also catches a peak between samples). And what the rest
 * stands on: the server idle on the empty vault (the runtime, the binary's code and the embedded
 * database), and a restart on the same data once the database is up to date: ready, then both users'
 * search indexes built (a search each), with nothing else done.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type RunningBinary, startBinary } from "../../test/harness/binary.ts";
import { VaultClient, vaultEnv } from "../../test/harness/vault.ts";
import { Editor } from "../../test/harness/yjs_client.ts";
import { procMemory } from "./proc_stat.ts";

export interface MemoryResult {
  notes: number;
  users: number;
  /** RSS in MB at each step; `peakSampled` the highest 100 ms sample, `hwm` the kernel's VmHWM. */
  rssMb: { ready: number; indexed: number; afterWork: number; peakSampled: number; hwm: number };
  /** The highest 100 ms sample in each phase (MB): the start, the two catch-ups, the work. */
  phasePeakMb: { start: number; catchUp: number; work: number };
  /** RssAnon / RssFile at the end (MB). */
  anonMb: number;
  fileMb: number;
  /** Requests made during the work, per user. */
  requestsPerUser: number;
  /**
   * RSS (MB), 2 s idle: the empty vault; a restart on the indexed data, ready and with both indexes
   * built, and that process's VmHWM.
   */
  floorMb: { empty: number; restarted: number; restartedIndexed: number; restartedHwm: number };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runMemoryBench(
  o: {
    notes: readonly { path: string; text: string }[][];
    queries: readonly string[];
    binary?: string;
    /** A PostgreSQL database for the server (its own process, not counted); the embedded one when unset. */
    databaseUrl?: string;
  },
  log: (msg: string) => void,
): Promise<MemoryResult> {
  const binary = o.binary ?? "vault";
  const home = await mkdtemp(join(tmpdir(), "vault-memory-bench-"));
  const env = vaultEnv(home, o.databaseUrl ? { databaseUrl: o.databaseUrl } : {});
  let server: RunningBinary | undefined;
  const sockets: WebSocket[] = [];
  const editors: Editor[] = [];
  const names = ["alice", "bob"].slice(0, o.notes.length);
  const who = (name: string) => ({
    email: `${name}@example.test`,
    password: `${name}-Pa55word-123`,
    name,
  });
  const signIn = async (url: string, name: string) => {
    const c = new VaultClient(url);
    const res = await c.post("/api/auth/sign-in/email", {
      email: who(name).email,
      password: who(name).password,
    });
    if (res.status !== 200) throw new Error(`sign-in of ${name}: ${res.status}`);
    return c;
  };
  try {
    server = await startBinary(binary, ["serve"], { cwd: home, env, timeoutMs: 60_000 });
    const ids: string[] = [];
    let inviteCode: string | undefined;
    for (const name of names) {
      const c = new VaultClient(server.url);
      const res = await c.post("/api/auth/sign-up/email", {
        ...who(name),
        ...(inviteCode ? { inviteCode } : {}),
      });
      if (res.status !== 201) {
        throw new Error(`sign-up of ${name}: ${res.status} ${JSON.stringify(res.body)}`);
      }
      ids.push((res.body as { user: { id: string } }).user.id);
      inviteCode ??= (await c.write("POST", "/api/admin/invites", {})).body.code;
    }
    await sleep(2_000);
    const empty = procMemory(server.pid).rssMb;
    await server.stop();
    server = undefined;

    const total = o.notes.reduce((s, n) => s + n.length, 0);
    log(`memory: writing ${total} notes for ${names.length} users to disk`);
    for (const [u, notes] of o.notes.entries()) {
      const root = join(home, "notes", "users", ids[u]!);
      for (const n of notes) {
        await mkdir(dirname(join(root, n.path)), { recursive: true });
        await writeFile(join(root, n.path), n.text);
      }
    }

    log("memory: starting the server");
    server = await startBinary(binary, ["serve"], { cwd: home, env, timeoutMs: 600_000 });
    const pid = server.pid;
    let peak = 0;
    const phasePeak = { start: 0, catchUp: 0, work: 0 };
    let phase: keyof typeof phasePeak = "start";
    const sample = () => {
      try {
        const rss = procMemory(pid).rssMb;
        peak = Math.max(peak, rss);
        phasePeak[phase] = Math.max(phasePeak[phase], rss);
      } catch {
        // exited
      }
    };
    const sampler = setInterval(sample, 100);
    try {
      await sleep(500);
      const ready = procMemory(pid).rssMb;
      const clients = await Promise.all(names.map((name) => signIn(server!.url, name)));
      log("memory: both users' index catch-up");
      sample();
      phase = "catchUp";
      await Promise.all(clients.map(async (c) => {
        const res = await c.get("/api/search?q=note");
        if (res.status !== 200) throw new Error(`search answered ${res.status}`);
      }));
      await sleep(1_000);
      const indexed = procMemory(pid).rssMb;

      log("memory: two users working");
      sample();
      phase = "work";
      const ws = server.url.replace(/^http/, "ws");
      const counts = await Promise.all(clients.map(async (c, u) => {
        const notes = o.notes[u]!;
        const headers = { cookie: c.cookie!, origin: server!.url };
        const Ctor = WebSocket as unknown as new (
          url: string,
          opts: { headers: Record<string, string> },
        ) => WebSocket;
        for (let i = 0; i < 10; i++) {
          const s = new Ctor(`${ws}/ws/vault`, { headers });
          sockets.push(s);
          await new Promise<void>((resolve, reject) => {
            s.onopen = () => resolve();
            s.onerror = () => reject(new Error("a /ws/vault socket was refused"));
          });
        }
        const live = notes[0]!.path;
        const pair = [0, 1].map((k) => {
          const e = new Editor(`${ws}/ws/yjs?path=${encodeURIComponent(live)}`, headers, `u${u}-e${k}`);
          editors.push(e);
          return e;
        });
        await Promise.all(pair.map((e) => e.opened));
        let requests = 0;
        const ok = async (p: Promise<{ status: number }>) => {
          const res = await p;
          requests++;
          if (res.status >= 400) throw new Error(`answered ${res.status}`);
        };
        for (let round = 0; round < 10; round++) {
          for (const q of o.queries.slice(round * 10, round * 10 + 10)) {
            await ok(c.get(`/api/search?q=${encodeURIComponent(q)}`));
          }
          await ok(c.get("/api/notes/tree"));
          await ok(c.get("/api/tags"));
          for (let i = 0; i < 5; i++) {
            const n = notes[(round * 37 + i * 101) % notes.length]!;
            await ok(c.get(`/api/backlinks?path=${encodeURIComponent(n.path)}`));
            const read = await c.get(`/api/notes?path=${encodeURIComponent(n.path)}`);
            requests++;
            if (read.status !== 200) throw new Error(`read answered ${read.status}`);
            await ok(c.write("PUT", "/api/notes", {
              path: n.path,
              content: `${read.body.content}\nEdited in round ${round}.`,
              ifVersion: read.body.version,
            }));
          }
          pair[round % 2]!.doc.getText("content").insert(0, `typing ${round} `);
        }
        await ok(c.get("/api/graph"));
        return requests;
      }));
      await sleep(2_000);
      const end = procMemory(pid);
      sample();
      clearInterval(sampler);
      for (const e of editors.splice(0)) e.close();
      for (const s of sockets.splice(0)) s.close();
      await server.stop();
      log("memory: a restart on the same data, both users' indexes built");
      server = await startBinary(binary, ["serve"], { cwd: home, env, timeoutMs: 600_000 });
      await sleep(2_000);
      const restarted = procMemory(server.pid).rssMb;
      for (const name of names) {
        const c = await signIn(server.url, name);
        const res = await c.get("/api/search?q=note");
        if (res.status !== 200) throw new Error(`search after the restart answered ${res.status}`);
      }
      await sleep(2_000);
      const { rssMb: restartedIndexed, peakMb: restartedHwm } = procMemory(server.pid);
      return {
        notes: total,
        users: names.length,
        rssMb: {
          ready: Math.round(ready),
          indexed: Math.round(indexed),
          afterWork: Math.round(end.rssMb),
          peakSampled: Math.round(peak),
          hwm: Math.round(end.peakMb),
        },
        phasePeakMb: {
          start: Math.round(phasePeak.start),
          catchUp: Math.round(phasePeak.catchUp),
          work: Math.round(phasePeak.work),
        },
        anonMb: Math.round(end.anonMb),
        fileMb: Math.round(end.fileMb),
        requestsPerUser: Math.round(counts.reduce((s, n) => s + n, 0) / counts.length),
        floorMb: {
          empty: Math.round(empty),
          restarted: Math.round(restarted),
          restartedIndexed: Math.round(restartedIndexed),
          restartedHwm: Math.round(restartedHwm),
        },
      };
    } finally {
      clearInterval(sampler);
    }
  } finally {
    for (const e of editors) e.close();
    for (const s of sockets) s.close();
    await server?.stop();
    await rm(home, { recursive: true, force: true });
  }
}
