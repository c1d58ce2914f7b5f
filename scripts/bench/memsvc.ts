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
import { measureEmbedder } from "./embedders.ts";
import { measureRecall, type RecallFigures, recallSets, serverMemoryRecall } from "./recall.ts";
import { type LatencySummary, type LoadResult, runLoad, summarize } from "./stats.ts";
import { type Mode, MODES, report, type WriteRow } from "./memsvc_report.ts";

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
console.log(
  report(results, {
    quick,
    sizes: SIZES,
    concurrency: CONCURRENCY,
    modes: MODES,
    peerMax: PEER_MAX,
    writeClient: WRITE_CLIENT,
  }),
);
console.log(`\nresults: ${outFile}`);
