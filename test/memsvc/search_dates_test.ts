/**
 * Black-box: date words in a search query favour the turns captured in the window they name
 * (date_words.ts, search.ts). Entries get their capture times through `memsvc import`, the one way in
 * that keeps a given created_at.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binaryPath, type RunningBinary, startBinary } from "../harness/binary.ts";
import { Client } from "../harness/http_client.ts";
import { memsvcEnv } from "../harness/memsvc.ts";

const TOKEN = "search-dates-test-token-0123456789abcdef";
const DAY = 86_400_000;

describe("memsvc search: date words", () => {
  let home: string;
  let server: RunningBinary;
  let api: Client;
  const env = () => memsvcEnv(home, { extra: { MEMSVC_AUTH_MODE: "bearer", MEMSVC_AUTH_TOKEN: TOKEN } });
  const start = async () => {
    server = await startBinary("memsvc", ["serve"], { cwd: home, env: env() });
    api = new Client(server.url, { bearer: TOKEN });
  };

  before(async () => {
    home = await mkdtemp(join(tmpdir(), "memsvc-dates-"));
    await start();
    await server.stop();
    const user = JSON.parse(
      execFileSync(binaryPath("memsvc"), ["export"], { env: env(), encoding: "utf8" })
        .split("\n").find((l) => l.includes('"type":"user"'))!,
    );
    // Noon of the day `daysAgo` days back (UTC), so "yesterday" is unambiguous whenever the test runs.
    const today = Math.floor(Date.now() / DAY) * DAY;
    const entry = (id: string, content: string, daysAgo: number) => {
      const at = new Date(today - daysAgo * DAY + DAY / 2).toISOString();
      return JSON.stringify({
        type: "entry",
        id,
        user: user.email,
        project: null,
        namespace: "default",
        content,
        content_hash: createHash("sha256").update(content).digest("hex"),
        metadata: {},
        source_type: null,
        captured_from: null,
        confidence: 1,
        session_id: null,
        hit_count: 0,
        cold: false,
        created_at: at,
        updated_at: at,
        last_accessed_at: null,
      });
    };
    const file = join(home, "import.jsonl");
    writeFileSync(
      file,
      [
        JSON.stringify({ type: "memsvc-export", version: 1, exportedAt: new Date().toISOString() }),
        JSON.stringify(user),
        entry("m_old", "The boiler engineer checks the boiler pressure.", 40),
        entry("m_yesterday", "I told the landlord the boiler keeps banging at night.", 1),
        entry("m_unrelated", "The garden hose needs a new connector.", 1),
      ].join("\n") + "\n",
    );
    execFileSync(binaryPath("memsvc"), ["import", file], { env: env() });
    await start();
  });
  after(async () => {
    await server?.stop();
    await rm(home, { recursive: true, force: true });
  });

  const ids = async (query: string) => {
    const r = await api.post("/v1/search", { query });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.results.map((x: { id: string }) => x.id) as string[];
  };

  it("ranks the turn captured yesterday first for '… yesterday'; the others still rank", async () => {
    // Without the date words the older entry, with the word twice, wins.
    assert.equal((await ids("what did I say about the boiler"))[0], "m_old");
    const dated = await ids("what did I say about the boiler yesterday");
    assert.equal(dated[0], "m_yesterday");
    // A boost, not a filter; and the date words matched nothing by themselves.
    assert.ok(dated.includes("m_old"), JSON.stringify(dated));
    assert.ok(!dated.includes("m_unrelated"), JSON.stringify(dated));
    // A window the old entry is in turns around a query the newer entry wins.
    assert.equal((await ids("boiler banging"))[0], "m_yesterday");
    const old = new Date(Date.now() - 40 * DAY).toISOString().slice(0, 10);
    assert.equal((await ids(`boiler banging on ${old}`))[0], "m_old");
  });
});
