/**
 * The keyword index alone (internal/fulltext), in process: build time, memory and top-k latency at
 * 10k and 100k of the benchmark's generated memories, with MaxScore pruning and, for comparison,
 * scoring every match. No server, no database: what the keyword tier's ranking itself costs.
 *
 *   deno run -A scripts/bench/fulltext.ts
 */
import { FullTextIndex, parseQuery } from "../../internal/fulltext/mod.ts";
import { memories, queries } from "./data.ts";
import { summarize } from "./stats.ts";
import { table } from "./table.ts";

const QUERIES = queries(200, 11).map(parseQuery);
const rows: (string | number)[][] = [];
for (const size of [10_000, 100_000]) {
  const texts = memories(size, 7);
  const index = new FullTextIndex<string>({
    content: { weight: 1, phrases: true },
    context: { weight: 0.5, excludable: false },
    tags: { weight: 0.3 },
  });
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
  rows.push([size, buildMs, grownMb, pruned.p50, pruned.p95, every.p50, every.p95]);
}
console.log(table(
  ["docs", "build ms", "RSS growth MB", "top-30 p50", "top-30 p95", "all matches p50", "all matches p95"],
  rows,
));
