/**
 * The vault search benchmark (docs/vault-search.md explains the figures):
 *
 *   deno task bench:vault            # 1k and 10k notes: about 2 minutes on a loaded 2-core machine
 *   deno task bench:vault --quick    # 100 and 1k notes, to check the script itself
 *   deno task bench:vault --only-live   # only the live part: 50 Yjs editors, 500 idle event sockets
 *   deno task bench:vault --only-search # only the search part (in process, no dist/vault needed)
 *   deno task bench:vault --only-import # only `vault import` of a 10,000-note vault (vault_import.ts)
 *   deno task bench:vault --only=api,memory        # some parts: search, import, api, live, memory
 *   deno task bench:vault --binary=/tmp/vault-before   # another build of dist/vault (before/after)
 *
 * Generates seeded Markdown notes (folders, tags, wiki links, paragraphs of project prose), indexes
 * them into the embedded database (PGlite, in process, through the same functions the server
 * calls), and times a fixed mix of queries: words, phrases, prefixes, OR, exclusions, tag and folder
 * filters. The peer is MiniSearch, the in-memory index the reference vault used, run on the same
 * notes and the same queries (phrases become AND of their words, which MiniSearch cannot do better).
 * Then the notes API (vault_api.ts), live editing (vault_live.ts: Yjs fan-out latency and server
 * memory) and the server's memory serving 10,000 notes for two users (vault_memory.ts) through
 * dist/vault. The table goes to stdout, issue 38's targets last, and every figure to
 * .cache/bench/vault-<timestamp>.json.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import MiniSearch from "minisearch";
import { EMBEDDED_SHARED_BUFFERS, migrate, openDatabase } from "../../internal/db/mod.ts";
import { notesIndex } from "../../server/vault/store/migrations/0002_notes_index.ts";
import { searchChanges } from "../../server/vault/store/migrations/0007_search_changes.ts";
import { linkTargets } from "../../server/vault/store/migrations/0009_link_targets.ts";
import {
  type NoteDocument,
  parseSearchQuery,
  searchNotes,
  type SearchTables,
  upsertNote,
  upsertNotes,
} from "../../server/vault/search/mod.ts";
import type { TextClause } from "../../server/vault/search/parse_search_query.ts";
import { ROOT } from "../../test/harness/binary.ts";
import { postgresAvailable, startPostgres } from "../../test/harness/postgres.ts";
import { memories, rng } from "./data.ts";
import { type LatencySummary, summarize } from "./stats.ts";
import { type ApiResult, runApiBench } from "./vault_api.ts";
import { type LiveResult, runLiveBench } from "./vault_live.ts";
import { type ImportResult, runImportBench } from "./vault_import.ts";
import { type MemoryResult, runMemoryBench } from "./vault_memory.ts";
import { ratio, table } from "./table.ts";

const quick = process.argv.includes("--quick");
const flag = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const PARTS = ["search", "import", "api", "live", "memory"] as const;
const only = new Set(
  flag("only")?.split(",") ??
    PARTS.filter((p) => process.argv.includes(`--only-${p}`)),
);
for (const p of only) {
  if (!(PARTS as readonly string[]).includes(p)) {
    throw new Error(`--only: unknown part ${p} (${PARTS.join(", ")})`);
  }
}
const runs = (part: (typeof PARTS)[number]) => only.size === 0 || only.has(part);
/** dist/vault unless given: another build, for before and after in one sitting. */
const BINARY = flag("binary");
const SIZES = quick ? [100, 1_000] : [1_000, 10_000];
const QUERIES = quick ? 60 : 300;
/** Untimed queries first, so both sides are measured warm (caches filled, code compiled). */
const WARMUP = 30;
const USER = "bench-user";

const started = performance.now();
const log = (msg: string) => console.error(`[${((performance.now() - started) / 1000).toFixed(0)}s] ${msg}`);

// ---- data ----

const PROJECTS = [
  "Atlas",
  "Beacon",
  "Cobalt",
  "Drift",
  "Ember",
  "Falcon",
  "Garnet",
  "Harbor",
  "Iris",
  "Juniper",
];
const KINDS = ["meetings", "design", "runbooks", "journal", "research"];
const TOPIC_TAGS = [
  "retries",
  "pagination",
  "backups",
  "tracing",
  "caching",
  "security",
  "release",
  "oncall",
];

interface BenchNote extends NoteDocument {
  text: string;
}

