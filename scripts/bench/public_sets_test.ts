import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  detokenize,
  ensureSet,
  evidenceIds,
  gitBlobId,
  howToGet,
  loadFriendsQA,
  loadRealtalkChat,
  type PublicSource,
  splitSet,
} from "./public_sets.ts";

describe("public sets", () => {
  it("reads REALTALK's evidence ids as written: ranges, lists and typos", () => {
    assert.deepEqual(evidenceIds(["D3:24"]), ["D3:24"]);
    assert.deepEqual(evidenceIds(["D12:3-D12:5", "D5:12;D5:16"]), [
      "D12:3",
      "D12:4",
      "D12:5",
      "D5:12",
      "D5:16",
    ]);
    assert.deepEqual(evidenceIds(["D13:4. D14:4", "D17;39", "D5:3."]), ["D13:4", "D14:4", "D17:39", "D5:3"]);
    assert.deepEqual(evidenceIds(["D13:45:D20:19", ""]), ["D13:45", "D20:19"]);
  });

  it("loads a REALTALK chat: sessions in order, messages without text left out, questions by category", () => {
    const chat = {
      name: { speaker_1: "Emi", speaker_2: "Elise" },
      session_1: [
        { clean_text: "Hey! How are you?", speaker: "Emi", dia_id: "D1:1" },
        { clean_text: "", speaker: "Elise", dia_id: "D1:2" },
        { clean_text: "I went skiing in Utah.", speaker: "Elise", dia_id: "D1:3" },
      ],
      session_1_date_time: "29.12.2023, 22:42:04",
      session_2: [{ clean_text: "Back from Utah!", speaker: "Elise", dia_id: "D2:1" }],
      session_2_date_time: "3.1.2024, 10:00:00",
      qa: [
        { question: "Where did Elise ski?", evidence: ["D1:3", "D2:1"], category: 1 },
        { question: "What photo did Elise send?", evidence: ["D1:2"], category: 2 },
      ],
    };
    const { chat: c, questions } = loadRealtalkChat("rt01", JSON.stringify(chat));
    assert.deepEqual(c.sessions.map((s) => [s.id, s.date, s.turns.map((t) => t.key)]), [
      ["rt01-s1", "2023-12-29", ["rt01-D1:1", "rt01-D1:3"]],
      ["rt01-s2", "2024-01-03", ["rt01-D2:1"]],
    ]);
    assert.equal(c.sessions[0]!.turns[1]!.speaker, "Elise");
    // The photo-only question has no evidence with text: skipped.
    assert.deepEqual(questions, [{
      chat: "rt01",
      kind: "fact",
      question: "Where did Elise ski?",
      answers: ["rt01-D1:3", "rt01-D2:1"],
    }]);
  });

  it("loads FriendsQA: episodes as chats, scenes as sessions, detokenized lines, kinds by question word", () => {
    const scene = (title: string, lines: [string, string][], qas: unknown[]) => ({
      title,
      paragraphs: [{
        "utterances:": lines.map(([speaker, utterance], uid) => ({ uid, speakers: [speaker], utterance })),
        qas,
      }],
    });
    const file = JSON.stringify({
      data: [
        scene("s01_e23_c02", [["#NOTE#", "[ Scene : Central Perk . ]"], [
          "Ross Geller",
          "I 'm gon na call him Jordie !",
        ]], [
          {
            id: "s01_e23_c02_Who_Paraphrased",
            question: "Who names the baby ?",
            answers: [{ utterance_id: 1 }],
          },
        ]),
        scene("s01_e23_c01", [["Rachel Green", "Hi ."]], []),
        scene("s02_e21_c01", [["Joey Tribbiani", "How you doin' ?"]], []),
      ],
    });
    const set = loadFriendsQA([file]);
    assert.deepEqual(set.chats.map((c) => [c.id, c.sessions.map((s) => s.id)]), [
      ["s01_e23", ["s01_e23_c01-p0", "s01_e23_c02-p0"]],
      ["s02_e21", ["s02_e21_c01-p0"]],
    ]);
    const turns = set.chats[0]!.sessions[1]!.turns;
    assert.deepEqual(turns.map((t) => [t.speaker, t.text]), [
      [undefined, "[Scene: Central Perk.]"],
      ["Ross Geller", "I'm gonna call him Jordie!"],
    ]);
    assert.deepEqual(set.questions, [{
      chat: "s01_e23",
      kind: "who",
      question: "Who names the baby ?",
      answers: ["s01_e23_c02-p0-u1"],
    }]);
    assert.equal(detokenize("You 're gon na kill me !"), "You're gonna kill me!");
  });

  it("splits by chat, alternating: even positions dev, odd held back, questions with their chat", () => {
    const set = {
      chats: ["a", "b", "c"].map((id) => ({ id, sessions: [] })),
      questions: ["a", "b", "c", "a"].map((chat) => ({ chat, kind: "k", question: chat, answers: [] })),
    };
    assert.deepEqual(splitSet(set, "dev").chats.map((c) => c.id), ["a", "c"]);
    assert.deepEqual(splitSet(set, "held").questions.map((q) => q.chat), ["b"]);
    assert.equal(splitSet(set, "all"), set);
  });

  it("copies pinned files from a git clone into the cache, checks them, and says how to get a missing set", () => {
    const root = mkdtempSync(join(tmpdir(), "public-sets-"));
    const saved = process.env.TOOLKIT_RECALL_CACHE;
    process.env.TOOLKIT_RECALL_CACHE = join(root, "cache");
    try {
      const repo = join(root, "repo");
      const git = (...args: string[]) =>
        execFileSync("git", ["-C", repo, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
      execFileSync("git", ["init", "-q", repo]);
      writeFileSync(join(repo, "chat.json"), '{"hello": "world"}');
      git("add", "chat.json");
      git("-c", "user.email=a@b.c", "-c", "user.name=t", "commit", "-q", "-m", "data");
      const blob = git("rev-parse", "HEAD:chat.json").trim();
      assert.equal(gitBlobId(readFileSync(join(repo, "chat.json"))), blob);
      const source: PublicSource = {
        name: "tiny",
        repo: "example/tiny-set-not-mirrored",
        commit: git("rev-parse", "HEAD").trim(),
        licence: "test",
        files: [{ path: "chat.json", blob }],
        load: () => ({ chats: [], questions: [] }),
      };
      // Neither cached nor mirrored: undefined, and the message names the clone and the command.
      assert.equal(ensureSet(source), undefined);
      assert.match(
        howToGet(source),
        /clone https:\/\/github.com\/example\/tiny-set-not-mirrored .*public_sets.ts tiny --from/,
      );
      assert.equal(ensureSet(source, repo)!.get("chat.json"), '{"hello": "world"}');
      // Now cached: found without the clone.
      rmSync(repo, { recursive: true });
      assert.equal(ensureSet(source)!.get("chat.json"), '{"hello": "world"}');
      // A clone without the pinned blob is refused.
      assert.throws(
        () => ensureSet({ ...source, files: [{ path: "x", blob: "0".repeat(40) }] }, root),
        /does not hold/,
      );
    } finally {
      if (saved === undefined) delete process.env.TOOLKIT_RECALL_CACHE;
      else process.env.TOOLKIT_RECALL_CACHE = saved;
      rmSync(root, { recursive: true, force: true });
    }
  });
});
