import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { ManifestError, readManifest, satisfiesMinVersion } from "./manifest.ts";

async function manifestOf(json: unknown) {
  const dir = await mkdtemp(join(tmpdir(), "manifest-"));
  try {
    await writeFile(join(dir, "manifest.json"), typeof json === "string" ? json : JSON.stringify(json));
    return await readManifest(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const issuesOf = (p: Promise<unknown>) =>
  p.then(
    () => assert.fail("accepted"),
    (err) => {
      assert.ok(err instanceof ManifestError);
      return err.issues.map((i) => i.path.join("."));
    },
  );

test("a good manifest reads with defaults filled in", async () => {
  const m = await manifestOf({
    id: "word-count",
    name: "Word count",
    version: "1.0.0",
    server: "server.js",
    settings: [{ key: "wpm", type: "number", default: 200 }],
  });
  assert.equal(m.settings[0]!.perUser, false);
});

test("entries stay inside the folder; fields are checked and unknown ones refused", async () => {
  assert.deepEqual(
    (await issuesOf(manifestOf({ id: "x y", name: "n", version: "1", server: "../a.js", more: 1 }))).sort(),
    ["manifest.json", "manifest.json.id", "manifest.json.server", "manifest.json.version"],
  );
  assert.deepEqual(
    await issuesOf(manifestOf({ id: "ab", name: "n", version: "1.0.0", client: "/etc/x.js" })),
    [
      "manifest.json.client",
    ],
  );
  assert.deepEqual(await issuesOf(manifestOf({ id: "ab", name: "n", version: "1.0.0" })), ["manifest.json"]);
  assert.deepEqual(await issuesOf(manifestOf("{not json")), ["manifest.json"]);
  assert.deepEqual(
    await issuesOf(manifestOf({
      id: "ab",
      name: "n",
      version: "1.0.0",
      client: "c.js",
      settings: [{ key: "a", type: "string" }, { key: "b", type: "boolean", default: "yes" }],
    })),
    ["manifest.json.settings.1.default"],
  );
  assert.deepEqual(
    await issuesOf(manifestOf({
      id: "ab",
      name: "n",
      version: "1.0.0",
      client: "c.js",
      settings: [{ key: "a", type: "string" }, { key: "a", type: "boolean" }],
    })),
    ["manifest.json.settings"],
  );
});

test("minVersion compares numerically", () => {
  assert.equal(satisfiesMinVersion("v3.10.0", "3.9.1"), true);
  assert.equal(satisfiesMinVersion("v3.1.0", "3.1.0"), true);
  assert.equal(satisfiesMinVersion("v3.1.0", "3.2.0"), false);
  assert.equal(satisfiesMinVersion("v0.1.0", undefined), true);
});
