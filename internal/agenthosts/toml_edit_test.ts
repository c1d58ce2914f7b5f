import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseToml, removeTomlEntry, setTomlEntry } from "./toml_edit.ts";

const place = { root: "mcp_servers" };
const entry = { url: "http://h/mcp", http_headers: { Authorization: 'Bearer "q"' } };

describe("toml_edit", () => {
  it("appends our table after a blank line and removes it byte for byte", () => {
    const text = 'model = "o3" # default\n\n[mcp_servers.docs]\ncommand = "npx"\n';
    const added = setTomlEntry(text, place, "memsvc", entry);
    assert.equal(
      added,
      `${text}\n[mcp_servers.memsvc]\nurl = "http://h/mcp"\nhttp_headers = { Authorization = "Bearer \\"q\\"" }\n`,
    );
    assert.deepEqual((parseToml(added) as { mcp_servers: { memsvc: unknown } }).mcp_servers.memsvc, entry);
    assert.equal(removeTomlEntry(added, place, "memsvc"), text);
  });

  it("replaces the table in place with its sub-tables, leaving the next table's comment", () => {
    const text =
      '[mcp_servers.memsvc]\nurl = "old"\n[mcp_servers.memsvc.env]\nA = "1"\n\n# docs server\n[mcp_servers.docs]\n';
    const replaced = setTomlEntry(text, place, "memsvc", { url: "new" });
    assert.equal(replaced, '[mcp_servers.memsvc]\nurl = "new"\n\n# docs server\n[mcp_servers.docs]\n');
    assert.equal(removeTomlEntry(replaced, place, "memsvc"), "# docs server\n[mcp_servers.docs]\n");
  });

  it("finds quoted headers and refuses entries written as dotted keys", () => {
    const quoted = '[ mcp_servers . "memsvc" ]\nurl = "old"\n';
    assert.equal(removeTomlEntry(quoted, place, "memsvc"), "");
    assert.throws(() => setTomlEntry('[mcp_servers]\nmemsvc.url = "x"\n', place, "memsvc", entry), /by hand/);
  });
});
