import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseYaml, removeYamlEntry, setYamlEntry } from "./yaml_edit.ts";

const list = { root: "mcpServers", listKey: "name" as const };
const map = { root: "extensions" };

describe("yaml_edit", () => {
  it("appends a list item by name, replaces it in place, and removes it, keeping comments", () => {
    const text =
      "# my config\nname: Local\nmcpServers:\n  # search\n  - name: web\n    command: npx # pinned\n";
    const added = setYamlEntry(text, list, "memsvc", { name: "memsvc", url: "u1" });
    assert.deepEqual(parseYaml(added), {
      name: "Local",
      mcpServers: [{ name: "web", command: "npx" }, { name: "memsvc", url: "u1" }],
    });
    assert.ok(added.startsWith(text), added);
    const replaced = setYamlEntry(added, list, "memsvc", { name: "memsvc", url: "u2" });
    assert.equal(replaced, added.replace("u1", "u2"));
    assert.equal(removeYamlEntry(replaced, list, "memsvc"), text);
  });

  it("keeps sequences unindented when the file writes them so", () => {
    const text = "mcpServers:\n- name: web\n  command: npx\n";
    const added = setYamlEntry(text, list, "memsvc", { name: "memsvc", url: "u" });
    assert.ok(added.startsWith(text), added);
    assert.equal(removeYamlEntry(added, list, "memsvc"), text);
  });

  it("sets a map entry and creates the container when missing or empty", () => {
    for (const text of ["", "GOOSE_MODEL: gpt\n", "extensions:\n"]) {
      const added = setYamlEntry(text, map, "memsvc", { uri: "u" });
      assert.deepEqual((parseYaml(added) as { extensions: unknown }).extensions, { memsvc: { uri: "u" } });
    }
  });

  it("refuses what does not parse or has the wrong shape", () => {
    assert.throws(() => setYamlEntry("a: [\n", map, "memsvc", {}), /./);
    assert.throws(() => setYamlEntry("- a\n", map, "memsvc", {}), /top level/);
    assert.throws(() => setYamlEntry("mcpServers: {}\n", list, "memsvc", {}), /not a list/);
  });
});
