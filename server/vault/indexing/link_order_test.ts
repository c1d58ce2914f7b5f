/**
 * Property test of issue 38: whatever the order of creates, updates, renames, moves, deletes,
 * restores and edits made on disk, the backlinks, unresolved links and graph the database holds
 * equal a fresh index of the final files. Each seed generates a vault (hundreds of notes, the same
 * names in different folders, links to notes that do not exist yet or never will, headings,
 * aliases, embeds, Markdown links, attachments), writes it in a random order with the other
 * operations interleaved, through two replicas that share the files and the database (each told
 * of the other's writes the way its file watcher would be), then compares the database with a fresh
 * database indexed from the files by the start-up catch-up, and with the notes library's in-memory
 * index built from the files. On the embedded database and on PostgreSQL 15.
 *
 * Knobs: VAULT_LINK_SEEDS (seeds per database, default 2), VAULT_LINK_SEED (the first, default 1:
 * a failure names its seed, rerun it alone with VAULT_LINK_SEEDS=1 VAULT_LINK_SEED=<seed>),
 * VAULT_LINK_NOTES (notes per vault, default 200).
 */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rename as fsRename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, posix } from "node:path";
import { after, before, describe, test } from "node:test";
import { removeDataDirs } from "../../../internal/db/_test_data_dir.ts";
import type { Database } from "../../../internal/db/mod.ts";
import { type PostgresServer, startPostgres } from "../../../test/harness/postgres.ts";
import { NoteError, NoteIndex, NoteStore } from "../notes/mod.ts";
import { openSearchDb } from "../search/_test_search_db.ts";
import { backlinks, linkGraph, type SearchTables, unresolvedLinks } from "../search/mod.ts";
import { IndexSync } from "./index_sync.ts";

const SEEDS = Number(process.env.VAULT_LINK_SEEDS ?? 2);
const FIRST_SEED = Number(process.env.VAULT_LINK_SEED ?? 1);
const NOTES = Number(process.env.VAULT_LINK_NOTES ?? 200);
const USER = "u1";

const FOLDERS = ["", "Projects", "Projects/Atlas", "People", "Archive/2024", "Daily notes"];
/** Names several folders share. */
const SHARED_NAMES = ["Index", "Plan", "Roadmap", "Alice", "Meeting notes", "Ideas"];
/** Names no note has at first (a rename may give them one). */
const GHOSTS = ["Ghost", "Someday list"];
const PNG = new Uint8Array([
  0x89,
  0x50,
  0x4e,
  0x47,
  0x0d,
  0x0a,
  0x1a,
  0x0a,
  0,
  0,
  0,
  0x0d,
  0x49,
  0x48,
  0x44,
  0x52,
]);

/** mulberry32: small, seeded, the same sequence on every runtime. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  return { next, int, pick };
}
type Rng = ReturnType<typeof rng>;

const join2 = (folder: string, name: string) => (folder ? `${folder}/${name}` : name);
const stem = (path: string) => posix.basename(path).replace(/\.md$/, "");
const enc = (p: string) => p.split("/").map(encodeURIComponent).join("/");

/** A link to `target` (a note or attachment path that may not exist) in one of the ways people write them. */
function linkTo(r: Rng, from: string, target: string): string {
  const isNote = target.endsWith(".md");
  const name = isNote ? stem(target) : posix.basename(target);
  const full = isNote ? target.slice(0, -3) : target;
  const rel = posix.relative(posix.dirname(from), target);
  switch (r.int(isNote ? 12 : 4)) {
    case 0:
      return `![[${name}]]`;
    case 1:
      return `![](${enc(rel)})`;
    case 2:
      return `[[${full}]]`;
    case 3:
      return `[${name}](${enc(rel)})`;
    case 4:
      return `[[${name}#Heading two]]`;
    case 5:
      return `[[${name}|an alias]]`;
    case 6:
      return `[[${name}#Heading two|both]]`;
    case 7:
      return `[[${name.toLowerCase()}]]`;
    case 8:
      return `[see](<${name}.md>)`; // Obsidian's shortest form as a Markdown link
    case 9:
      return `[see](${enc(name)}.md#Heading%20two)`;
    case 10:
      return `[[${name}.md]]`;
    default:
      return `[[${name}]]`;
  }
}

