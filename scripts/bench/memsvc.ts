/**
 * The memsvc benchmark suite (docs/benchmarks.md explains every figure):
 *
 *   deno task bench:memsvc            # the full suite: 12 minutes on a loaded 2-core machine
 *   deno task bench:memsvc --quick    # a tenth of the sizes, to check the suite itself
 *   deno task bench:memsvc --only=write,restart --writes=2000   # some phases, smaller write rows
 *   deno task bench:memsvc --binary=/tmp/memsvc-before          # another build (before/after)
 *   deno task bench:memsvc --only=recall --minilm-chats=4       # builtin-minilm on fewer chats
 *   deno task bench:memsvc --only=search --warm-searches=300     # search rows of a warmed-up process
 *   deno task bench:memsvc --only=restart --data=/tmp/data-100k  # restart rows on a copy of a kept data dir
 *   deno task bench:memsvc --only=search --embedder=builtin-static  # MEMSVC_EMBEDDER of the servers
 *   deno task bench:memsvc --only=write --write-client=fetch    # every write row through fetch (earlier runs' client)
 *
 * Phases (`--only`, comma-separated; default all): first-start, write, search, mcp, restart,
 * recall (the conversational set), postgres, peers. Rows of phases not run are left out of the table.
 *
 * Everything runs against dist/memsvc as a child process, and against the peers, in one run; the
 * table goes to stdout and every figure to .cache/bench/memsvc-<timestamp>.json.
 */
import { execFileSync, spawn } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { binaryPath, ROOT } from "../../test/harness/binary.ts";
import { connectHttp } from "../../test/harness/mcp_client.ts";
import { startPostgres } from "../../test/harness/postgres.ts";
import { conversationSet, DEFAULT_SET } from "./conversations.ts";
import { memories, queries } from "./data.ts";
import { type BenchServer, exportFile, post, serverEnv, startServer } from "./memsvc_server.ts";
import { KeepAliveClient } from "./keep_alive_client.ts";
import { postgresCpuMs } from "./postgres_cpu.ts";
import { procStat } from "./proc_stat.ts";
import { startMem0 } from "./peers/mem0.ts";
import { startServerMemory } from "./peers/server_memory.ts";
import {
  BgeSmallEmbedder,
  BuiltinEmbedder,
  MiniLMEmbedder,
  StaticEmbedder,
} from "../../server/memsvc/embeddings/mod.ts";
import { embedderTable, measureEmbedder } from "./embedders.ts";
import {
  measureRecall,
  type RecallFigures,
  recallSets,
  recallTable,
  serverMemoryRecall,
  setsTable,
} from "./recall.ts";
import { type LatencySummary, type LoadResult, runLoad, summarize } from "./stats.ts";
import { ratio, table } from "./table.ts";

const quick = process.argv.includes("--quick");
const scale = (n: number) => (quick ? Math.max(10, Math.round(n / 10)) : n);
const flag = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const PHASES = ["first-start", "write", "search", "mcp", "restart", "recall", "postgres", "peers"] as const;
const only = flag("only")?.split(",");
for (const p of only ?? []) {
  if (!(PHASES as readonly string[]).includes(p)) {
    throw new Error(`--only: unknown phase ${p} (${PHASES.join(", ")})`);
  }
}
const runs = (phase: (typeof PHASES)[number]) => !only || only.includes(phase);
/** --embedder=<name>: MEMSVC_EMBEDDER of every server that does not pick its own (serverEnv passes it on). */
if (flag("embedder")) process.env.MEMSVC_EMBEDDER = flag("embedder");
const BINARY = flag("binary") ?? binaryPath("memsvc");
/**
 * --data=<dir>: a data directory that already holds the search scope at the largest size (kept from
 * an earlier run's import); the restart phase runs on a copy of it instead of importing, so before
 * and after builds are timed on the same rows. --keep-data=<dir> keeps such a copy after the import.
 */
const REUSE = flag("data");
const KEEP = flag("keep-data");

const SEARCH_SIZES: [number, number, number] = [scale(1_000), scale(10_000), scale(100_000)];
const SIZES = { write: Number(flag("writes") ?? scale(10_000)), search: SEARCH_SIZES };
const CONCURRENCY = [1, 8, 32];
const QUERIES = scale(200);
const MODES = ["hybrid", "keyword", "vector"] as const;
type Mode = (typeof MODES)[number];
/** server-memory rewrites its whole file per call and mem0 scans every vector per query: bounded. */
const PEER_MAX = scale(10_000);
const PEER_QUERIES = scale(50);

interface Relevance {
  memories: { id: string; content: string }[];
  queries: { query: string; expected: string[] }[];
}
const relevance = JSON.parse(
  readFileSync(join(ROOT, "test", "fixtures", "memsvc_relevance.json"), "utf8"),
) as Relevance;

const started = performance.now();
const log = (msg: string) => console.error(`[${((performance.now() - started) / 1000).toFixed(0)}s] ${msg}`);
const progress = (what: string) => (done: number) => log(`  ${what}: ${done}`);