/** `n` notes, the same for the same seed; about 1.5 KB of prose each, as typical notes are. */
export function generateNotes(n: number, seed = 19): BenchNote[] {
  const next = rng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!;
  const sentences = memories(n * 10, seed);
  const notes: BenchNote[] = [];
  const paths: string[] = [];
  for (let i = 0; i < n; i++) {
    const project = pick(PROJECTS);
    const kind = pick(KINDS);
    const own = sentences.slice(i * 10, i * 10 + 10);
    const title = `${project} ${kind} ${
      own[0]!.split(" ").slice(1, 4).join(" ").replace(/[^\p{L}\p{N} ]/gu, "")
    } ${i}`;
    const path = `${project}/${kind}/${title.replaceAll(" ", "-")}.md`;
    const tags = [
      `project/${project.toLowerCase()}`,
      pick(TOPIC_TAGS),
      ...(next() < 0.3 ? [pick(TOPIC_TAGS)] : []),
    ];
    const links = paths.length === 0 ? [] : Array.from({ length: Math.floor(next() * 4) }, () => pick(paths));
    const body = [
      `# ${title}`,
      "",
      own.slice(1, 5).join(" "),
      "",
      `## Notes`,
      "",
      own.slice(5).join(" "),
      "",
      links.map((l) => `See [[${l.replace(/\.md$/, "")}]].`).join(" "),
      "",
      tags.map((t) => `#${t}`).join(" "),
    ].join("\n");
    const text = `---\ncreated: 2026-01-${String(1 + (i % 28)).padStart(2, "0")}\n---\n${body}`;
    notes.push({
      path,
      title,
      tags,
      body,
      text,
      contentHash: `h${i}`,
      mtime: new Date(Date.UTC(2026, 0, 1) + i * 60_000),
      size: Buffer.byteLength(text),
      links: links.map((target) => ({ target, kind: "wiki" as const })),
    });
    paths.push(path);
  }
  return notes;
}

/** The kinds of query in the mix, in the order generateQueries cycles through them. */
export const QUERY_CLASSES = [
  "word",
  "two words",
  "project + word",
  "phrase",
  "prefix",
  "name + prefix",
  "OR",
  "exclusion",
  "tag + word",
  "folder + word",
  "tag + phrase",
] as const;

/** A fixed mix of what people type into a notes search box. */
export function generateQueries(n: number, seed = 23): string[] {
  const next = rng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!;
  const words = [
    "retries",
    "pagination",
    "backups",
    "tracing",
    "kafka",
    "redis",
    "postgresql",
    "billing",
    "webhook",
    "scheduler",
    "outage",
    "migrations",
    "latency",
    "deprecated",
    "idempotency",
    "connections",
    "staging",
    "review",
    "grafana",
    "terraform",
  ];
  const phrases = [
    "rate limiting",
    "load test",
    "connection pooling",
    "error budgets",
    "feature flags",
    "audit needs",
  ];
  const people = ["Alice", "Bruno", "Chen", "Dana", "Priya", "Omar"];
  const makers: (() => string)[] = [
    () => pick(words),
    () => `${pick(words)} ${pick(words)}`,
    () => `${pick(PROJECTS)} ${pick(words)}`,
    () => `"${pick(phrases)}"`,
    () => `${pick(words).slice(0, 4)}*`,
    () => `${pick(people)} ${pick(words).slice(0, 5)}*`,
    () => `${pick(words)} OR ${pick(words)}`,
    () => `${pick(words)} -${pick(words)}`,
    () => `tag:${pick(TOPIC_TAGS)} ${pick(words)}`,
    () => `folder:${pick(PROJECTS)} ${pick(words)}`,
    () => `tag:project/${pick(PROJECTS).toLowerCase()} "${pick(phrases)}"`,
  ];
  return Array.from({ length: n }, (_, i) => makers[i % makers.length]!());
}

// ---- MiniSearch, the peer ----

interface MiniDoc {
  id: string;
  title: string;
  tags: string;
  body: string;
  folder: string;
}

function buildMini(notes: readonly BenchNote[]): MiniSearch<MiniDoc> {
  const mini = new MiniSearch<MiniDoc>({
    fields: ["title", "tags", "body"],
    storeFields: ["title", "tags", "folder"],
    searchOptions: { boost: { title: 3, tags: 2 } },
  });
  mini.addAll(notes.map((n) => ({
    id: n.path,
    title: n.title,
    tags: n.tags.join(" "),
    body: n.body,
    folder: n.path.slice(0, n.path.lastIndexOf("/")),
  })));
  return mini;
}

