/**
 * The memsvc benchmark's report (memsvc.ts): the tables of a run's figures, and issue 25's and issue 40's
 * targets beside what was measured.
 */
import type { LatencySummary, LoadResult } from "./stats.ts";
import type { RecallFigures } from "./recall.ts";
import { embedderTable } from "./embedders.ts";
import { recallTable, setsTable } from "./recall.ts";
import { ratio, table } from "./table.ts";

export const MODES = ["hybrid", "keyword", "vector"] as const;
export type Mode = (typeof MODES)[number];

/** CPU per write of the server, the bench itself and, given `postgresCpu`, a PostgreSQL cluster's processes. */
export type WriteRow = LoadResult & {
  serverCpuMsPerWrite?: number;
  clientCpuMsPerWrite?: number;
  postgresCpuMsPerWrite?: number;
};

/** How the run was made: the report's row labels say it. */
export interface ReportRun {
  quick: boolean;
  sizes: { write: number; search: readonly [number, number, number] };
  concurrency: readonly number[];
  modes: readonly Mode[];
  peerMax: number;
  writeClient: string;
}

// deno-lint-ignore no-explicit-any
export function report(r: any, run: ReportRun): string {
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
  const [s1, s2, s3] = run.sizes.search;
  const ew = r.embedded.write;
  const es = r.embedded.search;
  const searched = run.sizes.search.filter((n) => es[n]);
  const sections: string[] = [
    `memsvc benchmark — ${r.startedAt}, commit ${r.commit}, ${r.machine.cpus} CPUs, load ${
      r.machine.loadAverageAtStart.join(" ")
    } at start, ${r.machine.loadAverageAtEnd.join(" ")} at the end${
      run.quick ? " (QUICK: a tenth of the sizes)" : ""
    }; wall ${r.wallSeconds} s; phases ${r.phases.join(",")}${
      r.warmSearches ? `; ${r.warmSearches} untimed searches before each size's search rows` : ""
    }`,
    "",
    "Issue 25's figures (embedded database unless named; n/a: phase not run)",
    targetsTable(r, run),
  ];
  const section = (title: string, body: string) => sections.push("", title, body);
  const writeRows = [
    ...(ew ? run.concurrency.map((c) => [`embedded c=${c}`, ...w(ew[`c${c}`])]) : []),
    ...(r.postgres ? run.concurrency.map((c) => [`postgres c=${c}`, ...w(r.postgres.write[`c${c}`])]) : []),
    ...(sm ? [[`server-memory c=1 (${s1})`, ...w(sm.write.c1)]] : []),
    ...(m0
      ? [["mem0 c=1 (in-process)", ...w(m0.write.c1)], ["mem0 c=32 (in-process)", ...w(m0.write.c32)]]
      : []),
  ];
  if (writeRows.length) {
    section(
      "Write path: POST /v1/remember, " + run.sizes.write +
        " entries per row (ms; writes/s; above c=1 through " +
        (run.writeClient === "fetch" ? "fetch)" : "kept-alive connections)"),
      table(
        ["", "writes/s", "p50", "p95", "p99", "server CPU/write", "bench CPU/write", "PG CPU/write"],
        writeRows,
      ),
    );
  }
  const searchRows = [
    ...searched.flatMap((n) =>
      run.modes.map((m) => [`${n} ${m}`, ...l(es[n][m]), es[n][m].serverCpuMs ?? ""])
    ),
    ...(sm
      ? [
        [`server-memory ${s1} search_nodes`, ...l(sm.search[s1])],
        [`server-memory ${run.peerMax} search_nodes`, ...l(sm.search[run.peerMax])],
      ]
      : []),
    ...(m0
      ? [[`mem0 ${s1} (in-process)`, ...l(m0.search[s1])], [
        `mem0 ${run.peerMax} (in-process)`,
        ...l(m0.search[run.peerMax]),
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
        ...run.modes.map((m) => [`memsvc ${m}`, r.recall.memsvc[m]]),
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
          ratio(es[s2!].hybrid.p50, sm.search[run.peerMax].p50),
          ratio(es[s2!].hybrid.p50, m0.search[run.peerMax].p50),
        ],
        [
          `search p95 at ${s2} (hybrid)`,
          ratio(es[s2!].hybrid.p95, sm.search[run.peerMax].p95),
          ratio(es[s2!].hybrid.p95, m0.search[run.peerMax].p95),
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
    "Not measured: server-memory and mem0 beyond " + run.peerMax +
      " entries (server-memory rewrites its whole file",
    "per call, mem0's local vector store scans every vector per query in JavaScript); server-memory writes",
    "beyond " + s1 +
      " one at a time (the rest are loaded 500 per call); PostgreSQL search (same SQL and index).",
  );
  return sections.join("\n");
}

/** Every row of issue 25's table, with its target; "n/a" where the phase that measures it did not run. */
// deno-lint-ignore no-explicit-any
function targetsTable(r: any, run: ReportRun): string {
  const [s1, s2, s3] = run.sizes.search;
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
