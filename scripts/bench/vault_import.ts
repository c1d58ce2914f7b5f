/**
 * `vault import` of a whole vault, part of `deno task bench:vault` (`--only-import` runs it alone):
 * `dist/vault serve` on the embedded database (build it first: `deno task build vault`), a generated
 * Obsidian-style vault folder of `n` notes (the search part's prose; links to earlier and later
 * notes, notes of one name in every project folder, some links to notes that do not exist, a
 * `.obsidian/` folder), imported through the server with an API key as a user would. Then every
 * resolved link of the server's graph is checked against the notes library's in-memory index of the
 * same files, and a second run must change nothing.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { runBinary, type RunningBinary, startBinary } from "../../test/harness/binary.ts";
import { VaultClient, vaultEnv } from "../../test/harness/vault.ts";
import { NoteIndex } from "../../server/vault/notes/mod.ts";

export interface ImportResult {
  notes: number;
  /** Wall time of `vault import <folder>` through the server. */
  importMs: number;
  notesPerSecond: number;
  /** A second run of the same import (everything unchanged). */
  rerunMs: number;
  rerunUnchanged: number;
  /** Resolved links (source -> target pairs) the server's graph has, and how many the in-memory index has. */
  links: number;
  expectedLinks: number;
  /** Pairs that differ either way (0: every backlink right). */
  wrongLinks: number;
  unresolved: number;
}

/** The vault on disk: the notes' text with a link to a random note (earlier or later) added to each. */
function vaultFiles(notes: readonly { path: string; text: string }[]): Map<string, string> {
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const files = new Map<string, string>();
  const projects = [...new Set(notes.map((n) => n.path.split("/")[0]!))];
  for (const p of projects) files.set(`${p}/Index.md`, `# ${p}\n[[Index]] of ${p}, see [[Roadmap]].\n`);
  for (const [i, n] of notes.entries()) {
    const later = notes[Math.floor(next() * notes.length)]!.path.replace(/\.md$/, "").split("/").pop();
    const ghost = i % 50 === 0 ? " and [[Not written yet]]" : "";
    files.set(n.path, `${n.text}\n\nAlso [[${later}]] and [[Index]]${ghost}.\n`);
  }
  files.set(".obsidian/app.json", '{"newLinkFormat":"shortest"}\n');
  return files;
}

export async function runImportBench(
  notes: readonly { path: string; text: string }[],
  log: (msg: string) => void,
  binary = "vault",
): Promise<ImportResult> {
  const home = await mkdtemp(join(tmpdir(), "vault-import-bench-"));
  let server: RunningBinary | undefined;
  try {
    const files = vaultFiles(notes);
    log(`import: writing a vault of ${files.size} files`);
    for (const [p, text] of files) {
      await mkdir(dirname(join(home, "MyVault", p)), { recursive: true });
      await writeFile(join(home, "MyVault", p), text);
    }
    server = await startBinary(binary, ["serve"], { cwd: home, env: vaultEnv(home), timeoutMs: 60_000 });
    const client = new VaultClient(server.url);
    await client.post("/api/auth/sign-up/email", {
      email: "bench@example.test",
      password: "bench-Pa55word-123",
      name: "Bench",
    });
    const token =
      (await client.write("POST", "/api/api-keys", { name: "bench", scope: "read-write" })).body.key;
    const env = { ...vaultEnv(home), VAULT_URL: server.url, VAULT_TOKEN: token };
    const importOnce = async () => {
      const t = performance.now();
      const run = await runBinary(binary, ["import", "MyVault", "-o", "json"], {
        cwd: home,
        env,
        timeoutMs: 900_000,
      });
      if (run.code !== 0) throw new Error(`vault import failed (${run.code}): ${run.stderr}`);
      return { ms: Math.round(performance.now() - t), report: JSON.parse(run.stdout) };
    };
    log("import: vault import MyVault (through the server)");
    const first = await importOnce();
    log(`import: ${first.ms} ms; a second run`);
    const second = await importOnce();

    log("import: checking every link against the in-memory index");
    const idx = new NoteIndex();
    for (const [p, text] of files) if (!p.startsWith(".")) idx.set(p, text);
    const expected = new Set(idx.graph().edges.map((e) => `${e.source}\0${e.target}`));
    const graph = (await client.get("/api/graph")).body as {
      nodes: { path: string; exists: boolean }[];
      edges: { source: string; target: string }[];
    };
    const exists = new Set(graph.nodes.filter((n) => n.exists).map((n) => n.path));
    const got = new Set(
      graph.edges.filter((e) => exists.has(e.target) && e.source !== e.target).map((e) =>
        `${e.source}\0${e.target}`
      ),
    );
    const wrong = [...got].filter((e) => !expected.has(e)).length +
      [...expected].filter((e) => !got.has(e)).length;
    const unresolved = (await client.get("/api/links/unresolved")).body.links.length as number;
    return {
      notes: notes.length,
      importMs: first.ms,
      notesPerSecond: Math.round((files.size / first.ms) * 1000),
      rerunMs: second.ms,
      rerunUnchanged: second.report.unchanged,
      links: got.size,
      expectedLinks: expected.size,
      wrongLinks: wrong,
      unresolved,
    };
  } finally {
    await server?.stop();
    await rm(home, { recursive: true, force: true });
  }
}
