import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { ManifestError } from "./errors.ts";
import { parseManifests, readManifests } from "./manifests.ts";

const dir = mkdtempSync(join(tmpdir(), "manifests-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const cm = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n`;
const names = (ms: { object: { metadata?: { name?: string } } }[]) => ms.map((m) => m.object.metadata?.name);

const tree = join(dir, "tree");
mkdirSync(join(tree, "nested"), { recursive: true });
writeFileSync(join(tree, "b.yaml"), `${cm("b1")}---\n${cm("b2")}`);
writeFileSync(join(tree, "a.yml"), `---\n# only a comment\n---\n${cm("a1")}---\n`);
writeFileSync(
  join(tree, "c.json"),
  JSON.stringify({ apiVersion: "v1", kind: "Secret", metadata: { name: "c1" } }),
);
writeFileSync(join(tree, "README.md"), "not a manifest");
writeFileSync(join(tree, "nested", "d.yaml"), cm("d1"));

describe("readManifests", () => {
  it("reads a directory's yaml, yml and json files in name order, not recursively", async () => {
    const ms = await readManifests([tree]);
    assert.deepEqual(names(ms), ["a1", "b1", "b2", "c1"]);
    assert.deepEqual(ms.map((m) => [m.source, m.index]), [
      [join(tree, "a.yml"), 2], // a leading --- opens the first document
      [join(tree, "b.yaml"), 1],
      [join(tree, "b.yaml"), 2],
      [join(tree, "c.json"), 1],
    ]);
  });

  it("recurses when asked (-R)", async () => {
    assert.deepEqual(names(await readManifests([tree], { recursive: true })), ["a1", "b1", "b2", "c1", "d1"]);
  });

  it("reads files and stdin (-) in the order given", async () => {
    const ms = await readManifests([join(tree, "c.json"), "-"], {
      readStdin: () => Promise.resolve(cm("s1")),
    });
    assert.deepEqual(names(ms), ["c1", "s1"]);
    assert.equal(ms[1]!.source, "<stdin>");
  });

  it("explains a missing path, an empty directory and a repeated -", async () => {
    await assert.rejects(readManifests([join(dir, "nope.yaml")]), /the path ".*nope.yaml" does not exist/);
    mkdirSync(join(dir, "empty"));
    await assert.rejects(readManifests([join(dir, "empty")]), /no .yaml, .yml or .json files in directory/);
    await assert.rejects(readManifests(["-", "-"], { readStdin: () => Promise.resolve("") }), /only once/);
    await assert.rejects(readManifests([]), ManifestError);
  });
});

describe("parseManifests", () => {
  it("expands a List into its items", () => {
    const text = `apiVersion: v1\nkind: List\nitems:\n- ${cm("x").replaceAll("\n", "\n  ").trimEnd()}\n- ${
      cm("y").replaceAll("\n", "\n  ").trimEnd()
    }\n`;
    assert.deepEqual(names(parseManifests(text, "list.yaml")), ["x", "y"]);
  });

  it("names the file and document of invalid YAML", () => {
    assert.throws(
      () => parseManifests(`${cm("ok")}---\nmetadata: [unclosed\n`, "bad.yaml"),
      (err: unknown) =>
        err instanceof ManifestError && /^bad.yaml \(document 2\) line \d+: invalid YAML: /.test(err.message),
    );
  });

  it("names the file and document of a manifest without apiVersion or kind", () => {
    assert.throws(() => parseManifests(`${cm("ok")}---\nmetadata: {name: x}\n`, "f.yaml"), {
      message: "f.yaml (document 2): apiVersion and kind not set",
    });
    assert.throws(() => parseManifests(`kind: ConfigMap\n`, "f.yaml"), {
      message: "f.yaml (document 1): apiVersion not set",
    });
    assert.throws(() => parseManifests(`- a\n- b\n`, "f.yaml"), /document 1\): a manifest must be a mapping/);
  });
});
