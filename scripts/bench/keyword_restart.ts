/**
 * The keyword tier's share of a restart at 100k entries, in process on the embedded database (no
 * HTTP, no vector tier): what the first search costs with and without the keyword snapshot, and the
 * resident set after it. Rows are bulk-inserted (no `memsvc import`), so it runs in minutes.
 *
 *   node_modules/.bin/bun scripts/bench/keyword_restart.ts prepare /tmp/kw-100k   # insert, build, save
 *   node_modules/.bin/bun scripts/bench/keyword_restart.ts restart /tmp/kw-100k   # fresh process: load
 *   node_modules/.bin/bun scripts/bench/keyword_restart.ts rebuild /tmp/kw-100k   # fresh process: no file
 *   PARTITION='u:<user id>|search' node_modules/.bin/bun scripts/bench/keyword_restart.ts save /tmp/kw
 *     # a kept `bench:memsvc` data dir moved to /tmp/kw/data: build from its rows and save, then `restart`
 *
 * Each prints one JSON line (`restart`: the load's wall and CPU ms too). Run `restart` and `rebuild` as
 * separate processes so RSS is theirs alone.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { parseQuery } from "../../internal/fulltext/mod.ts";
import { KeywordIndex } from "../../server/memsvc/memory/keyword_index.ts";
import { KEYWORD_SNAPSHOT_FILE } from "../../server/memsvc/memory/keyword_snapshot.ts";
import { openMemsvcStore } from "../../server/memsvc/store/db.ts";
import { memories, queries } from "./data.ts";
import { summarize } from "./stats.ts";

const [mode, dir] = process.argv.slice(2);
if (!dir || !["prepare", "restart", "rebuild", "save"].includes(mode ?? "")) {
  throw new Error("usage: keyword_restart.ts prepare|restart|rebuild|save <dir>");
}
const SIZE = Number(process.env.SIZE ?? 100_000);
/** The searched partition; PARTITION=<key> for a data dir made otherwise (a kept `bench:memsvc` dir). */
const PARTITION = process.env.PARTITION ?? "u:bench|default";
const file = join(dir, KEYWORD_SNAPSHOT_FILE);
const rssMb = () => Math.round(process.memoryUsage().rss / 2 ** 20);

const { database, instanceId } = await openMemsvcStore({ dataDir: join(dir, "data") });
const db = database.db;
const qs = queries(200, 11).map(parseQuery);
const out: Record<string, unknown> = { mode, size: SIZE, rssAtOpenMb: rssMb() };
try {
  if (mode === "prepare") {
    await db.insertInto("user").values({
      id: "bench",
      name: "bench",
      email: "bench@example.test",
      emailVerified: false,
    })
      .execute();
    const texts = memories(SIZE, 7);
    for (let i = 0; i < texts.length; i += 1_000) {
      await db.insertInto("memory_entries").values(
        texts.slice(i, i + 1_000).map((content, j) => ({
          id: `m_${(i + j).toString(16).padStart(24, "0")}`,
          user_id: "bench",
          project_id: null,
          namespace: "default",
          content,
          content_hash: createHash("sha256").update(content).digest("hex"),
        })),
      ).execute();
    }
  }
  const index = new KeywordIndex(db);
  const bun = (globalThis as { Bun?: { gc(full: boolean): void } }).Bun;
  bun?.gc(true);
  out.rssBeforeLoadMb = rssMb();
  const t = performance.now();
  const cpu = process.cpuUsage();
  if (mode === "restart") {
    out.loaded = await index.load(file, instanceId);
    out.loadMs = Math.round(performance.now() - t);
    const used = process.cpuUsage(cpu);
    out.loadCpuMs = Math.round((used.user + used.system) / 1000);
    out.rssAfterLoadMb = rssMb();
    // What the loaded index keeps, without the load's garbage (Bun: a full collection first).
    if (bun) {
      bun.gc(true);
      out.rssAfterLoadCollectedMb = rssMb();
    }
  }
  await index.sync();
  index.search(qs[0]!, new Set([PARTITION]), 30);
  out.firstSearchMs = Math.round(performance.now() - t);
  const samples = qs.map((q) => {
    const s = performance.now();
    index.search(q, new Set([PARTITION]), 30);
    return performance.now() - s;
  });
  out.searchP95Ms = summarize(samples).p95;
  out.entries = index.size;
  out.rssAfterSearchesMb = rssMb();
  if (mode === "prepare" || mode === "save") {
    const s = performance.now();
    await index.save(file, instanceId);
    out.saveMs = Math.round(performance.now() - s);
  }
} finally {
  await database.close();
}
console.log(JSON.stringify(out));
