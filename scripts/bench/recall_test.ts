import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type RecallFigures, recallSets, setsTable } from "./recall.ts";

const figures = (set: string, r5: number, r10: number): RecallFigures => {
  const mode = { r1: 0, r5, r10, p50: 1, p95: 2, byKind: {} };
  return {
    set,
    questions: 10,
    turns: 100,
    sessions: true,
    byMode: { keyword: mode, vector: mode, hybrid: mode },
  };
};

describe("recall sets table", () => {
  it("gives each set's rows and the macro-averages over all sets and over the public ones", () => {
    const out = setsTable([
      figures("generated", 0.9, 1),
      figures("realtalk", 0.5, 0.6),
      figures("friendsqa", 0.6, 0.7),
    ]);
    const hybrid = (label: string) =>
      out.split("\n").find((l) => l.startsWith(label) && l.includes("hybrid"))!;
    assert.match(hybrid("macro, 3 sets"), /30\s+0\s+0\.667\s+0\.767/);
    assert.match(hybrid("macro, public (2)"), /20\s+0\s+0\.55\s+0\.65/);
  });

  it("cuts the generated set into halves by chat and refuses an unknown set", () => {
    const dev = recallSets({ half: "dev", sets: ["generated"] }).sets[0]!.set;
    const held = recallSets({ half: "held", sets: ["generated"] }).sets[0]!.set;
    assert.equal(dev.chats.length + held.chats.length, 20);
    assert.deepEqual(dev.chats.map((c) => c.id).slice(0, 3), ["c00", "c02", "c04"]);
    assert.ok(held.questions.every((q) => held.chats.some((c) => c.id === q.chat)));
    assert.throws(() => recallSets({ half: "dev", sets: ["locomo"] }), /unknown set locomo/);
  });
});