function noteText(r: Rng, path: string, targets: readonly string[]): string {
  const links = Array.from({ length: 1 + r.int(5) }, () => linkTo(r, path, r.pick(targets)));
  const ghost = r.next() < 0.3 ? ` and [[${r.pick(GHOSTS)}]]` : "";
  return [
    "---",
    `aliases: [${stem(path)} alias, ${r.pick(SHARED_NAMES)}]`,
    "tags: [test]",
    "---",
    `# ${stem(path)}`,
    "",
    `Some text ${links.slice(0, 2).join(" ")}${ghost}.`,
    "",
    "## Heading two",
    "",
    ...links.slice(2).map((l) => `- ${l}`),
    `- [[#Heading two]] and \`[[${r.pick(SHARED_NAMES)}]]\` in code`,
    "```",
    `[[${r.pick(GHOSTS)}]]`,
    "```",
    "",
  ].join("\n");
}

/** The vault to write: note paths (shared names in several folders) and attachments. */
function plan(r: Rng) {
  const notes = new Set<string>();
  while (notes.size < NOTES) {
    const name = r.next() < 0.35 ? r.pick(SHARED_NAMES) : `Note ${notes.size} ${r.int(1000)}`;
    notes.add(join2(r.pick(FOLDERS), `${name}.md`));
  }
  const attachments = new Set<string>();
  while (attachments.size < 6) attachments.add(join2(r.pick(FOLDERS), r.pick(["diagram.png", "photo.png"])));
  return { notes: [...notes], attachments: [...attachments] };
}

/** One replica: its own note store (with its own in-memory index) and index sync, sharing files and database. */
interface Replica {
  store: NoteStore;
  sync: IndexSync;
}

function replica(dataDir: string, db: Database<SearchTables>["db"]): Replica {
  const box: { sync?: IndexSync } = {};
  const store = new NoteStore({ dataDir, onChange: (c) => box.sync!.handle(c) });
  box.sync = new IndexSync(db, store);
  return { store, sync: box.sync };
}

/** What the database says about the vault's links: every file's backlinks, the unresolved links, the graph. */
async function linkState(db: Database<SearchTables>["db"], files: readonly string[]) {
  const back: Record<string, string[]> = {};
  for (const f of files) {
    const b = await backlinks(db, USER, f);
    if (b.length) back[f] = b.map((x) => `${x.path} ${x.kind}`);
  }
  return { backlinks: back, unresolved: await unresolvedLinks(db, USER), graph: await linkGraph(db, USER) };
}

/** The same, from the notes library's in-memory index of the files (source -> target edges and unresolved pairs). */
async function memoryState(dataDir: string) {
  const idx: NoteIndex = await new NoteStore({ dataDir }).index(USER);
  const edges = new Set<string>();
  const unresolved = new Set<string>();
  for (const [source] of idx.notes()) {
    for (const { link, resolved } of idx.outgoing(source)) {
      if (resolved) {
        if (resolved !== source) edges.add(`${source} > ${resolved}`);
      } else if (link.target.replace(/^\/+/, "")) unresolved.add(`${source} > ${link.target}`);
    }
  }
  return { edges: [...edges].sort(), unresolved: [...unresolved].sort() };
}

