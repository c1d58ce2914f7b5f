/**
 * Recall@1/5/10 of dist/memsvc on conversational sets, through the real HTTP API: every turn is
 * remembered in capture order (one namespace per chat, the turn's session as `session_id`), then every
 * question is searched in its chat's namespace with each tier. A question counts at k when any of its
 * evidence turns is in the top k (recall_any@k). No LLM anywhere.
 *
 * Sets: `generated` (scripts/bench/conversations.ts, made here and tuned on before) and the public sets
 * written by people (public_sets.ts: REALTALK, FriendsQA), read from a cache outside the repository; a
 * public set not there is skipped with a message saying how to get it. Each set is split in two halves
 * by chat (public_sets.ts `splitSet`): ranking constants are chosen on `dev`; `held` is reported once,
 * at the end of a change. The table gives each set's figures and their macro-average (all sets, and
 * the public sets alone).
 *
 *   deno run -A scripts/bench/recall.ts                    # the dev half of every set against dist/memsvc
 *   deno run -A scripts/bench/recall.ts --half held        # the held-back half (report once)
 *   deno run -A scripts/bench/recall.ts --sets realtalk,friendsqa --chats 2   # fewer sets and chats
 *   deno run -A scripts/bench/recall.ts --binary /tmp/memsvc-old   # another build
 *   deno run -A scripts/bench/recall.ts --peers      # also @modelcontextprotocol/server-memory (generated)
 *   deno run -A scripts/bench/recall.ts --embedder builtin-minilm   # MEMSVC_EMBEDDER of the server
 *   deno run -A scripts/bench/recall.ts --seed 7 --chats 8           # another seed of the generated set
 *   deno run -A scripts/bench/recall.ts --kinds      # per-kind R@5/10 of each set
 *
 * bench:memsvc runs the same measurement (the held-back half) as part of the suite.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ConversationSet, conversationSet, DEFAULT_SET } from "./conversations.ts";
import { type BenchServer, post, startServer } from "./memsvc_server.ts";
import { startServerMemory } from "./peers/server_memory.ts";
import { ensureSet, type Half, howToGet, PUBLIC_SOURCES, splitSet } from "./public_sets.ts";
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
  /** The set's name (generated, realtalk, friendsqa). */
  set?: string;
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

/**
 * Remembers every turn of the set, chats in parallel, each chat's turns in order, into namespaces
 * `conv-<prefix><chat>`. An id can stand for several turns: a store keeps one entry for identical texts.
 */
export async function loadConversations(
  server: BenchServer,
  set: ConversationSet,
  concurrency = 4,
  prefix = "",
) {
  const keysOf = new Map<string, string[]>();
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
          namespace: `conv-${prefix}${chat.id}`,
          force: true,
          metadata: {
            ...(turn.role ? { role: turn.role } : {}),
            ...(turn.speaker ? { speaker: turn.speaker } : {}),
            turn: turn.key,
            ...(session.date ? { date: session.date } : {}),
          },
          source_type: "chat",
          ...(sessions ? { session_id: session.id } : {}),
        });
        keysOf.set(id, [...(keysOf.get(id) ?? []), turn.key]);
      }
    }
  });
  return { keysOf, sessions };
}

