/**
 * What packing an owner's search index costs in memory (issue 38): 5,000 of the vault bench's notes
 * indexed with the vault's fields (server/vault/search/note_search_index.ts), then packed either in place
 * (`FullTextIndex.pack`, what the vault does) or by `serialize` and `deserialize` (what it did). Each way
 * runs in a child process of its own, so neither inherits the other's garbage. Run with Bun, the runtime
 * of the compiled binaries (its heap figures are JavaScriptCore's `heapStats`):
 *
 *   node_modules/.bin/bun scripts/bench/fulltext_pack.ts            # both ways, side by side
 *   node_modules/.bin/bun scripts/bench/fulltext_pack.ts --notes=10000
 *
 * The pack is synchronous, so RSS read right after it is its high point: the built index, the packed
 * arrays and the garbage made on the way, before any collection.
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { FullTextIndex } from "../../internal/fulltext/mod.ts";
import { table } from "./table.ts";
import { generateNotes } from "./vault.ts";

const FIELDS = {
  title: { weight: 5, phrases: true, tier: 2 },
  tags: { weight: 2, phrases: true, tier: 1 },
  body: { weight: 1, phrases: true },
  keys: { weight: 0, verbatim: true },
};
const WAYS = ["in place", "serialize"] as const;
const flag = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];
const notesWanted = Number(flag("notes") ?? 5_000);

interface Stage {
  rssMb: number;
  /** The collected heap and the array buffers beside it, MB. */
  heapMb: number;
  buffersMb: number;
}

const bun = (globalThis as { Bun?: { gc(sync: boolean): void } }).Bun;
const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
async function stage(collect: boolean): Promise<Stage> {
  if (collect) bun?.gc(true);
  const { heapStats } = await import("bun:jsc");
  const h = heapStats();
  return { rssMb: mb(process.memoryUsage.rss()), heapMb: mb(h.heapSize), buffersMb: mb(h.extraMemorySize) };
}

async function measure(way: (typeof WAYS)[number]) {
  const notes = generateNotes(notesWanted, 19);
  const before = await stage(true);
  let index = new FullTextIndex<number>(FIELDS, { exactWords: true });
  notes.forEach((n, i) =>
    index.add(n.path, {
      title: n.title,
      tags: n.tags.join(" "),
      body: n.body,
      keys: n.tags.map((t) => `t:${t}`),
    }, i)
  );
  const built = await stage(true);
  const t = performance.now();
  if (way === "in place") index.pack();
  else {
    index = FullTextIndex.deserialize(FIELDS, index.serialize((m) => m), (v) => v as number, {
      exactWords: true,
    });
  }
  const packMs = Math.round(performance.now() - t);
  const atPack = await stage(false);
  const packed = await stage(true);
  if (index.size !== notes.length) throw new Error("the packed index lost notes");
  return { before, built, atPack, packed, packMs };
}

if (flag("way")) {
  console.log(JSON.stringify(await measure(flag("way") as (typeof WAYS)[number])));
} else {
  if (!bun) throw new Error("run with Bun: node_modules/.bin/bun scripts/bench/fulltext_pack.ts");
  const results = WAYS.map((way) =>
    JSON.parse(
      execFileSync(process.execPath, [
        fileURLToPath(import.meta.url),
        `--way=${way}`,
        `--notes=${notesWanted}`,
      ], {
        encoding: "utf8",
      }),
    ) as Awaited<ReturnType<typeof measure>>
  );
  const row = (what: string, pick: (r: (typeof results)[number]) => string | number) => [
    what,
    ...results.map(pick),
  ];
  const mem = (s: Stage) => `${s.rssMb} (${s.heapMb} + ${s.buffersMb})`;
  console.log(`${notesWanted} notes, the vault's fields; RSS MB (heap + array buffers, MB)`);
  console.log(table(["", ...WAYS], [
    row("before indexing", (r) => mem(r.before)),
    row("built", (r) => mem(r.built)),
    row("right after packing, before a collection", (r) => mem(r.atPack)),
    row("packed", (r) => mem(r.packed)),
    row("packing (ms)", (r) => r.packMs),
  ]));
}