// ---- data ----
// Every phase takes fresh texts: remembers at three concurrencies on two backends, the search
// scope, MCP captures, and the peers' writes and search scopes.
const texts = memories(SIZES.write * 8 + SIZES.search[2]! + QUERIES + PEER_MAX * 2, 7);
let cursor = 0;
const take = (n: number) => texts.slice(cursor, cursor += n);
const searchQueries = queries(QUERIES, 11);
const WARM_SEARCHES = Number(flag("warm-searches") ?? 0);
/** The write rows' client above concurrency 1: "kept-alive" (keep_alive_client.ts) or "fetch" (before 2026-11-27). */
const WRITE_CLIENT = flag("write-client") ?? "kept-alive";
if (!["kept-alive", "fetch"].includes(WRITE_CLIENT)) {
  throw new Error(`--write-client: kept-alive or fetch, not ${WRITE_CLIENT}`);
}
const warmQueries = queries(Math.min(WARM_SEARCHES, 1_000), 13);

const results: Record<string, unknown> = {
  startedAt: new Date().toISOString(),
  quick,
  machine: {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    loadAverageAtStart: loadavg().map((x) => Math.round(x * 100) / 100),
  },
  commit: git(["rev-parse", "--short", "HEAD"]),
  binary: BINARY,
  phases: only ?? PHASES,
  warmSearches: WARM_SEARCHES,
};

function git(args: string[]): string {
  try {
    return execFileSync("git", args, { cwd: ROOT, encoding: "utf8" }).trim();
  } catch {
    return "unknown";
  }
}

async function remember(server: BenchServer, content: string, namespace: string) {
  await post(server, "/v1/remember", { content, namespace });
}

async function loadHttp(server: BenchServer, items: string[], namespace: string, concurrency = 8) {
  return await runLoad(
    items.length,
    concurrency,
    (i) => remember(server, items[i]!, namespace),
    progress(`loading ${namespace}`),
  );
}

async function searchLatency(
  server: BenchServer,
  namespace: string,
  mode: Mode,
): Promise<LatencySummary & { serverCpuMs?: number }> {
  // The server's CPU per search, as for writes: a loaded machine distorts wall time far more.
  const cpuBefore = cpuMs(server.pid);
  const r = await runLoad(QUERIES, 1, async (i) => {
    await post(server, "/v1/search", { query: searchQueries[i]!, namespace, mode, limit: 10 });
  });
  const cpuAfter = cpuMs(server.pid);
  if (cpuBefore === undefined || cpuAfter === undefined) return r.latency;
  return { ...r.latency, serverCpuMs: Math.round(((cpuAfter - cpuBefore) / QUERIES) * 100) / 100 };
}

/**
 * The first search is timed on its own: after a start it reads every vector into the in-process
 * index, which is not what a steady-state query costs.
 */
async function searchAllModes(server: BenchServer, namespace: string) {
  const t = performance.now();
  await post(server, "/v1/search", { query: searchQueries[0]!, namespace, limit: 10 });
  const out = { firstMs: Math.round(performance.now() - t) } as Record<Mode, LatencySummary> & {
    firstMs: number;
  };
  // --warm-searches=N: N untimed searches of other queries first. A process's first few hundred
  // searches run in Bun's and the WASM engine's lower tiers (about 4 ms more CPU each at 1,000
  // entries); without it the first mode's row (hybrid) measures that warm-up, not the steady state.
  for (let i = 0; i < WARM_SEARCHES; i++) {
    await post(server, "/v1/search", { query: warmQueries[i % warmQueries.length]!, namespace, limit: 10 });
  }
  for (const mode of MODES) out[mode] = await searchLatency(server, namespace, mode);
  return out;
}

/** Mean over the labelled queries of |expected ∩ top 10| / |expected|. */
function recallAt10(found: string[][]): number {
  let sum = 0;
  relevance.queries.forEach((q, i) => {
    const top = new Set(found[i]!.slice(0, 10));
    sum += q.expected.filter((id) => top.has(id)).length / q.expected.length;
  });
  return Math.round((sum / relevance.queries.length) * 1000) / 1000;
}

async function memsvcRecall(server: BenchServer) {
  const idOf = new Map<string, string>();
  for (const m of relevance.memories) {
    const { id } = await post(server, "/v1/remember", { content: m.content, namespace: "relevance" }) as {
      id: string;
    };
    idOf.set(id, m.id);
  }
  const out = {} as Record<Mode, number>;
  for (const mode of MODES) {
    const found: string[][] = [];
    for (const q of relevance.queries) {
      const { results } = await post(server, "/v1/search", {
        query: q.query,
        namespace: "relevance",
        mode,
        limit: 10,
      }) as { results: { id: string }[] };
      found.push(results.map((r) => idOf.get(r.id) ?? r.id));
    }
    out[mode] = recallAt10(found);
  }
  return out;
}

