/**
 * Recall@1/5/10 of dist/memsvc on the conversational set (scripts/bench/conversations.ts), through
 * the real HTTP API: every turn is remembered in capture order (one namespace per chat, the turn's
 * session as `session_id`), then every question is searched in its chat's namespace with each tier.
 * A question counts at k when any of its answering turns is in the top k (recall_any@k).
 *
 *   deno run -A scripts/bench/recall.ts              # the whole set against dist/memsvc
 *   deno run -A scripts/bench/recall.ts --chats 4    # a smaller set, to try something quickly
 *   deno run -A scripts/bench/recall.ts --binary /tmp/memsvc-old   # another build
 *   deno run -A scripts/bench/recall.ts --peers      # also @modelcontextprotocol/server-memory
 *   deno run -A scripts/bench/recall.ts --embedder builtin-minilm   # MEMSVC_EMBEDDER of the server
 *   deno run -A scripts/bench/recall.ts --seed 7 --chats 8           # another seed, to tune on
 *
 * bench:memsvc runs the same measurement as part of the suite.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ConversationSet, conversationSet, DEFAULT_SET, type QuestionKind } from "./conversations.ts";
import { type BenchServer, post, startServer } from "./memsvc_server.ts";
import { startServerMemory } from "./peers/server_memory.ts";
import { runLoad, summarize } from "./stats.ts";
import { table } from "./table.ts";

export const RECALL_MODES = ["keyword", "vector", "hybrid"] as const;
export type RecallMode = (typeof RECALL_MODES)[number];
const KS = [1, 5, 10] as const;

export interface PeerRecall {
  r1: number;
  r5: number;
  r10: number;
  p50: number;
  p95: number;
}

export interface RecallFigures {
  questions: number;
  turns: number;
  /** Whether the server took `session_id` (older builds refuse it; they are measured without). */
  sessions: boolean;
  byMode: Record<RecallMode, {
    r1: number;
    r5: number;
    r10: number;
    p50: number;
    p95: number;
    byKind: Record<string, { r5: number; r10: number; n: number }>;
  }>;
  /** @modelcontextprotocol/server-memory on the same set, when measured. */
  serverMemory?: PeerRecall;
}

/** Remembers every turn of the set, chats in parallel, each chat's turns in order. */
export async function loadConversations(server: BenchServer, set: ConversationSet, concurrency = 4) {
  const keyOf = new Map<string, string>();
  let sessions = true;
  const remember = async (body: Record<string, unknown>) => {
    try {
      return await post(server, "/v1/remember", body) as { id: string };
    } catch (err) {
      // A build without session_id answers 400 naming the field: measure it without sessions.
      if (!("session_id" in body) || !String(err).includes("session_id")) throw err;
      sessions = false;
      return await post(server, "/v1/remember", { ...body, session_id: undefined }) as { id: string };
    }
  };
  await runLoad(set.chats.length, concurrency, async (c) => {
    const chat = set.chats[c]!;
    for (const session of chat.sessions) {
      for (const turn of session.turns) {
        const { id } = await remember({
          content: turn.text,
          namespace: `conv-${chat.id}`,
          force: true,
          metadata: { role: turn.role, turn: turn.key, date: session.date },
          source_type: "chat",
          ...(sessions ? { session_id: session.id } : {}),
        });
        keyOf.set(id, turn.key);
      }
    }
  });
  return { keyOf, sessions };
}

export async function measureRecall(server: BenchServer, set: ConversationSet): Promise<RecallFigures> {
  const { keyOf, sessions } = await loadConversations(server, set);
  const byMode = {} as RecallFigures["byMode"];
  for (const mode of RECALL_MODES) {
    const hits = { 1: 0, 5: 0, 10: 0 };
    const kinds = new Map<QuestionKind, { r5: number; r10: number; n: number }>();
    const latencies: number[] = [];
    for (const q of set.questions) {
      const t = performance.now();
      const { results } = await post(server, "/v1/search", {
        query: q.question,
        namespace: `conv-${q.chat}`,
        mode,
        limit: 10,
      }) as { results: { id: string }[] };
      latencies.push(performance.now() - t);
      const keys = results.map((r) => keyOf.get(r.id));
      const rank = keys.findIndex((k) => k !== undefined && q.answers.includes(k));
      const kind = kinds.get(q.kind) ?? { r5: 0, r10: 0, n: 0 };
      kind.n++;
      for (const k of KS) if (rank >= 0 && rank < k) hits[k]++;
      if (rank >= 0 && rank < 5) kind.r5++;
      if (rank >= 0) kind.r10++;
      kinds.set(q.kind, kind);
    }
    const n = set.questions.length;
    const lat = summarize(latencies);
    byMode[mode] = {
      r1: round(hits[1] / n),
      r5: round(hits[5] / n),
      r10: round(hits[10] / n),
      p50: lat.p50,
      p95: lat.p95,
      byKind: Object.fromEntries(
        [...kinds].map(([k, v]) => [k, { r5: round(v.r5 / v.n), r10: round(v.r10 / v.n), n: v.n }]),
      ),
    };
  }
  return { questions: set.questions.length, turns: keyOf.size, sessions, byMode };
}