/** The same query for MiniSearch: its query tree and a filter for what it has no syntax for. */
function miniSearch(
  mini: MiniSearch<MiniDoc>,
  query: string,
  limit: number,
): { hits: number; total: number } {
  const parsed = parseSearchQuery(query);
  // deno-lint-ignore no-explicit-any
  const clause = (c: TextClause): any => {
    switch (c.type) {
      case "word":
      case "phrase":
        return { queries: [c.text], combineWith: "AND" };
      case "prefix":
        return { queries: [c.words.join(" ")], combineWith: "AND", prefix: true };
      case "any":
        return { queries: c.of.map(clause), combineWith: "OR" };
    }
  };
  const tree = {
    combineWith: "AND_NOT",
    queries: [
      { combineWith: "AND", queries: parsed.include.map(clause) },
      ...parsed.exclude.map(clause),
    ],
  };
  const filter = (r: { tags?: string; folder?: string }) =>
    parsed.tags.every((t) => ` ${String(r.tags).toLowerCase()} `.includes(` ${t}`)) &&
    (parsed.folders.length === 0 ||
      parsed.folders.some((f) => String(r.folder).toLowerCase().startsWith(f)));
  // deno-lint-ignore no-explicit-any
  const results = mini.search(tree as any, { filter: filter as any });
  return { hits: results.slice(0, limit).length, total: results.length };
}

// ---- runs ----

interface Side {
  /** Building the whole index: one batch call (ours) or addAll (MiniSearch). */
  indexMs: number;
  notesPerSecond: number;
  search: LatencySummary;
  /** CPU time of this process per query: the work done, whatever else the machine runs. */
  searchCpu: LatencySummary;
  meanHits: number;
  byClass: Record<string, { p50: number; p95: number; meanTotal: number }>;
}

interface SizeResult {
  notes: number;
  bytes: number;
  /** One upsertNote per note, each its own transaction, as edits arrive: notes per second. */
  singleUpsertsPerSecond: number;
  /** The first search of the owner: builds the in-process index from the rows. */
  firstSearchMs: number;
  ours: Side;
  minisearch: Side;
}

async function timeQueries(
  queries: readonly string[],
  run: (q: string) => Promise<{ hits: number; total: number }> | { hits: number; total: number },
): Promise<Omit<Side, "indexMs" | "notesPerSecond">> {
  for (const q of queries.slice(0, WARMUP)) await run(q);
  const samples: number[] = [];
  const cpu: number[] = [];
  const classes = new Map<string, { ms: number[]; totals: number }>();
  let hits = 0;
  for (const [i, q] of queries.entries()) {
    const c = process.cpuUsage();
    const t = performance.now();
    const r = await run(q);
    const ms = performance.now() - t;
    const used = process.cpuUsage(c);
    samples.push(ms);
    cpu.push((used.user + used.system) / 1000);
    hits += r.hits;
    const name = QUERY_CLASSES[i % QUERY_CLASSES.length]!;
    const k = classes.get(name) ?? { ms: [], totals: 0 };
    k.ms.push(ms);
    k.totals += r.total;
    classes.set(name, k);
  }
  const byClass: Side["byClass"] = {};
  for (const [name, k] of classes) {
    const s = summarize(k.ms);
    byClass[name] = { p50: s.p50, p95: s.p95, meanTotal: Math.round(k.totals / k.ms.length) };
  }
  return {
    search: summarize(samples),
    searchCpu: summarize(cpu),
    meanHits: Math.round((hits / queries.length) * 10) / 10,
    byClass,
  };
}