export async function measureRecall(
  server: BenchServer,
  set: ConversationSet,
  name?: string,
): Promise<RecallFigures> {
  const prefix = name && name !== "generated" ? `${name}-` : "";
  const { keysOf, sessions } = await loadConversations(server, set, 4, prefix);
  const byMode = {} as RecallFigures["byMode"];
  for (const mode of RECALL_MODES) {
    const hits = { 1: 0, 5: 0, 10: 0 };
    const kinds = new Map<string, { r5: number; r10: number; n: number }>();
    const latencies: number[] = [];
    for (const q of set.questions) {
      const t = performance.now();
      const { results } = await post(server, "/v1/search", {
        query: q.question,
        namespace: `conv-${prefix}${q.chat}`,
        mode,
        limit: 10,
      }) as { results: { id: string }[] };
      latencies.push(performance.now() - t);
      const rank = results.findIndex((r) => (keysOf.get(r.id) ?? []).some((k) => q.answers.includes(k)));
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
  const turns = set.chats.reduce((n, c) => n + c.sessions.reduce((m, s) => m + s.turns.length, 0), 0);
  return { ...(name ? { set: name } : {}), questions: set.questions.length, turns, sessions, byMode };
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

export const SET_NAMES = ["generated", ...PUBLIC_SOURCES.map((s) => s.name)] as const;

export interface NamedSet {
  name: string;
  set: ConversationSet;
}

export interface SetOptions {
  half: Half;
  /** Which sets (default: all). */
  sets?: readonly string[];
  /** Keep the first n chats of each set's half (to try something quickly). */
  chats?: number;
  /** The generated set's seed. */
  seed?: number;
}

/** The sets to measure, each cut to its half; public sets not on this machine are listed in `missing`. */
export function recallSets(options: SetOptions): { sets: NamedSet[]; missing: string[] } {
  const wanted = options.sets ?? SET_NAMES;
  const unknown = wanted.filter((w) => !(SET_NAMES as readonly string[]).includes(w));
  if (unknown.length) throw new Error(`unknown set ${unknown.join(", ")}: one of ${SET_NAMES.join(", ")}`);
  const cut = (set: ConversationSet) => {
    const half = splitSet(set, options.half);
    if (!options.chats) return half;
    const chats = half.chats.slice(0, options.chats);
    const ids = new Set(chats.map((c) => c.id));
    return { chats, questions: half.questions.filter((q) => ids.has(q.chat)) };
  };
  const sets: NamedSet[] = [];
  const missing: string[] = [];
  if (wanted.includes("generated")) {
    sets.push({
      name: "generated",
      set: cut(conversationSet({ ...DEFAULT_SET, seed: options.seed ?? DEFAULT_SET.seed })),
    });
  }
  for (const source of PUBLIC_SOURCES) {
    if (!wanted.includes(source.name)) continue;
    const files = ensureSet(source);
    if (files) sets.push({ name: source.name, set: cut(source.load(files)) });
    else missing.push(howToGet(source));
  }
  return { sets, missing };
}

/**
 * One row per set and tier, then the macro-averages of each tier over all sets and over the public
 * sets alone (the issue's acceptance is on the public sets' hybrid row).
 */
export function setsTable(figures: readonly RecallFigures[]): string {
  const rows: (string | number)[][] = [];
  for (const f of figures) {
    for (const m of RECALL_MODES) {
      const x = f.byMode[m];
      rows.push([f.set ?? "-", m, f.questions, x.r1, x.r5, x.r10, x.p50, x.p95]);
    }
  }
  const macro = (label: string, of: readonly RecallFigures[]) => {
    if (of.length === 0) return;
    for (const m of RECALL_MODES) {
      const mean = (k: "r1" | "r5" | "r10") => round(of.reduce((s, f) => s + f.byMode[m][k], 0) / of.length);
      rows.push([
        label,
        m,
        of.reduce((s, f) => s + f.questions, 0),
        mean("r1"),
        mean("r5"),
        mean("r10"),
        "",
        "",
      ]);
    }
  };
  macro(`macro, ${figures.length} sets`, figures);
  const publics = figures.filter((f) => f.set !== "generated");
  if (publics.length !== figures.length) macro(`macro, public (${publics.length})`, publics);
  return table(["set", "tier", "questions", "R@1", "R@5", "R@10", "p50 ms", "p95 ms"], rows);
}

/** Each set's hybrid R@5/10 by question kind. */
export function kindsTable(figures: readonly RecallFigures[]): string {
  const rows = figures.flatMap((f) =>
    Object.entries(f.byMode.hybrid.byKind).sort().map(([k, v]) => [f.set ?? "-", k, v.n, v.r5, v.r10])
  );
  return table(["set", "kind", "n", "hybrid R@5", "hybrid R@10"], rows);
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

if (import.meta.main) {
  const arg = (name: string) => {
    const at = process.argv.indexOf(`--${name}`);
    return at > 0 ? process.argv[at + 1] : undefined;
  };
  const half = (arg("half") ?? "dev") as Half;
  if (!["dev", "held", "all"].includes(half)) throw new Error("--half: dev, held or all");
  const { sets, missing } = recallSets({
    half,
    sets: arg("sets")?.split(","),
    chats: arg("chats") ? Number(arg("chats")) : undefined,
    seed: arg("seed") ? Number(arg("seed")) : undefined,
  });
  for (const m of missing) console.error(`skipped: ${m}`);
  const dir = await mkdtemp(join(tmpdir(), "memsvc-recall-"));
  const server = await startServer({ dataDir: dir, binary: arg("binary"), embedder: arg("embedder") });
  try {
    await server.login();
    const t = performance.now();
    const figures: RecallFigures[] = [];
    for (const { name, set } of sets) {
      const f = await measureRecall(server, set, name);
      if (name === "generated" && process.argv.includes("--peers")) {
        f.serverMemory = await serverMemoryRecall(set, dir);
      }
      figures.push(f);
      console.error(
        `${name}: ${set.chats.length} chats, ${f.turns} turns, ${f.questions} questions, sessions ${
          f.sessions ? "on" : "off (server refused session_id)"
        }`,
      );
    }
    console.log(`half ${half}; ${((performance.now() - t) / 1000).toFixed(0)} s`);
    console.log(setsTable(figures));
    if (process.argv.includes("--kinds")) console.log(kindsTable(figures));
    for (const f of figures) if (f.serverMemory) console.log(recallTable(f));
    if (process.argv.includes("--json")) console.log(JSON.stringify(figures));
  } finally {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
