import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { applyMarkers, type LatestImage } from "./markers.ts";

const DIGEST = "sha256:" + "ab".repeat(32);
const policies: Record<string, LatestImage> = {
  app: { image: "registry.example.com/team/app", tag: "1.4.0", digest: DIGEST },
  nodigest: { image: "registry.example.com/team/other", tag: "2.0.0" },
};
const lookup = (name: string) => policies[name];

describe("applyMarkers", () => {
  it("rewrites the full image, the tag and the name, keeping every other byte", () => {
    const before = [
      "# a comment that stays",
      "spec:",
      "  containers:",
      '    - image: registry.example.com/team/app:1.0.0 # {"$imagepolicy": "team:app"}',
      "      name: app   # another comment",
      "  values:",
      `    tag: "1.0.0"   #   {"$imagepolicy": "team:app:tag"}`,
      `    repository: 'old/name' # {"$imagepolicy": "team:app:name"}`,
      "  list:",
      '  - registry.example.com/team/other:1.0.0 # {"$imagepolicy": "team:nodigest"}',
      "",
    ].join("\r\n");
    const { text, changes } = applyMarkers(before, "team", lookup);
    assert.equal(
      text,
      [
        "# a comment that stays",
        "spec:",
        "  containers:",
        `    - image: registry.example.com/team/app:1.4.0@${DIGEST} # {"$imagepolicy": "team:app"}`,
        "      name: app   # another comment",
        "  values:",
        `    tag: "1.4.0"   #   {"$imagepolicy": "team:app:tag"}`,
        `    repository: 'registry.example.com/team/app' # {"$imagepolicy": "team:app:name"}`,
        "  list:",
        '  - registry.example.com/team/other:2.0.0 # {"$imagepolicy": "team:nodigest"}',
        "",
      ].join("\r\n"),
    );
    assert.deepEqual(changes.map((c) => [c.line, c.policy, c.from]), [
      [4, "team/app", "registry.example.com/team/app:1.0.0"],
      [7, "team/app", "1.0.0"],
      [8, "team/app", "old/name"],
      [10, "team/nodigest", "registry.example.com/team/other:1.0.0"],
    ]);
  });

  it("leaves other namespaces, unknown policies, more than three parts and bad JSON alone", () => {
    const before = [
      'a: x:1 # {"$imagepolicy": "other:app"}',
      'b: x:1 # {"$imagepolicy": "team:missing"}',
      'c: x:1 # {"$imagepolicy": "team:app:tag:extra"}',
      'd: x:1 # {"$imagepolicy": "team:app:digest"}',
      'e: x:1 # {"$imagepolicy": team:app}',
      'f: x:1 # {"imagepolicy": "team:app"}',
      'g: x:1 # {"$imagepolicy": 3}',
      "h: x:1",
    ].join("\n");
    const r = applyMarkers(before, "team", lookup);
    assert.equal(r.text, before);
    assert.deepEqual(r.changes, []);
  });

  it("does not report a value that is already current", () => {
    const line = `image: registry.example.com/team/app:1.4.0@${DIGEST} # {"$imagepolicy": "team:app"}\n`;
    assert.deepEqual(applyMarkers(line, "team", lookup), { text: line, changes: [] });
  });
});