async function runSize(n: number, queries: readonly string[]): Promise<SizeResult> {
  const notes = generateNotes(n);
  const bytes = notes.reduce((s, x) => s + x.size, 0);
  const dir = await mkdtemp(join(tmpdir(), "bench-vault-"));
  // As the server opens it (server/vault/store/db.ts).
  const database = await openDatabase<SearchTables>({
    dataDir: join(dir, "db"),
    sharedBuffers: EMBEDDED_SHARED_BUFFERS,
  });
  try {
    await migrate(database.db, {
      "0002_notes_index": notesIndex,
      "0007_search_changes": searchChanges,
      "0009_link_targets": linkTargets,
    });
    log(`indexing ${n} notes into PGlite`);
    let t = performance.now();
    await upsertNotes(database.db, USER, notes);
    const indexMs = performance.now() - t;
    // Single upserts as edits arrive: a sample of notes written again with new content.
    const sample = notes.slice(0, Math.min(200, n)).map((x) => ({
      ...x,
      body: `${x.body} edited`,
      contentHash: `e${x.contentHash}`,
    }));
    t = performance.now();
    for (const note of sample) await upsertNote(database.db, USER, note);
    const singleMs = performance.now() - t;
    log(`  ${Math.round(indexMs)} ms; first search (builds the in-process index)`);
    t = performance.now();
    await searchNotes(database.db, { userId: USER }, queries[0]!, { limit: 20 });
    const firstSearchMs = performance.now() - t;
    log(`  ${Math.round(firstSearchMs)} ms; searching`);
    const ours = await timeQueries(queries, async (q) => {
      const page = await searchNotes(database.db, { userId: USER }, q, { limit: 20 });
      return { hits: page.hits.length, total: page.total };
    });

    log(`indexing ${n} notes into MiniSearch`);
    t = performance.now();
    const mini = buildMini(notes);
    const miniMs = performance.now() - t;
    const theirs = await timeQueries(queries, (q) => miniSearch(mini, q, 20));
    return {
      notes: n,
      bytes,
      singleUpsertsPerSecond: Math.round((sample.length / singleMs) * 1000),
      firstSearchMs: Math.round(firstSearchMs),
      ours: { indexMs: Math.round(indexMs), notesPerSecond: Math.round((n / indexMs) * 1000), ...ours },
      minisearch: { indexMs: Math.round(miniMs), notesPerSecond: Math.round((n / miniMs) * 1000), ...theirs },
    };
  } finally {
    await database.close();
    await rm(dir, { recursive: true, force: true });
  }
}

function git(args: string[]): string {
  try {
    return execFileSync("git", args, { cwd: ROOT, encoding: "utf8" }).trim();
  } catch {
    return "unknown";
  }
}

