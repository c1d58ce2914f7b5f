import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { silentLogger } from "../../../internal/log/mod.ts";
import { apiTokenCaller, insertUser, openTestStore, type TestStore } from "../_test_store.ts";
import { BuiltinEmbedder } from "../embeddings/builtin.ts";
import { ActivityRecorder } from "../metrics/activity.ts";
import { MemsvcMetrics } from "../metrics/registry.ts";
import { MemoryService } from "./memory_service.ts";
import { projectLookup } from "./project_lookup.ts";
import { SearchService } from "./search.ts";
import { SPEAKER_FACTOR, speakerPrior } from "./speaker_prior.ts";
import { VectorBacklog } from "./vector_backlog.ts";
import { VectorIndex } from "./vector_index.ts";

describe("speaker prior", () => {
  it("leaves every entry alone when the query names no speaker", () => {
    assert.equal(speakerPrior({ metadata: { speaker: "Kate" } }, new Set()), 1);
    assert.equal(speakerPrior({ metadata: {} }, new Set()), 1);
  });

  it("keeps the named speaker's turns and lowers everyone else's, and entries said by no one", () => {
    const named = new Set(["kate"]);
    assert.equal(speakerPrior({ metadata: { speaker: "Kate" } }, named), 1);
    assert.equal(speakerPrior({ metadata: { speaker: "Kate Lee" } }, named), 1);
    assert.equal(speakerPrior({ metadata: { speaker: "Elise" } }, named), SPEAKER_FACTOR);
    assert.equal(speakerPrior({ metadata: { date: "2024-01-02" } }, named), SPEAKER_FACTOR);
    assert.equal(speakerPrior({ metadata: null }, named), SPEAKER_FACTOR);
    // A speaker that is not a string is no speaker (as the keyword index reads it).
    assert.equal(speakerPrior({ metadata: { speaker: ["Kate"] } }, named), SPEAKER_FACTOR);
    // Names compare by stem, as the index's terms do.
    assert.equal(speakerPrior({ metadata: { speaker: "Fahim Khan" } }, new Set(["khan"])), 1);
  });
});

const ADA = apiTokenCaller("ada");

describe("search with the speaker prior (a small conversation, known order)", () => {
  let store: TestStore;
  let memory: MemoryService;
  let search: SearchService;
  const ids: Record<string, string> = {};

  before(async () => {
    store = await openTestStore();
    await insertUser(store.db, { id: "ada" });
    const embedder = new BuiltinEmbedder();
    const index = new VectorIndex(store.db, embedder);
    const vectors = new VectorBacklog({ db: store.db, embedder, index, log: silentLogger });
    const deps = {
      db: store.db,
      embedder,
      index,
      vectors,
      projects: projectLookup(store.db),
      activity: new ActivityRecorder(store.db, silentLogger),
      log: silentLogger,
      metrics: new MemsvcMetrics(),
      decayDays: 30,
    };
    memory = new MemoryService(deps);
    search = new SearchService(deps);
    const turn = async (name: string, content: string, speaker?: string, session_id = "chat") => {
      const r = await memory.remember(ADA, {
        content,
        session_id,
        force: true,
        ...(speaker ? { metadata: { speaker } } : {}),
      });
      ids[name] = r.id!;
    };
    // Said to Kate, naming her three times: what both tiers favour for a question about her.
    await turn("toKate", "Kate! Kate, all your hobbies sound fun, Kate.", "Elise");
    await turn("fromKate", "My hobbies are skiing and cooking.", "Kate");
    await turn("market", "I went to the market yesterday for apples.", "Elise");
    await turn("note", "Hobbies of the team are listed on the wiki page.");
    await vectors.settled();
  });
  after(() => store.close());

  const order = async (query: string, mode: "hybrid" | "keyword" | "vector") =>
    (await search.search(ADA, { query, mode })).results.map((r) =>
      Object.keys(ids).find((k) => ids[k] === r.id)
    );

  it("ranks what the named speaker said above what was said to them", async () => {
    for (const mode of ["hybrid", "keyword"] as const) {
      const got = await order("What are Kate's hobbies?", mode);
      assert.deepEqual(got.slice(0, 2), ["fromKate", "toKate"], `${mode}: ${got}`);
    }
  });

  it("does not judge a query that names no speaker, nor one only the vector tier answered", async () => {
    // Without a name, Elise's turn (hobbies, and words to spare) is found alongside Kate's.
    const plain = await order("hobbies", "keyword");
    assert.deepEqual(new Set(plain.slice(0, 3)), new Set(["toKate", "fromKate", "note"]));
    // The vector tier alone cannot tell names from words: the turn naming Kate three times leads.
    assert.equal((await order("What are Kate's hobbies?", "vector"))[0], "toKate");
  });

  it("treats a word that is nobody's name as a word", async () => {
    // "market" is no speaker: nothing is lowered, the turn holding it leads.
    assert.equal((await order("the market trip", "hybrid"))[0], "market");
  });
});
