import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { splitFrontMatter } from "./front_matter.ts";
import { frontMatterLength } from "./editor_front_matter.ts";

describe("front matter as properties", () => {
  it("reads key: value, inline lists and dash lists; the body follows", () => {
    const fm = splitFrontMatter(
      '---\ntitle: Bread\ntags: [baking, "slow food"]\naliases:\n  - Sourdough\n  - Loaf\ndraft: true\n---\n# Bread\n',
    );
    assert.deepEqual(fm.properties, [
      ["title", "Bread"],
      ["tags", ["baking", "slow food"]],
      ["aliases", ["Sourdough", "Loaf"]],
      ["draft", "true"],
    ]);
    assert.equal(fm.body, "# Bread\n");
  });

  it("a note without front matter, or with an unclosed block, is all body", () => {
    assert.deepEqual(splitFrontMatter("# Title\n---\n"), { properties: [], body: "# Title\n---\n" });
    assert.equal(frontMatterLength("---\ntitle: x\nno end\n"), 0);
    assert.equal(frontMatterLength("---\n---\nbody"), 8);
  });
});
