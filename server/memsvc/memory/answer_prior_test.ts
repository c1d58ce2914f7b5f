import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { answerPrior, isQuestionTurn, QUESTION_TURN_FACTOR } from "./answer_prior.ts";

describe("answer prior", () => {
  it("tells a turn that asks from one that answers", () => {
    for (
      const t of ["What about Kate?", "How long have you been skiing? ", 'She said "why not?"', "Really?)"]
    ) {
      assert.equal(isQuestionTurn(t), true, t);
    }
    for (const t of ["I've been skiing for ten years.", "Why? Because it snowed.", "?!", "ok"]) {
      assert.equal(isQuestionTurn(t), false, t);
    }
  });

  it("lowers only conversation turns that ask", () => {
    assert.equal(answerPrior({ content: "What about Kate?", session_id: "s1" }), QUESTION_TURN_FACTOR);
    assert.equal(answerPrior({ content: "Kate skis.", session_id: "s1" }), 1);
    // A note phrased as a question, outside any conversation, keeps its score.
    assert.equal(answerPrior({ content: "How do we rotate the key?", session_id: null }), 1);
  });

  it("orders an answer above a question that matches as well", () => {
    const rows = [
      { id: "ask", content: "How long have you been skiing?", session_id: "s", fused: 0.8 },
      { id: "answer", content: "Skiing for about ten years now.", session_id: "s", fused: 0.7 },
      { id: "other", content: "We went hiking in Utah.", session_id: "s", fused: 0.3 },
    ];
    const order = rows.map((r) => ({ id: r.id, score: r.fused * answerPrior(r) }))
      .sort((a, b) => b.score - a.score).map((r) => r.id);
    assert.deepEqual(order, ["answer", "ask", "other"]);
  });
});