if (import.meta.main) {
  const queries = generateQueries(QUERIES);
  const results = {
    startedAt: new Date().toISOString(),
    quick,
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model,
      memoryGb: Math.round(totalmem() / 2 ** 30),
      loadAverageAtStart: loadavg().map((x) => Math.round(x * 100) / 100),
    },
    commit: git(["rev-parse", "--short", "HEAD"]),
    binary: BINARY ?? "dist/vault",
    queries: queries.length,
    sizes: [] as SizeResult[],
    api: undefined as ApiResult | undefined,
    live: undefined as LiveResult | undefined,
    import: undefined as ImportResult | undefined,
    memory: undefined as MemoryResult | undefined,
    memoryPostgres: undefined as MemoryResult | undefined,
  };
  if (runs("search")) {
    for (const n of SIZES) results.sizes.push(await runSize(n, queries));
  }
  if (runs("import")) {
    // A whole vault through `vault import` (dist/vault serve, embedded database).
    results.import = await runImportBench(generateNotes(SIZES[SIZES.length - 1]!), log, BINARY);
  }
  if (runs("api")) {
    // The notes API through dist/vault: writes/s and the tree of the largest vault.
    const apiNotes = SIZES[SIZES.length - 1]!;
    results.api = await runApiBench(generateNotes(apiNotes), quick ? 100 : 500, log, {
      binary: BINARY,
      concurrentWrites: quick ? 200 : 2_000,
    });
  }
  if (runs("live")) {
    results.live = await runLiveBench(
      { editors: quick ? 10 : 50, idle: quick ? 50 : 500, seconds: quick ? 5 : 20, rate: 20, binary: BINARY },
      log,
    );
  }
  if (runs("memory")) {
    // Two users with half of the largest vault each, seeded apart so their notes differ.
    const half = SIZES[SIZES.length - 1]! / 2;
    const notes = [generateNotes(half, 19), generateNotes(half, 31)];
    results.memory = await runMemoryBench({ notes, queries, binary: BINARY }, log);
    // The same on a PostgreSQL server: the server's own memory without the embedded database's.
    if (postgresAvailable()) {
      const postgres = await startPostgres();
      try {
        log("memory: again on a PostgreSQL server");
        results.memoryPostgres = await runMemoryBench(
          { notes, queries, binary: BINARY, databaseUrl: postgres.url },
          log,
        );
      } finally {
        await postgres.stop();
      }
    }
  }

  if (results.sizes.length) {
    const rows: (string | number)[][] = [];
    for (const s of results.sizes) {
      const label = `${s.notes} notes`;
      const row = (what: string, ours: number, theirs: number) =>
        rows.push([`${what}, ${label}`, ours, theirs, ratio(ours, theirs)]);
      row("index build (notes/s)", s.ours.notesPerSecond, s.minisearch.notesPerSecond);
      rows.push([`single upserts (notes/s), ${label}`, s.singleUpsertsPerSecond, "-", "-"]);
      rows.push([`first search, builds the index (ms), ${label}`, s.firstSearchMs, "-", "-"]);
      row("search p50 (ms)", s.ours.search.p50, s.minisearch.search.p50);
      row("search p95 (ms)", s.ours.search.p95, s.minisearch.search.p95);
      row("search CPU p50 (ms)", s.ours.searchCpu.p50, s.minisearch.searchCpu.p50);
      row("search CPU p95 (ms)", s.ours.searchCpu.p95, s.minisearch.searchCpu.p95);
      row("mean hits on page", s.ours.meanHits, s.minisearch.meanHits);
    }
    console.log(table(["vault search", "ours (PGlite)", "minisearch", "ratio"], rows));
    const largest = results.sizes[results.sizes.length - 1]!;
    console.log(`\nby query kind at ${largest.notes} notes (ours; matches capped at 1000 in our total):`);
    console.log(table(
      ["kind", "p50 ms", "p95 ms", "mean matches", "minisearch p95 ms", "minisearch matches"],
      QUERY_CLASSES.map((k) => [
        k,
        largest.ours.byClass[k]!.p50,
        largest.ours.byClass[k]!.p95,
        largest.ours.byClass[k]!.meanTotal,
        largest.minisearch.byClass[k]!.p95,
        largest.minisearch.byClass[k]!.meanTotal,
      ]),
    ));
    console.log(
      `\np95 at ${largest.notes} notes: ${largest.ours.search.p95} ms wall, ${largest.ours.searchCpu.p95} ms CPU ` +
        `(target <= 20 ms); load average at start ${
          results.machine.loadAverageAtStart.join(" ")
        } on ${results.machine.cpus} CPUs`,
    );
  }
  if (results.api) {
    const api = results.api;
    console.log(`\nnotes API (dist/vault serve, embedded database, ${api.notes} notes):`);
    console.log(table(["what", "figure"], [
      ["note writes/s, one at a time (POST /api/notes)", api.writesPerSecond],
      ["note writes/s, 4 at once", api.writesPerSecond4],
      ["write p50 / p95 (ms)", `${api.write.p50} / ${api.write.p95}`],
      [
        `notes created/s, ${api.concurrent.clients} clients at once (${api.concurrent.notes} notes): acknowledged / searchable`,
        `${api.concurrent.perSecond} / ${api.concurrent.searchablePerSecond}`,
      ],
      [
        `  one create's p50 / p95 (ms) with ${api.concurrent.clients} clients`,
        `${api.concurrent.latency.p50} / ${api.concurrent.latency.p95}`,
      ],
      [
        `tree listing p50 / p95 (ms), ${api.treeEntries} entries, ${Math.round(api.treeBytes / 1024)} KiB`,
        `${api.tree.p50} / ${api.tree.p95}`,
      ],
      [
        `start with ${api.notes - (quick ? 100 : 500)} unindexed notes on disk: serving / first search (ms)`,
        `${api.startReadyMs} / ${api.startCatchUpMs}`,
      ],
    ]));
  }
  const imp = results.import;
  if (imp) {
    console.log(`\nimport (dist/vault import of a folder through dist/vault serve, embedded database):`);
    console.log(table(["what", "figure"], [
      [`import of ${imp.notes} notes (s; target <= 60)`, Math.round(imp.importMs / 100) / 10],
      ["files/s", imp.notesPerSecond],
      [
        `second run, everything unchanged (s)`,
        `${Math.round(imp.rerunMs / 100) / 10} (${imp.rerunUnchanged} unchanged)`,
      ],
      [
        "links resolved / expected / wrong",
        `${imp.links} / ${imp.expectedLinks} / ${imp.wrongLinks}${
          imp.wrongLinks === 0 ? " (every backlink right)" : ""
        }`,
      ],
      ["unresolved links", imp.unresolved],
    ]));
  }
  const live = results.live;
  if (live) {
    console.log(
      `\nlive editing (dist/vault serve, embedded database; ${live.editors} Yjs editors on one note, ` +
        `${live.idleSockets} idle /ws/vault sockets, ${live.edits} inserts at ${live.editsPerSecond}/s):`,
    );
    console.log(table(["what", "figure"], [
      ["update fan-out p50 / p95 / p99 (ms)", `${live.fanOut.p50} / ${live.fanOut.p95} / ${live.fanOut.p99}`],
      ["arrivals measured (inserts x other editors)", live.fanOut.n],
      ["inserts that reached every other editor", `${live.delivered} of ${live.edits}`],
      [
        "server RSS (MB): start / idle sockets / + editors / peak editing",
        Object.values(live.rssMb).join(" / "),
      ],
    ]));
  }
  for (
    const [mem, database] of [[results.memory, "embedded database"], [
      results.memoryPostgres,
      "PostgreSQL",
    ]] as const
  ) {
    if (!mem) continue;
    console.log(
      `\nmemory (dist/vault serve, ${database}, ${mem.notes} notes for ${mem.users} users, ` +
        `${mem.requestsPerUser} requests each, sockets and editors open):`,
    );
    console.log(table(["what", "figure"], [
      [
        "server RSS (MB): ready / indexed / after the work / highest sample / VmHWM",
        Object.values(mem.rssMb).join(" / "),
      ],
      [
        "highest sample (MB) during: the start / the catch-ups / the work",
        Object.values(mem.phasePeakMb).join(" / "),
      ],
      ["at the end: anonymous / file-backed (MB)", `${mem.anonMb} / ${mem.fileMb}`],
      [
        "idle, empty vault / restarted on this data / both indexes built / its VmHWM (MB)",
        Object.values(mem.floorMb).join(" / "),
      ],
    ]));
  }
  const targets = issue38Targets(results);
  if (targets.length) {
    console.log("\nissue 38's targets:");
    console.log(table(["figure", "measured", "target", "met"], targets));
  }
  console.log(`load average now ${loadavg().map((x) => x.toFixed(2)).join(" ")} on ${cpus().length} CPUs`);

  const outDir = join(ROOT, ".cache", "bench");
  mkdirSync(outDir, { recursive: true });
  const outFile = join(outDir, `vault-${results.startedAt.replace(/[:.]/g, "-")}.json`);
  writeFileSync(outFile, JSON.stringify(results, null, 2) + "\n");
  console.log(`figures: ${outFile}`);
}

