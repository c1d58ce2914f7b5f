import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { conditionTone, healthTone, phaseTone } from "./status.ts";

describe("status tones", () => {
  it("colour a condition by its status, never by its reason", () => {
    assert.equal(conditionTone("True"), "ok");
    assert.equal(conditionTone("False"), "danger");
    assert.equal(conditionTone("Unknown"), "neutral");
    assert.equal(conditionTone(undefined), "neutral", "no status is not a warning");
  });

  it("colour a Revision's phase: failures red, done green, approval amber, the rest grey", () => {
    assert.equal(phaseTone("Healthy"), "ok");
    assert.equal(phaseTone("Succeeded"), "ok");
    assert.equal(phaseTone("Failed"), "danger");
    assert.equal(phaseTone("HealthFailure"), "danger");
    assert.equal(phaseTone("AwaitingApproval"), "warn");
    for (const p of ["Pending", "Planning", "Applying", "Superseded", "Running", undefined]) {
      assert.equal(phaseTone(p), "neutral", String(p));
    }
  });

  it("colour a health assessment", () => {
    assert.equal(healthTone("Healthy"), "ok");
    assert.equal(healthTone("Degraded"), "danger");
    assert.equal(healthTone("Missing"), "danger");
    assert.equal(healthTone("Progressing"), "neutral");
  });
});
