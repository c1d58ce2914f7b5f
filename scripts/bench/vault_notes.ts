/**
 * `deno task bench:vault-notes`: the vault's note storage library (server/vault/notes) on its own,
 * no HTTP, on this machine's disk, against the plain primitives it is built from.
 *
 *   deno task bench:vault-notes                 # 10,000 notes, 1,000 updates, 15 tree listings
 *   deno task bench:vault-notes --quick         # a tenth of each
 *
 * Phases, one user, in a fresh temporary data dir:
 * - create: N notes (100 folders, ~1 KB each, 5 wiki links and 2 tags each) through `NoteStore.create`
 *   (path checks, temp file + fsync + rename + directory fsync, index update), one at a time;
 *   peer: the same bytes written with plain `fs.writeFile` (no temp file, no fsync) into another dir.
 * - update: read + `update(..., {ifVersion})` of random notes; peer: plain `fs.writeFile`.
 * - tree: `NoteStore.tree` of the N notes (kinds, sizes, mtimes; and with `stats: false`); peers: `fs.readdir({recursive})` +
 *   `stat` of every file, and GNU `find -printf` (a child process, so it includes a spawn).
 * - index: building the link/tag index from disk in a new store (reads and parses every note).
 * - backlinks: `NoteIndex.backlinks` of random notes.
 * - rename: moving the most-linked note, rewriting every note that links to it.
 * Prints a table; writes every figure to .cache/bench/vault-notes-<timestamp>.json.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { NoteStore } from "../../server/vault/notes/note_store.ts";
import { type LatencySummary, summarize } from "./stats.ts";
import { ratio, table } from "./table.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const quick = process.argv.includes("--quick");
const NOTES = quick ? 1_000 : 10_000;
const UPDATES = quick ? 100 : 1_000;
const TREE_RUNS = quick ? 5 : 15;
const BACKLINK_QUERIES = 1_000;
const FOLDERS = 100;
const USER = "bench";

// A fixed-seed generator so every run writes the same vault.
let seed = 42;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;
const WORDS =
  "note plan idea vault link graph search daily canvas template folder tag index backlink draft review"
    .split(" ");

const pathOf = (i: number) => `Folder ${String(i % FOLDERS).padStart(3, "0")}/Note ${i}.md`;
function noteText(i: number, n: number, salt = ""): string {
  const links = Array.from({ length: 5 }, () => `[[Note ${Math.floor(rand() * n)}]]`).join(" ");
  const body = Array.from({ length: 120 }, () => pick(WORDS)).join(" ");
  return `---\ntags: [${pick(WORDS)}]\n---\n# Note ${i}${salt}\n\n${body}\n\nSee ${links} #${pick(WORDS)}\n`;
}

async function timeEach(
  n: number,
  fn: (i: number) => Promise<unknown>,
): Promise<{ lat: LatencySummary; perSec: number }> {
  const samples: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const s = performance.now();
    await fn(i);
    samples.push(performance.now() - s);
  }
  return { lat: summarize(samples), perSec: Math.round(n / ((performance.now() - t0) / 1000)) };
}

async function plainTree(root: string) {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return await Promise.all(entries.map(async (d) => {
    const abs = join(d.parentPath, d.name);
    const st = await stat(abs);
    return { path: abs.slice(root.length + 1), dir: d.isDirectory(), size: st.size, mtime: st.mtime };
  }));
}

const progress = (s: string) => process.stderr.write(s + "\n");
const dataDir = await mkdtemp(join(tmpdir(), "bench-vault-notes-"));
const plainDir = join(dataDir, "plain");
const results: Record<string, unknown> = {
  notes: NOTES,
  machine: { cpus: cpus().length, loadAverageAtStart: loadavg().map((x) => Math.round(x * 100) / 100) },
};
try {
  const store = new NoteStore({ dataDir });
  await store.index(USER);
  const userRoot = await store.userRoot(USER);

  progress(`create ${NOTES} notes ...`);
  const texts = Array.from({ length: NOTES }, (_, i) => noteText(i, NOTES));
  const create = await timeEach(NOTES, (i) => store.create(USER, pathOf(i), texts[i]!));
  for (let f = 0; f < FOLDERS; f++) {
    await mkdir(join(plainDir, `Folder ${String(f).padStart(3, "0")}`), { recursive: true });
  }
  const plainCreate = await timeEach(NOTES, (i) => writeFile(join(plainDir, pathOf(i)), texts[i]!));

  progress(`update ${UPDATES} notes ...`);
  const update = await timeEach(UPDATES, async (i) => {
    const p = pathOf(Math.floor(rand() * NOTES));
    const cur = await store.read(USER, p);
    await store.update(USER, p, noteText(i, NOTES, ` v${i}`), { ifVersion: cur.version });
  });
  const plainUpdate = await timeEach(
    UPDATES,
    (i) => writeFile(join(plainDir, pathOf(Math.floor(rand() * NOTES))), noteText(i, NOTES, ` v${i}`)),
  );

  progress(`tree x${TREE_RUNS} ...`);
  let treeCount = 0;
  const tree = await timeEach(TREE_RUNS, async () => (treeCount = (await store.tree(USER)).length));
  const treeBare = await timeEach(TREE_RUNS, () => store.tree(USER, { stats: false }));
  let plainCount = 0;
  const plain = await timeEach(TREE_RUNS, async () => (plainCount = (await plainTree(userRoot)).length));
  let findCount = 0;
  const find = await timeEach(TREE_RUNS, () => {
    const out = execFileSync("find", [
      userRoot,
      "-mindepth",
      "1",
      "-not",
      "-path",
      "*/.*",
      "-printf",
      "%y %s %T@ %P\n",
    ], {
      maxBuffer: 64 * 1024 * 1024,
    });
    findCount = out.toString().trimEnd().split("\n").length;
    return Promise.resolve();
  });
  if (treeCount !== NOTES + FOLDERS || plainCount !== treeCount || findCount !== treeCount) {
    throw new Error(`listings disagree: store ${treeCount}, readdir ${plainCount}, find ${findCount}`);
  }

  progress("index build ...");
  const cold = new NoteStore({ dataDir });
  const t0 = performance.now();
  const idx = await cold.index(USER);
  const indexMs = Math.round(performance.now() - t0);

  progress("backlinks ...");
  const backlinks = await timeEach(
    BACKLINK_QUERIES,
    () => Promise.resolve(idx.backlinks(pathOf(Math.floor(rand() * NOTES)))),
  );

  progress("rename ...");
  let most = { path: pathOf(0), n: 0 };
  for (let i = 0; i < NOTES; i += 97) {
    const n = idx.backlinks(pathOf(i)).length;
    if (n > most.n) most = { path: pathOf(i), n };
  }
  const r0 = performance.now();
  const renamed = await cold.rename(USER, most.path, "Moved/Most Linked.md");
  const renameMs = Math.round(performance.now() - r0);

  Object.assign(results, {
    create: { store: create, plainWriteFile: plainCreate },
    update: { store: update, plainWriteFile: plainUpdate },
    tree: {
      entries: treeCount,
      store: tree.lat,
      storeWithoutStats: treeBare.lat,
      readdirStat: plain.lat,
      find: find.lat,
    },
    indexBuildMs: indexMs,
    backlinks: backlinks.lat,
    rename: { backlinks: most.n, rewritten: renamed.rewritten.length, ms: renameMs },
  });
  results.machine = {
    ...(results.machine as object),
    loadAverageAtEnd: loadavg().map((x) => Math.round(x * 100) / 100),
  };

  const row = (
    name: string,
    l: LatencySummary,
    perSec: number | string,
    peer?: LatencySummary,
    peerName = "",
  ) => [
    name,
    l.p50,
    l.p95,
    perSec,
    peer ? `${peerName} ${peer.p50}/${peer.p95}` : "-",
    peer ? ratio(l.p50, peer.p50) : "-",
  ];
  console.log(table(["operation", "p50 ms", "p95 ms", "ops/s", "peer p50/p95 ms", "ratio p50"], [
    row(`create (${NOTES})`, create.lat, create.perSec, plainCreate.lat, "writeFile"),
    row(`read+update (${UPDATES})`, update.lat, update.perSec, plainUpdate.lat, "writeFile"),
    row(`tree of ${treeCount}`, tree.lat, "-", plain.lat, "readdir+stat"),
    row(`tree of ${treeCount}`, tree.lat, "-", find.lat, "find"),
    row(`tree, no stats`, treeBare.lat, "-", plain.lat, "readdir+stat"),
    row(`backlinks (${BACKLINK_QUERIES})`, backlinks.lat, backlinks.perSec),
  ]));
  console.log(`\nindex build from disk: ${indexMs} ms for ${NOTES} notes`);
  console.log(
    `rename of a note with ${most.n} backlinks: ${renameMs} ms, ${renamed.rewritten.length} notes rewritten`,
  );
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
const outDir = join(ROOT, ".cache", "bench");
mkdirSync(outDir, { recursive: true });
const outFile = join(outDir, `vault-notes-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
writeFileSync(outFile, JSON.stringify(results, null, 2) + "\n");
console.log(`\nresults: ${outFile}`);