/** CPU time (user + system) the process has used, in ms, from /proc (Linux; undefined elsewhere). */
function cpuMs(pid: number): number | undefined {
  try {
    return procStat(pid).cpuMs;
  } catch {
    return undefined;
  }
}

/** CPU per write of the server, the bench itself and, given `postgresCpu`, a PostgreSQL cluster's processes. */
type WriteRow = LoadResult & {
  serverCpuMsPerWrite?: number;
  clientCpuMsPerWrite?: number;
  postgresCpuMsPerWrite?: number;
};

async function writePath(server: BenchServer, backend: string, postgresCpu?: () => number | undefined) {
  const out: Record<string, WriteRow> = {};
  for (const c of CONCURRENCY) {
    log(`${backend}: ${SIZES.write} remembers at concurrency ${c}`);
    const items = take(SIZES.write);
    // Above concurrency 1, one kept-alive connection per worker written to directly
    // (keep_alive_client.ts): fetch's own CPU took a fifth of the two cores the server shares with
    // it. At concurrency 1 fetch stays: that row's latency is compared with the peers'.
    const idle = c === 1 || WRITE_CLIENT === "fetch"
      ? []
      : Array.from({ length: c }, () =>
        new KeepAliveClient(server.url, {
          authorization: `Bearer ${server.token}`,
          // The headers an HTTP library sends besides (fetch's), so the server parses as much.
          accept: "*/*",
          "accept-language": "*",
          "user-agent": "memsvc-bench",
          "accept-encoding": "gzip,br",
        }));
    const write = async (i: number) => {
      const client = idle.pop();
      if (!client) return await remember(server, items[i]!, `write-c${c}`);
      try {
        const answer = await client.postJson("/v1/remember", {
          content: items[i]!,
          namespace: `write-c${c}`,
        });
        if (answer.status >= 300) throw new Error(`POST /v1/remember: ${answer.status} ${answer.body}`);
        JSON.parse(answer.body);
      } finally {
        idle.push(client);
      }
    };
    // The server's CPU per remember: a loaded machine distorts wall time far more than CPU time.
    const cpuBefore = cpuMs(server.pid);
    const clientBefore = process.cpuUsage();
    const pgBefore = postgresCpu?.();
    out[`c${c}`] = await runLoad(items.length, c, write, progress("remembered"));
    const pgAfter = postgresCpu?.();
    const client = process.cpuUsage(clientBefore);
    const cpuAfter = cpuMs(server.pid);
    if (pgBefore !== undefined && pgAfter !== undefined) {
      out[`c${c}`]!.postgresCpuMsPerWrite = Math.round(((pgAfter - pgBefore) / items.length) * 100) / 100;
    }
    idle.forEach((k) => k.close());
    if (cpuBefore !== undefined && cpuAfter !== undefined) {
      out[`c${c}`]!.serverCpuMsPerWrite = Math.round(((cpuAfter - cpuBefore) / items.length) * 100) / 100;
    }
    out[`c${c}`]!.clientCpuMsPerWrite = Math.round((client.user + client.system) / 10 / items.length) / 100;
  }
  return out;
}