/** Issue 38 item 4's rows, for the parts that ran: [figure, measured, target, met]. */
function issue38Targets(r: {
  sizes: SizeResult[];
  api?: ApiResult;
  live?: LiveResult;
  memory?: MemoryResult;
  memoryPostgres?: MemoryResult;
}): string[][] {
  const rows: string[][] = [];
  const add = (figure: string, measured: number, target: string, met: boolean, note = "") =>
    rows.push([figure, `${measured}${note}`, target, met ? "yes" : "no"]);
  if (r.api) {
    const c = r.api.concurrent;
    add(`notes created/s, ${c.clients} clients`, c.perSecond, ">= 300", c.perSecond >= 300);
    add(`tree of ${r.api.treeEntries} entries, p95 (ms)`, r.api.tree.p95, "<= 30", r.api.tree.p95 <= 30);
  }
  const at1k = r.sizes.find((s) => s.notes === 1_000);
  if (at1k) {
    const x = Math.round((at1k.ours.search.p95 / at1k.minisearch.search.p95) * 100) / 100;
    add(
      "search p95 at 1,000 notes / minisearch's",
      x,
      "<= 2",
      x <= 2,
      ` (${at1k.ours.search.p95} / ${at1k.minisearch.search.p95} ms)`,
    );
  }
  if (r.live) add("live-edit fan-out p95 (ms)", r.live.fanOut.p95, "<= 25", r.live.fanOut.p95 <= 25);
  for (const [m, database] of [[r.memory, "embedded"], [r.memoryPostgres, "PostgreSQL"]] as const) {
    if (!m) continue;
    add(
      `RSS serving ${m.notes} notes for ${m.users} users, ${database}, VmHWM (MB)`,
      m.rssMb.hwm,
      "<= 300",
      m.rssMb.hwm <= 300,
    );
  }
  return rows;
}
