/**
 * One interface over the four config formats. Every edit is checked: the edited text must parse to
 * exactly the old document with our entry set or removed, so a text edit that would touch anything
 * else (or produce a file the host cannot read) is refused before it is written.
 */
import { stringify as stringifyYaml } from "yaml";
import { canonicalJson } from "./entry_hash.ts";
import { withEntry, withoutEntry } from "./entry_place.ts";
import type { AgentHost, Entry } from "./hosts.ts";
import { parseJson, removeJsonEntry, setJsonEntry } from "./json_edit.ts";
import { parseToml, removeTomlEntry, setTomlEntry } from "./toml_edit.ts";
import { parseYaml, removeYamlEntry, setYamlEntry } from "./yaml_edit.ts";

/** The file's content as plain data; an empty file is an empty document. Throws when it does not parse. */
export function parseConfig(host: AgentHost, text: string): unknown {
  switch (host.format) {
    case "json":
    case "jsonc":
      return parseJson(text, host.format === "json");
    case "yaml":
      return parseYaml(text);
    case "toml":
      return parseToml(text);
  }
}

/** `text` with our entry added or replaced. */
export function setEntryText(host: AgentHost, text: string, name: string, entry: Entry): string {
  const start = text.trim() === "" && host.newFile ? newDocument(host, host.newFile) : text;
  const after = setText(host, start, name, entry);
  assertParsesTo(host, after, withEntry(parseConfig(host, start), host.place, name, entry));
  return after;
}

/** A document holding only our entry, for users to paste. */
export function renderDocument(host: AgentHost, name: string, entry: Entry): string {
  return setText(host, "", name, entry);
}

/** `text` without our entry. */
export function removeEntryText(host: AgentHost, text: string, name: string): string {
  const expected = withoutEntry(parseConfig(host, text), host.place, name);
  const after = removeText(host, text, name);
  assertParsesTo(host, after, expected);
  return after;
}

function setText(host: AgentHost, text: string, name: string, entry: Entry): string {
  switch (host.format) {
    case "json":
    case "jsonc":
      return setJsonEntry(text, host.place, name, entry, host.format === "json");
    case "yaml":
      return setYamlEntry(text, host.place, name, entry);
    case "toml":
      return setTomlEntry(text, host.place, name, entry);
  }
}

function removeText(host: AgentHost, text: string, name: string): string {
  switch (host.format) {
    case "json":
    case "jsonc":
      return removeJsonEntry(text, host.place, name, host.format === "json");
    case "yaml":
      return removeYamlEntry(text, host.place, name);
    case "toml":
      return removeTomlEntry(text, host.place, name);
  }
}

/** The content of a file we create for a host that needs more than our servers in it. */
function newDocument(host: AgentHost, content: Entry): string {
  return host.format === "yaml" ? stringifyYaml(content) : `${JSON.stringify(content, null, 2)}\n`;
}

function assertParsesTo(host: AgentHost, text: string, expected: unknown): void {
  if (canonicalJson(parseConfig(host, text)) !== canonicalJson(expected)) {
    throw new Error("the edit would change more than our entry, so nothing was written (please report this)");
  }
}
