/**
 * The keyword index alone (internal/fulltext), in process: build time, memory and top-k latency at
 * 10k and 100k of the benchmark's generated memories, with MaxScore pruning and, for comparison,
 * scoring every match; and its snapshot (serialize / deserialize: size and time, what a restart
 * loads instead of building). No server, no database: what the keyword tier itself costs.
 *
 *   deno run -A scripts/bench/fulltext.ts
 *   node_modules/.bin/bun scripts/bench/fulltext.ts    # the runtime of the compiled binaries
 */
import { FullTextIndex, parseQuery } from "../../internal/fulltext/mod.ts";
import { memories, queries } from "./data.ts";
import { summarize } from "./stats.ts";
import { table } from "./table.ts";

const QUERIES = queries(200, 11).map(parseQuery);
const FIELDS = {
  content: { weight: 1, phrases: true },
  context: { weight: 0.5, excludable: false },
  tags: { weight: 0.3 },
};
const rows: (string | number)[][] = [];
for (const size of [10_000, 100_000]) {
  const texts = memories(size, 7);
  const index = new FullTextIndex<string>(FIELDS);
  const rss = process.memoryUsage().rss;
  const t = performance.now();
  texts.forEach((content, i) => index.add(`m${i}`, { content, tags: "observation" }, "scope"));
  const buildMs = Math.round(performance.now() - t);
  const grownMb = Math.round((process.memoryUsage().rss - rss) / 2 ** 20);
  const time = (k: number, n = QUERIES.length) => {
    const samples: number[] = [];
    for (const q of QUERIES.slice(0, n)) {
      const s = performance.now();
      index.search(q, k, (scope) => scope === "scope");
      samples.push(performance.now() - s);
    }
    return summarize(samples);
  };
  time(30, 20); // warm-up
  const pruned = time(30);
  const every = time(Number.MAX_SAFE_INTEGER, 50);
  let at = performance.now();
  const bytes = index.serialize((m) => m);
  const saveMs = Math.round(performance.now() - at);
  at = performance.now();
  const loaded = FullTextIndex.deserialize(FIELDS, bytes, (m) => m as string);
  const loadMs = Math.round(performance.now() - at);
  if (loaded.size !== index.size) throw new Error("snapshot lost documents");
  rows.push([
    size,
    buildMs,
    grownMb,
    pruned.p50,
    pruned.p95,
    every.p50,
    every.p95,
    (bytes.length / 2 ** 20).toFixed(1),
    saveMs,
    loadMs,
  ]);
}
console.log(table(
  [
    "docs",
    "build ms",
    "RSS growth MB",
    "top-30 p50",
    "top-30 p95",
    "all matches p50",
    "all matches p95",
    "snapshot MB",
    "save ms",
    "load ms",
  ],
  rows,
));