async function mcpLatency(server: BenchServer) {
  const client = await connectHttp(server.url, server.token);
  const call = async (name: string, args: Record<string, unknown>) => {
    const r = await client.callTool({ name, arguments: args }) as { isError?: boolean; content: unknown };
    if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content)}`);
  };
  const captures = take(QUERIES);
  const search = await runLoad(QUERIES, 1, (i) => call("memory_search", { query: searchQueries[i]! }));
  const capture = await runLoad(QUERIES, 1, (i) => call("memory_capture", { content: captures[i]! }));
  await client.close();
  return { memory_search: search.latency, memory_capture: capture.latency };
}

async function memsvcImport(dataDir: string, file: string): Promise<number> {
  const t = performance.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn(BINARY, ["import", file], {
      env: { ...serverEnv({ dataDir }), MEMSVC_LOG_LEVEL: "warn" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr!.on("data", (d) => {
      stderr += d;
      const last = String(d).trim().split("\n").pop();
      if (last) log(`  import: ${last.slice(0, 120)}`);
    });
    child.on(
      "close",
      (code) => code === 0 ? resolve() : reject(new Error(`memsvc import: ${code}\n${stderr}`)),
    );
  });
  return Math.round(performance.now() - t);
}

// ---- memsvc on the embedded database ----
const work = await mkdtemp(join(tmpdir(), "memsvc-bench-"));
const embedded: Record<string, unknown> = {};
const processFigures: Record<string, unknown> = { binaryBytes: statSync(BINARY).size };
const search: Record<string, unknown> = {};
try {
  const dataDir = join(work, "pglite");
  // Always: the first start creates the bench user every later phase signs in as.
  log("cold start on an empty data dir");
  const first = await startServer({ dataDir, binary: BINARY });
  processFigures.coldStartEmptyMs = first.startMs;
  processFigures.rssAfterFirstStartMb = first.peakRssMb();
  await first.stop();
  if (runs("first-start")) {
    const warm: number[] = [];
    for (let i = 0; i < 3; i++) {
      const s = await startServer({ dataDir, binary: BINARY });
      warm.push(s.startMs);
      await s.stop();
    }
    processFigures.warmStartEmptyMs = summarize(warm).p50;
  }

  let loaded = 0;
  if (runs("write") || runs("search") || runs("mcp")) {
    log("memsvc on the embedded database");
    const server = await startServer({ dataDir, binary: BINARY });
    await server.login();
    if (runs("search")) {
      log("recall@10 on the labelled set");
      results.recall = { memsvc: await memsvcRecall(server) };
    }
    if (runs("write")) {
      embedded.write = await writePath(server, "embedded");
      processFigures.peakRssWriteLoadMb = server.peakRssMb();
    }
    if (runs("search")) {
      for (const size of SIZES.search.slice(0, 2)) {
        log(`search: loading to ${size} entries over HTTP`);
        await loadHttp(server, take(size - loaded), "search");
        loaded = size;
        log(`search at ${size}`);
        search[size] = await searchAllModes(server, "search");
      }
    }
    if (runs("mcp")) {
      log("MCP tools/call latency");
      results.mcp = await mcpLatency(server);
    }
    await server.stop();
  }

  if (runs("restart")) await restartAt100k(dataDir, loaded);
  embedded.search = search;
} finally {
  await rm(work, { recursive: true, force: true });
}
results.process = processFigures;
results.embedded = embedded;

/**
 * The restart figures: the scope grown to 100,000 entries with `memsvc import` (server stopped),
 * then a fresh start: time to the first 200, the first search (what a restart costs a user), the
 * steady-state searches and the peak RSS of all that.
 */
async function restartAt100k(dataDir: string, loaded: number) {
  const big = SIZES.search[2]!;
  if (REUSE && loaded === 0) {
    log(`search: ${big} entries from a copy of ${REUSE} (no import)`);
    await rm(dataDir, { recursive: true, force: true });
    cpSync(REUSE, dataDir, { recursive: true });
  } else {
    log(`search: importing ${big - loaded} more entries with memsvc import`);
    const file = join(work, "search.jsonl");
    exportFile(file, take(big - loaded));
    embedded.importMs = await memsvcImport(dataDir, file);
    if (KEEP) cpSync(dataDir, KEEP, { recursive: true });
  }
  // The first start after an offline import has to read the imported vectors; a restart after that
  // is what a user's restart costs. Both are timed.
  const warmup = await startServer({ dataDir, binary: BINARY });
  await warmup.login();
  const t = performance.now();
  await post(warmup, "/v1/search", { query: searchQueries[0]!, namespace: "search", limit: 10 });
  embedded.firstSearchAfterImportMs = Math.round(performance.now() - t);
  await warmup.stop();
  const full = await startServer({ dataDir, binary: BINARY });
  processFigures.startWith100kMs = full.startMs;
  await full.login();
  log(`search at ${big}`);
  search[big] = await searchAllModes(full, "search");
  processFigures.peakRss100kMb = full.peakRssMb();
  processFigures.snapshotLoadMs = loggedMs(full.output(), "vector index snapshot loaded");
  processFigures.keywordSnapshotLoadMs = loggedMs(full.output(), "keyword index snapshot loaded");
  await full.stop();
  // The vector tier's own share of a restart's first search (the hybrid one also runs the keyword tier).
  const again = await startServer({ dataDir, binary: BINARY });
  await again.login();
  const tv = performance.now();
  await post(again, "/v1/search", {
    query: searchQueries[1]!,
    namespace: "search",
    mode: "vector",
    limit: 10,
  });
  embedded.firstVectorSearchAfterRestartMs = Math.round(performance.now() - tv);
  await again.stop();
}

/** The `ms` of a server log line ("vector index snapshot loaded"), if it logged one (older builds did not). */
function loggedMs(output: string, msg: string): number | undefined {
  for (const line of output.split("\n")) {
    if (!line.includes(`"${msg}"`)) continue;
    try {
      return (JSON.parse(line) as { ms?: number }).ms;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

// ---- conversational recall (scripts/bench/recall.ts), on a data dir of its own ----
if (runs("recall")) {
  const chats = quick ? 2 : DEFAULT_SET.chats;
  // Every set's held-back half (the dev half is what ranking is tuned on: recall.ts --half dev).
  const { sets, missing } = recallSets({ half: "held", chats: quick ? 1 : undefined });
  for (const m of missing) log(`conversational recall: skipped ${m}`);
  log(`conversational recall: ${sets.map((s) => s.name).join(", ")} (held-back halves)`);
  const dir = await mkdtemp(join(tmpdir(), "memsvc-bench-recall-"));
  try {
    const server = await startServer({ dataDir: dir, binary: BINARY });
    await server.login();
    const figures: RecallFigures[] = [];
    for (const { name, set } of sets) figures.push(await measureRecall(server, set, name));
    processFigures.rssAfterRecallMb = server.peakRssMb();
    await server.stop();
    const generated = figures.find((f) => f.set === "generated");
    if (generated) {
      log("conversational recall: server-memory");
      generated.serverMemory = await serverMemoryRecall(sets.find((s) => s.name === "generated")!.set, dir);
    }
    results.recallSets = figures;
    results.conversationalRecall = generated;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  // The built-in neural embedder on the same set (--minilm-chats: fewer chats, since it embeds at tens of
  // turns a second), and both built-in embedders in process.
  const minilmChats = Number(flag("minilm-chats") ?? chats);
  log(`conversational recall: builtin-minilm, ${minilmChats} chats`);
  const minilmDir = await mkdtemp(join(tmpdir(), "memsvc-bench-recall-minilm-"));
  try {
    const server = await startServer({ dataDir: minilmDir, binary: BINARY, embedder: "builtin-minilm" });
    await server.login();
    results.conversationalRecallMinilm = await measureRecall(
      server,
      conversationSet({ ...DEFAULT_SET, chats: minilmChats }),
    );
    await server.stop();
  } finally {
    await rm(minilmDir, { recursive: true, force: true });
  }
  // builtin-static (MiniLM's token table) embeds as fast as the hashing embedder: the whole set.
  log(`conversational recall: builtin-static, ${chats} chats`);
  const staticDir = await mkdtemp(join(tmpdir(), "memsvc-bench-recall-static-"));
  try {
    const server = await startServer({ dataDir: staticDir, binary: BINARY, embedder: "builtin-static" });
    await server.login();
    results.conversationalRecallStatic = await measureRecall(
      server,
      conversationSet({ ...DEFAULT_SET, chats }),
    );
    await server.stop();
  } finally {
    await rm(staticDir, { recursive: true, force: true });
  }
  log("built-in embedders in process");
  results.embedders = [
    await measureEmbedder(new BuiltinEmbedder(), quick ? 128 : 512, quick ? 20 : 100),
    await measureEmbedder(new StaticEmbedder(), quick ? 128 : 512, quick ? 20 : 100),
    await measureEmbedder(new MiniLMEmbedder(), quick ? 128 : 512, quick ? 20 : 100),
    await measureEmbedder(new BgeSmallEmbedder(), quick ? 128 : 512, quick ? 20 : 100),
  ];
}

// ---- memsvc on PostgreSQL 15 ----
if (runs("postgres")) {
  log("memsvc on PostgreSQL 15");
  const pg = await startPostgres();
  try {
    const server = await startServer({ databaseUrl: pg.url, binary: BINARY });
    await server.login();
    const port = new URL(pg.url).port;
    results.postgres = { write: await writePath(server, "postgres", () => postgresCpuMs(port)) };
    await server.stop();
  } finally {
    await pg.stop();
  }
}

// ---- peers ----
const peers: Record<string, unknown> = {};
if (runs("peers")) {
  const peerDir = await mkdtemp(join(tmpdir(), "memsvc-bench-peers-"));
  try {
    log("peer: @modelcontextprotocol/server-memory");
    const sm = await startServerMemory(join(peerDir, "memory.jsonl"));
    const smItems = take(PEER_MAX);
    const firstK = SIZES.search[0]!;
    // One entity per tools/call at concurrency 1 (one stdio session serialises calls anyway).
    const smWrite = await runLoad(firstK, 1, (i) => sm.add([{ name: `m${i}`, text: smItems[i]! }]));
    const smSearch: Record<string, LatencySummary> = {};
    const smQueries = searchQueries.slice(0, PEER_QUERIES);
    smSearch[firstK] = (await runLoad(smQueries.length, 1, async (i) =>
      void await sm.search(smQueries[i]!))).latency;
    for (let i = firstK; i < PEER_MAX; i += 500) {
      await sm.add(smItems.slice(i, i + 500).map((text, j) => ({ name: `m${i + j}`, text })));
    }
    smSearch[PEER_MAX] = (await runLoad(smQueries.length, 1, async (i) =>
      void await sm.search(smQueries[i]!))).latency;
    await sm.close();
    const smRel = await startServerMemory(join(peerDir, "relevance.jsonl"));
    await smRel.add(relevance.memories.map((m) => ({ name: m.id, text: m.content })));
    const smFound: string[][] = [];
    for (const q of relevance.queries) smFound.push(await smRel.search(q.query));
    await smRel.close();
    peers.serverMemory = { write: { c1: smWrite }, search: smSearch, recallAt10: recallAt10(smFound) };

    log("peer: mem0ai (open-source library, local mode)");
    const mem0 = await startMem0();
    const m0Write: Record<string, LoadResult> = {};
    for (const c of [1, 32]) m0Write[`c${c}`] = await mem0.add(`write-c${c}`, take(SIZES.write), c);
    const m0Search: Record<string, LatencySummary> = {};
    const m0Items = take(PEER_MAX);
    await mem0.add("search", m0Items.slice(0, firstK), 8);
    m0Search[firstK] = (await mem0.search("search", smQueries, 10)).latency;
    await mem0.add("search", m0Items.slice(firstK), 8);
    m0Search[PEER_MAX] = (await mem0.search("search", smQueries, 10)).latency;
    await mem0.add("relevance", relevance.memories.map((m) => m.content), 1);
    const byText = new Map(relevance.memories.map((m) => [m.content, m.id]));
    const m0Found = (await mem0.search("relevance", relevance.queries.map((q) => q.query), 10)).results
      .map((texts) => texts.map((t) => byText.get(t) ?? t));
    await mem0.close();
    peers.mem0 = { write: m0Write, search: m0Search, recallAt10: recallAt10(m0Found) };
  } finally {
    await rm(peerDir, { recursive: true, force: true });
  }
}
results.peers = peers;
results.machine = {
  ...results.machine as object,
  loadAverageAtEnd: loadavg().map((x) => Math.round(x * 100) / 100),
};
results.wallSeconds = Math.round((performance.now() - started) / 1000);

// ---- report ----
const outDir = join(ROOT, ".cache", "bench");
mkdirSync(outDir, { recursive: true });
const outFile = join(outDir, `memsvc-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
writeFileSync(outFile, JSON.stringify(results, null, 2) + "\n");
console.log(report(results));
console.log(`\nresults: ${outFile}`);

