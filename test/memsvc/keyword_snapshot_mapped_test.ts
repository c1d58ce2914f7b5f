/**
 * Black-box: the compiled binary (Bun) maps the keyword index snapshot instead of reading it
 * (internal/fulltext/frame_file.ts). A mapped load answers exactly as the index built from the
 * database did (ids and scores), a save while the file is mapped renames a new file in and leaves
 * the loaded index answering as before, the new file loads at the next start, and a damaged or
 * truncated file of the mapped format is refused (the index is rebuilt from the database).
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { RunningBinary } from "../harness/binary.ts";
import { Client } from "../harness/http_client.ts";
import { restartableMemsvc } from "../harness/memsvc.ts";

const linux = process.platform === "linux";
const topics = ["lighthouse", "glacier", "orchard", "harbour", "observatory"];
const fact = (i: number) =>
  `The ${topics[i % topics.length]} crew logged reading kw${i}q at dawn; ${
    i % 3 ? "the gauge held steady" : "the gauge drifted"
  } for ${i + 3} hours.`;
const queries = [
  "lighthouse gauge",
  "glacier drifted",
  "orchard crew dawn",
  '"gauge held"',
  "harbour -drifted",
];

describe("memsvc keyword index snapshot, mapped", () => {
  const cleanup: (() => Promise<void>)[] = [];
  after(async () => {
    for (const fn of cleanup.reverse()) await fn().catch(() => {});
  });

  it("answers like the index it saved, survives a save while mapped, and refuses a damaged file", async () => {
    const { dataDir, start } = await restartableMemsvc("memsvc-kwmap-", cleanup);
    const file = join(dataDir, "keyword-index.bin");
    const search = async (server: RunningBinary, query: string) => {
      const r = await new Client(server.url).post("/v1/search", { query, mode: "keyword", limit: 8 });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return (r.body.results as { id: string; score: number }[]).map((x) => [x.id, x.score]);
    };
    const answers = async (server: RunningBinary) => {
      const out = [];
      for (const q of queries) out.push(await search(server, q));
      return out;
    };
    const loaded = (server: RunningBinary) =>
      server.records().find((r) => r.msg === "keyword index snapshot loaded");
    const saves = (server: RunningBinary) =>
      server.records().filter((r) => r.msg === "keyword index snapshot saved").length;
    /** The process's mappings of the snapshot file (Linux), "(deleted)" once a save renamed another in. */
    const mappings = (server: RunningBinary) =>
      readFileSync(`/proc/${server.pid}/maps`, "utf8").split("\n").filter((l) =>
        l.includes("keyword-index.bin")
      );
    const remember = async (server: RunningBinary, content: string, session?: string) => {
      const r = await new Client(server.url).post("/v1/remember", {
        content,
        ...(session ? { session_id: session } : {}),
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      return r.body.id as string;
    };

    let server = await start();
    for (let i = 0; i < 40; i++) await remember(server, fact(i), i % 4 ? `shift-${i % 5}` : undefined);
    const built = await answers(server);
    assert.ok(built.every((hits) => hits.length > 0), JSON.stringify(built));
    assert.equal(await server.stop("SIGTERM"), 0);
    assert.ok(saves(server) >= 1);

    server = await start();
    assert.deepEqual(await answers(server), built, "a mapped load answers like the index built from rows");
    assert.equal(loaded(server)?.entries, 40);
    assert.equal(loaded(server)?.mapped, true, "the binary maps the snapshot");
    if (linux) assert.ok(mappings(server).length > 0, "the file is mapped, not read");

    // A write, then the save once it settles (30 s): a new file is renamed over the mapped one.
    const added = await remember(server, "The kestrel kw99q roosts under the bridge.");
    // A search catches the index up with the write: from then on it has a change to save.
    assert.deepEqual((await search(server, "kw99q")).map(([id]) => id), [added]);
    const written = await answers(server);
    const deadline = Date.now() + 60_000;
    while (saves(server) === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 500));
    assert.equal(saves(server), 1, "saved while mapped");
    if (linux) {
      assert.ok(
        mappings(server).every((l) => l.endsWith("(deleted)")),
        "the old file stays mapped, unlinked",
      );
    }
    assert.deepEqual(await answers(server), written, "the loaded index is intact after the save");
    assert.deepEqual((await search(server, "kw99q")).map(([id]) => id), [added]);
    assert.equal(await server.stop("SIGTERM"), 0);

    server = await start();
    assert.deepEqual(await answers(server), written);
    assert.equal(loaded(server)?.entries, 41, "the file saved while mapped loads");
    assert.deepEqual((await search(server, "kw99q")).map(([id]) => id), [added]);
    assert.equal(await server.stop("SIGTERM"), 0);

    // Damaged in a section's byte, then truncated: refused, the index rebuilt from the rows.
    const good = await readFile(file);
    const refused = async (what: string, bytes: Uint8Array) => {
      await writeFile(file, bytes);
      server = await start();
      // Ids: a rebuild's impacts are computed against other running averages than the writes' were.
      const ids = (a: (string | number)[][][]) => a.map((hits) => hits.map(([id]) => id));
      assert.deepEqual(ids(await answers(server)), ids(written), `${what}: rebuilt`);
      assert.equal(loaded(server), undefined, `${what}: not loaded`);
      assert.equal(await server.stop("SIGKILL"), null);
    };
    const damaged = Uint8Array.from(good);
    damaged[damaged.length >> 1]! ^= 0x10;
    await refused("damaged", damaged);
    await refused("truncated", good.subarray(0, good.length - 4096));
  });
});
