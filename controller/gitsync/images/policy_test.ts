import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { PolicyError, selectTag, validatePolicy } from "./policy.ts";

const tags = [
  "latest",
  "1.0.0",
  "v1.2.0",
  "1.10.0",
  "1.9.3",
  "2.0.0-rc.1",
  "2.0.0",
  "main-41",
  "main-9",
  "main-100x",
];

describe("selectTag", () => {
  it("semver: the highest version in range, with or without a leading v", () => {
    assert.equal(selectTag({ semver: { range: ">=1.0.0 <2.0.0" } }, tags), "1.10.0");
    assert.equal(selectTag({ semver: { range: "~1.2" } }, tags), "v1.2.0");
    assert.equal(selectTag({ semver: { range: ">=1.0.0" } }, tags), "2.0.0");
    assert.equal(selectTag({ semver: { range: ">=3" } }, tags), undefined);
  });

  it("semver: pre-releases only when the range asks for them", () => {
    assert.equal(selectTag({ semver: { range: ">=1.0.0 <2.0.0" } }, ["1.5.0", "1.6.0-beta.1"]), "1.5.0");
    assert.equal(selectTag({ semver: { range: ">=2.0.0-rc.0" } }, ["2.0.0-rc.1", "1.9.0"]), "2.0.0-rc.1");
  });

  it("tagPattern: numeric order groups sort as numbers; asc picks the highest, desc the lowest", () => {
    const p = { regex: "^main-(?<order>\\d+)$" };
    assert.equal(selectTag({ tagPattern: p }, tags), "main-41");
    assert.equal(selectTag({ tagPattern: { ...p, order: "desc" } }, tags), "main-9");
    assert.equal(selectTag({ tagPattern: { regex: "^main-" } }, tags), "main-9"); // by text
    assert.equal(selectTag({ tagPattern: { regex: "^nothing" } }, tags), undefined);
  });

  it("digest: the named tag when it exists", () => {
    assert.equal(selectTag({ digest: { tag: "latest" } }, tags), "latest");
    assert.equal(selectTag({ digest: { tag: "stable" } }, tags), undefined);
  });

  it("refuses a policy it cannot evaluate", () => {
    assert.throws(() => validatePolicy({ semver: { range: "not a range" } }), PolicyError);
    assert.throws(() => validatePolicy({ tagPattern: { regex: "(" } }), PolicyError);
    assert.throws(() => validatePolicy({} as never), /exactly one/);
  });
});