// deno-lint-ignore no-explicit-any
function report(r: any): string {
  const w = (x: WriteRow) => [
    x.throughput,
    x.latency.p50,
    x.latency.p95,
    x.latency.p99,
    x.serverCpuMsPerWrite ?? "-",
    x.clientCpuMsPerWrite ?? "-",
    x.postgresCpuMsPerWrite ?? "-",
  ];
  const l = (x: LatencySummary) => [x.p50, x.p95, x.p99];
  const sm = r.peers.serverMemory;
  const m0 = r.peers.mem0;
  const [s1, s2, s3] = SIZES.search;
  const ew = r.embedded.write;
  const es = r.embedded.search;
  const searched = SIZES.search.filter((n) => es[n]);
  const sections: string[] = [
    `memsvc benchmark — ${r.startedAt}, commit ${r.commit}, ${r.machine.cpus} CPUs, load ${
      r.machine.loadAverageAtStart.join(" ")
    } at start, ${r.machine.loadAverageAtEnd.join(" ")} at the end${
      quick ? " (QUICK: a tenth of the sizes)" : ""
    }; wall ${r.wallSeconds} s; phases ${r.phases.join(",")}${
      r.warmSearches ? `; ${r.warmSearches} untimed searches before each size's search rows` : ""
    }`,
    "",
    "Issue 25's figures (embedded database unless named; n/a: phase not run)",
    targetsTable(r),
  ];
  const section = (title: string, body: string) => sections.push("", title, body);
  const writeRows = [
    ...(ew ? CONCURRENCY.map((c) => [`embedded c=${c}`, ...w(ew[`c${c}`])]) : []),
    ...(r.postgres ? CONCURRENCY.map((c) => [`postgres c=${c}`, ...w(r.postgres.write[`c${c}`])]) : []),
    ...(sm ? [[`server-memory c=1 (${s1})`, ...w(sm.write.c1)]] : []),
    ...(m0
      ? [["mem0 c=1 (in-process)", ...w(m0.write.c1)], ["mem0 c=32 (in-process)", ...w(m0.write.c32)]]
      : []),
  ];
  if (writeRows.length) {
    section(
      "Write path: POST /v1/remember, " + SIZES.write + " entries per row (ms; writes/s; above c=1 through " +
        (WRITE_CLIENT === "fetch" ? "fetch)" : "kept-alive connections)"),
      table(
        ["", "writes/s", "p50", "p95", "p99", "server CPU/write", "bench CPU/write", "PG CPU/write"],
        writeRows,
      ),
    );
  }
  const searchRows = [
    ...searched.flatMap((n) => MODES.map((m) => [`${n} ${m}`, ...l(es[n][m]), es[n][m].serverCpuMs ?? ""])),
    ...(sm
      ? [
        [`server-memory ${s1} search_nodes`, ...l(sm.search[s1])],
        [`server-memory ${PEER_MAX} search_nodes`, ...l(sm.search[PEER_MAX])],
      ]
      : []),
    ...(m0
      ? [[`mem0 ${s1} (in-process)`, ...l(m0.search[s1])], [
        `mem0 ${PEER_MAX} (in-process)`,
        ...l(m0.search[PEER_MAX]),
      ]]
      : []),
  ];
  if (searchRows.length) {
    section(
      "Search: POST /v1/search, limit 10, one scope, concurrency 1 (ms)",
      table(["", "p50", "p95", "p99", "server CPU/search"], searchRows),
    );
  }
  if (r.mcp) {
    section(
      "MCP over Streamable HTTP /mcp, tools/call (ms)",
      table(["", "p50", "p95", "p99"], [
        ["memory_search", ...l(r.mcp.memory_search)],
        ["memory_capture", ...l(r.mcp.memory_capture)],
      ]),
    );
  }
  const p = r.process;
  const processRows: (string | number)[][] = [
    ["binary size (MB)", (p.binaryBytes / 2 ** 20).toFixed(1)],
    ["cold start, empty data dir (ms)", p.coldStartEmptyMs],
    ["peak RSS after first start (MB)", p.rssAfterFirstStartMb],
  ];
  if (p.warmStartEmptyMs !== undefined) {
    processRows.push(["start, initialised empty data dir (ms)", p.warmStartEmptyMs]);
  }
  if (p.peakRssWriteLoadMb !== undefined) {
    processRows.push(["peak RSS under write load (MB)", p.peakRssWriteLoadMb]);
  }
  if (es[s3!]) {
    processRows.push(
      [`restart with ${s3} entries (ms)`, p.startWith100kMs],
      [`first search after the import's first start (ms)`, r.embedded.firstSearchAfterImportMs],
      [`first search after a restart (ms)`, es[s3!].firstMs],
      [`first vector-mode search after a restart (ms)`, r.embedded.firstVectorSearchAfterRestartMs ?? "-"],
      [`vector index snapshot load at start (ms)`, p.snapshotLoadMs ?? "-"],
      [`keyword index snapshot load after start (ms)`, p.keywordSnapshotLoadMs ?? "-"],
      [`peak RSS, fresh start + search at ${s3} (MB)`, p.peakRss100kMb],
      [
        `memsvc import of the entries up to ${s3} (s)`,
        r.embedded.importMs === undefined ? "-" : (r.embedded.importMs / 1000).toFixed(1),
      ],
    );
  }
  if (p.rssAfterRecallMb !== undefined) {
    processRows.push([
      `peak RSS, conversational recall (${
        (r.recallSets ?? []).reduce((n: number, f: RecallFigures) => n + f.turns, 0)
      } turns, MB)`,
      p.rssAfterRecallMb,
    ]);
  }
  section("Process", table(["", "value"], processRows));
  if (r.recall) {
    section(
      "Recall@10 on test/fixtures/memsvc_relevance.json (200 memories, 30 queries)",
      table(["", "recall@10"], [
        ...MODES.map((m) => [`memsvc ${m}`, r.recall.memsvc[m]]),
        ...(sm ? [["server-memory search_nodes", sm.recallAt10]] : []),
        ...(m0 ? [["mem0 (same embedder)", m0.recallAt10]] : []),
      ]),
    );
  }
  if (r.recallSets) {
    section(
      "Conversational recall by set, held-back halves (scripts/bench/recall.ts; recall_any@k of the evidence turns)",
      setsTable(r.recallSets),
    );
  }
  if (r.conversationalRecall) {
    const c = r.conversationalRecall;
    section(
      `Conversational recall (scripts/bench/conversations.ts: ${c.turns} turns, ${c.questions} questions; recall_any@k)`,
      recallTable(c),
    );
  }
  if (r.conversationalRecallMinilm) {
    const c = r.conversationalRecallMinilm;
    section(
      `Conversational recall with MEMSVC_EMBEDDER=builtin-minilm (${c.turns} turns, ${c.questions} questions)`,
      recallTable(c),
    );
  }
  if (r.conversationalRecallStatic) {
    const c = r.conversationalRecallStatic;
    section(
      `Conversational recall with MEMSVC_EMBEDDER=builtin-static (${c.turns} turns, ${c.questions} questions)`,
      recallTable(c),
    );
  }
  if (r.embedders) {
    section("Built-in embedders in process (scripts/bench/embedders.ts)", embedderTable(r.embedders));
  }
  if (sm && m0 && ew && es[s1!] && es[s2!] && r.recall) {
    section(
      "Ratios ours / theirs (latency: < 1 is faster; throughput: > 1 is more)",
      table(["", "vs server-memory", "vs mem0"], [
        [
          "remember p50, c=1",
          ratio(ew.c1.latency.p50, sm.write.c1.latency.p50),
          ratio(ew.c1.latency.p50, m0.write.c1.latency.p50),
        ],
        [
          "remember p95, c=1",
          ratio(ew.c1.latency.p95, sm.write.c1.latency.p95),
          ratio(ew.c1.latency.p95, m0.write.c1.latency.p95),
        ],
        ["writes/s, c=32", "-", ratio(ew.c32.throughput, m0.write.c32.throughput)],
        [
          `search p50 at ${s1} (hybrid)`,
          ratio(es[s1!].hybrid.p50, sm.search[s1!].p50),
          ratio(es[s1!].hybrid.p50, m0.search[s1!].p50),
        ],
        [
          `search p95 at ${s1} (hybrid)`,
          ratio(es[s1!].hybrid.p95, sm.search[s1!].p95),
          ratio(es[s1!].hybrid.p95, m0.search[s1!].p95),
        ],
        [
          `search p50 at ${s2} (hybrid)`,
          ratio(es[s2!].hybrid.p50, sm.search[PEER_MAX].p50),
          ratio(es[s2!].hybrid.p50, m0.search[PEER_MAX].p50),
        ],
        [
          `search p95 at ${s2} (hybrid)`,
          ratio(es[s2!].hybrid.p95, sm.search[PEER_MAX].p95),
          ratio(es[s2!].hybrid.p95, m0.search[PEER_MAX].p95),
        ],
        [
          "recall@10 (hybrid)",
          ratio(r.recall.memsvc.hybrid, sm.recallAt10),
          ratio(r.recall.memsvc.hybrid, m0.recallAt10),
        ],
      ]),
    );
  }
  sections.push(
    "",
    "Not measured: server-memory and mem0 beyond " + PEER_MAX +
      " entries (server-memory rewrites its whole file",
    "per call, mem0's local vector store scans every vector per query in JavaScript); server-memory writes",
    "beyond " + s1 +
      " one at a time (the rest are loaded 500 per call); PostgreSQL search (same SQL and index).",
  );
  return sections.join("\n");
}

