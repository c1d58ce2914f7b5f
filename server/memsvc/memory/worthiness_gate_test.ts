import { test } from "node:test";
import assert from "node:assert/strict";
import { FILLER, rejectionReason, TOO_SHORT } from "./worthiness_gate.ts";

test("filler is recognised in any case, with an optional trailing period, as the whole content", () => {
  for (
    const s of [
      "thanks",
      "Thank",
      "OK.",
      "okay",
      "sure",
      "Got it.",
      "great",
      "COOL",
      "yes",
      "no.",
      "nope",
      "yep",
      "alright",
      "noted",
      "done",
    ]
  ) {
    assert.equal(rejectionReason(s), FILLER, s);
  }
  assert.equal(rejectionReason("  Thanks.  "), FILLER);
});

test("short content is rejected; twelve trimmed characters pass", () => {
  assert.equal(rejectionReason("short note"), TOO_SHORT);
  assert.equal(rejectionReason("   eleven ch   "), TOO_SHORT);
  assert.equal(rejectionReason("twelve chars"), undefined);
});

test("filler words inside real content do not trigger the gate", () => {
  assert.equal(rejectionReason("ok so the deploy uses blue-green on Fridays"), undefined);
  assert.equal(rejectionReason("thanks to Ada, the cache now warms at boot"), undefined);
  assert.equal(rejectionReason("done."), FILLER);
  assert.equal(rejectionReason("done!!"), TOO_SHORT);
});
