/**
 * Live editing under load, part of `deno task bench:vault` (alone: `deno task bench:vault --only-live`):
 * `dist/vault serve` on the embedded database (build it first: `deno task build vault`), one user.
 *
 * - `idle` sockets on /ws/vault (the per-user event channel), opened and left idle;
 * - `editors` Yjs editors on one note over /ws/yjs (test/harness/yjs_client.ts), each inserting short
 *   marked strings at a fixed total rate; the fan-out latency is from one editor's insert to its arrival
 *   in each other editor's document (every update is in the update log before it is relayed);
 * - the server's resident memory (/proc/<pid>/status) at start, with the idle sockets, with the editors,
 *   and its peak while editing.
 * The clients run in this process, on the same machine as the server, so the latency includes their share
 * of the CPU. No peer runs beside it (y-websocket's server is not a dependency of this repository); the
 * figures are absolute.
 */
import { rm } from "node:fs/promises";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningBinary, startBinary } from "../../test/harness/binary.ts";
import { VaultClient, vaultEnv } from "../../test/harness/vault.ts";
import { Editor } from "../../test/harness/yjs_client.ts";
import { procMemory } from "./proc_stat.ts";
import { type LatencySummary, summarize } from "./stats.ts";

export interface LiveResult {
  editors: number;
  idleSockets: number;
  edits: number;
  editsPerSecond: number;
  /** One insert's arrival at each other editor. */
  fanOut: LatencySummary;
  /** Inserts that reached every other editor. */
  delivered: number;
  rssMb: { start: number; idle: number; editors: number; peakEditing: number };
}

function rssMb(pid: number): number {
  return Math.round(procMemory(pid).rssMb);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runLiveBench(
  o: { editors: number; idle: number; seconds: number; rate: number; binary?: string },
  log: (msg: string) => void,
): Promise<LiveResult> {
  const home = await mkdtemp(join(tmpdir(), "vault-live-bench-"));
  let server: RunningBinary | undefined;
  const sockets: WebSocket[] = [];
  const editors: Editor[] = [];
  try {
    server = await startBinary(o.binary ?? "vault", ["serve"], {
      cwd: home,
      env: vaultEnv(home),
      timeoutMs: 60_000,
    });
    const web = new VaultClient(server.url);
    await web.post("/api/auth/sign-up/email", {
      email: "bench@example.test",
      password: "bench-Pa55word-123",
      name: "Bench",
    });
    await web.write("POST", "/api/notes", { path: "Live.md", content: "# Live\n" });
    // The session cookie from the vault's own origin (API keys are rate-limited per key).
    const headers = { cookie: web.cookie!, origin: server.url };
    const ws = server.url.replace(/^http/, "ws");
    await sleep(1_000);
    const start = rssMb(server.pid);

    log(`live: ${o.idle} idle /ws/vault sockets`);
    const Ctor = WebSocket as unknown as new (
      url: string,
      opts: { headers: Record<string, string> },
    ) => WebSocket;
    for (let i = 0; i < o.idle; i += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, o.idle - i) }, () =>
          new Promise<void>((resolve, reject) => {
            const s = new Ctor(`${ws}/ws/vault`, { headers });
            s.onopen = () => resolve();
            s.onerror = () => reject(new Error("a /ws/vault socket was refused"));
            sockets.push(s);
          })),
      );
    }
    await sleep(1_000);
    const idle = rssMb(server.pid);

    log(`live: ${o.editors} editors on one note`);
    const sent = new Map<string, number>();
    const samples: number[] = [];
    const arrivals = new Map<string, number>();
    for (let i = 0; i < o.editors; i++) {
      const e = new Editor(`${ws}/ws/yjs?path=Live.md`, headers, `editor-${i}`);
      editors.push(e);
      e.doc.getText("content").observe((event) => {
        if (event.transaction.origin !== "remote") return;
        const now = performance.now();
        for (const d of event.delta) {
          if (typeof d.insert !== "string") continue;
          for (const m of d.insert.matchAll(/\[(\d+)\]/g)) {
            const at = sent.get(m[1]!);
            if (at === undefined) continue;
            samples.push(now - at);
            arrivals.set(m[1]!, (arrivals.get(m[1]!) ?? 0) + 1);
          }
        }
      });
      await e.opened;
    }
    const deadline = Date.now() + 30_000;
    while (editors.some((e) => !e.synced)) {
      if (Date.now() > deadline) throw new Error("the editors did not sync within 30 s");
      await sleep(50);
    }
    await sleep(1_000);
    const withEditors = rssMb(server.pid);

    const edits = Math.round(o.seconds * o.rate);
    log(`live: ${edits} inserts over ${o.seconds} s`);
    let peak = withEditors;
    const watch = setInterval(() => (peak = Math.max(peak, rssMb(server!.pid))), 200);
    const began = performance.now();
    for (let n = 0; n < edits; n++) {
      const due = began + (n * 1000) / o.rate;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const e = editors[n % editors.length]!;
      const id = String(n);
      sent.set(id, performance.now());
      e.doc.getText("content").insert(0, `[${id}]`);
    }
    const settle = Date.now() + 15_000;
    while (samples.length < edits * (o.editors - 1) && Date.now() < settle) await sleep(100);
    clearInterval(watch);
    const wallS = (performance.now() - began) / 1000;
    return {
      editors: o.editors,
      idleSockets: o.idle,
      edits,
      editsPerSecond: Math.round((edits / Math.max(wallS, o.seconds)) * 10) / 10,
      fanOut: summarize(samples),
      delivered: [...arrivals.values()].filter((c) => c === o.editors - 1).length,
      rssMb: { start, idle, editors: withEditors, peakEditing: peak },
    };
  } finally {
    for (const e of editors) e.close();
    for (const s of sockets) s.close();
    await server?.stop();
    await rm(home, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const r = await runLiveBench({ editors: 50, idle: 500, seconds: 20, rate: 20 }, (m) => console.error(m));
  console.log(JSON.stringify(r, null, 2));
}