/** Every row of issue 25's table, with its target; "n/a" where the phase that measures it did not run. */
// deno-lint-ignore no-explicit-any
function targetsTable(r: any): string {
  const [s1, s2, s3] = SIZES.search;
  const es = r.embedded.search;
  const sm = r.peers.serverMemory;
  const ew = r.embedded.write;
  const na = "n/a";
  const p95 = (n: number, mode: Mode) => es[n]?.[mode]?.p95 ?? na;
  const fmt = (x: number | string) => typeof x === "number" ? String(x) : x;
  const ratioOrNa = (ours?: number, theirs?: number) => (ours && theirs ? `${ratio(ours, theirs)}×` : na);
  return table(["figure", "measured", "target"], [
    ["writes/s at concurrency 32, embedded", fmt(ew?.c32.throughput ?? na), "≥ 1,000"],
    ["writes/s at concurrency 32, PostgreSQL", fmt(r.postgres?.write.c32.throughput ?? na), "≥ 2,000"],
    ["remember p95 at concurrency 1 (ms)", fmt(ew?.c1.latency.p95 ?? na), "≤ 10"],
    [`hybrid search p95 at ${s1} (ms)`, fmt(p95(s1!, "hybrid")), "≤ 5"],
    [`hybrid search p95 at ${s2} (ms)`, fmt(p95(s2!, "hybrid")), "≤ 15"],
    [`hybrid search p95 at ${s3} (ms)`, fmt(p95(s3!, "hybrid")), "≤ 50"],
    [`keyword tier p95 at ${s3} (ms)`, fmt(p95(s3!, "keyword")), "≤ 30"],
    [`first search after a restart, ${s3} memories (ms)`, fmt(es[s3!]?.firstMs ?? na), "≤ 200"],
    [
      `RSS after start and searches, ${s3} memories (MB)`,
      fmt(r.process.peakRss100kMb ?? na),
      "≤ 320 (issue 40)",
    ],
    ["RSS after the first start (initdb) (MB)", fmt(r.process.rssAfterFirstStartMb ?? na), "≤ 250"],
    [`search p50 vs server-memory at ${s1}`, ratioOrNa(es[s1!]?.hybrid.p50, sm?.search[s1!].p50), "≤ 1.0×"],
    ["remember p50 vs server-memory", ratioOrNa(ew?.c1.latency.p50, sm?.write.c1.latency.p50), "≤ 1.0×"],
    ...publicRecallRows(r.recallSets),
  ]);
}

/** Issue 40's rows: hybrid recall over the public sets' held-back halves (macro-average, weakest set). */
function publicRecallRows(sets: RecallFigures[] | undefined): string[][] {
  const publics = (sets ?? []).filter((f) => f.set !== "generated");
  if (publics.length === 0) {
    return [["hybrid R@5 / R@10, public sets, macro-average (issue 40)", "n/a", "≥ 0.75 / 0.85"]];
  }
  const mean = (k: "r5" | "r10") =>
    (publics.reduce((s, f) => s + f.byMode.hybrid[k], 0) / publics.length).toFixed(3);
  const weakest = (k: "r5" | "r10") => Math.min(...publics.map((f) => f.byMode.hybrid[k])).toFixed(3);
  return [
    [
      `hybrid R@5 / R@10, public sets, macro-average (${publics.length})`,
      `${mean("r5")} / ${mean("r10")}`,
      "≥ 0.75 / 0.85",
    ],
    ["hybrid R@5 / R@10, weakest public set", `${weakest("r5")} / ${weakest("r10")}`, "≥ 0.70 / 0.80"],
  ];
}