async function runSeed(
  seed: number,
  open: () => Promise<[Database<SearchTables>, Database<SearchTables>]>,
  openFresh: () => Promise<Database<SearchTables>>,
) {
  const r = rng(seed);
  const { notes, attachments } = plan(r);
  const dataDir = await mkdtemp(join(tmpdir(), "vault-links-"));
  const [dbA, dbB] = await open();
  const log: string[] = [];
  const replicas = [replica(dataDir, dbA.db), replica(dataDir, dbB.db)];
  try {
    const root = join(dataDir, "users", USER);
    const targets = [...notes, ...attachments, ...GHOSTS.map((g) => `${g}.md`)];
    const trash: { id: string; path: string }[] = [];
    const order = [...notes].sort(() => r.next() - 0.5);
    const current = async () =>
      (await replicas[0]!.store.tree(USER, { stats: false })).filter((e) => e.kind !== "folder").map((e) =>
        e.path
      );

    /**
     * Runs one operation on a replica, then tells the other what changed on disk, as its watcher
     * would: the paths named, and the notes a move rewrote.
     */
    const step = async (what: string, paths: string[], fn: (s: NoteStore) => Promise<unknown>) => {
      const [me, other] = r.next() < 0.5 ? replicas : [replicas[1]!, replicas[0]!];
      log.push(`${me === replicas[0] ? "A" : "B"} ${what}`);
      if (process.env.VAULT_LINK_DEBUG) console.error(log.at(-1));
      let result: unknown;
      try {
        result = await fn(me!.store);
      } catch (err) {
        if (!(err instanceof NoteError)) throw err;
        log.push(`  refused: ${err.code}`);
        return;
      }
      const rewritten = (result as { rewritten?: string[] } | undefined)?.rewritten ?? [];
      for (const p of [...paths, ...rewritten]) await other!.store.applyDiskChange(USER, p);
    };

    while (order.length) {
      const path = order.pop()!;
      await step(`create ${path}`, [path], (s) => s.create(USER, path, noteText(r, path, targets)));
      if (r.next() > 0.45) continue;
      const files = await current();
      const mds = files.filter((f) => f.endsWith(".md"));
      if (mds.length === 0) continue;
      const some = r.pick(mds);
      switch (r.int(11)) {
        case 0:
        case 1: {
          await step(`update ${some}`, [some], (s) => s.update(USER, some, noteText(r, some, targets)));
          break;
        }
        case 2: {
          const to = join2(
            posix.dirname(some) === "." ? "" : posix.dirname(some),
            `${r.pick([...SHARED_NAMES, ...GHOSTS])}.md`,
          );
          await step(`rename ${some} -> ${to}`, [some, to], (s) => s.rename(USER, some, to));
          break;
        }
        case 3: {
          const to = join2(r.pick(FOLDERS), posix.basename(some));
          await step(`move ${some} -> ${to}`, [some, to], (s) => s.rename(USER, some, to));
          break;
        }
        case 4: {
          const folder = r.pick(FOLDERS.filter(Boolean));
          const to = r.pick(["Moved", "Archive/Old", "People/Team"]) + `/${r.int(3)}`;
          await step(`move folder ${folder} -> ${to}`, [folder, to], (s) => s.rename(USER, folder, to));
          break;
        }
        case 5: {
          await step(`delete ${some}`, [some], async (s) => trash.push(await s.delete(USER, some)));
          break;
        }
        case 6: {
          const t = trash.shift();
          if (t) await step(`restore ${t.path}`, [t.path], (s) => s.restore(USER, t.id));
          break;
        }
        case 7: {
          const a = r.pick(attachments);
          await step(
            `attach ${a}`,
            [a],
            (s) => s.putAttachment(USER, a, PNG, "image/png", { overwrite: true }),
          );
          break;
        }
        case 8: {
          const a = r.pick(files.filter((f) => !f.endsWith(".md")).concat(some));
          await step(`delete ${a}`, [a], (s) => s.delete(USER, a));
          break;
        }
        case 9: {
          // Edits made behind the stores' backs: written, moved or removed on disk, seen by both watchers.
          const kind = r.int(3);
          const p = kind === 0 ? join2(r.pick(FOLDERS), `${r.pick([...SHARED_NAMES, ...GHOSTS])}.md`) : some;
          const to = join2(r.pick(FOLDERS), posix.basename(some));
          log.push(`disk ${["write", "move", "remove"][kind]} ${p}${kind === 1 ? ` -> ${to}` : ""}`);
          if (kind === 0) {
            await mkdir(dirname(join(root, p)), { recursive: true });
            await writeFile(join(root, p), noteText(r, p, targets));
          } else if (kind === 1) {
            await mkdir(dirname(join(root, to)), { recursive: true });
            await fsRename(join(root, p), join(root, to)).catch(() => {});
          } else await rm(join(root, p), { force: true });
          for (const rep of replicas) {
            for (const q of kind === 1 ? [p, to] : [p]) await rep.store.applyDiskChange(USER, q);
          }
          break;
        }
        default: {
          const to = join2(r.pick(FOLDERS), `${r.pick(SHARED_NAMES)}.md`);
          await step(`create ${to}`, [to], (s) => s.create(USER, to, noteText(r, to, targets)));
        }
      }
    }
    for (const rep of replicas) await rep.sync.settled(USER);
    for (const rep of replicas) await rep.sync.settled(USER);

    const files = (await current()).sort();
    const fresh = await openFresh();
    try {
      const indexer = replica(dataDir, fresh.db);
      await indexer.sync.reconcileUser(USER);
      const want = await linkState(fresh.db, files);
      const got = await linkState(dbA.db, files);
      const context = `seed ${seed}, ${files.length} files; operations:\n${log.slice(-40).join("\n")}`;
      assert.deepEqual(got.unresolved, want.unresolved, `unresolved links differ (${context})`);
      assert.deepEqual(got.backlinks, want.backlinks, `backlinks differ (${context})`);
      assert.deepEqual(got.graph, want.graph, `graph differs (${context})`);
      assert.ok(Object.keys(want.backlinks).length > NOTES / 4, "the vault links to itself");
      assert.ok(want.unresolved.length > 0, "some links stay unresolved");

      // The database's resolution equals the notes library's in memory.
      const memory = await memoryState(dataDir);
      const unresolvedPairs = new Set(want.unresolved.map((u) => `${u.source} > ${u.target}`));
      const dbEdges = [
        ...new Set(
          want.graph.edges.map((e) => `${e.source} > ${e.target}`)
            .filter((e) => !unresolvedPairs.has(e) && e.split(" > ")[0] !== e.split(" > ")[1]),
        ),
      ].sort();
      assert.deepEqual(
        dbEdges,
        memory.edges,
        `resolved links differ from the in-memory index (seed ${seed})`,
      );
      assert.deepEqual(
        [...new Set(want.unresolved.map((u) => `${u.source} > ${u.target}`))].sort(),
        memory.unresolved,
        `unresolved links differ from the in-memory index (seed ${seed})`,
      );
    } finally {
      await fresh.close();
    }
  } finally {
    // A failed step leaves changes queued: they finish before the databases close.
    for (const rep of replicas) await rep.sync.settled(USER);
    await dbA.close();
    if (dbB !== dbA) await dbB.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

let postgres: PostgresServer | undefined;
before(async () => {
  postgres = await startPostgres();
});
after(async () => {
  await postgres?.stop();
  await removeDataDirs();
});

describe("links in any order, on the embedded database (two stores sharing it)", () => {
  for (let seed = FIRST_SEED; seed < FIRST_SEED + SEEDS; seed++) {
    test(`seed ${seed}`, async () => {
      await runSeed(
        seed,
        async () => {
          const db = await openSearchDb();
          return [db, db];
        },
        () => openSearchDb(),
      );
    });
  }
});

describe("links in any order, on PostgreSQL (two replicas, two connection pools)", () => {
  for (let seed = FIRST_SEED; seed < FIRST_SEED + SEEDS; seed++) {
    test(`seed ${seed}`, async () => {
      await runSeed(
        seed,
        async () => {
          const url = await postgres!.newDatabase();
          return [await openSearchDb(url), await openSearchDb(url)];
        },
        async () => openSearchDb(await postgres!.newDatabase()),
      );
    });
  }
});