/**
 * The same set in @modelcontextprotocol/server-memory: one memory file per chat (its own haystack),
 * each turn an entity named by its key, each question a search_nodes query. search_nodes matches the
 * whole query as a substring and does not rank, so its "top k" is the first k it returns.
 */
export async function serverMemoryRecall(set: ConversationSet, dir: string): Promise<PeerRecall> {
  const hits = { 1: 0, 5: 0, 10: 0 };
  const latencies: number[] = [];
  for (const chat of set.chats) {
    const peer = await startServerMemory(join(dir, `${chat.id}.jsonl`));
    try {
      const turns = chat.sessions.flatMap((s) => s.turns);
      for (let i = 0; i < turns.length; i += 500) {
        await peer.add(turns.slice(i, i + 500).map((t) => ({ name: t.key, text: t.text })));
      }
      for (const q of set.questions.filter((q) => q.chat === chat.id)) {
        const t = performance.now();
        const names = await peer.search(q.question);
        latencies.push(performance.now() - t);
        const rank = names.findIndex((n) => q.answers.includes(n));
        for (const k of KS) if (rank >= 0 && rank < k) hits[k]++;
      }
    } finally {
      await peer.close();
    }
  }
  const n = set.questions.length;
  const lat = summarize(latencies);
  return {
    r1: round(hits[1] / n),
    r5: round(hits[5] / n),
    r10: round(hits[10] / n),
    p50: lat.p50,
    p95: lat.p95,
  };
}

export function recallTable(f: RecallFigures): string {
  const kinds = Object.keys(f.byMode.hybrid.byKind).sort();
  return table(
    ["tier", "R@1", "R@5", "R@10", "p50 ms", "p95 ms", ...kinds.map((k) => `${k} R@5/10`)],
    RECALL_MODES.map((m) => {
      const x = f.byMode[m];
      return [
        m,
        x.r1,
        x.r5,
        x.r10,
        x.p50,
        x.p95,
        ...kinds.map((k) => `${x.byKind[k]?.r5 ?? "-"}/${x.byKind[k]?.r10 ?? "-"}`),
      ];
    }).concat(
      f.serverMemory
        ? [[
          "server-memory",
          f.serverMemory.r1,
          f.serverMemory.r5,
          f.serverMemory.r10,
          f.serverMemory.p50,
          f.serverMemory.p95,
          ...kinds.map(() => "-"),
        ]]
        : [],
    ),
  );
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

if (import.meta.main) {
  const at = process.argv.indexOf("--chats");
  const chats = at > 0 ? Number(process.argv[at + 1]) : DEFAULT_SET.chats;
  const seedAt = process.argv.indexOf("--seed");
  const set = conversationSet({
    ...DEFAULT_SET,
    chats,
    seed: seedAt > 0 ? Number(process.argv[seedAt + 1]) : DEFAULT_SET.seed,
  });
  const dir = await mkdtemp(join(tmpdir(), "memsvc-recall-"));
  const bin = process.argv.indexOf("--binary");
  const emb = process.argv.indexOf("--embedder");
  const server = await startServer({
    dataDir: dir,
    binary: bin > 0 ? process.argv[bin + 1] : undefined,
    embedder: emb > 0 ? process.argv[emb + 1] : undefined,
  });
  try {
    await server.login();
    const t = performance.now();
    const figures = await measureRecall(server, set);
    if (process.argv.includes("--peers")) figures.serverMemory = await serverMemoryRecall(set, dir);
    console.log(
      `${set.chats.length} chats, ${figures.turns} turns, ${figures.questions} questions, sessions ${
        figures.sessions ? "on" : "off (server refused session_id)"
      }; ${((performance.now() - t) / 1000).toFixed(0)} s`,
    );
    console.log(recallTable(figures));
    if (process.argv.includes("--json")) console.log(JSON.stringify(figures));
  } finally {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
