/**
 * What the embedded database alone keeps resident, in a bare Bun process: PGlite opened on a memsvc
 * data directory with memsvc's shared_buffers, then 200 fetches of 10 entries by id (what a search's
 * row reads do), then a full collection. No memsvc code runs, so the figures are the floor under
 * the "RSS after start and searches" row of `bench:memsvc` (docs/benchmarks.md, issue 25).
 *
 *   node_modules/.bin/bun scripts/bench/pglite_floor.ts <a copy of a memsvc data dir>
 *
 * Run it on a copy: opening the database may write to it.
 */
import { createPGlite } from "../../internal/db/create_pglite.ts";
import { collectGarbage } from "../../internal/platform/mod.ts";
import { EMBEDDED_SHARED_BUFFERS } from "../../internal/db/mod.ts";
import { procMemory } from "./proc_stat.ts";

const dir = process.argv[2];
if (!dir) throw new Error("usage: pglite_floor.ts <memsvc data dir>");

/** This process's resident memory, whole MB. */
function memory() {
  const m = procMemory("self");
  return {
    rss: Math.round(m.rssMb),
    anon: Math.round(m.anonMb),
    file: Math.round(m.fileMb),
    peak: Math.round(m.peakMb),
  };
}

const rows: Record<string, ReturnType<typeof memory>> = { "bare runtime": memory() };
const pg = await createPGlite(dir, () => undefined, { sharedBuffers: EMBEDDED_SHARED_BUFFERS });
collectGarbage();
rows[`PGlite open (shared_buffers ${EMBEDDED_SHARED_BUFFERS})`] = memory();
const ids = (await pg.query<{ id: string }>("select id from memory_entries limit 2000")).rows.map((r) =>
  r.id
);
for (let i = 0; i < ids.length; i += 10) {
  await pg.query("select * from memory_entries where id = any($1)", [ids.slice(i, i + 10)]);
}
collectGarbage();
rows[`after ${Math.ceil(ids.length / 10)} fetches of 10 entries, collected`] = memory();
await pg.close();
console.table(rows);
